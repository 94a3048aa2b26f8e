//! What a page session brings to one capture beside its options: the ref
//! numbering so far, the isolated world a previous capture made, and the
//! mirror slot a repeat capture patches. Options say what the snapshot
//! shows and come from the caller's JSON; this comes from the session, is
//! never read from JSON, and does not change what a capture shows, only
//! how it is numbered and how much of the page must be read again.

use std::sync::Arc;

use crate::text::numbering::RefMemory;

/// One capture's context; the default is a capture with no session.
#[derive(Debug, Clone, Default)]
pub struct CaptureContext {
    /// A page session's ref numbers so far.
    pub numbering: Option<Arc<RefMemory>>,
    /// The isolated world a previous capture of the same page made: reused
    /// when the frame tree shows the same document, saving two round trips.
    pub world: Option<World>,
    /// A page session's mirror slot and its document's watcher token: repeat
    /// captures patch the mirror kept there instead of reading the whole
    /// page (`crate::incremental`).
    pub incremental: Option<Incremental>,
}

/// Where a session keeps its mirror, and which document it must be of.
#[derive(Debug, Clone)]
pub struct Incremental {
    /// The page session's state: its mirror and the refs it was last sent.
    pub state: Arc<crate::page_session::PageSessionState>,
    /// The session watcher's token for the page's current document.
    pub token: String,
    /// The page session's key in the watcher: its record of what changed (sessions on one page each have one).
    pub session: String,
    /// Read only what changed whatever the page's size (else a page under
    /// `REPEAT_MIN_NODES` is captured in full after a change: that costs less).
    pub always: bool,
    /// The session holds the last snapshot built with these options: an
    /// unchanged page may be answered with it.
    pub reuse: bool,
    /// The session's look just before saw the page change since its last
    /// capture: the changed subtrees are asked for with the first question
    /// instead of after it (one round trip fewer; an optimization only).
    pub changed: bool,
    /// How many changed subtrees the session's record held at that look
    /// (`held` in `page/watch.js`'s light look): with `changed`, as many are
    /// asked for with the first question (`capture::repeat`'s bounds).
    pub held: usize,
    /// An expression for our world, evaluated with the subtrees' reading (the
    /// page as the snapshot shows it): its value comes back with the snapshot
    /// (`Captured::after`), which spares the caller a round trip of its own after the capture.
    pub after: Option<String>,
}

/// Two are equal when they name the same session's state (not equal states of two sessions).
impl PartialEq for Incremental {
    fn eq(&self, o: &Incremental) -> bool {
        Arc::ptr_eq(&self.state, &o.state)
            && (&self.token, &self.session, self.always, self.reuse, self.changed, &self.after)
                == (&o.token, &o.session, o.always, o.reuse, o.changed, &o.after)
    }
}

/// Our isolated world in a document: its frame, the document's loader, the context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct World {
    pub frame_id: String,
    pub loader_id: String,
    pub context_id: i64,
    /// The page facts' name for the world's document (see `page_facts.js`), once they ran there.
    pub token: Option<String>,
    /// Whether the page facts of the document's first capture with the DOM engine found it
    /// cheaper to walk than to snapshot (`DomRead::Auto`: see `capture::walk::prefers_walk`),
    /// and no walk of it failed since; None until they ran.
    pub walk: Option<bool>,
    /// Whether the last capture in this world found frames in other processes; None until
    /// one said. A page that had them is asked for its targets in the first batch
    /// (`CaptureSession::early_frames`), which a page without them is spared.
    pub frames: Option<bool>,
    /// A walk's facts ran in this world and left their function there
    /// (`crate::page::SUBTREE_FACTS_FN`): the next walk calls it by name.
    pub walked: bool,
}
