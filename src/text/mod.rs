//! The text picture: the serializer and the `WebAiSnapshot` built around it.

pub mod budget;
pub mod delta;
pub mod elements;
pub mod lines;
pub mod numbering;
pub mod revision;
pub mod sent_refs;
pub mod serialize;
pub mod snapshot;
pub mod tokens;
pub mod unseen;
pub mod untrusted;
