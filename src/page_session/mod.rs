//! What a page session keeps in Rust between its captures: the ref
//! numbering, the mirror of the page's document, the refs the JS side
//! was last sent, and its book (`book`: the revision, the latest text of
//! each shape, the watch states, the cache and loading rules) and the rule
//! that says when the page has settled after an action (`settle`), and
//! what each look of a `waitForUiChange` means (`ui_wait`). One object per session, owned by it and freed with it:
//! there is no process-wide store, so no session is ever evicted for
//! another (the store this replaces kept 16 and silently let a 17th capture
//! in full for the rest of its life).
//!
//! The JS session holds this behind the binding's `NativeSession`; a capture
//! is handed an `Arc` of it (`capture::context::Incremental::state`) and takes the
//! mirror out for its duration, so two captures of one session never patch
//! one mirror at once: the second finds none and reads the whole page.

use std::sync::{Arc, Mutex, MutexGuard};

pub mod book;
// The settle rule and the wait's judgement are asked only through the binding
// (and their own tests): a build without it has no caller for them.
#[cfg_attr(not(feature = "napi"), allow(dead_code))]
pub mod settle;
#[cfg_attr(not(feature = "napi"), allow(dead_code))]
pub mod ui_wait;

use crate::incremental::Mirror;
use crate::text::numbering::RefMemory;
use crate::text::sent_refs::SentRefs;
use book::Book;

/// Above this many remembered elements a session forgets those unseen for longest.
pub const MAX_REMEMBERED_REFS: usize = 50_000;

#[derive(Default)]
struct Held {
    /// The numbering as the last capture left it; a capture reads a snapshot of it (`Arc`).
    numbering: Arc<RefMemory>,
    /// The watcher token of the document the mirror is of, and the mirror.
    mirror: Option<(String, Mirror)>,
    /// The refs of the last snapshot the session was sent (`text::sent_refs`).
    sent: Option<SentRefs>,
    /// The revision and the latest snapshot of each shape (`book`).
    book: Book,
}

#[derive(Default)]
pub struct PageSessionState {
    held: Mutex<Held>,
}

impl std::fmt::Debug for PageSessionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = self.lock();
        f.debug_struct("PageSessionState")
            .field("mirror_nodes", &held.mirror.as_ref().map(|(_, m)| m.len()))
            .field("sent_refs", &held.sent.as_ref().map(|s| s.refs.len()))
            .finish()
    }
}

impl PageSessionState {
    pub fn new() -> Arc<PageSessionState> {
        Arc::new(PageSessionState::default())
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        // A panic elsewhere while holding the lock leaves the data usable: each
        // field is replaced whole, never left half written.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The numbering a capture starts from.
    pub fn numbering(&self) -> Arc<RefMemory> {
        self.lock().numbering.clone()
    }

    /// Remember the numbers a capture gave (`seen`: element key and number) and the next free one.
    pub fn learn<'k>(&self, seen: impl IntoIterator<Item = (&'k str, u32)>, next: u32) {
        let mut held = self.lock();
        Arc::make_mut(&mut held.numbering).learn(seen, next, MAX_REMEMBERED_REFS);
    }

    /// Take the mirror if it is of the document `token`; a mirror of another document is dropped.
    pub fn take_mirror(&self, token: &str) -> Option<Mirror> {
        let mut held = self.lock();
        match held.mirror.take() {
            Some((t, m)) if t == token => Some(m),
            _ => None,
        }
    }

    /// Keep `mirror`, of the document `token`, for the next capture.
    pub fn put_mirror(&self, token: &str, mirror: Mirror) {
        self.lock().mirror = Some((token.to_string(), mirror));
    }

    pub fn take_sent(&self) -> Option<SentRefs> {
        self.lock().sent.take()
    }

    pub fn put_sent(&self, sent: SentRefs) {
        self.lock().sent = Some(sent);
    }

    /// Drop the mirror and the sent refs (the numbering stays: refs stay stable).
    pub fn forget(&self) {
        let mut held = self.lock();
        held.mirror = None;
        held.sent = None;
    }

    /// Read or write the session's book (its revision, latest texts and watch states).
    pub fn book<R>(&self, f: impl FnOnce(&mut Book) -> R) -> R {
        f(&mut self.lock().book)
    }

    /// How many nodes the mirror holds, and how many refs the session was last sent.
    pub fn sizes(&self) -> (usize, usize, usize) {
        let held = self.lock();
        (held.mirror.as_ref().map_or(0, |(_, m)| m.len()), held.sent.as_ref().map_or(0, |s| s.refs.len()), held.numbering.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirror_is_given_back_only_for_its_document_and_once() {
        let s = PageSessionState::new();
        s.put_mirror("doc-1", Mirror::default());
        assert!(s.take_mirror("doc-2").is_none(), "another document");
        assert!(s.take_mirror("doc-1").is_none(), "dropped when the document changed");
        s.put_mirror("doc-1", Mirror::default());
        assert!(s.take_mirror("doc-1").is_some());
        assert!(s.take_mirror("doc-1").is_none(), "taken once: a second capture at the same time reads the whole page");
    }

    #[test]
    fn sessions_are_independent_and_unbounded() {
        // The store this replaces evicted the 17th: every one of 100 sessions keeps its mirror.
        let all: Vec<_> = (0..100).map(|_| PageSessionState::new()).collect();
        for (i, s) in all.iter().enumerate() {
            s.put_mirror(&format!("doc-{i}"), Mirror::default());
        }
        for (i, s) in all.iter().enumerate() {
            assert!(s.take_mirror(&format!("doc-{i}")).is_some(), "session {i} lost its mirror");
        }
    }

    #[test]
    fn forgetting_keeps_the_numbering() {
        let s = PageSessionState::new();
        s.learn([("k1", 1), ("k2", 2)], 3);
        s.put_mirror("doc", Mirror::default());
        s.put_sent(SentRefs::default());
        s.forget();
        assert!(s.take_mirror("doc").is_none());
        assert!(s.take_sent().is_none());
        assert_eq!(s.numbering().next, 3);
        assert_eq!(s.sizes().2, 2);
    }
}
