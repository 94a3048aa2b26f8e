//! CDP calls as an action makes them: one deadline for the whole action,
//! small JSON replies parsed, failures turned into action errors.

use std::sync::Mutex;
use std::time::Instant;

use serde_json::{json, Value};

use super::outcome::{ActionCode, Fail, Step};
use crate::capture::{call_before, CdpCall, CdpReply, CdpTransport};

pub struct Page<'a> {
    transport: &'a dyn CdpTransport,
    deadline: Instant,
    /// For the timeout message: what ran out of time, and its budget.
    what: &'a str,
    timeout_ms: u32,
    /// Our isolated world per (session, frame), once asked for (None: none could be had).
    worlds: Mutex<Vec<(WorldKey, Option<i64>)>>,
}

/// A frame of a session (None: the page's), whose world is cached.
type WorldKey = (Option<String>, String);

/// An argument of a page function: a value, or a remote object.
pub enum Arg<'a> {
    Value(Value),
    Object(&'a str),
}

impl<'a> Page<'a> {
    pub fn new(transport: &'a dyn CdpTransport, what: &'a str, timeout_ms: u32) -> Page<'a> {
        Page { transport, deadline: Instant::now() + std::time::Duration::from_millis(timeout_ms as u64), what, timeout_ms, worlds: Mutex::new(Vec::new()) }
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    pub fn timed_out(&self) -> Fail {
        Fail::new(ActionCode::Timeout, format!("{} did not finish within {} ms", self.what, self.timeout_ms))
    }

    /// One command; `session` is the out-of-process frame whose session answers (None: the page's).
    pub async fn send(&self, method: &str, params: Value, session: Option<&str>) -> Step<Value> {
        match self.send_raw(method, &params, session).await? {
            Ok(v) => Ok(v),
            Err(m) => Err(Fail::refused(m)),
        }
    }

    /// Like [`Page::send`], but the browser's refusal is the caller's to judge.
    pub async fn send_raw(&self, method: &str, params: &Value, session: Option<&str>) -> Step<std::result::Result<Value, String>> {
        let call = CdpCall::new(method, params).in_session(session);
        match call_before(self.transport, call, self.deadline).await {
            CdpReply::Ok(text) => {
                serde_json::from_str(&text).map(Ok).map_err(|e| Fail::refused(format!("{method} answered with something that is not JSON: {e}")))
            }
            CdpReply::Err(m) => Ok(Err(m)),
            CdpReply::TimedOut => Err(self.timed_out()),
            CdpReply::Broken(e) => {
                Err(Fail::new(ActionCode::ActionFailed, e.message.clone()).with_evidence(json!({ "errorCode": e.code.code(), "evidence": e.evidence })))
            }
        }
    }

    /// Call a page function on a remote object and return its value.
    pub async fn call_on(&self, session: Option<&str>, object_id: &str, function: &str, args: Vec<Arg<'_>>) -> Step<Value> {
        let arguments: Vec<Value> = args
            .into_iter()
            .map(|a| match a {
                Arg::Value(v) => json!({ "value": v }),
                Arg::Object(id) => json!({ "objectId": id }),
            })
            .collect();
        let r = self
            .send(
                "Runtime.callFunctionOn",
                json!({ "objectId": object_id, "functionDeclaration": function, "arguments": arguments, "returnByValue": true, "awaitPromise": true }),
                session,
            )
            .await?;
        if let Some(d) = r.get("exceptionDetails") {
            let why = d.pointer("/exception/description").or_else(|| d.get("text")).and_then(Value::as_str).unwrap_or("the page threw");
            return Err(Fail::refused(why));
        }
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }

    /// Evaluate an expression in the page's main frame, awaiting a promise,
    /// in our isolated world when one can be had.
    pub async fn evaluate(&self, expression: &str) -> Step<Value> {
        let mut params = json!({ "expression": expression, "returnByValue": true, "awaitPromise": true });
        if let Some(frame) = self.main_frame(None).await? {
            if let Some(id) = self.world(None, &frame).await? {
                params["contextId"] = json!(id);
            }
        }
        let r = self.send("Runtime.evaluate", params, None).await?;
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }

    /// The id of the main frame of `session`'s process (None: the page's).
    pub async fn main_frame(&self, session: Option<&str>) -> Step<Option<String>> {
        Ok(self
            .send_raw("Page.getFrameTree", &json!({}), session)
            .await?
            .ok()
            .and_then(|t| t.pointer("/frameTree/frame/id").and_then(Value::as_str).map(str::to_string)))
    }

    /// Our isolated world in `frame_id` (on `session`): the action scripts
    /// run there, so nothing the page did to its globals or prototypes
    /// changes what they read or do. None when the browser would not make
    /// one; the scripts then run in the page's world.
    pub async fn world(&self, session: Option<&str>, frame_id: &str) -> Step<Option<i64>> {
        let key = (session.map(str::to_string), frame_id.to_string());
        // A panic elsewhere while holding the lock leaves the list usable.
        let worlds = || self.worlds.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, known)) = worlds().iter().find(|(k, _)| *k == key) {
            return Ok(*known);
        }
        let made = self
            .send_raw("Page.createIsolatedWorld", &json!({ "frameId": frame_id, "worldName": crate::capture::WORLD_NAME }), session)
            .await?
            .ok()
            .and_then(|v| v.get("executionContextId").and_then(Value::as_i64));
        worlds().push((key, made));
        Ok(made)
    }

    /// `DOM.resolveNode` in `context` (our world) when given, else in the
    /// node's own document's main world; a world that does not hold the node
    /// (another frame's) falls back to the latter. Says which world the
    /// object landed in.
    pub async fn resolve(&self, backend: i64, session: Option<&str>, context: Option<i64>) -> Step<std::result::Result<(Value, Option<i64>), String>> {
        if let Some(id) = context {
            if let Ok(v) = self.send_raw("DOM.resolveNode", &json!({ "backendNodeId": backend, "executionContextId": id }), session).await? {
                return Ok(Ok((v, Some(id))));
            }
        }
        Ok(self.send_raw("DOM.resolveNode", &json!({ "backendNodeId": backend }), session).await?.map(|v| (v, None)))
    }

    /// The page's visual viewport: `{ width, height, scrollX, scrollY }`.
    pub async fn viewport(&self) -> Step<Value> {
        let m = self.send("Page.getLayoutMetrics", json!({}), None).await?;
        let v = m.get("cssVisualViewport").or_else(|| m.get("visualViewport")).cloned().unwrap_or(Value::Null);
        Ok(json!({ "width": v.get("clientWidth"), "height": v.get("clientHeight"), "scrollX": v.get("pageX"), "scrollY": v.get("pageY") }))
    }
}
