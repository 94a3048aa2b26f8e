//! Captures: over a CDP session JS holds (the pump, driven on JS's thread),
//! over an endpoint the core connects to, and from a recorded tree.

use super::session::*;
use super::*;

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
        Ok(build_snapshot(&tree, None, facts, &opts, None, ms, &[]).to_json())
    };
    run().map_err(|e| thrown(&env, e))
}

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
pub(super) type JsSend = ThreadsafeFunction<CdpRequest, Promise<String>, CdpRequest, Status, false>;

/// A CDP session held by JS (a Playwright page's, `{ cdp }`), as a transport.
pub(super) struct JsTransport {
    pub(super) send: JsSend,
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
    /// The snapshot's `text`, which its JSON then has as `""`.
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
    /// With `IncrementalInput::shape`: the snapshot recorded in the session's book,
    /// as `NativeSession::record` answers (JSON), so that its text need not cross again.
    pub recorded: Option<String>,
    /// With `IncrementalInput::shape`: whether the text shows a progressbar (`loadingStateGiven`).
    pub progress: Option<bool>,
}

/// Our isolated world in a page's document (see `SnapshotOptions::world`).
#[napi(object)]
#[derive(Clone)]
pub struct WorldInput {
    pub frame_id: String,
    pub loader_id: String,
    pub context_id: f64,
    pub token: Option<String>,
    /// The page facts last found the document cheaper to walk than to snapshot (`domRead: 'auto'`).
    pub walk: Option<bool>,
    /// The last capture in this world found frames in other processes.
    pub frames: Option<bool>,
    /// A walk ran in this world and left its script there, to be called by name.
    pub walked: Option<bool>,
}

impl From<crate::capture::World> for WorldInput {
    fn from(w: crate::capture::World) -> WorldInput {
        WorldInput {
            frame_id: w.frame_id,
            loader_id: w.loader_id,
            context_id: w.context_id as f64,
            token: w.token,
            walk: w.walk,
            frames: w.frames,
            walked: Some(w.walked),
        }
    }
}

/// A world handed back by JS; anything odd is no world (the capture makes a new one).
pub(super) fn world_of(w: Option<WorldInput>) -> Option<crate::capture::World> {
    let w = w?;
    let id = w.context_id;
    (id.is_finite() && id.fract() == 0.0 && id.abs() < 9.0e15 && !w.frame_id.is_empty() && !w.loader_id.is_empty()).then_some(crate::capture::World {
        frame_id: w.frame_id,
        loader_id: w.loader_id,
        context_id: id as i64,
        token: w.token,
        walk: w.walk,
        frames: w.frames,
        walked: w.walked == Some(true),
    })
}

/// The outcome JS gets. `sent`: a page session's slot and the snapshot its
/// JS side holds (`IncrementalInput::base`), whose unchanged refs are written
/// as `0` (`crate::text::sent_refs`).
pub(super) fn capture_outcome(
    r: std::result::Result<Captured, WebAiError>,
    numbered: bool,
    sent: Option<(std::sync::Arc<crate::page_session::PageSessionState>, Option<String>)>,
) -> CaptureOutcome {
    capture_outcome_learning(r, numbered, sent, None, None)
}

/// [`capture_outcome`], the numbers given learnt by a session's numbering (`learn`: it and the refs' prefix).
pub(super) fn capture_outcome_learning(
    r: std::result::Result<Captured, WebAiError>,
    numbered: bool,
    sent: Option<(std::sync::Arc<crate::page_session::PageSessionState>, Option<String>)>,
    learn: Option<(&crate::page_session::PageSessionState, &str)>,
    record: Option<&RecordAs>,
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
                recorded: None,
                progress: None,
            }
        }
    };
    use crate::text::sent_refs::Written;
    if let Some((numbering, prefix)) = learn {
        let s = &c.snapshot;
        let seen = s.ref_keys.iter().zip(&s.refs).filter_map(|(k, r)| Some((k.as_deref()?, r.ref_id.strip_prefix(prefix)?.parse::<u32>().ok()?)));
        crate::trace::timed("outcome.learn", || numbering.learn(seen, s.next_ref));
    }
    // The book records the text here, where it is: JS handed every look's text back (half a
    // megabyte on the 40k-node page), once to record it and once for its progressbar.
    let (recorded, progress) = match (record, learn) {
        (Some((shape, state)), Some((session, _))) => crate::trace::timed("outcome.record", || {
            let s = &c.snapshot;
            let boundaries = s.untrusted.as_ref().map(|(nonce, origin)| crate::page_session::book::Boundaries { nonce, origin });
            let watch = crate::page_session::book::WatchState::of(state);
            let r = session.book(|b| b.record(shape, &s.text, boundaries, s.url.as_deref(), watch, &s.snapshot_id, true, std::time::Instant::now()));
            (serde_json::to_string(&r).ok(), Some(crate::page_session::book::shows_progress(&s.text)))
        }),
        _ => (None, None),
    };
    let (json, written, text) = match sent {
        Some((state, base)) => {
            let last = state.take_sent();
            let (json, written) = crate::trace::timed("outcome.render", || crate::text::sent_refs::render(&c.snapshot, last.as_ref(), base.as_deref()));
            // What JS now holds: the refs move (the snapshot goes once written).
            let refs = std::mem::take(&mut c.snapshot.refs);
            state.put_sent(crate::text::sent_refs::SentRefs { snapshot_id: c.snapshot.snapshot_id.clone(), refs });
            (json, written, Some(std::mem::take(&mut c.snapshot.text)))
        }
        // The text as a string of its own here too: escaped into the JSON (a `\n` a line, a
        // `\"` a name), JS parsed it out again character by character.
        None => (c.snapshot.to_json_without_text(None), Written::Whole, Some(std::mem::take(&mut c.snapshot.text))),
    };
    let json = crate::trace::timed("outcome.for_v8", || crate::compat::json_text::for_v8(json));
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
        recorded,
        progress,
    }
}

#[napi(object)]
pub struct RefNumbering {
    pub keys: Vec<String>,
    pub numbers: Vec<u32>,
    /// The first number not given yet.
    pub next: u32,
}

/// Options, and a context holding the session's numbering when one is given.
pub(super) fn capture_options(options: &Value, numbering: Option<RefNumbering>) -> std::result::Result<(SnapshotOptions, CaptureContext), WebAiError> {
    let opts = SnapshotOptions::from_value(options)?;
    let mut ctx = CaptureContext::default();
    if let Some(n) = numbering {
        if n.keys.len() != n.numbers.len() {
            return Err(WebAiError::invalid_input("numbering", "numbering.keys and numbering.numbers must have the same length"));
        }
        let known = n.keys.into_iter().zip(n.numbers).collect();
        ctx.numbering = Some(std::sync::Arc::new(crate::text::numbering::RefMemory::new(known, n.next)));
    }
    Ok((opts, ctx))
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
    /// How many changed subtrees the session's record held at that look: as
    /// many are asked for with the first question (at least a few, at most 16).
    pub held: Option<u32>,
    /// The `snapshotId` of the session's last snapshot whose refs the JS side holds:
    /// refs unchanged since are sent as `0` (`refsReused`).
    pub base: Option<String>,
    /// An expression for our world, evaluated with the changed subtrees' reading;
    /// its value comes back as the outcome's `after` (JSON).
    pub after: Option<String>,
    /// The options' shape key: a new snapshot is recorded in the session's book
    /// under it (`NativeSession::record`, keeping it as the latest of its shape),
    /// with `state`, the page's watch state before the capture.
    pub shape: Option<String>,
    pub state: Option<Value>,
}

/// What a session's capture records its snapshot under (`IncrementalInput::shape`, `state`).
pub(super) type RecordAs = (String, Value);

/// The shape and watch state a session's capture records under, if JS asked for it.
pub(super) fn record_as(i: &IncrementalInput) -> Option<RecordAs> {
    i.shape.clone().map(|shape| (shape, i.state.clone().unwrap_or(Value::Null)))
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
        let record = incremental.as_ref().and_then(record_as);
        let state = session.map(|s| s.state.clone());
        let given = capture_options(&options, numbering).and_then(|(opts, mut ctx)| {
            if let Some(s) = &state {
                ctx.numbering = Some(s.numbering());
            }
            ctx.world = world_of(world);
            ctx.incremental = match (incremental, &state) {
                (Some(i), Some(s)) => Some(incremental_of(i, s)),
                (Some(_), None) => return Err(WebAiError::invalid_input("incremental", "an incremental capture needs the session's NativeSession")),
                (None, _) => None,
            };
            Ok((opts, ctx))
        });
        let sent = given.as_ref().ok().and_then(|(_, c)| c.incremental.as_ref()).map(|i| (i.state.clone(), base.clone()));
        let prefix = given.as_ref().map(|(o, _)| o.ref_prefix.clone()).unwrap_or_default();
        let pump = Pump::new(move |transport| async move {
            let (opts, ctx) = match given {
                Ok(g) => g,
                Err(e) => return capture_outcome(Err(e), numbered, None),
            };
            let learn = state.as_deref().map(|s| (s, prefix.as_str()));
            let captured = crate::trace::timed_async("capture", crate::capture::capture_incremental(&transport, opts, ctx)).await;
            crate::trace::timed("session.outcome", || session_outcome(captured, numbered, sent, learn, record.as_ref()))
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
    let (opts, ctx) = match capture_options(&options, numbering) {
        Ok(o) => o,
        Err(e) => return capture_outcome(Err(e), numbered, None),
    };
    let endpoint = match Endpoint::try_from(endpoint) {
        Ok(e) => e,
        Err(e) => return capture_outcome(Err(e), numbered, None),
    };
    capture_outcome(Box::pin(native::capture_endpoint(&endpoint, opts, ctx)).await, numbered, None)
}

/// How the note on a page session's repeat snapshot that had to read the whole page begins.
#[napi]
pub const FULL_CAPTURE_NOTE: &str = crate::capture::FULL_CAPTURE_NOTE;

/// How a note that says why a session's looks are full captures begins.
#[napi]
pub const NOT_MIRRORED_NOTE: &str = crate::capture::NOT_MIRRORED_NOTE;

/// The name of the isolated world the package's page scripts run in.
#[napi]
pub const WORLD_NAME: &str = crate::page::WORLD_NAME;

/// Load `url` in the tab and wait until it has loaded (the CLI's own browser).
#[napi]
pub async fn navigate_native(endpoint: EndpointInput, url: String, timeout_ms: u32) -> Outcome {
    let endpoint = match Endpoint::try_from(endpoint) {
        Ok(e) => e,
        Err(e) => return Outcome { error: Some(e.into()) },
    };
    Outcome { error: Box::pin(native::navigate(&endpoint, &url, timeout_ms)).await.err().map(Into::into) }
}

/// The benchmark's native floor: `[totalMs, connectMs, bytes]`.
#[napi]
pub async fn native_bare_tree(endpoint: EndpointInput, timeout_ms: u32) -> Result<Vec<f64>> {
    let endpoint = Endpoint::try_from(endpoint).map_err(|e| Error::new(Status::InvalidArg, e.to_string()))?;
    Box::pin(native::bare_tree(&endpoint, timeout_ms)).await.map(|r| r.to_vec()).map_err(|e| Error::new(Status::GenericFailure, e.to_string()))
}
