//! `web_ai_snapshot`: the agent snapshot substrate of agbrowse and cli-jaw.
//!
//! The core is plain Rust: reading accessibility trees ([`cdp_input`],
//! [`legacy_input`]), the text format ([`serialize`]), hashing ([`hash`],
//! [`dom_hash`]), registries ([`registry`]), target matching ([`targets`],
//! [`js_regex`]), vendor contracts ([`contracts`]) and capture orchestration
//! over any CDP transport ([`capture`]). The napi binding (`binding`, behind the
//! `napi` feature) only converts values at the edge.

pub mod capture;
pub mod cdp_input;
pub mod cdp_rows;
pub mod contracts;
pub mod doctor;
pub mod dom;
pub mod dom_hash;
pub mod dom_snapshot;
pub mod error;
pub mod fast_hash;
pub mod frames;
pub mod hash;
pub mod js_regex;
pub mod json_arena;
pub mod json_text;
pub mod js_string;
pub mod legacy_input;
pub mod native;
pub mod options;
pub mod registry;
pub mod roles;
pub mod selector;
pub mod serialize;
pub mod snapshot;
pub mod staleness;
pub mod targets;
pub mod tree;
pub mod viewport;
pub mod websocket;

#[cfg(feature = "napi")]
mod binding;
