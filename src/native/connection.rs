//! A DevTools connection the core opens by itself (tokio-tungstenite).
//!
//! One task reads the socket and hands each reply to the call waiting for
//! its id, as the browser's raw JSON text: the tree reader parses a 16 MB
//! reply once, with no `Value` tree built on the way. Calls are concurrent;
//! a session that detaches (tab closed, frame gone) or a renderer that
//! crashes fails the calls waiting on it at once instead of at the deadline,
//! and a connection that breaks names how (closed, protocol violation,
//! oversize message, invalid JSON) with its own error code.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt, StreamExt};
use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::discovery::{unreachable, websocket_url};
use super::Endpoint;
use crate::capture::{CdpCall, CdpReply, CdpTransport, ReplyFuture};
use crate::error::{ErrorCode, Result, WebAiError};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The largest message accepted by default. The largest reply measured, the
/// 40k-node page's `getFullAXTree`, is about 16 MB; four times that, rounded
/// up. `maxMessageBytes` on the endpoint changes it.
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

struct Waiter {
    /// The session the call went to (None: the browser's).
    session: Option<String>,
    reply: oneshot::Sender<CdpReply>,
}

#[derive(Default)]
struct Shared {
    pending: Mutex<FxHashMap<u64, Waiter>>,
    /// Why the connection is gone, once it is.
    closed: OnceLock<WebAiError>,
    page_session: OnceLock<String>,
    /// Why the tab's own session is gone (closed, detached, crashed), once it is:
    /// a kept connection's later calls to it fail at once with this.
    page_gone: Mutex<Option<WebAiError>>,
    /// The tab's requests in flight (request id → URL and start), once
    /// [`NativeConnection::track_requests`] enabled the Network domain.
    requests: Mutex<FxHashMap<String, (String, Instant)>>,
    /// The JavaScript dialog open in the tab (`alert`, `confirm`, `prompt`,
    /// `beforeunload`), once [`NativeConnection::watch_dialogs`] enabled the Page domain.
    dialog: Mutex<Option<Dialog>>,
    /// Where the sessions Chrome attaches on its own go (out-of-process
    /// frames, once [`NativeConnection::hold_frames_to`] turned auto-attach on).
    attached: Mutex<Option<tokio::sync::mpsc::UnboundedSender<Attached>>>,
    /// The frames' sessions held to the tab's request rules
    /// ([`NativeConnection::hold_frames_to`]); one leaves when Chrome detaches it
    /// (a long-lived agent's tab goes through frames without end).
    ruled_frames: Mutex<Vec<String>>,
}

/// A session Chrome attached to one of ours (`Target.attachedToTarget`).
struct Attached {
    session: String,
    kind: String,
}

/// A JavaScript dialog the tab shows. While one is open the page runs no
/// script, so a call that needs the page would wait for its deadline.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Dialog {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub message: String,
    #[serde(rename = "defaultPrompt", default)]
    pub default_prompt: Option<String>,
    #[serde(default)]
    pub url: String,
}

impl Dialog {
    fn blocked(&self) -> String {
        format!("a JavaScript {} dialog is open ({:?}): the page runs no script until it is accepted or dismissed", self.kind, self.message)
    }
}

/// A crashed tab is brought back by loading it again: those two commands
/// still go to it (Chrome then reports `Inspector.targetReloadedAfterCrash`).
pub fn revives(why: &WebAiError, method: &str) -> bool {
    why.code == ErrorCode::TargetCrashed && (method == "Page.reload" || method == "Page.navigate")
}

/// What a tab still answers while a dialog is open: the dialog's own
/// command, navigation and the browser-level domains.
fn answers_during_dialog(method: &str) -> bool {
    method.starts_with("Page.handleJavaScriptDialog")
        || method.starts_with("Page.navigate")
        || method.starts_with("Page.reload")
        || method.starts_with("Page.getNavigationHistory")
        || method.starts_with("Page.enable")
        || method.starts_with("Page.bringToFront")
        || method.starts_with("Target.")
        || method.starts_with("Network.")
        || method.starts_with("Inspector.")
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, FxHashMap<u64, Waiter>> {
        // A panic elsewhere while holding the lock leaves the map usable.
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn answer(&self, id: u64, reply: CdpReply) {
        if let Some(w) = self.lock().remove(&id) {
            let _ = w.reply.send(reply);
        }
    }

    /// Answer every call waiting on `session` (all calls when None) with `reply`.
    fn fail(&self, session: Option<&str>, reply: &CdpReply) {
        let mut pending = self.lock();
        let ids: Vec<u64> = pending.iter().filter(|(_, w)| session.is_none() || w.session.as_deref() == session).map(|(id, _)| *id).collect();
        for id in ids {
            if let Some(w) = pending.remove(&id) {
                let _ = w.reply.send(reply.clone());
            }
        }
    }

    fn gone(&self) -> std::sync::MutexGuard<'_, Option<WebAiError>> {
        self.page_gone.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn attached(&self) -> std::sync::MutexGuard<'_, Option<tokio::sync::mpsc::UnboundedSender<Attached>>> {
        self.attached.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn dialog(&self) -> std::sync::MutexGuard<'_, Option<Dialog>> {
        self.dialog.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn is_page(&self, session: &str) -> bool {
        self.page_session.get().map(String::as_str) == Some(session)
    }

    /// The tab's own session ends the capture with `code`; an out-of-process
    /// frame's only fails its calls, which the capture keeps as notes.
    fn session_gone(&self, session: &str, code: ErrorCode, page_why: &str, frame_why: &str) {
        let reply = if self.is_page(session) {
            let why = WebAiError::new(code, page_why).with_evidence(json!({ "sessionId": session }));
            *self.gone() = Some(why.clone());
            CdpReply::Broken(why)
        } else {
            CdpReply::Err(frame_why.to_string())
        };
        self.fail(Some(session), &reply);
    }
}

#[derive(Deserialize)]
struct Incoming<'a> {
    id: Option<u64>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    /// Raw too: an error's `data` is the peer's to nest as deep as it likes,
    /// and only its `message` is read.
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    method: Option<&'a str>,
    /// Events' parameters are read only for the events acted on: most events
    /// (DOM mutations after `DOM.getDocument`) are skipped, not parsed.
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    #[serde(rename = "sessionId")]
    session_id: Option<&'a str>,
}

/// Chrome attaches each new out-of-process frame (and worker) of the
/// session, paused until we let it run, on this connection (flat sessions).
fn auto_attach() -> Value {
    json!({ "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true })
}

/// Chrome's answer to a call on a session whose target has gone.
const SESSION_NOT_FOUND: &str = "Session with given id not found";

/// Hand one message to whoever waits for it. A message that is not a CDP
/// message means the peer is not a browser speaking the protocol: that ends
/// the connection, since no reply can be trusted to reach its call.
fn dispatch(shared: &Shared, text: &str) -> std::result::Result<(), WebAiError> {
    let m = serde_json::from_str::<Incoming>(text).map_err(|e| {
        let head: String = text.chars().take(80).collect();
        WebAiError::new(ErrorCode::InvalidJson, format!("the DevTools endpoint sent a message that is not CDP JSON ({e})"))
            .with_evidence(json!({ "start": head, "bytes": text.len() }))
    })?;
    if let Some(id) = m.id {
        #[derive(Deserialize)]
        struct ErrorBody {
            message: Option<String>,
        }
        let reply = match (m.result, m.error) {
            (_, Some(err)) => {
                let message = serde_json::from_str::<ErrorBody>(err.get()).ok().and_then(|b| b.message);
                // A tab closed mid-call can answer the call before its
                // `Target.detachedFromTarget` arrives: the session is gone
                // all the same, and every call on it ends so.
                if message.as_deref().is_some_and(|m| m.starts_with(SESSION_NOT_FOUND)) {
                    let session = shared.lock().get(&id).and_then(|w| w.session.clone());
                    if let Some(session) = session {
                        shared.session_gone(
                            &session,
                            ErrorCode::TargetDetached,
                            "the tab was closed or detached during the call",
                            "the frame went away during the call",
                        );
                        return Ok(());
                    }
                }
                CdpReply::Err(message.unwrap_or_else(|| "CDP error".to_string()))
            }
            (Some(raw), None) => CdpReply::Ok(raw.get().to_string()),
            (None, None) => CdpReply::Ok("{}".to_string()),
        };
        shared.answer(id, reply);
        return Ok(());
    }
    match m.method {
        Some("Target.detachedFromTarget") => {
            #[derive(Deserialize)]
            struct Detached {
                #[serde(rename = "sessionId")]
                session_id: Option<String>,
            }
            let gone = m.params.and_then(|p| serde_json::from_str::<Detached>(p.get()).ok()).and_then(|d| d.session_id);
            if let Some(gone) = gone.as_deref() {
                shared.ruled_frames.lock().unwrap_or_else(|p| p.into_inner()).retain(|s| s != gone);
                shared.session_gone(gone, ErrorCode::TargetDetached, "the tab was closed or detached during the call", "the frame went away during the call");
            }
        }
        // Only auto-attach reports a child under a session of ours; the
        // frames a capture attaches itself are the browser's (no sessionId).
        Some("Target.attachedToTarget") if m.session_id.is_some() => {
            #[derive(Deserialize)]
            struct Info {
                #[serde(rename = "type", default)]
                kind: String,
            }
            #[derive(Deserialize)]
            struct Child {
                #[serde(rename = "sessionId")]
                session_id: String,
                #[serde(rename = "targetInfo")]
                target_info: Info,
            }
            if let Some(child) = m.params.and_then(|p| serde_json::from_str::<Child>(p.get()).ok()) {
                if let Some(tx) = shared.attached().as_ref() {
                    let _ = tx.send(Attached { session: child.session_id, kind: child.target_info.kind });
                }
            }
        }
        Some("Inspector.targetCrashed") => {
            if let Some(s) = m.session_id {
                shared.session_gone(s, ErrorCode::TargetCrashed, "the tab's renderer crashed", "the frame's renderer crashed");
            }
        }
        Some("Inspector.targetReloadedAfterCrash") if m.session_id.is_some_and(|s| shared.is_page(s)) => {
            let mut gone = shared.gone();
            if gone.as_ref().is_some_and(|why| why.code == ErrorCode::TargetCrashed) {
                *gone = None;
            }
        }
        Some("Inspector.detached") => {
            if let Some(s) = m.session_id {
                shared.session_gone(s, ErrorCode::TargetDetached, "the browser detached the tab's session", "the frame's session was detached");
            }
        }
        Some(method @ ("Network.requestWillBeSent" | "Network.loadingFinished" | "Network.loadingFailed"))
            if m.session_id.is_some_and(|s| shared.is_page(s)) =>
        {
            track_request(shared, method, m.params);
        }
        Some("Page.javascriptDialogOpening") if m.session_id.is_some_and(|s| shared.is_page(s)) => {
            let dialog = m.params.and_then(|p| serde_json::from_str::<Dialog>(p.get()).ok());
            if let Some(dialog) = dialog {
                // The calls waiting on the page would wait out their deadline: they end now, saying why.
                let reply = CdpReply::Err(dialog.blocked());
                *shared.dialog() = Some(dialog);
                if let Some(page) = shared.page_session.get() {
                    shared.fail(Some(page), &reply);
                }
            }
        }
        Some("Page.javascriptDialogClosed") if m.session_id.is_some_and(|s| shared.is_page(s)) => {
            *shared.dialog() = None;
        }
        Some("Page.frameNavigated") if m.session_id.is_some_and(|s| shared.is_page(s)) => {
            // A new document in the main frame has no dialog of the old one's open.
            let main = m.params.is_some_and(|p| !p.get().contains("\"parentId\""));
            if main {
                *shared.dialog() = None;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Request types that never finish and say nothing about the page settling.
const ENDLESS: [&str; 2] = ["WebSocket", "EventSource"];
/// At most this many requests are followed at once (a page that starts
/// requests forever must not grow the table without bound).
const MAX_TRACKED_REQUESTS: usize = 10_000;

fn track_request(shared: &Shared, method: &str, params: Option<&RawValue>) {
    #[derive(Deserialize)]
    struct Request<'a> {
        #[serde(borrow)]
        url: Option<std::borrow::Cow<'a, str>>,
    }
    #[derive(Deserialize)]
    struct Event<'a> {
        #[serde(rename = "requestId", borrow)]
        request_id: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow)]
        request: Option<Request<'a>>,
        #[serde(rename = "type", borrow)]
        kind: Option<std::borrow::Cow<'a, str>>,
    }
    let Some(e) = params.and_then(|p| serde_json::from_str::<Event>(p.get()).ok()) else { return };
    let Some(id) = e.request_id else { return };
    let mut requests = shared.requests.lock().unwrap_or_else(|p| p.into_inner());
    if method == "Network.requestWillBeSent" {
        if e.kind.as_deref().is_some_and(|k| ENDLESS.contains(&k)) || requests.len() >= MAX_TRACKED_REQUESTS {
            return;
        }
        let url = e.request.and_then(|r| r.url).map(|u| u.into_owned()).unwrap_or_default();
        requests.insert(id.into_owned(), (url, Instant::now()));
    } else {
        requests.remove(id.as_ref());
    }
}

/// A websocket failure as the error it means for the caller.
fn socket_error(e: &tungstenite::Error) -> WebAiError {
    use tungstenite::error::{CapacityError, Error as E, ProtocolError};
    match e {
        E::Capacity(CapacityError::MessageTooLong { size, max_size }) => WebAiError::new(
            ErrorCode::MessageTooLarge,
            format!("the browser sent a message of {size} bytes, over the limit of {max_size} (raise maxMessageBytes to accept it)"),
        )
        .with_evidence(json!({ "bytes": size, "maxMessageBytes": max_size })),
        E::ConnectionClosed | E::AlreadyClosed | E::Protocol(ProtocolError::ResetWithoutClosingHandshake) => closed_by_peer(None),
        E::Io(io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::UnexpectedEof
                    | std::io::ErrorKind::BrokenPipe
            ) =>
        {
            closed_by_peer(Some(io.to_string()))
        }
        E::Io(io) => WebAiError::new(ErrorCode::ConnectionClosed, format!("the connection to the browser failed: {io}"))
            .with_evidence(json!({ "message": io.to_string() })),
        other => WebAiError::new(ErrorCode::ProtocolViolation, format!("the DevTools endpoint broke the websocket protocol: {other}"))
            .with_evidence(json!({ "message": other.to_string() })),
    }
}

fn closed_by_peer(detail: Option<String>) -> WebAiError {
    let message = match &detail {
        Some(d) => format!("the browser closed the connection ({d})"),
        None => "the browser closed the connection".to_string(),
    };
    WebAiError::new(ErrorCode::ConnectionClosed, message).with_evidence(json!({ "detail": detail }))
}

async fn read_loop(shared: Arc<Shared>, mut read: SplitStream<Socket>) {
    let why = loop {
        match read.next().await {
            Some(Ok(Message::Text(t))) => {
                if let Err(e) = dispatch(&shared, t.as_str()) {
                    break e;
                }
            }
            Some(Ok(Message::Binary(b))) => match std::str::from_utf8(&b) {
                Ok(t) => {
                    if let Err(e) = dispatch(&shared, t) {
                        break e;
                    }
                }
                Err(_) => {
                    break WebAiError::new(ErrorCode::ProtocolViolation, "the DevTools endpoint sent a binary message that is not UTF-8 text")
                        .with_evidence(json!({ "bytes": b.len() }))
                }
            },
            Some(Ok(Message::Close(frame))) => {
                break closed_by_peer(
                    frame.map(|f| format!("close code {}{}", u16::from(f.code), if f.reason.is_empty() { String::new() } else { format!(": {}", f.reason) })),
                )
            }
            None => break closed_by_peer(None),
            Some(Ok(_)) => {}
            Some(Err(e)) => break socket_error(&e),
        }
    };
    let reply = CdpReply::Broken(why.clone());
    let _ = shared.closed.set(why);
    shared.fail(None, &reply);
}

/// Removes a call's waiter when the caller stops waiting (deadline).
struct Pending<'a> {
    shared: &'a Shared,
    id: u64,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.shared.lock().remove(&self.id);
    }
}

pub struct NativeConnection {
    endpoint: String,
    shared: Arc<Shared>,
    sink: tokio::sync::Mutex<SplitSink<Socket, Message>>,
    next_id: AtomicU64,
    page_session: String,
    /// Out-of-process frame id → its session (or why it could not be attached).
    frame_sessions: tokio::sync::Mutex<FxHashMap<String, std::result::Result<String, CdpReply>>>,
    /// The tab's request rules (`Network.setBlockedURLs`' parameters), held
    /// for its out-of-process frames too, and the frames' sessions given them.
    request_rules: Mutex<Option<Value>>,
    reader: tokio::task::JoinHandle<()>,
}

/// How long setting up a frame Chrome attached may take; it waits for us
/// (`waitForDebuggerOnStart`), and is let run however that went.
const FRAME_SETUP: Duration = Duration::from_secs(5);

impl NativeConnection {
    /// Connect, pick the tab and attach to it.
    pub async fn open(endpoint: &Endpoint, deadline: Instant) -> Result<NativeConnection> {
        let ws_url = websocket_url(&endpoint.url, deadline).await?;
        let limit = endpoint.max_message_bytes.unwrap_or(MAX_MESSAGE_BYTES);
        // A frame's length header is checked against the limit before its
        // payload is read, so a lying header allocates nothing.
        let config = WebSocketConfig::default().max_message_size(Some(limit)).max_frame_size(Some(limit));
        let connect = tokio_tungstenite::connect_async_with_config(ws_url.as_str(), Some(config), true);
        let (socket, _) = tokio::time::timeout_at(deadline.into(), connect)
            .await
            .map_err(|_| unreachable(&endpoint.url, "no answer before the deadline"))?
            .map_err(|e| handshake_error(&endpoint.url, e))?;
        let (sink, read) = socket.split();
        let shared = Arc::new(Shared::default());
        let reader = tokio::spawn(read_loop(shared.clone(), read));
        let mut conn = NativeConnection {
            endpoint: endpoint.url.clone(),
            shared,
            sink: tokio::sync::Mutex::new(sink),
            next_id: AtomicU64::new(1),
            page_session: String::new(),
            frame_sessions: tokio::sync::Mutex::new(FxHashMap::default()),
            request_rules: Mutex::new(None),
            reader,
        };
        let target = conn.pick_tab(endpoint, deadline).await?;
        conn.page_session = conn.attach(&target, deadline).await?;
        let _ = conn.shared.page_session.set(conn.page_session.clone());
        // Chrome reports a crashed renderer (`Inspector.targetCrashed`) only to sessions that enabled the domain.
        let _ = tokio::time::timeout_at(deadline.into(), conn.send("Inspector.enable", &json!({}), Some(&conn.page_session))).await;
        Ok(conn)
    }

    /// Follow the tab's requests from now on (the Network domain's events).
    pub async fn track_requests(&self, deadline: Instant) -> Result<()> {
        self.checked("Network.enable", &json!({}), Some(&self.page_session), deadline).await.map(|_| ())
    }

    /// Follow the tab's JavaScript dialogs from now on (the Page domain's events).
    pub async fn watch_dialogs(&self, deadline: Instant) -> Result<()> {
        self.checked("Page.enable", &json!({}), Some(&self.page_session), deadline).await.map(|_| ())
    }

    /// Hold the tab's out-of-process frames, and theirs, to the request rules
    /// the tab itself was given (`Network.setBlockedURLs` with `rules`).
    ///
    /// A frame of another site runs in its own renderer, and the tab's
    /// session does not see its requests. Auto-attach has Chrome attach each
    /// such frame to us before it runs (`waitForDebuggerOnStart`); it gets the
    /// same rules and auto-attach of its own, and is then let run. Called
    /// again, new rules reach the frames held already.
    pub async fn hold_frames_to(self: &Arc<Self>, rules: &Value, deadline: Instant) -> Result<()> {
        *self.request_rules.lock().unwrap_or_else(|p| p.into_inner()) = Some(rules.clone());
        let started = {
            let mut attached = self.shared.attached();
            if attached.is_some() {
                None
            } else {
                let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
                *attached = Some(tx);
                Some(rx)
            }
        };
        let Some(mut rx) = started else {
            let frames = self.shared.ruled_frames.lock().unwrap_or_else(|p| p.into_inner()).clone();
            for session in frames {
                // A frame that went away since answers with an error; nothing to hold there.
                let _ = self.checked("Network.setBlockedURLs", rules, Some(&session), deadline).await;
            }
            return Ok(());
        };
        // Weak: the connection closes when its owner lets go, whatever frames are pending.
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(child) = rx.recv().await {
                let Some(conn) = weak.upgrade() else { break };
                tokio::spawn(async move { conn.set_up_frame(child).await });
            }
        });
        self.checked("Target.setAutoAttach", &auto_attach(), Some(&self.page_session), deadline).await.map(|_| ())
    }

    async fn set_up_frame(&self, child: Attached) {
        let deadline = Instant::now() + FRAME_SETUP;
        let session = Some(child.session.as_str());
        if child.kind == "iframe" {
            let rules = self.request_rules.lock().unwrap_or_else(|p| p.into_inner()).clone();
            if let Some(rules) = rules {
                let _ = self.checked("Network.enable", &json!({}), session, deadline).await;
                if self.checked("Network.setBlockedURLs", &rules, session, deadline).await.is_ok() {
                    self.shared.ruled_frames.lock().unwrap_or_else(|p| p.into_inner()).push(child.session.clone());
                }
            }
            let _ = self.checked("Target.setAutoAttach", &auto_attach(), session, deadline).await;
        }
        // Always: a frame or worker left waiting would never run.
        let _ = self.checked("Runtime.runIfWaitingForDebugger", &json!({}), session, deadline).await;
    }

    /// The dialog open in the tab, if one is (known once dialogs are watched).
    pub fn dialog(&self) -> Option<Dialog> {
        self.shared.dialog().clone()
    }

    /// One command on the tab's own session, bounded by `deadline`; its
    /// result as JSON text. A CDP error is `snapshot.capture-failed` with
    /// the browser's message.
    pub async fn call(&self, method: &str, params: &Value, deadline: Instant) -> Result<String> {
        self.checked(method, params, Some(&self.page_session), deadline).await
    }

    /// The tab's requests in flight: each one's URL and how long ago it started.
    pub fn requests_in_flight(&self) -> Vec<(String, Duration)> {
        let requests = self.shared.requests.lock().unwrap_or_else(|p| p.into_inner());
        requests.values().map(|(url, at)| (url.clone(), at.elapsed())).collect()
    }

    /// Why this connection cannot reach its tab any more, if it cannot.
    pub fn broken(&self) -> Option<WebAiError> {
        self.shared.closed.get().cloned().or_else(|| self.shared.gone().clone())
    }

    async fn pick_tab(&self, endpoint: &Endpoint, deadline: Instant) -> Result<String> {
        let targets = self.checked("Target.getTargets", &json!({}), None, deadline).await?;
        let v: Value = serde_json::from_str(&targets).map_err(|e| unreachable(&self.endpoint, e))?;
        let pages: Vec<(String, String)> = v
            .get("targetInfos")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|t| t.get("type").and_then(Value::as_str) == Some("page"))
            .filter_map(|t| Some((t.get("targetId")?.as_str()?.to_string(), t.get("url").and_then(Value::as_str).unwrap_or_default().to_string())))
            .collect();
        let chosen: Vec<&(String, String)> = match (&endpoint.target_id, &endpoint.url_includes) {
            (Some(id), _) => pages.iter().filter(|(t, _)| t == id).collect(),
            (None, Some(part)) => pages.iter().filter(|(_, u)| u.contains(part.as_str())).collect(),
            (None, None) => pages.iter().collect(),
        };
        match chosen.as_slice() {
            [one] => Ok(one.0.clone()),
            [] => Err(mismatch(
                match (&endpoint.target_id, &endpoint.url_includes) {
                    (Some(id), _) => format!("no tab has targetId {id}"),
                    (None, Some(p)) => format!("no tab URL contains {p:?}"),
                    (None, None) => "the browser has no open tab".to_string(),
                },
                &pages,
            )),
            many => Err(mismatch(format!("{} tabs match; pass targetId or a more specific urlIncludes", many.len()), &pages)),
        }
    }

    async fn attach(&self, target_id: &str, deadline: Instant) -> Result<String> {
        let r = self.checked("Target.attachToTarget", &json!({ "targetId": target_id, "flatten": true }), None, deadline).await.map_err(|e| {
            // The tab was listed a moment ago and closed since: that is a tab that went away, not a failed capture.
            if e.code == ErrorCode::CaptureFailed && e.message.contains("No target with given id") {
                WebAiError::new(ErrorCode::TargetDetached, format!("the tab {target_id} closed before it could be attached"))
                    .with_evidence(json!({ "targetId": target_id }))
            } else {
                e
            }
        })?;
        let v: Value = serde_json::from_str(&r).map_err(|e| unreachable(&self.endpoint, e))?;
        v.get("sessionId").and_then(Value::as_str).map(str::to_string).ok_or_else(|| unreachable(&self.endpoint, "attachToTarget gave no sessionId"))
    }

    /// One command on a session (None: the browser's), waited for without a deadline.
    async fn send(&self, method: &str, params: &Value, session: Option<&str>) -> CdpReply {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = self.shared.lock();
            if let Some(why) = self.shared.closed.get() {
                return CdpReply::Broken(why.clone());
            }
            let to_page = session.is_some_and(|s| self.shared.is_page(s));
            if let Some(why) = self.shared.gone().as_ref().filter(|why| to_page && !revives(why, method)) {
                return CdpReply::Broken(why.clone());
            }
            if to_page && !answers_during_dialog(method) {
                if let Some(d) = self.shared.dialog().as_ref() {
                    return CdpReply::Err(d.blocked());
                }
            }
            pending.insert(id, Waiter { session: session.map(str::to_string), reply: tx });
        }
        let _guard = Pending { shared: &self.shared, id };
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_string());
        }
        if let Err(e) = self.sink.lock().await.send(Message::Text(msg.to_string().into())).await {
            return CdpReply::Broken(self.shared.closed.get().cloned().unwrap_or_else(|| socket_error(&e)));
        }
        rx.await.unwrap_or_else(|_| CdpReply::Broken(self.shared.closed.get().cloned().unwrap_or_else(|| closed_by_peer(None))))
    }

    /// A command whose failure fails the caller, bounded by `deadline`.
    async fn checked(&self, method: &str, params: &Value, session: Option<&str>, deadline: Instant) -> Result<String> {
        match tokio::time::timeout_at(deadline.into(), self.send(method, params, session)).await {
            Ok(CdpReply::Ok(r)) => Ok(r),
            Ok(CdpReply::Err(m)) => {
                Err(WebAiError::new(ErrorCode::CaptureFailed, format!("{method} failed: {m}")).with_evidence(json!({ "method": method, "message": m })))
            }
            Ok(CdpReply::Broken(e)) => Err(e),
            Ok(CdpReply::TimedOut) | Err(_) => {
                Err(WebAiError::new(ErrorCode::Timeout, format!("{method} got no answer before the deadline")).with_evidence(json!({ "method": method })))
            }
        }
    }

    /// The session of an out-of-process frame, attached on first use.
    async fn frame_session(&self, frame_id: &str) -> std::result::Result<String, CdpReply> {
        let mut known = self.frame_sessions.lock().await;
        if let Some(s) = known.get(frame_id) {
            return s.clone();
        }
        // An out-of-process frame's target id is its frame id. No deadline
        // here: the caller's call is bounded as a whole.
        let attached = match self.send("Target.attachToTarget", &json!({ "targetId": frame_id, "flatten": true }), None).await {
            CdpReply::Ok(r) => serde_json::from_str::<Value>(&r)
                .ok()
                .and_then(|v| v.get("sessionId").and_then(Value::as_str).map(str::to_string))
                .ok_or_else(|| CdpReply::Err("attachToTarget gave no sessionId".to_string())),
            CdpReply::Err(m) => Err(CdpReply::Err(m)),
            CdpReply::TimedOut => Err(CdpReply::Err("no answer within timeoutMs".into())),
            // Not remembered: the whole connection is gone.
            broken @ CdpReply::Broken(_) => return Err(broken),
        };
        known.insert(frame_id.to_string(), attached.clone());
        attached
    }

    /// Load `url` in the tab and wait until its document has loaded.
    pub async fn navigate(&self, url: &str, deadline: Instant) -> Result<()> {
        let reply = self.checked("Page.navigate", &json!({ "url": url }), Some(&self.page_session), deadline).await?;
        let v: Value = serde_json::from_str(&reply).unwrap_or(Value::Null);
        if let Some(why) = v.get("errorText").and_then(Value::as_str).filter(|e| !e.is_empty()) {
            let dns = why.contains("ERR_NAME_NOT_RESOLVED") || why.contains("ERR_NAME_RESOLUTION_FAILED");
            let code = if dns { ErrorCode::DnsFailed } else { ErrorCode::NavigationFailed };
            let hint = if dns { " (the host name does not resolve: check the URL, or the network)" } else { "" };
            return Err(WebAiError::new(code, format!("{url} could not be opened: {why}{hint}")).with_evidence(json!({ "url": url, "errorText": why })));
        }
        let ready = json!({ "expression": "document.readyState", "returnByValue": true });
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(WebAiError::new(ErrorCode::NavigationFailed, format!("{url} did not finish loading before the deadline"))
                    .with_evidence(json!({ "url": url })));
            }
            // A navigation that replaced the document may fail one evaluation: ask again.
            if let Ok(state) = self.checked("Runtime.evaluate", &ready, Some(&self.page_session), deadline).await {
                if state.contains("\"complete\"") {
                    return Ok(());
                }
            }
            tokio::time::sleep(Duration::from_millis(50).min(left)).await;
        }
    }

    /// Our isolated world in the main frame's document (made if it is not there; Chrome keeps one per name).
    pub async fn world_context(&self, deadline: Instant) -> Result<i64> {
        let page = Some(self.page_session.as_str());
        let tree: Value = serde_json::from_str(&self.checked("Page.getFrameTree", &json!({}), page, deadline).await?).unwrap_or(Value::Null);
        let frame = tree.pointer("/frameTree/frame/id").and_then(Value::as_str).unwrap_or_default().to_string();
        let world = json!({ "frameId": frame, "worldName": crate::capture::WORLD_NAME });
        let world: Value = serde_json::from_str(&self.checked("Page.createIsolatedWorld", &world, page, deadline).await?).unwrap_or(Value::Null);
        world
            .get("executionContextId")
            .and_then(Value::as_i64)
            .ok_or_else(|| WebAiError::new(ErrorCode::CaptureFailed, "Page.createIsolatedWorld gave no context"))
    }

    /// Evaluate `expression` in execution context `context`; its value as JSON text.
    pub async fn evaluate_in_context(&self, context: i64, expression: &str, deadline: Instant) -> Result<String> {
        let page = Some(self.page_session.as_str());
        let params = json!({ "expression": expression, "contextId": context, "returnByValue": true, "awaitPromise": true });
        let reply: Value = serde_json::from_str(&self.checked("Runtime.evaluate", &params, page, deadline).await?).unwrap_or(Value::Null);
        if let Some(ex) = reply.get("exceptionDetails") {
            let text = ex.pointer("/exception/description").or_else(|| ex.get("text")).and_then(Value::as_str).unwrap_or("an exception").to_string();
            return Err(WebAiError::new(ErrorCode::CaptureFailed, format!("the page script threw: {text}")).with_evidence(json!({ "message": text })));
        }
        Ok(reply.pointer("/result/value").map_or_else(|| "null".to_string(), Value::to_string))
    }

    /// The bare tree call, its reply not parsed (the benchmark's floor): its size in bytes.
    pub async fn raw_tree(&self, deadline: Instant) -> Result<usize> {
        self.checked("Accessibility.getFullAXTree", &json!({}), Some(&self.page_session), deadline).await.map(|s| s.len())
    }

    /// Detach this connection's sessions (the browser stays as it was) and close.
    pub async fn close(self) {
        let deadline = Instant::now() + Duration::from_millis(500);
        let frames = self.frame_sessions.lock().await.values().filter_map(|s| s.clone().ok()).collect::<Vec<_>>();
        let detach = std::iter::once(self.page_session.clone()).chain(frames).filter(|s| !s.is_empty()).map(|s| {
            let conn = &self;
            async move { conn.checked("Target.detachFromTarget", &json!({ "sessionId": s }), None, deadline).await }
        });
        futures::future::join_all(detach).await;
        let _ = tokio::time::timeout(Duration::from_millis(200), async { self.sink.lock().await.close().await }).await;
        self.reader.abort();
    }
}

impl CdpTransport for NativeConnection {
    fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a> {
        Box::pin(async move {
            let session = match call.session {
                None => self.page_session.clone(),
                Some(frame) => match self.frame_session(frame).await {
                    Ok(s) => s,
                    Err(why) => return why,
                },
            };
            self.send(call.method, call.params, Some(&session)).await
        })
    }
}

impl Drop for NativeConnection {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Why the websocket handshake failed: a peer that is not a DevTools
/// websocket (wrong accept key, not an upgrade) broke the protocol; a socket
/// that would not open is unreachable.
fn handshake_error(endpoint: &str, e: tungstenite::Error) -> WebAiError {
    use tungstenite::error::Error as E;
    match e {
        E::Io(ref io) if io.kind() == std::io::ErrorKind::ConnectionRefused => unreachable(endpoint, &e),
        E::Url(_) | E::Tls(_) => unreachable(endpoint, &e),
        E::Http(ref response) => unreachable(endpoint, format!("the websocket upgrade was answered with HTTP {}", response.status())),
        E::Protocol(_) | E::HttpFormat(_) | E::Utf8(_) => {
            WebAiError::new(ErrorCode::ProtocolViolation, format!("the DevTools endpoint {endpoint} answered the websocket handshake wrongly: {e}"))
                .with_evidence(json!({ "endpoint": endpoint, "message": e.to_string() }))
        }
        other => {
            let mut err = socket_error(&other);
            err.message = format!("{} (during the websocket handshake with {endpoint})", err.message);
            err
        }
    }
}

fn mismatch(message: String, pages: &[(String, String)]) -> WebAiError {
    let tabs: Vec<Value> = pages.iter().map(|(id, url)| json!({ "targetId": id, "url": url })).collect();
    WebAiError::new(ErrorCode::CdpTargetMismatch, message).with_evidence(json!({ "tabs": tabs }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(shared: &Shared, id: u64) -> oneshot::Receiver<CdpReply> {
        let (tx, rx) = oneshot::channel();
        shared.lock().insert(id, Waiter { session: Some("S".into()), reply: tx });
        rx
    }

    #[test]
    fn a_reply_nested_100k_deep_reaches_its_call_and_garbage_is_invalid_json() {
        // `DOM.getDocument` of a deep page nests as deep as the page: the
        // reply passes through as raw text, never walked recursively here.
        let shared = Shared::default();
        let mut rx = waiting(&shared, 7);
        let deep = format!("{{\"id\":7,\"result\":{}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(dispatch(&shared, &deep).is_ok());
        assert!(matches!(rx.try_recv(), Ok(CdpReply::Ok(text)) if text.len() == 200_001));
        let e = dispatch(&shared, "{\"id\":").err().map(|e| e.code);
        assert_eq!(e, Some(ErrorCode::InvalidJson));
        // An error object nested past serde's limit is still an answer, not a dead connection.
        let mut rx = waiting(&shared, 8);
        let deep_error = format!("{{\"id\":8,\"error\":{{\"message\":\"no\",\"data\":{}1{}}}}}", "[".repeat(10_000), "]".repeat(10_000));
        let r = dispatch(&shared, &deep_error);
        assert!(r.is_ok(), "{r:?}");
        assert!(matches!(rx.try_recv(), Ok(CdpReply::Err(m)) if m == "no"));
    }

    #[test]
    fn a_call_answered_session_not_found_ends_the_tab_as_detached_before_its_event() {
        let shared = Shared::default();
        let _ = shared.page_session.set("S".into());
        let mut first = waiting(&shared, 4);
        let mut second = waiting(&shared, 5);
        assert!(dispatch(&shared, r#"{"id":4,"error":{"code":-32001,"message":"Session with given id not found."}}"#).is_ok());
        for rx in [&mut first, &mut second] {
            assert!(matches!(rx.try_recv(), Ok(CdpReply::Broken(e)) if e.code == ErrorCode::TargetDetached));
        }
        assert_eq!(shared.gone().as_ref().map(|e| e.code), Some(ErrorCode::TargetDetached));
        // An out-of-process frame's session only fails its own calls.
        let shared = Shared::default();
        let _ = shared.page_session.set("P".into());
        let mut frame = waiting(&shared, 6);
        assert!(dispatch(&shared, r#"{"id":6,"error":{"message":"Session with given id not found."}}"#).is_ok());
        assert!(matches!(frame.try_recv(), Ok(CdpReply::Err(m)) if m.contains("frame went away")));
        assert!(shared.gone().is_none());
    }

    #[test]
    fn a_frame_held_to_the_request_rules_is_let_go_when_chrome_detaches_it() {
        let shared = Shared::default();
        let _ = shared.page_session.set("P".into());
        shared.ruled_frames.lock().unwrap().extend(["F1".to_string(), "F2".to_string()]);
        let detached = r#"{"method":"Target.detachedFromTarget","sessionId":"P","params":{"sessionId":"F1","targetId":"T1"}}"#;
        assert!(dispatch(&shared, detached).is_ok());
        assert_eq!(*shared.ruled_frames.lock().unwrap(), ["F2"]);
        assert!(shared.gone().is_none(), "a frame's detach is not the tab's");
    }

    #[test]
    fn a_dialog_ends_the_calls_waiting_on_the_page_and_is_known_until_it_closes() {
        let shared = Shared::default();
        let _ = shared.page_session.set("S".into());
        let mut rx = waiting(&shared, 3);
        let open = r#"{"method":"Page.javascriptDialogOpening","sessionId":"S","params":{"url":"file:///a.html","message":"Leave?","type":"beforeunload","hasBrowserHandler":false}}"#;
        assert!(dispatch(&shared, open).is_ok());
        assert!(matches!(rx.try_recv(), Ok(CdpReply::Err(m)) if m.contains("beforeunload") && m.contains("Leave?")));
        assert_eq!(shared.dialog().as_ref().map(|d| d.kind.as_str()), Some("beforeunload"));
        // Another session's dialog (an out-of-process frame's) is not the tab's.
        let closed_elsewhere = r#"{"method":"Page.javascriptDialogClosed","sessionId":"F","params":{"result":true,"userInput":""}}"#;
        assert!(dispatch(&shared, closed_elsewhere).is_ok());
        assert!(shared.dialog().is_some());
        let closed = r#"{"method":"Page.javascriptDialogClosed","sessionId":"S","params":{"result":true,"userInput":""}}"#;
        assert!(dispatch(&shared, closed).is_ok());
        assert!(shared.dialog().is_none());
        assert!(answers_during_dialog("Page.handleJavaScriptDialog") && !answers_during_dialog("Runtime.evaluate"));
    }
}
