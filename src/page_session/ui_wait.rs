//! `waitForUiChange` (seed 004 §4.3): when the page has changed and held
//! still. The page is watched by its watch state; a snapshot is taken only
//! when the state moved, to tell a change from churn; a change counts once
//! it has held still for the stability window. The loop, its timers and the
//! snapshots are the JS session's (`lib/session.cjs`); what each look means
//! is decided here.

use super::book::{same, WatchState};

/// How often the page's watcher is asked while nothing moves.
pub const POLL_MS: f64 = 50.0;

/// One wait's state. Times are milliseconds since the wait began.
#[derive(Debug, Clone)]
pub struct UiWait {
    timeout_ms: f64,
    window_ms: f64,
    /// The watch state last seen.
    seen: Option<WatchState>,
    /// When the state last moved and has not been looked at since.
    dirty_since: Option<f64>,
    /// When the candidate (a wanted change, not yet held still) was seen.
    candidate_at: Option<f64>,
    /// The quiet time the last watch state reported.
    quiet_ms: f64,
}

/// What to do after a watch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    /// Take a snapshot: the page moved, and has been quiet for the window (or moving that long).
    Look,
    /// The candidate has held still for the window: it is the answer.
    Candidate,
    /// Nothing to do yet: watch again after this many milliseconds.
    Poll(f64),
}

/// What a snapshot taken after `Next::Look` means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looked {
    /// The change, held still: the answer.
    Done,
    /// It becomes the candidate: watch on (after the poll interval).
    Candidate,
    /// Not a change the caller waits for (or no snapshot): watch again at once.
    Again,
}

impl UiWait {
    /// `base`: the watch state of the snapshot the change is judged against.
    pub fn new(timeout_ms: f64, window_ms: f64, base: Option<WatchState>) -> UiWait {
        UiWait { timeout_ms, window_ms, seen: base, dirty_since: None, candidate_at: None, quiet_ms: 0.0 }
    }

    pub fn timed_out(&self, t: f64) -> bool {
        t >= self.timeout_ms
    }

    /// The page's watch state at `t` (its quiet time, when it answered).
    pub fn watched(&mut self, state: Option<WatchState>, quiet_ms: f64, t: f64) -> Next {
        if !same(state.as_ref(), self.seen.as_ref()) {
            self.dirty_since.get_or_insert(t);
            self.seen = state;
        }
        self.quiet_ms = quiet_ms;
        match (self.dirty_since, self.candidate_at) {
            (Some(since), _) if quiet_ms >= self.window_ms || t - since >= self.window_ms => Next::Look,
            // The page has not moved since the candidate was read, and not for the window
            // before now: the candidate has held still that long, counted from the page's
            // last change rather than from the look (which a page moving for the whole
            // window takes after its change: a wait then paid the window twice).
            (None, Some(at)) if t - at >= self.window_ms || quiet_ms >= self.window_ms => Next::Candidate,
            _ => Next::Poll(POLL_MS.min((self.timeout_ms - t).max(1.0))),
        }
    }

    /// A look's outcome: the watch state before it (`state`) and after it
    /// (`after`) at `now`; whether it gave a snapshot, whether that is a
    /// change the caller waits for, and whether it says what the candidate said.
    pub fn looked(&mut self, state: Option<&WatchState>, after: Option<WatchState>, now: f64, snapshot: bool, wanted: bool, as_candidate: bool) -> Looked {
        let still = same(after.as_ref(), state);
        self.seen = after;
        self.dirty_since = if still { None } else { Some(now) };
        if !snapshot {
            return Looked::Again;
        }
        if !wanted {
            self.candidate_at = None;
            return Looked::Again;
        }
        if self.quiet_ms >= self.window_ms && still {
            return Looked::Done;
        }
        if as_candidate && self.candidate_at.is_some_and(|at| now - at >= self.window_ms) {
            return Looked::Done;
        }
        self.candidate_at = Some(now);
        Looked::Candidate
    }

    pub fn has_candidate(&self) -> bool {
        self.candidate_at.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(seq: u32) -> Option<WatchState> {
        WatchState::of(&serde_json::json!({ "token": "d", "seq": seq, "fp": "x" }))
    }

    #[test]
    fn an_unchanged_page_is_polled_until_the_timeout() {
        let mut w = UiWait::new(1000.0, 300.0, st(1));
        assert_eq!(w.watched(st(1), 5000.0, 0.0), Next::Poll(POLL_MS));
        assert_eq!(w.watched(st(1), 5000.0, 980.0), Next::Poll(20.0), "never past the timeout");
        assert!(w.timed_out(1000.0));
    }

    #[test]
    fn a_change_that_went_quiet_is_looked_at_and_done_when_it_held_still() {
        let mut w = UiWait::new(5000.0, 300.0, st(1));
        assert_eq!(w.watched(st(2), 10.0, 100.0), Next::Poll(POLL_MS), "moved, not quiet yet");
        assert_eq!(w.watched(st(2), 320.0, 400.0), Next::Look);
        assert_eq!(w.looked(st(2).as_ref(), st(2), 420.0, true, true, false), Looked::Done);
    }

    #[test]
    fn a_page_that_keeps_moving_is_looked_at_after_the_window_and_its_change_must_hold() {
        let mut w = UiWait::new(5000.0, 300.0, st(1));
        assert_eq!(w.watched(st(2), 0.0, 100.0), Next::Poll(POLL_MS));
        assert_eq!(w.watched(st(3), 0.0, 400.0), Next::Look, "moving for the whole window");
        // It moved during the look: a candidate, looked at again when it moves or holds.
        assert_eq!(w.looked(st(3).as_ref(), st(4), 420.0, true, true, false), Looked::Candidate);
        assert_eq!(w.watched(st(4), 50.0, 500.0), Next::Poll(POLL_MS));
        assert_eq!(w.watched(st(5), 0.0, 750.0), Next::Look);
        assert_eq!(w.looked(st(5).as_ref(), st(5), 760.0, true, true, true), Looked::Done, "the same change 340 ms later");
    }

    #[test]
    fn a_candidate_that_holds_still_is_the_answer() {
        let mut w = UiWait::new(5000.0, 300.0, st(1));
        w.watched(st(2), 0.0, 0.0);
        assert_eq!(w.watched(st(3), 0.0, 300.0), Next::Look);
        assert_eq!(w.looked(st(3).as_ref(), st(3), 310.0, true, true, false), Looked::Candidate, "quiet for less than the window");
        assert_eq!(w.watched(st(3), 100.0, 400.0), Next::Poll(POLL_MS));
        assert_eq!(w.watched(st(3), 400.0, 620.0), Next::Candidate);
    }

    #[test]
    fn a_candidate_holds_still_from_the_pages_last_change_not_from_its_look() {
        // A field typed into (moving from the start), then a list rendered at 150 ms:
        // looked at 300 ms, when the window of moving ran out; quiet since 150.
        let mut w = UiWait::new(5000.0, 300.0, st(1));
        assert_eq!(w.watched(st(2), 0.0, 0.0), Next::Poll(POLL_MS));
        assert_eq!(w.watched(st(3), 10.0, 160.0), Next::Poll(POLL_MS));
        assert_eq!(w.watched(st(3), 150.0, 300.0), Next::Look);
        assert_eq!(w.looked(st(3).as_ref(), st(3), 330.0, true, true, false), Looked::Candidate, "quiet 150 ms at the look");
        assert_eq!(w.watched(st(3), 250.0, 400.0), Next::Poll(POLL_MS));
        assert_eq!(w.watched(st(3), 305.0, 455.0), Next::Candidate, "held still for the window since 150 ms, not since the look at 330");
        // A page that moved after the look is looked at again, not answered.
        let mut w = UiWait::new(5000.0, 300.0, st(1));
        w.watched(st(2), 0.0, 0.0);
        assert_eq!(w.watched(st(3), 150.0, 300.0), Next::Look);
        assert_eq!(w.looked(st(3).as_ref(), st(3), 330.0, true, true, false), Looked::Candidate);
        assert_eq!(w.watched(st(4), 10.0, 455.0), Next::Poll(POLL_MS), "moved since the candidate: not the answer");
        assert_eq!(w.watched(st(4), 310.0, 760.0), Next::Look, "read again once quiet");
    }

    #[test]
    fn churn_or_an_unwanted_kind_is_not_a_change() {
        let mut w = UiWait::new(5000.0, 300.0, st(1));
        w.watched(st(2), 400.0, 10.0);
        assert_eq!(w.looked(st(2).as_ref(), st(2), 20.0, true, false, false), Looked::Again);
        assert!(!w.has_candidate());
        assert_eq!(w.watched(st(2), 400.0, 30.0), Next::Poll(POLL_MS), "the state it looked at is seen");
        assert_eq!(w.looked(st(2).as_ref(), st(2), 40.0, false, false, false), Looked::Again, "no snapshot");
    }
}
