//! `web_ai_snapshot`: the agent snapshot substrate of agbrowse and cli-jaw.
//!
//! The core is plain Rust, in one folder a concern; every module:
//! - `tree`: the accessibility tree and its readers (CDP replies, the
//!   driver's projected rows, legacy `accessibility.snapshot()` trees), roles;
//! - `engine`: the DOM engine: roles, names and states computed from a
//!   DOM snapshot (HTML-AAM, WAI-ARIA, accname), and the patching of a kept build;
//! - `dom`: the DOM pass (element trees, unique selectors, layout boxes,
//!   what hides text from a person);
//! - `capture`: the plan of CDP calls that yields a snapshot (a state
//!   machine), its driver over the transport trait, frames, a session's
//!   repeat capture, the page read by a walk instead of a DOM snapshot
//!   (`domRead`), the pump a JS thread drives, and the context a page
//!   session brings to a capture beside its options (numbering, world, mirror slot);
//! - `incremental`: a session's mirror of its page and the subtrees read again;
//! - `page_session`: what a page session keeps between its captures, and its
//!   book (the revision, the latest text of each shape, the cache and loading rules);
//! - `page`: the scripts that run in the page, and our world's globals;
//! - `text`: the serializer, the `WebAiSnapshot`, numbering, deltas,
//!   revisions, budgets, tokens, untrusted-content boundaries, what a
//!   snapshot could not see;
//! - `action`: click, fill, select, scroll, and checking a ref on the live page;
//! - `agent`: registries, stale verdicts, targets, vendor contracts, the doctor;
//! - `compat`: what must match the old JavaScript byte for byte;
//! - `native`: the DevTools connection the core opens by itself, and a
//!   session's kept one;
//! - `options`, `error`: snapshot options (what the caller's JSON says a
//!   snapshot shows, nothing of a session's), and the one error type with its code table;
//! - `trace`: phase timings on stderr (`WEB_AI_TRACE=1`), for finding where a look's time goes;
//! - `parallel`: two reads of one input on the machine's two cores;
//! - `allocator` (addon only): the allocator and why.
//!
//! The napi binding (`binding`, behind the `napi` feature) only converts
//! values at the edge.

mod action;
mod agent;
#[cfg(feature = "napi")]
mod allocator;
mod capture;
mod compat;
mod dom;
mod engine;
mod error;
mod incremental;
mod native;
mod options;
mod page;
mod page_session;
mod parallel;
mod text;
mod trace;
mod tree;

// The agent loop's rules, as the JS layer gets them (registry freshness, target matching, vendor contracts, the doctor).
pub use agent::contracts::all_contract_data;
pub use agent::doctor::summarize as summarize_for_doctor;
pub use agent::keys::key_events;
pub use agent::registry::{invalidation as registry_invalidation, is_stale as registry_is_stale, Freshness, RegistryView};
pub use agent::targets::{any_matches, rank as rank_candidates, score_ref, Pattern, PatternSpec, RankInput, RefView, Target};
// What must equal the old JavaScript byte for byte.
pub use compat::dom_hash::{dom_hash_of_html, normalize_dom_for_hash};
// A capture driven from another thread's event loop (the binding's JS thread), and how a JS session's failures read.
pub use capture::pump::{Pump, PumpRequest, PumpStep};
pub use capture::{js_rejection, SessionCapture, FULL_CAPTURE_NOTE, NOT_MIRRORED_NOTE, REPEAT_MIN_NODES};
// A page session's state, and over an endpoint its kept connection.
pub use action::{run as run_action, verify as verify_ref, ActionCode, ActionOutcome, ActionRequest, Checked, RefTarget};
pub use capture::{capture_incremental, capture_with, Captured, CdpCall, CdpReply, CdpTransport, ReplyFuture};
pub use dom::selector::Located;
pub use error::{ErrorCode, Result, WebAiError};
pub use native::{bare_tree, is_fatal, navigate, Dialog, KeptConnection, MAX_MESSAGE_BYTES};
pub use native::{capture_endpoint, Endpoint, NativeConnection};
pub use options::SnapshotOptions;
pub use page_session::PageSessionState;
pub use text::delta::{compare as compare_snapshots, Comparison, Delta, RefChange, Side};
pub use text::numbering::RefMemory;
pub use text::sent_refs::{render as render_sent_refs, SentRefs, Written};
pub use text::serialize::ElementRef;
pub use text::snapshot::{build_snapshot, PageFacts, WebAiSnapshot};
pub use text::tokens::warm as warm_token_counter;
pub use text::untrusted::{neutralise_short as neutralise_page_text, unwrap as unwrap_untrusted, wrap_short as wrap_page_text};
pub use tree::roles::DEFAULT_INTERACTIVE_ROLES;
pub use tree::AxTree;

/// The readers the examples time (`examples/`) and the fuzz tests
/// (`tests/fuzz.rs`) feed: not part of the API.
#[doc(hidden)]
pub mod readers {
    pub use crate::dom::json_arena::parse as parse_json_arena;
    pub use crate::tree::cdp_reader::parse_full_ax_tree;
    pub use crate::tree::rows_reader::parse_rows;

    /// A legacy `accessibility.snapshot()` tree, as JSON text.
    pub fn parse_legacy_tree(text: &str) -> crate::Result<crate::AxTree> {
        let value = crate::compat::json_text::from_str_lossy::<serde_json::Value>(text)
            .map_err(|e| crate::WebAiError::invalid_input("tree", format!("not JSON: {e}")))?;
        crate::tree::legacy_reader::from_value(value)
    }

    /// Read a `DOMSnapshot.captureSnapshot` reply: its element count, if it
    /// is the element tree. With `layout`, its boxes and what hides text too.
    pub fn read_dom_snapshot(text: &str, layout: bool) -> Result<Option<usize>, String> {
        crate::dom::snapshot_reader::read_snapshot(text, layout, layout).map(|r| r.tree.map(|t| t.nodes.len()))
    }

    /// The DOM engine's tree of a `DOMSnapshot.captureSnapshot` reply (its styles from `style_at`).
    pub fn dom_engine_tree(text: &str, style_at: usize) -> Result<crate::AxTree, String> {
        crate::engine::tree_from_snapshot(text, style_at)
    }

    /// Keep a DOMSnapshot reply as a session's mirror and write it back out:
    /// the engine's tree of the reply and of the mirror, as text.
    pub fn mirror_round_trip(text: &str) -> Result<(String, String), String> {
        let reading = |snap: &crate::dom::snapshot_reader::Snapshot<'_>| {
            let page = crate::engine::page::from_snapshot(snap, 1);
            format!("{:?}", crate::engine::build::build(&page).nodes)
        };
        crate::dom::snapshot_reader::with_snapshot(text, |s| {
            let mirror = crate::incremental::Mirror::from_snapshot(s, 1);
            (reading(s), reading(&mirror.to_snapshot()))
        })
    }

    /// Read a `DOM.getDocument` reply and build the selector of every node
    /// in it, as the serializer does for refs: how many were located.
    pub fn locate_all_in_document(text: &str) -> Result<usize, String> {
        let tree = crate::dom::DomTree::from_get_document(text, None)?;
        let backends: Vec<i64> = tree.nodes.iter().map(|n| n.backend).collect();
        let trees = [tree];
        let mut locator = crate::dom::selector::Locator::new(&trees);
        Ok(backends.into_iter().filter(|b| locator.locate(None, *b).is_some()).count())
    }

    /// Any JSON text the way the capture reads small replies.
    pub fn read_lossy_json(text: &str) -> bool {
        crate::compat::json_text::from_str_lossy::<serde_json::Value>(text).is_ok()
    }
}

#[cfg(feature = "napi")]
mod binding;
