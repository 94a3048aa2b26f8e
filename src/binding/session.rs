//! A page session's state in Rust (`NativeSession`) and the session's rules
//! JS calls: comparing snapshots, untrusted-content boundaries, faults.

use super::*;
use super::{action::*, capture::*};

/// A page session's state in Rust (`crate::page_session`): its ref
/// numbering, its mirror and the refs it was last sent, and over a
/// `{ cdpEndpoint }` its own DevTools connection, kept for the session's
/// life. The JS session holds this object; `close()` (or the object being
/// collected) frees it all.
#[napi]
#[derive(Clone)]
pub struct NativeSession {
    pub(super) state: std::sync::Arc<crate::page_session::PageSessionState>,
    link: std::sync::Arc<crate::native::KeptConnection>,
}

#[napi]
impl NativeSession {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> NativeSession {
        NativeSession { state: crate::page_session::PageSessionState::new(), link: std::sync::Arc::new(crate::native::KeptConnection::default()) }
    }

    /// The numbers as arrays (what a capture without this object takes).
    #[napi]
    pub fn to_numbering(&self) -> RefNumbering {
        let memory = self.state.numbering();
        let (keys, numbers) = memory.entries().into_iter().map(|(k, n)| (k.to_string(), n)).unzip();
        RefNumbering { keys, numbers, next: memory.next }
    }

    /// Remember numbers given elsewhere: `keys[i]` got `numbers[i]`; `next` is the first not given.
    #[napi]
    pub fn learn(&self, keys: Vec<String>, numbers: Vec<u32>, next: u32) {
        self.state.learn(keys.iter().map(String::as_str).zip(numbers), next);
    }

    /// Drop the mirror and the refs last sent: the next capture reads the whole page.
    #[napi]
    pub fn forget(&self) {
        self.state.forget();
    }

    /// `[mirrorNodes, sentRefs, numberedElements]`: what the session holds.
    #[napi]
    pub fn sizes(&self) -> Vec<u32> {
        let (m, s, n) = self.state.sizes();
        vec![m as u32, s as u32, n as u32]
    }

    /// Forget everything and close the session's own connection, if it has one.
    #[napi]
    pub async fn close(&self) {
        self.state.forget();
        self.state.book(|b| b.clear());
        self.link.close().await;
    }

    /// The session's revision (0 before its first snapshot).
    #[napi(getter)]
    pub fn revision(&self) -> u32 {
        self.state.book(|b| b.revision())
    }

    /// The next look captures: an action ran, or the caller invalidated the session.
    #[napi]
    pub fn mark_dirty(&self) {
        self.state.book(|b| b.mark_dirty());
    }

    /// A full-capture session may answer from its last snapshot of `shape` (younger than `ttlMs`, nothing made it stale).
    #[napi]
    pub fn may_answer_from_cache(&self, shape: String, ttl_ms: f64) -> bool {
        let ttl = std::time::Duration::from_secs_f64((ttl_ms.max(0.0) / 1000.0).min(1e9));
        self.state.book(|b| b.may_answer_from_cache(&shape, ttl, std::time::Instant::now()))
    }

    /// The page's watch state is the one of the last snapshot of `shape`.
    #[napi]
    pub fn unchanged_since(&self, shape: String, state: Value) -> bool {
        let state = crate::page_session::book::WatchState::of(&state);
        self.state.book(|b| b.unchanged_since(&shape, state.as_ref()))
    }

    /// What the look before a capture tells it: `[reuse, sawChange]`.
    #[napi]
    pub fn before_capture(&self, shape: String, state: Value, token: Option<String>) -> Vec<bool> {
        let state = crate::page_session::book::WatchState::of(&state);
        let b = self.state.book(|b| b.before(&shape, state.as_ref(), token.as_deref()));
        vec![b.reuse, b.saw_change]
    }

    /// The latest snapshot of `shape` was recorded for a look the caller never got.
    #[napi]
    pub fn forget_latest(&self, shape: String) {
        self.state.book(|b| b.forget_latest(&shape));
    }

    /// The capture found the page as the last snapshot of `shape` showed it.
    #[napi]
    pub fn record_unchanged(&self, shape: String, state: Value) {
        let state = crate::page_session::book::WatchState::of(&state);
        self.state.book(|b| b.unchanged(&shape, state, std::time::Instant::now()));
    }

    /// Number a new snapshot of `shape` (`keep`: it becomes the latest of its shape):
    /// `{ revision, changed, delta?, observedChange }`.
    #[napi]
    pub fn record(&self, shape: String, snapshot: RecordInput, state: Value, keep: bool) -> Value {
        let state = crate::page_session::book::WatchState::of(&state);
        let boundaries = match (&snapshot.nonce, &snapshot.origin) {
            (Some(nonce), Some(origin)) => Some(crate::page_session::book::Boundaries { nonce, origin }),
            _ => None,
        };
        let r = self
            .state
            .book(|b| b.record(&shape, &snapshot.text, boundaries, snapshot.url.as_deref(), state, &snapshot.snapshot_id, keep, std::time::Instant::now()));
        serde_json::to_value(r).unwrap_or(Value::Null)
    }

    /// One of the session's recent snapshots (an action accepts any of them: refs are stable).
    #[napi]
    pub fn knows_snapshot(&self, snapshot_id: String) -> bool {
        self.state.book(|b| b.knows_snapshot(&snapshot_id))
    }

    /// A capture over the session's own connection to `endpoint` (opened on
    /// first use, kept): with `incremental`, a repeat capture of what changed.
    #[napi]
    pub async fn capture_endpoint(&self, endpoint: EndpointInput, options: Value, incremental: Option<IncrementalInput>) -> CaptureOutcome {
        let base = incremental.as_ref().and_then(|i| i.base.clone());
        let record = incremental.as_ref().and_then(super::capture::record_as);
        let (mut opts, mut ctx) = match capture_options(&options, None) {
            Ok(o) => o,
            Err(e) => return capture_outcome(Err(e), false, None),
        };
        let endpoint = match Endpoint::try_from(endpoint) {
            Ok(e) => e,
            Err(e) => return capture_outcome(Err(e), false, None),
        };
        ctx.numbering = Some(self.state.numbering());
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(opts.timeout_ms.max(1) as u64);
        let (conn, world) = match Box::pin(self.link.get(&endpoint, deadline)).await {
            Ok(c) => c,
            Err(e) => return capture_outcome(Err(e), false, None),
        };
        ctx.world = world;
        ctx.incremental = incremental.map(|i| incremental_of(i, &self.state));
        let left = deadline.saturating_duration_since(std::time::Instant::now()).as_millis() as u32;
        opts.timeout_ms = left.max(1);
        let sent = ctx.incremental.as_ref().map(|_| (self.state.clone(), base));
        let prefix = opts.ref_prefix.clone();
        let captured = Box::pin(crate::trace::timed_async("capture", crate::capture::capture_incremental(&*conn, opts, ctx))).await;
        let outcome = crate::trace::timed("session.outcome", || session_outcome(captured, false, sent, Some((&self.state, prefix.as_str())), record.as_ref()));
        self.link.keep_world(&conn, outcome.world.clone().and_then(|w| world_of(Some(w)))).await;
        if conn.broken().is_some() {
            self.link.drop_broken(&conn).await;
        }
        outcome
    }

    /// Follow the tab's requests over the session's connection (the Network domain), for settling after actions.
    #[napi]
    pub async fn track_requests(&self, endpoint: EndpointInput, timeout_ms: u32) -> Outcome {
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(timeout_ms.max(1) as u64);
        let result = match Endpoint::try_from(endpoint) {
            Ok(endpoint) => Box::pin(self.link.track_requests(&endpoint, deadline)).await,
            Err(e) => Err(e),
        };
        Outcome { error: result.err().map(Into::into) }
    }

    /// The tab's requests in flight over the session's connection: `[url, ageMs]` each.
    #[napi]
    pub async fn requests_in_flight(&self) -> Vec<RequestInFlight> {
        self.link.requests_in_flight().await.into_iter().map(|(url, age)| RequestInFlight { url, age_ms: age.as_secs_f64() * 1000.0 }).collect()
    }

    /// One CDP command on the tab over the session's connection: its result as JSON text.
    #[napi]
    pub async fn send(&self, endpoint: EndpointInput, method: String, params: Option<Value>, timeout_ms: u32) -> EvaluateOutcome {
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(timeout_ms.max(1) as u64);
        let params = params.unwrap_or_else(|| Value::Object(Default::default()));
        let result = match Endpoint::try_from(endpoint) {
            Ok(endpoint) => Box::pin(self.link.call(&endpoint, &method, &params, deadline)).await,
            Err(e) => Err(e),
        };
        match result {
            Ok(v) => EvaluateOutcome { value: Some(v), error: None },
            Err(e) => EvaluateOutcome { value: None, error: Some(e.into()) },
        }
    }

    /// Follow the tab's JavaScript dialogs over the session's connection (the Page domain).
    #[napi]
    pub async fn watch_dialogs(&self, endpoint: EndpointInput, timeout_ms: u32) -> Outcome {
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(timeout_ms.max(1) as u64);
        let result = match Endpoint::try_from(endpoint) {
            Ok(endpoint) => Box::pin(self.link.watch_dialogs(&endpoint, deadline)).await,
            Err(e) => Err(e),
        };
        Outcome { error: result.err().map(Into::into) }
    }

    /// The JavaScript dialog open in the tab, if one is (after `watchDialogs`).
    #[napi]
    pub async fn dialog(&self) -> Option<OpenDialog> {
        self.link.dialog().await.map(|d| OpenDialog { kind: d.kind, message: d.message, default_prompt: d.default_prompt, url: d.url })
    }

    /// Call `function_source(...args)` in our world of the tab, over the session's connection.
    #[napi]
    /// `global`: the function is installed there once per document and only called after.
    pub async fn evaluate_endpoint(
        &self,
        endpoint: EndpointInput,
        function_source: String,
        global: Option<String>,
        args: Vec<Value>,
        timeout_ms: u32,
    ) -> EvaluateOutcome {
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(timeout_ms.max(1) as u64);
        let result = match Endpoint::try_from(endpoint) {
            Ok(endpoint) => match Box::pin(self.link.get(&endpoint, deadline)).await {
                Ok((conn, _)) => {
                    let r = Box::pin(self.link.evaluate(&conn, &function_source, global.as_deref(), &args, deadline)).await;
                    if r.as_ref().is_err_and(crate::native::is_fatal) {
                        self.link.drop_broken(&conn).await;
                    }
                    r
                }
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        match result {
            Ok(v) => EvaluateOutcome { value: Some(v), error: None },
            Err(e) => EvaluateOutcome { value: None, error: Some(e.into()) },
        }
    }

    /// Run one action on the tab over the session's connection.
    #[napi]
    pub async fn act_endpoint(&self, endpoint: EndpointInput, input: ActionInput) -> ActionResult {
        let request = request_of(input);
        let started = std::time::Instant::now();
        let deadline = started + std::time::Duration::from_millis(request.timeout_ms.max(1) as u64);
        let opened = match Endpoint::try_from(endpoint) {
            Ok(endpoint) => Box::pin(self.link.get(&endpoint, deadline)).await,
            Err(e) => Err(e),
        };
        match opened {
            Ok((conn, _)) => {
                let left = deadline.saturating_duration_since(std::time::Instant::now()).as_millis() as u32;
                let mut o = Box::pin(act::run(&*conn, &ActionRequest { timeout_ms: left.max(1), ..request })).await;
                // A tab that went away fails the action with its cause, not as a timeout.
                if !o.success {
                    if let Some(e) = conn.broken() {
                        self.link.drop_broken(&conn).await;
                        return action_failed_to_connect(e, started);
                    }
                }
                o.action_ms = started.elapsed().as_secs_f64() * 1000.0;
                action_result(o)
            }
            Err(e) => action_failed_to_connect(e, started),
        }
    }
}

/// A snapshot as the session's book numbers it.
#[napi(object)]
pub struct RecordInput {
    pub snapshot_id: String,
    /// The whole text (inside untrusted-content boundaries when `nonce` is given).
    pub text: String,
    pub url: Option<String>,
    pub nonce: Option<String>,
    pub origin: Option<String>,
}

/// Seed 004 §4.4: the page's first loading signal (`page`, from its watcher), a
/// progressbar in `text`, or requests the last action started (`inFlight`); else null.
#[napi]
pub fn loading_state(text: String, page: Option<Value>, in_flight: Vec<String>) -> Option<Value> {
    crate::page_session::book::loading_state(&text, page.as_ref(), &in_flight)
}

/// [`loading_state`] of a snapshot whose capture said whether it shows a
/// progressbar (`CaptureOutcome::progress`), so that its text need not cross again.
#[napi]
pub fn loading_state_given(progress: bool, page: Option<Value>, in_flight: Vec<String>) -> Option<Value> {
    crate::page_session::book::loading_state_given(progress, page.as_ref(), &in_flight)
}

/// One look at a page settling after an action (`page_session::settle`).
#[napi(object)]
pub struct SettleLook {
    pub answered: bool,
    pub quiet_ms: f64,
    pub loading: bool,
    pub requests: u32,
    pub waited_ms: f64,
    pub acted_ms: f64,
}

/// What a settling look means: `{ settled: true }`, `{ gaveUp: true }`, or `{ lookAgainInMs }`.
#[napi(object)]
pub struct SettleVerdict {
    pub settled: bool,
    pub gave_up: bool,
    pub look_again_in_ms: f64,
}

/// Whether the page has settled (quiet for `quietMs`, nothing in flight), or when to look again.
#[napi]
pub fn settle_verdict(look: SettleLook, quiet_ms: f64, settle_ms: f64) -> SettleVerdict {
    use crate::page_session::settle::{judge, Look, Rule, Verdict};
    let look = Look {
        answered: look.answered,
        quiet_ms: look.quiet_ms,
        loading: look.loading,
        requests: look.requests as usize,
        waited_ms: look.waited_ms,
        acted_ms: look.acted_ms,
    };
    match judge(Rule { quiet_ms, settle_ms }, look) {
        Verdict::Settled => SettleVerdict { settled: true, gave_up: false, look_again_in_ms: 0.0 },
        Verdict::GaveUp => SettleVerdict { settled: false, gave_up: true, look_again_in_ms: 0.0 },
        Verdict::LookAgainIn(ms) => SettleVerdict { settled: false, gave_up: false, look_again_in_ms: ms },
    }
}

/// One `waitForUiChange`'s judgement (`page_session::ui_wait`): the JS session
/// watches, looks and sleeps; this says what each watch and look means.
#[napi]
pub struct UiChangeWait {
    inner: std::sync::Mutex<crate::page_session::ui_wait::UiWait>,
}

#[napi]
impl UiChangeWait {
    /// `base`: the watch state of the snapshot the change is judged against.
    #[napi(constructor)]
    pub fn new(timeout_ms: f64, window_ms: f64, base: Value) -> UiChangeWait {
        let base = crate::page_session::book::WatchState::of(&base);
        UiChangeWait { inner: std::sync::Mutex::new(crate::page_session::ui_wait::UiWait::new(timeout_ms, window_ms, base)) }
    }

    fn with<R>(&self, f: impl FnOnce(&mut crate::page_session::ui_wait::UiWait) -> R) -> R {
        f(&mut self.inner.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// `t` ms since the wait began: the timeout has passed.
    #[napi]
    pub fn timed_out(&self, t: f64) -> bool {
        self.with(|w| w.timed_out(t))
    }

    /// The watch state at `t`: `'look'`, `'candidate'` (the candidate held still), or the ms to poll after.
    #[napi]
    pub fn watched(&self, state: Value, t: f64) -> Either<String, f64> {
        use crate::page_session::ui_wait::Next;
        let quiet = state.get("quietMs").and_then(Value::as_f64).unwrap_or(0.0);
        let state = crate::page_session::book::WatchState::of(&state);
        match self.with(|w| w.watched(state, quiet, t)) {
            Next::Look => Either::A("look".to_string()),
            Next::Candidate => Either::A("candidate".to_string()),
            Next::Poll(ms) => Either::B(ms),
        }
    }

    /// A look's outcome: `'done'`, `'candidate'` (keep this snapshot as the candidate), or `'again'`.
    #[napi]
    pub fn looked(&self, state: Value, after: Value, now: f64, snapshot: bool, wanted: bool, as_candidate: bool) -> &'static str {
        use crate::page_session::book::WatchState;
        use crate::page_session::ui_wait::Looked;
        let (state, after) = (WatchState::of(&state), WatchState::of(&after));
        match self.with(|w| w.looked(state.as_ref(), after, now, snapshot, wanted, as_candidate)) {
            Looked::Done => "done",
            Looked::Candidate => "candidate",
            Looked::Again => "again",
        }
    }

    /// A candidate is held (a wanted change that has not held still yet).
    #[napi(getter)]
    pub fn has_candidate(&self) -> bool {
        self.with(|w| w.has_candidate())
    }
}

/// How often a `waitForUiChange` asks the page's watcher while nothing moves.
#[napi]
pub const UI_WAIT_POLL_MS: f64 = crate::page_session::ui_wait::POLL_MS;

/// A `delta: true` look answers with the delta: it is under 70% of the whole text's tokens.
#[napi]
pub fn delta_is_shorter(full_text: String, delta_text: String) -> bool {
    crate::page_session::book::delta_is_shorter(&full_text, &delta_text)
}

#[napi(object)]
pub struct EvaluateOutcome {
    /// The function's return value as JSON text.
    pub value: Option<String>,
    pub error: Option<ErrorInit>,
}

/// A JavaScript dialog open in a tab.
#[napi(object)]
pub struct OpenDialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[napi(js_name = "type")]
    pub kind: String,
    pub message: String,
    pub default_prompt: Option<String>,
    pub url: String,
}

/// A request in flight, and how long ago it started.
#[napi(object)]
pub struct RequestInFlight {
    pub url: String,
    pub age_ms: f64,
}

/// A session's incremental input as the capture takes it.
pub(super) fn incremental_of(i: IncrementalInput, state: &std::sync::Arc<crate::page_session::PageSessionState>) -> crate::capture::context::Incremental {
    crate::capture::context::Incremental {
        state: state.clone(),
        token: i.token,
        session: i.session,
        reuse: i.reuse.unwrap_or(false),
        always: i.always.unwrap_or(false),
        changed: i.changed.unwrap_or(false),
        held: i.held.unwrap_or(0) as usize,
        after: i.after,
    }
}

/// A session capture's outcome: unchanged, or the snapshot as the session takes it.
pub(super) fn session_outcome(
    r: std::result::Result<crate::capture::SessionCapture, WebAiError>,
    numbered: bool,
    sent: Option<(std::sync::Arc<crate::page_session::PageSessionState>, Option<String>)>,
    learn: Option<(&crate::page_session::PageSessionState, &str)>,
    record: Option<&super::capture::RecordAs>,
) -> CaptureOutcome {
    match r {
        Ok(crate::capture::SessionCapture::Unchanged { capture_ms, world }) => CaptureOutcome {
            snapshot: None,
            text: None,
            processing_ms: capture_ms,
            error: None,
            next_ref: None,
            ref_keys: None,
            world: Some(world.into()),
            unchanged: true,
            refs_reused: false,
            refs_changed_only: false,
            after: None,
            recorded: None,
            progress: None,
        },
        Ok(crate::capture::SessionCapture::Snapshot(c)) => capture_outcome_learning(Ok(*c), numbered, sent, learn, record),
        Err(e) => capture_outcome(Err(e), numbered, None),
    }
}

/// A page session's watcher (`src/page/watch.js`): a function expression, run in our world.
#[napi]
pub const WATCH_SOURCE: &str = crate::page::WATCH;

/// Where our world keeps the watcher, compiled once per document.
#[napi]
pub const WATCH_GLOBAL: &str = crate::page::WATCH_FN;

/// The fault a JS session's rejection means (`target.crashed`, `target.detached`), or null
/// for a command's own refusal: the one rule the captures use (`capture::js_rejection`).
#[napi]
pub fn fault_of_message(message: String) -> Option<&'static str> {
    match crate::capture::js_rejection(&message) {
        CdpReply::Broken(e) => Some(e.code.code()),
        _ => None,
    }
}

/// `text` without the untrusted-content boundaries (as a session compares it).
#[napi]
pub fn unwrap_untrusted(text: String) -> String {
    crate::text::untrusted::unwrap(&text).to_string()
}

/// Page text inside untrusted-content boundaries, imitations defused (a session's delta).
/// Page text between the agent surface's short boundaries, with a fresh nonce.
#[napi]
pub fn mark_page_text(text: String) -> String {
    crate::text::untrusted::wrap_short(&crate::text::untrusted::neutralise_short(&text), &crate::text::untrusted::short_nonce())
}

#[napi]
pub fn mark_untrusted(text: String, nonce: String, origin: String) -> String {
    crate::text::untrusted::wrap(&crate::text::untrusted::neutralise(&text), &nonce, &origin)
}

/// Compare two snapshots of one session: whether it is a new revision, of
/// which kind, and the delta (SPEC: page sessions).
#[napi]
pub fn compare_snapshots(old_text: String, old_url: Option<String>, new_text: String, new_url: Option<String>, from_revision: u32, to_revision: u32) -> Value {
    use crate::text::delta::{compare, Side};
    let c = compare(&Side { text: &old_text, url: old_url.as_deref() }, &Side { text: &new_text, url: new_url.as_deref() }, from_revision, to_revision);
    let kinds: Vec<&str> = ["hierarchy_diff", "state_change", "text_change"].into_iter().filter(|k| c.kinds.has(k)).collect();
    serde_json::json!({
        "change": c.is_change(),
        "observedChange": c.kinds.main(),
        "kinds": kinds,
        "navigated": c.navigated,
        "delta": c.delta,
    })
}
