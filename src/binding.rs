//! The napi surface: converts values at the edge and nothing else.
//!
//! Values cross as typed objects; JSON text only where it is the faster
//! road: a snapshot (one string instead of thousands of small objects) and
//! CDP replies (already text when the browser's session hands them over).
//! A deliberate failure of a synchronous function is thrown as an `Error`
//! carrying `errorCode`, `stage`, `retryHint` and `evidence`; an async one
//! resolves to an outcome with an `error` of those fields, which the JS
//! layer throws as a `WebAiError`.

// napi-derive registers the exports only outside `cfg(test)`, so in the
// crate's own test build (clippy --all-targets) every export looks unused.
#![cfg_attr(test, allow(dead_code))]

use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use napi_derive::napi;
use serde_json::Value;

use crate::action::{self, ActionRequest, RefTarget};
use crate::agent::targets::{self, Pattern, PatternSpec, RefView, Target};
use crate::agent::{contracts, registry, staleness};
use crate::capture::pump::{Pump, PumpStep};
use crate::capture::{Captured, CdpCall, CdpReply, CdpTransport, ReplyFuture};
use crate::compat::{dom_hash, hash};
use crate::error::{ErrorCode, WebAiError};
use crate::native::{self, Endpoint};
use crate::options::{self, SnapshotOptions};
use crate::text::snapshot::{build_snapshot, PageFacts};
use crate::tree::{cdp_reader, legacy_reader};

#[napi]
pub const DEFAULT_SNAPSHOT_MAX_DEPTH: u32 = options::DEFAULT_SNAPSHOT_MAX_DEPTH;
#[napi]
pub const DEFAULT_MAX_NAME_CHARS: u32 = options::DEFAULT_MAX_NAME_CHARS;
#[napi]
pub const DEFAULT_DOM_HASH_MAX_CHARS: u32 = options::DEFAULT_DOM_HASH_MAX_CHARS;
#[napi]
pub const DEFAULT_TIMEOUT_MS: u32 = options::DEFAULT_TIMEOUT_MS;
#[napi]
pub const DEFAULT_ACTION_TIMEOUT_MS: u32 = action::DEFAULT_ACTION_TIMEOUT_MS;
#[napi]
pub const DEFAULT_SCROLL_AMOUNT: u32 = action::DEFAULT_SCROLL_AMOUNT as u32;
/// The largest websocket message `{ cdpEndpoint }` accepts unless `maxMessageBytes` says otherwise.
#[napi]
pub const DEFAULT_MAX_MESSAGE_BYTES: u32 = native::MAX_MESSAGE_BYTES as u32;
/// `resolveRef(…, { verify: true })`'s default deadline.
#[napi]
pub const DEFAULT_VERIFY_TIMEOUT_MS: u32 = 5000;
/// Below this many DOM nodes a page session's look after a change is a full capture (see `capture::repeat`).
#[napi]
pub const REPEAT_MIN_NODES: u32 = crate::capture::REPEAT_MIN_NODES as u32;
/// `domHashAround`'s default `maxChars` (the snapshot's own is `domHashMaxChars`).
#[napi]
pub const DEFAULT_DOM_HASH_AROUND_MAX_CHARS: u32 = 8192;
/// `summarizeSnapshotForDoctor`'s default `maxRefs`.
#[napi]
pub const DEFAULT_DOCTOR_MAX_REFS: u32 = 8;

#[napi]
pub fn default_interactive_roles() -> Vec<&'static str> {
    crate::tree::roles::DEFAULT_INTERACTIVE_ROLES.to_vec()
}

/// The fields of a `WebAiError`, from the one table in Rust.
#[napi(object)]
pub struct ErrorInit {
    pub error_code: String,
    pub stage: String,
    pub retry_hint: String,
    pub message: String,
    pub evidence: Value,
}

impl From<WebAiError> for ErrorInit {
    fn from(e: WebAiError) -> ErrorInit {
        ErrorInit {
            error_code: e.code.code().to_string(),
            stage: e.code.stage().to_string(),
            retry_hint: e.code.retry_hint().to_string(),
            message: e.message,
            evidence: e.evidence,
        }
    }
}

/// An `Error` object with the `WebAiError` fields, to throw.
fn thrown(env: &Env, e: WebAiError) -> Error {
    let init = ErrorInit::from(e);
    let build = || -> Result<Error> {
        let mut obj = env.create_error(Error::new(Status::GenericFailure, init.message.clone()))?;
        obj.set_named_property("errorCode", init.error_code.as_str())?;
        obj.set_named_property("stage", init.stage.as_str())?;
        obj.set_named_property("retryHint", init.retry_hint.as_str())?;
        obj.set_named_property("evidence", init.evidence.clone())?;
        Ok(Error::from(obj.to_unknown()))
    };
    build().unwrap_or_else(|err| err)
}

#[napi]
pub fn hash_accessibility_snapshot(text: String) -> String {
    hash::hash_accessibility_snapshot(&text)
}

#[napi]
pub fn hash_doctor_field(value: String) -> String {
    hash::hash_doctor_field(&value)
}

#[napi]
pub fn estimate_snapshot_tokens(text: String) -> f64 {
    hash::estimate_tokens(&text) as f64
}

#[napi]
pub fn normalize_dom_for_hash(html: String) -> String {
    dom_hash::normalize_dom_for_hash(&html)
}

/// The `domHashAround` hash of an element's outerHTML.
#[napi]
pub fn dom_hash_of_html(html: String, max_chars: f64) -> String {
    let max = if max_chars.is_finite() && max_chars >= 0.0 { max_chars.min(u32::MAX as f64) as usize } else { usize::MAX };
    dom_hash::dom_hash_of_html(&html, max)
}

#[napi(object)]
pub struct RecordedFacts {
    pub url: Option<String>,
    pub title: Option<String>,
    pub dom_hash: Option<String>,
}

/// Serialize a recorded tree: `kind` is `cdp` (a `getFullAXTree` result as
/// JSON text) or `legacy` (`{ legacyNodes }` flattened by the JS layer).
/// Returns the snapshot as JSON text.
#[napi]
pub fn snapshot_from_tree(env: Env, kind: String, input_json: String, options: Value, facts: Option<RecordedFacts>) -> Result<String> {
    let started = std::time::Instant::now();
    let run = || -> std::result::Result<String, WebAiError> {
        let opts = SnapshotOptions::from_value(&options)?;
        if opts.root_selector.is_some() {
            return Err(WebAiError::invalid_input("options.rootSelector", "rootSelector needs a live page; a recorded tree has no DOM to query"));
        }
        let tree = match kind.as_str() {
            "cdp" => cdp_reader::parse_full_ax_tree(&input_json)?,
            "legacy" => legacy_reader::from_value(
                crate::compat::json_text::from_str_lossy(&input_json)
                    .map_err(|e| WebAiError::invalid_input("legacy accessibility tree", format!("legacy accessibility tree is not valid JSON: {e}")))?,
            )?,
            other => return Err(WebAiError::invalid_input("kind", format!("unknown tree kind {other:?}"))),
        };
        let facts = facts.map(|f| PageFacts { url: f.url, title: f.title, dom_hash: f.dom_hash, ..PageFacts::default() }).unwrap_or_default();
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(build_snapshot(&tree, None, facts, &opts, ms, &[]).to_json())
    };
    run().map_err(|e| thrown(&env, e))
}

/// Validate options (throws `snapshot.invalid-input`).
#[napi]
pub fn validate_options(env: Env, options: Value) -> Result<()> {
    SnapshotOptions::from_value(&options).map(|_| ()).map_err(|e| thrown(&env, e))
}

/// The `WebAiError` fields for an error code (for errors the JS layer
/// detects itself, so every field comes from the one table).
#[napi]
pub fn error_payload(code: String, message: String, evidence: Option<Value>) -> Result<ErrorInit> {
    let Some(c) = ErrorCode::from_code(&code) else {
        return Err(Error::new(Status::InvalidArg, format!("unknown errorCode {code}")));
    };
    Ok(WebAiError::new(c, message).with_evidence(evidence.unwrap_or(Value::Null)).into())
}

#[napi]
pub fn contract_data() -> Value {
    contracts::all_contract_data()
}

// ----- registries and stale refs -----

#[napi(object)]
pub struct RegistryFields {
    pub stale: bool,
    pub snapshot_id: Option<String>,
    pub dom_hash: Option<String>,
    pub ax_hash: Option<String>,
}

#[napi(object)]
pub struct FreshnessFields {
    pub expected_snapshot_id: Option<String>,
    pub current_dom_hash: Option<String>,
    pub current_ax_hash: Option<String>,
}

fn view(r: &RegistryFields) -> registry::RegistryView {
    registry::RegistryView { stale: r.stale, snapshot_id: r.snapshot_id.clone(), dom_hash: r.dom_hash.clone(), ax_hash: r.ax_hash.clone() }
}

#[napi]
pub fn registry_is_stale(registry: Option<RegistryFields>, ctx: FreshnessFields) -> bool {
    let v = registry.as_ref().map(view);
    registry::is_stale(
        v.as_ref(),
        &registry::Freshness { expected_snapshot_id: ctx.expected_snapshot_id, current_dom_hash: ctx.current_dom_hash, current_ax_hash: ctx.current_ax_hash },
    )
}

/// `[domHash, axHash]` to store after an invalidation, or null when nothing changed.
#[napi]
pub fn registry_invalidation(registry: RegistryFields, dom_hash: Option<String>, ax_hash: Option<String>) -> Option<Vec<Option<String>>> {
    registry::invalidation(&view(&registry), &dom_hash, &ax_hash).map(|(d, a)| vec![d, a])
}

#[napi]
pub fn normalize_ref(input: String) -> String {
    registry::normalize_ref(&input)
}

#[napi(string_enum = "lowercase")]
pub enum VerdictKind {
    Same,
    Minor,
    Changed,
    Gone,
}

#[napi(object)]
pub struct Identity {
    pub role: String,
    pub name: String,
}

#[napi(object)]
pub struct Verdict {
    pub verdict: VerdictKind,
    pub message: Option<String>,
    /// The element's role and name now (absent when it is gone).
    pub now: Option<Identity>,
}

fn verdict_kind(v: &str) -> VerdictKind {
    match v {
        "same" => VerdictKind::Same,
        "minor" => VerdictKind::Minor,
        "changed" => VerdictKind::Changed,
        _ => VerdictKind::Gone,
    }
}

/// A ref's element as the snapshot saw it (`was*`) against what the page reports now.
#[napi]
pub fn verify_identity(was_role: String, was_name: String, now_role: String, now_name: String) -> Verdict {
    let (verdict, message) = match staleness::compare(&was_role, &was_name, &now_role, &now_name) {
        staleness::Verdict::Same => (VerdictKind::Same, None),
        staleness::Verdict::Minor { note } => (VerdictKind::Minor, Some(note)),
        staleness::Verdict::Changed { message } => (VerdictKind::Changed, Some(message)),
    };
    Verdict { verdict, message, now: Some(Identity { role: now_role, name: now_name }) }
}

#[napi]
pub fn gone_message(role: String, name: String, ref_id: String) -> String {
    staleness::gone_message(&role, &name, &ref_id)
}

// ----- targets -----

/// A name pattern: a RegExp's `source` and `flags`, or a `substring`.
#[napi(object)]
pub struct PatternInput {
    pub source: Option<String>,
    pub flags: Option<String>,
    pub substring: Option<String>,
}

#[napi(object)]
pub struct TargetInput {
    pub feature: String,
    pub roles: Vec<String>,
    pub names: Vec<PatternInput>,
    pub exclude_names: Vec<PatternInput>,
    pub required: bool,
}

#[napi(object)]
pub struct RefIdentity {
    pub role: String,
    pub name: String,
}

#[napi(object)]
pub struct TargetHit {
    /// Index into the refs given.
    pub index: u32,
    pub confidence: f64,
}

#[napi(object)]
pub struct FeatureHits {
    pub feature: String,
    pub hits: Vec<TargetHit>,
}

fn compile(patterns: Vec<PatternInput>) -> std::result::Result<Vec<Pattern>, WebAiError> {
    patterns
        .into_iter()
        .map(|p| {
            let spec = match (p.source, p.substring) {
                (Some(source), _) => PatternSpec::RegExp { source, flags: p.flags.unwrap_or_default() },
                (None, Some(s)) => PatternSpec::Substring(s),
                (None, None) => PatternSpec::Never,
            };
            Pattern::compile(&spec)
        })
        .collect()
}

/// Snapshot refs that qualify for each target, with their confidence.
#[napi]
pub fn match_targets(env: Env, targets_in: Vec<TargetInput>, refs: Vec<RefIdentity>) -> Result<Vec<FeatureHits>> {
    let run = || -> std::result::Result<Vec<FeatureHits>, WebAiError> {
        let mut out = Vec::with_capacity(targets_in.len());
        for t in targets_in {
            let target = Target { roles: t.roles, names: compile(t.names)?, exclude_names: compile(t.exclude_names)?, required: t.required };
            let hits = refs
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    targets::score_ref(&target, &RefView { role: &r.role, name: &r.name }).map(|confidence| TargetHit { index: i as u32, confidence })
                })
                .collect();
            out.push(FeatureHits { feature: t.feature, hits });
        }
        Ok(out)
    };
    run().map_err(|e| thrown(&env, e))
}

#[napi(object)]
pub struct RankCandidate {
    pub confidence: f64,
    pub role: Option<String>,
    pub name: String,
    pub snapshot_ref: bool,
}

/// Ranked order of candidates (indices, stable, highest first).
#[napi]
pub fn rank_candidates(env: Env, candidates: Vec<RankCandidate>, expected_role: Option<String>, expected_names: Vec<PatternInput>) -> Result<Vec<u32>> {
    let expected = compile(expected_names).map_err(|e| thrown(&env, e))?;
    let inputs: Vec<targets::RankInput> =
        candidates.into_iter().map(|c| targets::RankInput { confidence: c.confidence, role: c.role, name: c.name, is_snapshot_ref: c.snapshot_ref }).collect();
    Ok(targets::rank(&inputs, expected_role.as_deref().filter(|r| !r.is_empty()), &expected))
}

/// `summarizeSnapshotForDoctor`; `snapshot.refs` is an ordered array.
#[napi]
pub fn summarize_for_doctor(snapshot: Value, max_refs: f64) -> Value {
    let max = if max_refs.is_finite() && max_refs > 0.0 { max_refs as usize } else { 0 };
    crate::agent::doctor::summarize(&snapshot, max)
}

// ----- transports -----

/// One CDP command for the JS driver to send.
#[napi(object)]
pub struct CdpRequest {
    pub method: String,
    pub params: Value,
    /// The out-of-process frame whose own session must answer (absent: the page's).
    pub session: Option<String>,
    /// Copy only these fields of the reply into the text (see `project` in the JS layer).
    pub project: Option<Value>,
}

/// `send(request) => Promise<string>`: resolves to the reply's `result` as
/// JSON text, rejects with the browser's error.
type JsSend = ThreadsafeFunction<CdpRequest, Promise<String>, CdpRequest, Status, false>;

/// A CDP session held by JS (a Playwright page's, `{ cdp }`), as a transport.
struct JsTransport {
    send: JsSend,
}

impl CdpTransport for JsTransport {
    fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a> {
        let request = CdpRequest {
            method: call.method.to_string(),
            params: call.params.clone(),
            session: call.session.map(str::to_string),
            project: call.project.cloned(),
        };
        Box::pin(async move {
            match self.send.call_async_catch(request).await {
                Ok(promise) => match promise.await {
                    Ok(text) => CdpReply::Ok(text),
                    Err(e) => crate::capture::js_rejection(&e.reason),
                },
                Err(e) => crate::capture::js_rejection(&e.reason),
            }
        })
    }
}

#[napi(object)]
pub struct CaptureOutcome {
    /// The snapshot as JSON text.
    pub snapshot: Option<String>,
    /// A page session's capture: the snapshot's `text`, which its JSON then has as `""`.
    pub text: Option<String>,
    /// Time spent in this package apart from waiting for the browser.
    pub processing_ms: f64,
    pub error: Option<ErrorInit>,
    /// With a numbering: each ref's element key (in `refs` order; null for none).
    pub ref_keys: Option<Vec<Option<String>>>,
    /// With a numbering: the first ref number not given yet.
    pub next_ref: Option<u32>,
    /// The isolated world the page scripts ran in: hand it to the next capture of the same page.
    pub world: Option<WorldInput>,
    /// A page session's repeat capture found the page as its last snapshot showed it (no `snapshot`).
    pub unchanged: bool,
    /// Some of `snapshot.refs` are `0`: the same as in the session's snapshot named by `base`.
    pub refs_reused: bool,
    /// `refs` holds only the refs that changed since the session's `base`; the
    /// others are the base's, which has the same refs in the same order.
    pub refs_changed_only: bool,
    /// The value of `IncrementalInput::after` as JSON, when a repeat capture read subtrees and it answered.
    pub after: Option<String>,
}

/// Our isolated world in a page's document (see `SnapshotOptions::world`).
#[napi(object)]
#[derive(Clone)]
pub struct WorldInput {
    pub frame_id: String,
    pub loader_id: String,
    pub context_id: f64,
    pub token: Option<String>,
}

impl From<crate::options::World> for WorldInput {
    fn from(w: crate::options::World) -> WorldInput {
        WorldInput { frame_id: w.frame_id, loader_id: w.loader_id, context_id: w.context_id as f64, token: w.token }
    }
}

/// A world handed back by JS; anything odd is no world (the capture makes a new one).
fn world_of(w: Option<WorldInput>) -> Option<crate::options::World> {
    let w = w?;
    let id = w.context_id;
    (id.is_finite() && id.fract() == 0.0 && id.abs() < 9.0e15 && !w.frame_id.is_empty() && !w.loader_id.is_empty()).then_some(crate::options::World {
        frame_id: w.frame_id,
        loader_id: w.loader_id,
        context_id: id as i64,
        token: w.token,
    })
}

/// The outcome JS gets. `sent`: a page session's slot and the snapshot its
/// JS side holds (`IncrementalInput::base`), whose unchanged refs are written
/// as `0` (`crate::text::sent_refs`).
fn capture_outcome(
    r: std::result::Result<Captured, WebAiError>,
    numbered: bool,
    sent: Option<(std::sync::Arc<crate::page_session::PageSessionState>, Option<String>)>,
) -> CaptureOutcome {
    capture_outcome_learning(r, numbered, sent, None)
}

/// [`capture_outcome`], the numbers given learnt by a session's numbering (`learn`: it and the refs' prefix).
fn capture_outcome_learning(
    r: std::result::Result<Captured, WebAiError>,
    numbered: bool,
    sent: Option<(std::sync::Arc<crate::page_session::PageSessionState>, Option<String>)>,
    learn: Option<(&crate::page_session::PageSessionState, &str)>,
) -> CaptureOutcome {
    let mut c = match r {
        Ok(c) => c,
        Err(e) => {
            return CaptureOutcome {
                snapshot: None,
                text: None,
                processing_ms: 0.0,
                error: Some(e.into()),
                ref_keys: None,
                next_ref: None,
                world: None,
                unchanged: false,
                refs_reused: false,
                refs_changed_only: false,
                after: None,
            }
        }
    };
    use crate::text::sent_refs::Written;
    if let Some((numbering, prefix)) = learn {
        let s = &c.snapshot;
        let seen = s.ref_keys.iter().zip(&s.refs).filter_map(|(k, r)| Some((k.as_deref()?, r.ref_id.strip_prefix(prefix)?.parse::<u32>().ok()?)));
        numbering.learn(seen, s.next_ref);
    }
    let (json, written, text) = match sent {
        Some((state, base)) => {
            let last = state.take_sent();
            let (json, written) = crate::text::sent_refs::render(&c.snapshot, last.as_ref(), base.as_deref());
            // What JS now holds: the refs move (the snapshot goes once written).
            let refs = std::mem::take(&mut c.snapshot.refs);
            state.put_sent(crate::text::sent_refs::SentRefs { snapshot_id: c.snapshot.snapshot_id.clone(), refs });
            (json, written, Some(std::mem::take(&mut c.snapshot.text)))
        }
        None => (c.snapshot.to_json(), Written::Whole, None),
    };
    CaptureOutcome {
        unchanged: false,
        refs_reused: written == Written::Zeroed,
        refs_changed_only: written == Written::Changed,
        snapshot: Some(json),
        text,
        processing_ms: c.processing_ms,
        error: None,
        next_ref: numbered.then_some(c.snapshot.next_ref),
        ref_keys: numbered.then_some(c.snapshot.ref_keys),
        world: c.world.map(WorldInput::from),
        after: c.after,
    }
}

/// A page session's state in Rust (`crate::page_session`): its ref
/// numbering, its mirror and the refs it was last sent, and over a
/// `{ cdpEndpoint }` its own DevTools connection, kept for the session's
/// life. The JS session holds this object; `close()` (or the object being
/// collected) frees it all.
#[napi]
#[derive(Clone)]
pub struct NativeSession {
    state: std::sync::Arc<crate::page_session::PageSessionState>,
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
        self.link.close().await;
    }

    /// A capture over the session's own connection to `endpoint` (opened on
    /// first use, kept): with `incremental`, a repeat capture of what changed.
    #[napi]
    pub async fn capture_endpoint(&self, endpoint: EndpointInput, options: Value, incremental: Option<IncrementalInput>) -> CaptureOutcome {
        let base = incremental.as_ref().and_then(|i| i.base.clone());
        let mut opts = match capture_options(&options, None) {
            Ok(o) => o,
            Err(e) => return capture_outcome(Err(e), false, None),
        };
        let endpoint = match Endpoint::try_from(endpoint) {
            Ok(e) => e,
            Err(e) => return capture_outcome(Err(e), false, None),
        };
        opts.numbering = Some(self.state.numbering());
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(opts.timeout_ms.max(1) as u64);
        let (conn, world) = match self.link.get(&endpoint, deadline).await {
            Ok(c) => c,
            Err(e) => return capture_outcome(Err(e), false, None),
        };
        opts.world = world;
        opts.incremental = incremental.map(|i| incremental_of(i, &self.state));
        let left = deadline.saturating_duration_since(std::time::Instant::now()).as_millis() as u32;
        opts.timeout_ms = left.max(1);
        let sent = opts.incremental.as_ref().map(|_| (self.state.clone(), base));
        let prefix = opts.ref_prefix.clone();
        let outcome = session_outcome(crate::capture::capture_incremental(&*conn, opts).await, false, sent, Some((&self.state, prefix.as_str())));
        self.link.keep_world(&conn, outcome.world.clone().and_then(|w| world_of(Some(w)))).await;
        if conn.broken().is_some() {
            self.link.drop_broken(&conn).await;
        }
        outcome
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
            Ok(endpoint) => match self.link.get(&endpoint, deadline).await {
                Ok((conn, _)) => {
                    let r = self.link.evaluate(&conn, &function_source, global.as_deref(), &args, deadline).await;
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
            Ok(endpoint) => self.link.get(&endpoint, deadline).await,
            Err(e) => Err(e),
        };
        match opened {
            Ok((conn, _)) => {
                let left = deadline.saturating_duration_since(std::time::Instant::now()).as_millis() as u32;
                let mut o = action::run(&*conn, &ActionRequest { timeout_ms: left.max(1), ..request }).await;
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

/// A session's incremental input as the capture takes it.
fn incremental_of(i: IncrementalInput, state: &std::sync::Arc<crate::page_session::PageSessionState>) -> crate::options::Incremental {
    crate::options::Incremental {
        state: state.clone(),
        token: i.token,
        session: i.session,
        reuse: i.reuse.unwrap_or(false),
        always: i.always.unwrap_or(false),
        changed: i.changed.unwrap_or(false),
        after: i.after,
    }
}

/// A session capture's outcome: unchanged, or the snapshot as the session takes it.
fn session_outcome(
    r: std::result::Result<crate::capture::SessionCapture, WebAiError>,
    numbered: bool,
    sent: Option<(std::sync::Arc<crate::page_session::PageSessionState>, Option<String>)>,
    learn: Option<(&crate::page_session::PageSessionState, &str)>,
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
        },
        Ok(crate::capture::SessionCapture::Snapshot(c)) => capture_outcome_learning(Ok(*c), numbered, sent, learn),
        Err(e) => capture_outcome(Err(e), numbered, None),
    }
}

#[napi(object)]
pub struct RefNumbering {
    pub keys: Vec<String>,
    pub numbers: Vec<u32>,
    /// The first number not given yet.
    pub next: u32,
}

/// Options, with a session's numbering when one is given.
fn capture_options(options: &Value, numbering: Option<RefNumbering>) -> std::result::Result<SnapshotOptions, WebAiError> {
    let mut opts = SnapshotOptions::from_value(options)?;
    if let Some(n) = numbering {
        if n.keys.len() != n.numbers.len() {
            return Err(WebAiError::invalid_input("numbering", "numbering.keys and numbering.numbers must have the same length"));
        }
        let known = n.keys.into_iter().zip(n.numbers).collect();
        opts.numbering = Some(std::sync::Arc::new(crate::text::numbering::RefMemory::new(known, n.next)));
    }
    Ok(opts)
}

/// A page session's mirror slot and the watcher token of the page's document.
#[napi(object)]
pub struct IncrementalInput {
    pub token: String,
    /// The page session's key in the page's watcher (`track` in src/page/watch.js).
    pub session: String,
    /// Read only what changed whatever the page's size (`incremental: 'always'`).
    pub always: Option<bool>,
    /// The session holds its last snapshot with these options (an unchanged page is answered with `unchanged`).
    pub reuse: Option<bool>,
    /// The session's look just before saw the page change since its last capture
    /// (the changed subtrees are asked for with the first question: an optimization only).
    pub changed: Option<bool>,
    /// The `snapshotId` of the session's last snapshot whose refs the JS side holds:
    /// refs unchanged since are sent as `0` (`refsReused`).
    pub base: Option<String>,
    /// An expression for our world, evaluated with the changed subtrees' reading;
    /// its value comes back as the outcome's `after` (JSON).
    pub after: Option<String>,
}

/// A capture over a CDP session held by JS, driven from JS's own thread
/// (see `capture::pump` for why): `poll()` hands out the requests to send,
/// `deliver(id, text, error)` takes each reply (neither: no answer in time),
/// and the poll after the last one gives the outcome. `world`: the one the
/// previous capture over this session returned, reused if the page shows
/// the same document. `incremental`: a page session's mirror slot; the
/// capture then patches the mirror kept there (DOM engine) or keeps one for
/// next time.
#[napi]
pub struct CapturePump {
    pump: Pump<CaptureOutcome>,
}

/// One command for JS to send (see `CapturePump`).
#[napi(object)]
pub struct PumpRequest {
    pub id: u32,
    pub method: String,
    pub params: Value,
    pub session: Option<String>,
    pub project: Option<Value>,
    /// How long to wait before delivering it as unanswered.
    pub timeout_ms: f64,
}

/// What a poll found: requests to send, or (once) the outcome.
#[napi(object)]
pub struct PumpPoll {
    pub requests: Vec<PumpRequest>,
    pub outcome: Option<CaptureOutcome>,
}

#[napi]
impl CapturePump {
    #[napi(constructor)]
    pub fn new(
        options: Value,
        numbering: Option<RefNumbering>,
        world: Option<WorldInput>,
        incremental: Option<IncrementalInput>,
        session: Option<&NativeSession>,
    ) -> CapturePump {
        let numbered = numbering.is_some();
        let base = incremental.as_ref().and_then(|i| i.base.clone());
        let state = session.map(|s| s.state.clone());
        let opts = capture_options(&options, numbering).and_then(|mut opts| {
            if let Some(s) = &state {
                opts.numbering = Some(s.numbering());
            }
            opts.world = world_of(world);
            opts.incremental = match (incremental, &state) {
                (Some(i), Some(s)) => Some(incremental_of(i, s)),
                (Some(_), None) => return Err(WebAiError::invalid_input("incremental", "an incremental capture needs the session's NativeSession")),
                (None, _) => None,
            };
            Ok(opts)
        });
        let sent = opts.as_ref().ok().and_then(|o| o.incremental.as_ref()).map(|i| (i.state.clone(), base.clone()));
        let prefix = opts.as_ref().map(|o| o.ref_prefix.clone()).unwrap_or_default();
        let pump = Pump::new(move |transport| async move {
            let opts = match opts {
                Ok(o) => o,
                Err(e) => return capture_outcome(Err(e), numbered, None),
            };
            let learn = state.as_deref().map(|s| (s, prefix.as_str()));
            session_outcome(crate::capture::capture_incremental(&transport, opts).await, numbered, sent, learn)
        });
        CapturePump { pump }
    }

    #[napi]
    pub fn poll(&mut self) -> PumpPoll {
        match self.pump.poll() {
            PumpStep::Send(requests) => PumpPoll {
                requests: requests
                    .into_iter()
                    .map(|r| PumpRequest {
                        id: r.id,
                        method: r.method,
                        params: r.params,
                        session: r.session,
                        project: r.project,
                        timeout_ms: r.timeout_ms as f64,
                    })
                    .collect(),
                outcome: None,
            },
            PumpStep::Done(outcome) => PumpPoll { requests: Vec::new(), outcome: Some(outcome) },
            PumpStep::Finished => PumpPoll {
                requests: Vec::new(),
                outcome: Some(capture_outcome(Err(WebAiError::new(ErrorCode::CaptureFailed, "the capture already finished")), false, None)),
            },
        }
    }

    /// The reply to request `id`: its result as JSON text, or the browser's
    /// error message, or (neither) no answer in time.
    #[napi]
    pub fn deliver(&self, id: u32, text: Option<String>, error: Option<String>) {
        let reply = match (text, error) {
            (Some(t), _) => CdpReply::Ok(t),
            (None, Some(m)) => crate::capture::js_rejection(&m),
            (None, None) => CdpReply::TimedOut,
        };
        self.pump.deliver(id, reply);
    }
}

#[napi(object)]
pub struct EndpointInput {
    /// `http(s)://host:port` or a `ws(s)://` DevTools URL.
    pub cdp_endpoint: String,
    pub target_id: Option<String>,
    pub url_includes: Option<String>,
    /// The largest websocket message accepted, in bytes (default 64 MiB).
    pub max_message_bytes: Option<f64>,
}

impl TryFrom<EndpointInput> for Endpoint {
    type Error = WebAiError;

    fn try_from(e: EndpointInput) -> std::result::Result<Endpoint, WebAiError> {
        let max_message_bytes = match e.max_message_bytes {
            None => None,
            Some(n) if n.is_finite() && n.fract() == 0.0 && (1024.0..=(u32::MAX as f64)).contains(&n) => Some(n as usize),
            Some(n) => {
                return Err(WebAiError::invalid_input(
                    "maxMessageBytes",
                    format!("maxMessageBytes must be a whole number of bytes from 1024 to 4294967295, got {n}"),
                ))
            }
        };
        Ok(Endpoint { url: e.cdp_endpoint, target_id: e.target_id, url_includes: e.url_includes, max_message_bytes })
    }
}

/// Connect to a DevTools endpoint from Rust, snapshot the chosen tab, detach.
/// Async on tokio: waiting on the browser holds no thread.
#[napi]
pub async fn capture_native(endpoint: EndpointInput, options: Value, numbering: Option<RefNumbering>) -> CaptureOutcome {
    let numbered = numbering.is_some();
    let opts = match capture_options(&options, numbering) {
        Ok(o) => o,
        Err(e) => return capture_outcome(Err(e), numbered, None),
    };
    let endpoint = match Endpoint::try_from(endpoint) {
        Ok(e) => e,
        Err(e) => return capture_outcome(Err(e), numbered, None),
    };
    capture_outcome(native::capture_endpoint(&endpoint, opts).await, numbered, None)
}

/// How the note on a page session's repeat snapshot that had to read the whole page begins.
#[napi]
pub const FULL_CAPTURE_NOTE: &str = crate::capture::FULL_CAPTURE_NOTE;

/// The name of the isolated world the package's page scripts run in.
#[napi]
pub const WORLD_NAME: &str = crate::page::WORLD_NAME;

/// A page session's watcher (`src/page/watch.js`): a function expression, run in our world.
#[napi]
pub const WATCH_SOURCE: &str = crate::page::WATCH;

/// Where our world keeps the watcher, compiled once per document.
#[napi]
pub const WATCH_GLOBAL: &str = crate::page::WATCH_FN;

#[napi(object)]
pub struct EvaluateOutcome {
    /// The function's return value as JSON text.
    pub value: Option<String>,
    pub error: Option<ErrorInit>,
}

/// Call `function_source` with `args` in the isolated world of the chosen
/// tab's main frame, over a connection of its own (a `{ cdpEndpoint }`
/// session's page-side watcher).
#[napi]
pub async fn evaluate_native(endpoint: EndpointInput, function_source: String, args: Vec<Value>, timeout_ms: u32) -> EvaluateOutcome {
    let endpoint = match Endpoint::try_from(endpoint) {
        Ok(e) => e,
        Err(e) => return EvaluateOutcome { value: None, error: Some(e.into()) },
    };
    match native::evaluate_in_world(&endpoint, &function_source, &args, timeout_ms).await {
        Ok(v) => EvaluateOutcome { value: Some(v), error: None },
        Err(e) => EvaluateOutcome { value: None, error: Some(e.into()) },
    }
}

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

#[napi(object)]
pub struct Outcome {
    pub error: Option<ErrorInit>,
}

/// The error table (code, stage, retry hint) for the docs and the JS layer's checks.
#[napi]
pub fn error_table() -> Vec<Vec<&'static str>> {
    ErrorCode::ALL.iter().map(|c| vec![c.code(), c.stage(), c.retry_hint()]).collect()
}

/// Load `url` in the tab and wait until it has loaded (the CLI's own browser).
#[napi]
pub async fn navigate_native(endpoint: EndpointInput, url: String, timeout_ms: u32) -> Outcome {
    let endpoint = match Endpoint::try_from(endpoint) {
        Ok(e) => e,
        Err(e) => return Outcome { error: Some(e.into()) },
    };
    Outcome { error: native::navigate(&endpoint, &url, timeout_ms).await.err().map(Into::into) }
}

/// The benchmark's native floor: `[totalMs, connectMs, bytes]`.
#[napi]
pub async fn native_bare_tree(endpoint: EndpointInput, timeout_ms: u32) -> Result<Vec<f64>> {
    let endpoint = Endpoint::try_from(endpoint).map_err(|e| Error::new(Status::InvalidArg, e.to_string()))?;
    native::bare_tree(&endpoint, timeout_ms).await.map(|r| r.to_vec()).map_err(|e| Error::new(Status::GenericFailure, e.to_string()))
}

// ----- actions -----

#[napi(object)]
pub struct ActionInput {
    /// `click`, `fill`, `select` or `scroll`.
    pub action: String,
    /// The tool call's arguments: `{ ref?, value?, clear_first?, direction?, amount?, snapshot_id? }`.
    pub args: Value,
    pub snapshot_id: Option<String>,
    pub ref_count: u32,
    /// The snapshot's `ElementRef` for `args.ref`, when it has one.
    pub target: Option<Value>,
    pub timeout_ms: Option<u32>,
}

/// Seed 001's action error codes, in its order.
#[napi]
pub fn action_error_codes() -> Vec<&'static str> {
    action::ActionCode::ALL.iter().map(|c| c.as_str()).collect()
}

#[napi(object)]
pub struct ActionResult {
    pub success: bool,
    /// One of seed 001's codes (`ref_invalid`, `element_disabled`, …).
    #[napi(
        ts_type = "'ref_invalid' | 'element_disabled' | 'element_obscured' | 'element_not_visible' | 'action_failed' | 'timeout' | 'human_rejected' | 'invalid_params'"
    )]
    pub error: Option<String>,
    pub message: Option<String>,
    pub evidence: Option<Value>,
    /// Facts of the action: the click point, the value filled, the viewport.
    pub detail: Option<Value>,
    pub action_ms: f64,
}

fn request_of(input: ActionInput) -> ActionRequest {
    ActionRequest {
        action: input.action,
        args: input.args,
        snapshot_id: input.snapshot_id,
        ref_count: input.ref_count as usize,
        target: input.target.and_then(|t| serde_json::from_value::<RefTarget>(t).ok()),
        timeout_ms: input.timeout_ms.unwrap_or(action::DEFAULT_ACTION_TIMEOUT_MS),
    }
}

fn action_result(o: action::ActionOutcome) -> ActionResult {
    ActionResult {
        success: o.success,
        error: o.error.map(|c| c.as_str().to_string()),
        message: o.message,
        evidence: o.evidence,
        detail: o.detail,
        action_ms: o.action_ms,
    }
}

/// Run one action over a CDP session held by JS.
#[napi]
pub async fn act_over(send: JsSend, input: ActionInput) -> ActionResult {
    let request = request_of(input);
    action_result(action::run(&JsTransport { send }, &request).await)
}

/// Run one action on a tab of a running browser, connecting from Rust.
#[napi]
pub async fn act_native(endpoint: EndpointInput, input: ActionInput) -> ActionResult {
    let request = request_of(input);
    let started = std::time::Instant::now();
    let deadline = started + std::time::Duration::from_millis(request.timeout_ms.max(1) as u64);
    let opened = match Endpoint::try_from(endpoint) {
        Ok(endpoint) => native::NativeConnection::open(&endpoint, deadline).await,
        Err(e) => Err(e),
    };
    match opened {
        Ok(conn) => {
            let left = deadline.saturating_duration_since(std::time::Instant::now()).as_millis() as u32;
            let mut o = action::run(&conn, &ActionRequest { timeout_ms: left.max(1), ..request }).await;
            conn.close().await;
            o.action_ms = started.elapsed().as_secs_f64() * 1000.0;
            action_result(o)
        }
        Err(e) => action_failed_to_connect(e, started),
    }
}

/// An action that could not reach the tab: `action_failed`, with the cause's code in its evidence.
fn action_failed_to_connect(e: WebAiError, started: std::time::Instant) -> ActionResult {
    ActionResult {
        success: false,
        error: Some(action::ActionCode::ActionFailed.as_str().to_string()),
        message: Some(e.message),
        evidence: Some(serde_json::json!({ "errorCode": e.code.code(), "evidence": e.evidence })),
        detail: None,
        action_ms: started.elapsed().as_secs_f64() * 1000.0,
    }
}

#[napi(object)]
pub struct VerifyOutcome {
    pub verdict: Option<Verdict>,
    /// Why the element could not be checked (a dead session, the deadline).
    pub failure: Option<String>,
    /// The check ran out of time.
    pub timed_out: bool,
}

/// Check a ref's element on the live page (`resolveRef(…, { verify: true })`).
#[napi]
pub async fn verify_over(send: JsSend, target: Value, timeout_ms: u32) -> VerifyOutcome {
    let target: RefTarget = serde_json::from_value(target).unwrap_or_default();
    match action::verify(&JsTransport { send }, &target, timeout_ms).await {
        Ok(c) => VerifyOutcome {
            verdict: Some(Verdict { verdict: verdict_kind(c.verdict), message: c.message, now: c.now.map(|(role, name)| Identity { role, name }) }),
            failure: None,
            timed_out: false,
        },
        Err(f) => VerifyOutcome { verdict: None, timed_out: f.code == action::ActionCode::Timeout, failure: Some(f.message) },
    }
}
