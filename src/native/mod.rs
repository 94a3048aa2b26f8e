//! Connecting to a running browser's DevTools endpoint from Rust.
//!
//! [`NativeConnection`] implements [`CdpTransport`] over [`WebSocket`]: it picks
//! the tab, attaches a flat session to it (and to out-of-process frames when
//! the plan addresses them), sends each batch at once and hands replies back
//! as the browser's raw JSON text, parsed once by the tree reader. It leaves
//! the browser as it found it: only its own sessions are detached on close.

pub mod websocket;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::capture::{capture_with, CdpCommand, CdpReply, CdpTransport};
use crate::error::{ErrorCode, Result, WebAiError};
use crate::options::SnapshotOptions;
use crate::text::snapshot::WebAiSnapshot;
use crate::native::websocket::{http_get, split_ws_url, WebSocket, WsError};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Endpoint {
    /// `http://host:port` or a `ws://` DevTools URL.
    pub url: String,
    pub target_id: Option<String>,
    pub url_includes: Option<String>,
}

#[derive(Deserialize)]
struct Incoming<'a> {
    id: Option<u64>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    error: Option<Value>,
    method: Option<&'a str>,
    params: Option<Value>,
}

fn unreachable(endpoint: &str, why: impl std::fmt::Display) -> WebAiError {
    WebAiError::new(ErrorCode::CdpUnreachable, format!("cannot reach the DevTools endpoint {endpoint}: {why}"))
        .with_evidence(json!({ "endpoint": endpoint, "message": why.to_string() }))
}

fn mismatch(message: String, pages: &[(String, String)]) -> WebAiError {
    let tabs: Vec<Value> = pages.iter().map(|(id, url)| json!({ "targetId": id, "url": url })).collect();
    WebAiError::new(ErrorCode::CdpTargetMismatch, message).with_evidence(json!({ "tabs": tabs }))
}

/// The browser's websocket URL for an endpoint given as http:// or ws://.
pub fn websocket_url(endpoint: &str, deadline: Instant) -> Result<String> {
    if endpoint.starts_with("ws://") {
        return Ok(endpoint.to_string());
    }
    let rest = endpoint.strip_prefix("http://").ok_or_else(|| {
        WebAiError::new(ErrorCode::InvalidInput, format!("cdpEndpoint must be http://host:port or a ws:// URL, got {endpoint:?}"))
            .with_evidence(json!({ "what": "cdpEndpoint" }))
    })?;
    let authority = rest.split('/').next().unwrap_or_default();
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h.to_string(), p.parse::<u16>().map_err(|_| unreachable(endpoint, "bad port"))?),
        None => (authority.to_string(), 80),
    };
    let body = http_get(&host, port, "/json/version", deadline).map_err(|e| match e {
        WsError::Timeout => unreachable(endpoint, "no answer before the deadline"),
        other => unreachable(endpoint, other),
    })?;
    let v: Value = serde_json::from_str(&body).map_err(|e| unreachable(endpoint, format!("/json/version is not JSON: {e}")))?;
    let ws = v.get("webSocketDebuggerUrl").and_then(Value::as_str).ok_or_else(|| unreachable(endpoint, "/json/version has no webSocketDebuggerUrl"))?;
    // The browser reports its own idea of the host; keep the one the caller reached.
    match split_ws_url(ws) {
        Some((_, p, path)) => Ok(format!("ws://{host}:{p}{path}")),
        None => Ok(ws.to_string()),
    }
}

pub struct NativeConnection {
    ws: WebSocket,
    endpoint: String,
    next_id: u64,
    page_session: String,
    frame_sessions: HashMap<String, String>,
}

impl NativeConnection {
    pub fn open(endpoint: &Endpoint, deadline: Instant) -> Result<NativeConnection> {
        let ws_url = websocket_url(&endpoint.url, deadline)?;
        let ws = WebSocket::connect(&ws_url, deadline).map_err(|e| unreachable(&endpoint.url, e))?;
        let mut conn = NativeConnection { ws, endpoint: endpoint.url.clone(), next_id: 1, page_session: String::new(), frame_sessions: HashMap::new() };
        let targets = conn.call("Target.getTargets", json!({}), None, deadline)?;
        let v: Value = serde_json::from_str(&targets).map_err(|e| unreachable(&endpoint.url, e))?;
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
        let target = match chosen.as_slice() {
            [one] => one.0.clone(),
            [] => {
                let what = match (&endpoint.target_id, &endpoint.url_includes) {
                    (Some(id), _) => format!("no tab has targetId {id}"),
                    (None, Some(p)) => format!("no tab URL contains {p:?}"),
                    (None, None) => "the browser has no open tab".to_string(),
                };
                return Err(mismatch(what, &pages));
            }
            many => {
                return Err(mismatch(
                    format!("{} tabs match; pass targetId or a more specific urlIncludes", many.len()),
                    &pages,
                ))
            }
        };
        conn.page_session = conn.attach(&target, deadline)?;
        Ok(conn)
    }

    fn attach(&mut self, target_id: &str, deadline: Instant) -> Result<String> {
        let r = self.call("Target.attachToTarget", json!({ "targetId": target_id, "flatten": true }), None, deadline)?;
        let v: Value = serde_json::from_str(&r).map_err(|e| unreachable(&self.endpoint, e))?;
        v.get("sessionId").and_then(Value::as_str).map(str::to_string).ok_or_else(|| unreachable(&self.endpoint, "attachToTarget gave no sessionId"))
    }

    fn send(&mut self, method: &str, params: &Value, session: Option<&str>, deadline: Instant) -> std::result::Result<u64, WsError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_string());
        }
        self.ws.send_text(&msg.to_string(), deadline)?;
        Ok(id)
    }

    /// Read messages until every id in `want` is answered or the deadline passes.
    fn collect(&mut self, want: &[u64], deadline: Instant) -> HashMap<u64, std::result::Result<String, String>> {
        let mut got = HashMap::with_capacity(want.len());
        while got.len() < want.len() {
            let msg = match self.ws.read_message(deadline) {
                Ok(m) => m,
                Err(_) => break,
            };
            let Ok(text) = std::str::from_utf8(&msg) else { continue };
            let Ok(incoming) = serde_json::from_str::<Incoming>(text) else { continue };
            if incoming.method == Some("Target.detachedFromTarget") {
                // The tab (or a frame we read through) went away: its calls will never be answered.
                let gone = incoming.params.as_ref().and_then(|p| p.get("sessionId")).and_then(Value::as_str).map(str::to_string);
                if gone.as_deref() == Some(self.page_session.as_str()) {
                    for id in want {
                        got.entry(*id).or_insert_with(|| Err("the tab was closed during the capture".to_string()));
                    }
                    break;
                }
                if let Some(g) = gone {
                    self.frame_sessions.retain(|_, s| *s != g);
                }
                continue;
            }
            let Some(id) = incoming.id.filter(|id| want.contains(id)) else { continue };
            let reply = match (incoming.result, incoming.error) {
                (_, Some(err)) => Err(err.get("message").and_then(Value::as_str).unwrap_or("CDP error").to_string()),
                (Some(raw), None) => Ok(raw.get().to_string()),
                (None, None) => Ok("{}".to_string()),
            };
            got.insert(id, reply);
        }
        got
    }

    /// One command on the browser connection, waited for.
    fn call(&mut self, method: &str, params: Value, session: Option<&str>, deadline: Instant) -> Result<String> {
        let id = self.send(method, &params, session, deadline).map_err(|e| unreachable(&self.endpoint, e))?;
        match self.collect(&[id], deadline).remove(&id) {
            Some(Ok(r)) => Ok(r),
            Some(Err(m)) => Err(WebAiError::new(ErrorCode::CaptureFailed, format!("{method} failed: {m}"))
                .with_evidence(json!({ "method": method, "message": m }))),
            None => Err(WebAiError::new(ErrorCode::Timeout, format!("{method} got no answer before the deadline"))
                .with_evidence(json!({ "method": method }))),
        }
    }

    /// The bare tree call over this connection, unparsed (the benchmark's floor).
    pub fn raw_tree(&mut self, deadline: Instant) -> Result<usize> {
        let session = self.page_session.clone();
        self.call("Accessibility.getFullAXTree", json!({}), Some(&session), deadline).map(|s| s.len())
    }

    pub fn close(mut self) {
        let deadline = Instant::now() + Duration::from_millis(500);
        let sessions: Vec<String> = std::iter::once(self.page_session.clone()).chain(self.frame_sessions.values().cloned()).collect();
        let ids: Vec<u64> = sessions
            .iter()
            .filter(|s| !s.is_empty())
            .filter_map(|s| self.send("Target.detachFromTarget", &json!({ "sessionId": s }), None, deadline).ok())
            .collect();
        self.collect(&ids, deadline);
        self.ws.close();
    }
}

impl CdpTransport for NativeConnection {
    fn send_batch(&mut self, commands: &[CdpCommand], deadline_ms: u64) -> Vec<(u32, CdpReply)> {
        let deadline = Instant::now() + Duration::from_millis(deadline_ms);
        let mut sent: Vec<(u32, u64)> = Vec::with_capacity(commands.len());
        let mut out = Vec::with_capacity(commands.len());
        // Attach to out-of-process frames first: waiting for an attach reads the
        // connection, and must not swallow replies to commands already in flight.
        let mut failed_attach: HashMap<String, String> = HashMap::new();
        for c in commands {
            if let Some(frame) = &c.session {
                if !self.frame_sessions.contains_key(frame) && !failed_attach.contains_key(frame) {
                    // An out-of-process frame's target id is its frame id.
                    match self.attach(frame, deadline) {
                        Ok(s) => {
                            self.frame_sessions.insert(frame.clone(), s);
                        }
                        Err(e) => {
                            failed_attach.insert(frame.clone(), e.message);
                        }
                    }
                }
            }
        }
        for c in commands {
            let session = match &c.session {
                None => self.page_session.clone(),
                Some(frame) => match (self.frame_sessions.get(frame), failed_attach.get(frame)) {
                    (Some(s), _) => s.clone(),
                    (None, why) => {
                        out.push((c.id, CdpReply::Err(why.cloned().unwrap_or_else(|| "the frame's session is gone".into()))));
                        continue;
                    }
                },
            };
            match self.send(c.method, &c.params, Some(session.as_str()), deadline) {
                Ok(id) => sent.push((c.id, id)),
                Err(e) => out.push((c.id, CdpReply::Err(e.to_string()))),
            }
        }
        let want: Vec<u64> = sent.iter().map(|(_, id)| *id).collect();
        let mut got = self.collect(&want, deadline);
        for (cmd, id) in sent {
            out.push((cmd, match got.remove(&id) {
                Some(Ok(r)) => CdpReply::Ok(r),
                Some(Err(m)) => CdpReply::Err(m),
                None => CdpReply::TimedOut,
            }));
        }
        out
    }
}

/// Connect, snapshot the chosen tab, detach.
pub fn capture_endpoint(endpoint: &Endpoint, opts: SnapshotOptions) -> Result<WebAiSnapshot> {
    let deadline = Instant::now() + Duration::from_millis(opts.timeout_ms as u64);
    let mut conn = NativeConnection::open(endpoint, deadline)?;
    let left = deadline.saturating_duration_since(Instant::now()).as_millis() as u32;
    let result = capture_with(&mut conn, SnapshotOptions { timeout_ms: left.max(1), ..opts });
    conn.close();
    result
}
