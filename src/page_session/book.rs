//! A page session's book: when its revision moves, what a repeat look may
//! answer from the last snapshot, the page's loading state, and when a
//! delta is worth sending instead of the whole text. What a change *is*
//! (churn aside, which kinds) is `text::revision`'s and `text::delta`'s;
//! this file keeps the session's side: its revision, the latest text of each
//! text shape (the options that shape a snapshot's text, as a key: snapshots
//! compare only within one), and the page's watch state at each look.
//!
//! The JS session keeps only what must be JS: the snapshot objects it hands
//! back, the timers of its waits, and Playwright's request events.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use serde_json::Value;

use crate::text::delta::{compare, Delta, Side};

/// `delta: true` answers with the delta when it is under this share of the
/// full text's tokens: a delta near the size of the page costs the reader
/// more (it must be put together with the last text) than it saves.
#[cfg_attr(not(feature = "napi"), allow(dead_code))] // the binding's
pub const DELTA_SHARE: f64 = 0.7;

/// The session's snapshot ids an action accepts as current (refs are stable
/// within a session, so any of its recent snapshots will do).
const KNOWN_SNAPSHOTS: usize = 1000;

/// The page's watch state (`src/page/watch.js`): its document (`token`),
/// how many mutations and inputs it has seen (`seq`), and a fingerprint of
/// what it cannot count (`fp`). Two equal states are one unchanged page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WatchState {
    pub token: Option<String>,
    pub seq: Option<String>,
    pub fp: Option<String>,
}

impl WatchState {
    /// The state the watcher answered (JSON), or `None` when it did not answer.
    pub fn of(v: &Value) -> Option<WatchState> {
        let o = v.as_object()?;
        // seq is a number and fp a string in practice; both are kept as text so
        // that any JSON value compares as JavaScript's `===` would for these.
        let text = |k: &str| o.get(k).filter(|v| !v.is_null()).map(|v| v.to_string());
        Some(WatchState { token: o.get("token").and_then(Value::as_str).map(str::to_string), seq: text("seq"), fp: text("fp") })
    }
}

/// Two looks saw the same page: both answered, and nothing was recorded between them.
pub fn same(a: Option<&WatchState>, b: Option<&WatchState>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a == b)
}

struct Latest {
    /// The text without untrusted-content boundaries (a new nonce each time).
    body: String,
    url: Option<String>,
    revision: u32,
    at: Instant,
    state: Option<WatchState>,
}

/// What a look before capturing tells the capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Before {
    /// The last snapshot of this shape is of this document: it can answer for an unchanged page.
    pub reuse: bool,
    /// Mutations or input since the last capture's look: read the changed subtrees at once.
    pub saw_change: bool,
}

/// A snapshot as the session numbered it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recorded {
    pub revision: u32,
    pub changed: bool,
    /// Against the last snapshot of the same shape, if there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta: Option<RecordedDelta>,
    /// The kind of change, when the revision moved and there was a snapshot to compare with.
    pub observed_change: Option<&'static str>,
}

/// The delta as the session's snapshot carries it: `text::delta::Delta` and the revisions it spans.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedDelta {
    pub from_revision: u32,
    pub to_revision: u32,
    #[serde(flatten)]
    pub delta: Delta,
}

/// Untrusted-content boundaries a snapshot's text carries (its nonce and origin).
pub struct Boundaries<'a> {
    pub nonce: &'a str,
    pub origin: &'a str,
}

#[derive(Default)]
pub struct Book {
    revision: u32,
    latest: FxHashMap<String, Latest>,
    /// The watch state of the last snapshot of any shape (`None` inside: the watcher did not answer).
    last_state: Option<Option<WatchState>>,
    /// An action ran or `invalidate()` was called since the last snapshot: no cached answer.
    dirty: bool,
    known: FxHashSet<String>,
    known_order: VecDeque<String>,
}

impl Book {
    pub fn revision(&self) -> u32 {
        self.revision
    }

    /// The next look must capture (an action ran, or the caller said so).
    pub fn mark_dirty(&mut self) {
        self.dirty = true;
    }

    /// A session that captures in full may answer from its last snapshot of
    /// this shape when it is younger than `ttl` and nothing made it stale;
    /// the page's watch state then decides ([`Book::unchanged_since`]).
    pub fn may_answer_from_cache(&self, shape: &str, ttl: Duration, now: Instant) -> bool {
        !self.dirty && self.latest.get(shape).is_some_and(|l| now.saturating_duration_since(l.at) < ttl)
    }

    /// The page's watch state is the one of the last snapshot of this shape.
    pub fn unchanged_since(&self, shape: &str, state: Option<&WatchState>) -> bool {
        same(state, self.latest.get(shape).and_then(|l| l.state.as_ref()))
    }

    /// What the look before a capture (its watch state, and the document
    /// `token` an incremental capture reads) tells the capture.
    pub fn before(&self, shape: &str, state: Option<&WatchState>, token: Option<&str>) -> Before {
        let reuse = token.is_some() && self.latest.get(shape).and_then(|l| l.state.as_ref()).is_some_and(|s| s.token.as_deref() == token);
        let saw_change = match (state, self.last_state.as_ref().and_then(Option::as_ref)) {
            (Some(s), Some(l)) => s.seq != l.seq || s.token != l.token,
            _ => false,
        };
        Before { reuse, saw_change }
    }

    /// The capture found the page as the last snapshot of this shape showed it.
    pub fn unchanged(&mut self, shape: &str, state: Option<WatchState>, now: Instant) {
        if let Some(l) = self.latest.get_mut(shape) {
            l.state = state;
            l.at = now;
        }
        self.dirty = false;
    }

    /// Number a new snapshot: the revision moves on a meaningful change
    /// against the last snapshot of the same shape (the first snapshot is
    /// revision 1; with no snapshot of this shape to compare with, any
    /// change of the page's watch state counts). With `keep` (not an
    /// `allRefs` look past the session), it becomes the latest of its shape.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        shape: &str,
        text: &str,
        boundaries: Option<Boundaries<'_>>,
        url: Option<&str>,
        state: Option<WatchState>,
        snapshot_id: &str,
        keep: bool,
        now: Instant,
    ) -> Recorded {
        let body = if boundaries.is_some() { crate::text::untrusted::unwrap(text) } else { text };
        let prev = self.latest.get(shape);
        let from = prev.map_or(self.revision, |p| p.revision);
        let comparison = prev.map(|p| compare(&Side { text: &p.body, url: p.url.as_deref() }, &Side { text: body, url }, from, self.revision + 1));
        let changed = if self.revision == 0 {
            true
        } else if let Some(c) = &comparison {
            c.is_change()
        } else {
            match &self.last_state {
                None => true,
                Some(last) => !same(state.as_ref(), last.as_ref()),
            }
        };
        if changed {
            self.revision += 1;
        }
        let (delta, observed_change) = match comparison {
            Some(c) => {
                let observed = if changed { c.kinds.main() } else { None };
                let mut d = c.delta;
                if let Some(b) = &boundaries {
                    d.text = crate::text::untrusted::wrap(&crate::text::untrusted::neutralise(&d.text), b.nonce, b.origin);
                }
                (Some(RecordedDelta { from_revision: from, to_revision: self.revision, delta: d }), observed)
            }
            None => (None, None),
        };
        if keep {
            self.latest.insert(
                shape.to_string(),
                Latest { body: body.to_string(), url: url.map(str::to_string), revision: self.revision, at: now, state: state.clone() },
            );
            self.dirty = false;
        }
        self.last_state = Some(state);
        if self.known.insert(snapshot_id.to_string()) {
            self.known_order.push_back(snapshot_id.to_string());
            if self.known_order.len() > KNOWN_SNAPSHOTS {
                if let Some(old) = self.known_order.pop_front() {
                    self.known.remove(&old);
                }
            }
        }
        Recorded { revision: self.revision, changed, delta, observed_change }
    }

    /// One of the session's recent snapshots.
    pub fn knows_snapshot(&self, id: &str) -> bool {
        self.known.contains(id)
    }

    /// Forget the latest snapshot of `shape`, recorded for a look the caller
    /// never got (its refs could not be taken): the next of that shape is
    /// compared with none, not with a text the caller never saw.
    pub fn forget_latest(&mut self, shape: &str) {
        self.latest.remove(shape);
    }

    /// Forget every snapshot (the revision stays: it never goes back).
    pub fn clear(&mut self) {
        self.latest.clear();
        self.last_state = None;
        self.known.clear();
        self.known_order.clear();
    }

    /// Bytes held for the texts, roughly (a session's size, said in the README).
    pub fn text_bytes(&self) -> usize {
        self.latest.values().map(|l| l.body.len()).sum()
    }
}

/// Seed 004 §4.4: the page's first loading signal, or `None` (never partial).
/// The page's own signals (`page`, from its watcher) come first; then a
/// progressbar the snapshot shows; then requests the last action started.
#[cfg_attr(not(feature = "napi"), allow(dead_code))] // the binding's
pub fn loading_state(text: &str, page: Option<&Value>, in_flight: &[String]) -> Option<Value> {
    loading_state_given(shows_progress(text), page, in_flight)
}

/// Whether a snapshot's text shows a progressbar (a line of that role).
#[cfg_attr(not(feature = "napi"), allow(dead_code))] // the binding's
pub fn shows_progress(text: &str) -> bool {
    // Most pages have none: one `memmem` over the text settles it without reading its lines.
    if memchr::memmem::find(text.as_bytes(), b"- progressbar").is_none() {
        return false;
    }
    text.lines().any(|l| l.trim_start().strip_prefix("- progressbar").is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')))
}

/// [`loading_state`] of a text whose progressbar was looked for already
/// (`progress`: a session's capture says so with its outcome, so that JS
/// need not hand the text back to Rust).
#[cfg_attr(not(feature = "napi"), allow(dead_code))] // the binding's
pub fn loading_state_given(progress: bool, page: Option<&Value>, in_flight: &[String]) -> Option<Value> {
    if let Some(p) = page.filter(|p| !p.is_null() && *p != &Value::Bool(false)) {
        return Some(p.clone());
    }
    if progress {
        return Some(serde_json::json!({ "active": true, "signal": "progress_indicator", "source": "snapshot", "detail": "a progressbar is on the page" }));
    }
    if !in_flight.is_empty() {
        let first: Vec<&str> = in_flight.iter().take(3).map(String::as_str).collect();
        return Some(serde_json::json!({
            "active": true,
            "signal": "network",
            "source": "network",
            "detail": format!("{} request(s) started by the last action in flight: {}", in_flight.len(), first.join(", ")),
        }));
    }
    None
}

/// Whether a `delta: true` look answers with the delta rather than the whole text.
#[cfg_attr(not(feature = "napi"), allow(dead_code))] // the binding's
pub fn delta_is_shorter(full_text: &str, delta_text: &str) -> bool {
    let (full, delta) = (crate::compat::hash::estimate_tokens(full_text), crate::compat::hash::estimate_tokens(delta_text));
    (delta as f64) < DELTA_SHARE * full as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(token: &str, seq: u32) -> Option<WatchState> {
        WatchState::of(&serde_json::json!({ "token": token, "seq": seq, "fp": "x", "quietMs": 5 }))
    }

    fn rec(b: &mut Book, shape: &str, text: &str, st: Option<WatchState>, id: &str) -> Recorded {
        b.record(shape, text, None, Some("https://a.example/"), st, id, true, Instant::now())
    }

    #[test]
    fn a_progressbar_found_once_gives_the_loading_state_the_text_would() {
        let texts = ["- main:\n  - progressbar \"Loading\"", "- progressbars", "- text: progressbar", "- progressbar_x", "  - progressbar [ref=@e1]"];
        for t in texts {
            assert_eq!(loading_state_given(shows_progress(t), None, &[]), loading_state(t, None, &[]), "{t:?}");
        }
        assert!(shows_progress(texts[0]) && shows_progress(texts[4]));
        assert!(!shows_progress(texts[1]) && !shows_progress(texts[2]) && !shows_progress(texts[3]));
        let page = serde_json::json!({ "active": true, "signal": "aria_busy" });
        assert_eq!(loading_state_given(true, Some(&page), &[]), Some(page), "the page's own signal comes first");
    }

    #[test]
    fn the_revision_moves_only_on_a_meaningful_change_of_the_same_shape() {
        let mut b = Book::default();
        let r1 = rec(&mut b, "s", "- document \"a\":\n  - button \"Go\" [ref=@e1]", state("d", 1), "i1");
        assert_eq!((r1.revision, r1.changed, r1.delta.is_none()), (1, true, true), "the first snapshot is revision 1");
        let r2 = rec(&mut b, "s", "- document \"a\":\n  - button \"Go\" [ref=@e1]", state("d", 2), "i2");
        assert_eq!((r2.revision, r2.changed), (1, false), "mutations that change no line are not a revision");
        assert_eq!(r2.delta.as_ref().map(|d| (d.from_revision, d.to_revision, d.delta.unchanged)), Some((1, 1, 1)));
        let r3 = rec(&mut b, "s", "- document \"a\":\n  - button \"Stop\" [ref=@e1]", state("d", 3), "i3");
        assert_eq!((r3.revision, r3.changed, r3.observed_change), (2, true, Some("text_change")));
        assert_eq!(r3.delta.as_ref().map(|d| d.delta.changed.len()), Some(1));
    }

    #[test]
    fn a_look_the_caller_never_got_is_no_base_for_the_next_delta() {
        let mut b = Book::default();
        rec(&mut b, "s", "- document \"a\":\n  - button \"Go\" [ref=@e1]", state("d", 1), "i1");
        let lost = rec(&mut b, "s", "- document \"a\":\n  - button \"Stop\" [ref=@e1]", state("d", 2), "i2");
        assert_eq!(lost.revision, 2);
        b.forget_latest("s");
        let next = rec(&mut b, "s", "- document \"a\":\n  - button \"Stop\" [ref=@e1]", state("d", 3), "i3");
        assert!(next.delta.is_none(), "no delta from revision 2, which the caller never got");
        assert_eq!((next.revision, next.changed), (3, true), "the page moved since the caller's revision 1");
    }

    #[test]
    fn a_new_shape_moves_the_revision_only_when_the_page_moved() {
        let mut b = Book::default();
        rec(&mut b, "s", "- document \"a\"", state("d", 1), "i1");
        let same_page = rec(&mut b, "other", "- document \"a\":\n  - text: more", state("d", 1), "i2");
        assert_eq!((same_page.revision, same_page.changed), (1, false), "another view of an unchanged page");
        let moved = rec(&mut b, "third", "- document \"a\"", state("d", 4), "i3");
        assert_eq!((moved.revision, moved.changed), (2, true));
    }

    #[test]
    fn the_cache_answers_only_when_fresh_clean_and_unchanged() {
        let mut b = Book::default();
        let t0 = Instant::now();
        b.record("s", "- document", None, None, state("d", 1), "i1", true, t0);
        let ttl = Duration::from_secs(5);
        assert!(b.may_answer_from_cache("s", ttl, t0 + Duration::from_secs(1)));
        assert!(!b.may_answer_from_cache("s", ttl, t0 + Duration::from_secs(6)), "too old");
        assert!(!b.may_answer_from_cache("t", ttl, t0), "another shape");
        assert!(b.unchanged_since("s", state("d", 1).as_ref()));
        assert!(!b.unchanged_since("s", state("d", 2).as_ref()));
        assert!(!b.unchanged_since("s", None), "a watcher that did not answer proves nothing");
        b.mark_dirty();
        assert!(!b.may_answer_from_cache("s", ttl, t0), "an action ran");
    }

    #[test]
    fn the_look_before_a_capture_says_reuse_and_change() {
        let mut b = Book::default();
        rec(&mut b, "s", "- document", state("d", 1), "i1");
        assert_eq!(b.before("s", state("d", 1).as_ref(), Some("d")), Before { reuse: true, saw_change: false });
        assert_eq!(b.before("s", state("d", 2).as_ref(), Some("d")), Before { reuse: true, saw_change: true });
        assert_eq!(b.before("s", state("e", 1).as_ref(), Some("e")), Before { reuse: false, saw_change: true }, "another document");
        assert_eq!(b.before("s", None, None), Before { reuse: false, saw_change: false });
    }

    #[test]
    fn allrefs_looks_do_not_become_the_latest() {
        let mut b = Book::default();
        rec(&mut b, "s", "- document", state("d", 1), "i1");
        b.record("s", "- document:\n  - button \"x\" [ref=@e1]", None, None, state("d", 2), "i2", false, Instant::now());
        let r = rec(&mut b, "s", "- document", state("d", 3), "i3");
        assert!(!r.changed, "compared with the last kept snapshot, not the allRefs look");
        assert!(b.knows_snapshot("i2"));
    }

    #[test]
    fn a_delta_of_untrusted_text_is_inside_the_snapshots_boundaries() {
        let mut b = Book::default();
        let wrap = |t: &str| crate::text::untrusted::wrap(t, "n1", "https://a.example");
        let first = wrap("- document \"a\":\n  - text: one");
        b.record("s", &first, Some(Boundaries { nonce: "n1", origin: "https://a.example" }), None, state("d", 1), "i1", true, Instant::now());
        let second = wrap("- document \"a\":\n  - text: two");
        let r = b.record("s", &second, Some(Boundaries { nonce: "n1", origin: "https://a.example" }), None, state("d", 2), "i2", true, Instant::now());
        assert!(r.changed, "compared without the boundaries");
        let text = r.delta.map(|d| d.delta.text).unwrap_or_default();
        assert!(text.starts_with("=== BEGIN UNTRUSTED PAGE CONTENT nonce=n1"), "{text}");
    }

    #[test]
    fn loading_signals_in_order() {
        let page = serde_json::json!({ "active": true, "signal": "aria_busy" });
        assert_eq!(loading_state("- progressbar", Some(&page), &[]), Some(page.clone()), "the page's own signal first");
        let bar = loading_state("- document:\n  - progressbar \"Upload\"", None, &["u".into()]);
        assert_eq!(bar.as_ref().and_then(|v| v["signal"].as_str()), Some("progress_indicator"));
        assert_eq!(loading_state("- document:\n  - progressbars", None, &[]), None, "only the role itself");
        let net = loading_state("- document", Some(&Value::Null), &["a".into(), "b".into(), "c".into(), "d".into()]);
        assert_eq!(net.as_ref().and_then(|v| v["detail"].as_str()), Some("4 request(s) started by the last action in flight: a, b, c"));
        assert_eq!(loading_state("- document", None, &[]), None);
    }

    #[test]
    fn a_delta_is_sent_only_when_well_under_the_whole() {
        assert!(delta_is_shorter(&"x".repeat(400), &"x".repeat(100)));
        assert!(!delta_is_shorter(&"x".repeat(400), &"x".repeat(300)));
    }
}
