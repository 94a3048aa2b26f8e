//! `web_ai_snapshot`: the agent snapshot substrate of agbrowse and cli-jaw.
//!
//! The core is plain Rust, in one folder a concern:
//! - [`tree`]: the accessibility tree and its readers (CDP replies, the
//!   driver's projected rows, legacy `accessibility.snapshot()` trees), roles;
//! - [`dom`]: the DOM pass (element tree, unique selectors, layout boxes);
//! - [`capture`]: the plan of CDP calls that yields a snapshot, frames;
//! - [`text`]: the serializer and the `WebAiSnapshot`;
//! - [`agent`]: registries, stale verdicts, targets, contracts, the doctor;
//! - [`compat`]: what must match the old JavaScript byte for byte;
//! - [`native`]: the DevTools connection the core opens by itself.
//!
//! The napi binding (`binding`, behind the `napi` feature) only converts
//! values at the edge.

pub mod action;
pub mod agent;
pub mod capture;
pub mod compat;
pub mod dom;
pub mod error;
pub mod native;
pub mod options;
pub mod text;
pub mod tree;

#[cfg(feature = "napi")]
mod binding;
