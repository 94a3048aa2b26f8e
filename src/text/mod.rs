//! The text picture: the serializer and the `WebAiSnapshot` built around it.

pub mod serialize;
pub mod snapshot;
