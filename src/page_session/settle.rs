//! When a page has settled after an action: the rule a page session's
//! settle loop asks at each look of the page's watcher. The loop itself and
//! its timers are JS's (`lib/session.cjs`); what a look means is decided here.

/// An action is never settled sooner than this after it began (or the quiet
/// time, when that is shorter), nor sooner after it ended than it took: the
/// requests it started are reported by the browser a little after the input
/// event returns, and a page that changed nothing looks quiet at once.
pub const SETTLE_MIN_MS: f64 = 50.0;

/// How long a page that is not settled yet is left before the next look, at most.
pub const SETTLE_POLL_MS: f64 = 25.0;

/// The session's settling: how long the DOM must be quiet, and how long to wait at most.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub quiet_ms: f64,
    pub settle_ms: f64,
}

/// One look at the page while it settles.
#[derive(Debug, Clone, Copy, Default)]
pub struct Look {
    /// The watcher answered (a page that cannot answer is not quiet).
    pub answered: bool,
    /// How long the DOM has been quiet, as the watcher says.
    pub quiet_ms: f64,
    /// The document is still loading.
    pub loading: bool,
    /// Requests the action started that are still in flight.
    pub requests: usize,
    /// Since settling began.
    pub waited_ms: f64,
    /// How long the action itself took (settling began that long after it started).
    pub acted_ms: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    Settled,
    /// The most the session waits has passed: the page is taken as it is, unsettled.
    GaveUp,
    /// Look again after this many milliseconds.
    LookAgainIn(f64),
}

pub fn judge(rule: Rule, look: Look) -> Verdict {
    let quiet = look.answered && look.quiet_ms >= rule.quiet_ms && !look.loading;
    // On a loaded machine (the action itself was slow), as long again after it as it took.
    let floor = rule.quiet_ms.min((SETTLE_MIN_MS - look.acted_ms).max(look.acted_ms));
    if quiet && look.requests == 0 && look.waited_ms >= floor {
        return Verdict::Settled;
    }
    if look.waited_ms >= rule.settle_ms {
        return Verdict::GaveUp;
    }
    // Quiet but not for long enough yet, and nothing in flight: look again when it will have been.
    let short = if look.answered && look.requests == 0 && !look.loading { (rule.quiet_ms - look.quiet_ms).max(floor - look.waited_ms) } else { SETTLE_POLL_MS };
    Verdict::LookAgainIn(SETTLE_POLL_MS.min((short + 1.0).max(1.0)).min((rule.settle_ms - look.waited_ms).max(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: Rule = Rule { quiet_ms: 100.0, settle_ms: 1500.0 };

    fn look(quiet_ms: f64, waited_ms: f64) -> Look {
        Look { answered: true, quiet_ms, waited_ms, acted_ms: 10.0, ..Look::default() }
    }

    #[test]
    fn a_quiet_page_with_nothing_in_flight_is_settled() {
        assert_eq!(judge(RULE, look(150.0, 60.0)), Verdict::Settled);
    }

    #[test]
    fn requests_in_flight_loading_or_no_answer_keep_it_unsettled() {
        assert_eq!(judge(RULE, Look { requests: 1, ..look(500.0, 60.0) }), Verdict::LookAgainIn(SETTLE_POLL_MS));
        assert_eq!(judge(RULE, Look { loading: true, ..look(500.0, 60.0) }), Verdict::LookAgainIn(SETTLE_POLL_MS));
        assert_eq!(judge(RULE, Look { answered: false, ..look(500.0, 60.0) }), Verdict::LookAgainIn(SETTLE_POLL_MS));
    }

    #[test]
    fn never_settled_sooner_than_the_action_could_report_its_requests() {
        // A page quiet at once is not settled 5 ms after a 10 ms action: 40 ms more first.
        assert_eq!(judge(RULE, look(500.0, 5.0)), Verdict::LookAgainIn(25.0));
        assert_eq!(judge(RULE, look(500.0, 30.0)), Verdict::LookAgainIn(11.0));
        assert_eq!(judge(RULE, look(500.0, 40.0)), Verdict::Settled);
        // A slow action (300 ms) waits as long again, up to the quiet time.
        assert!(matches!(judge(RULE, Look { acted_ms: 300.0, ..look(500.0, 80.0) }), Verdict::LookAgainIn(_)));
        assert_eq!(judge(RULE, Look { acted_ms: 300.0, ..look(500.0, 100.0) }), Verdict::Settled);
    }

    #[test]
    fn a_page_almost_quiet_is_looked_at_when_it_will_be() {
        assert_eq!(judge(RULE, look(90.0, 200.0)), Verdict::LookAgainIn(11.0));
    }

    #[test]
    fn gives_up_at_the_cap_and_never_sleeps_past_it() {
        assert_eq!(judge(RULE, Look { requests: 2, ..look(0.0, 1500.0) }), Verdict::GaveUp);
        assert_eq!(judge(RULE, Look { requests: 2, ..look(0.0, 1490.0) }), Verdict::LookAgainIn(10.0));
    }
}
