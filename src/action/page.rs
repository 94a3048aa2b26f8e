//! CDP calls as an action makes them: one deadline for the whole action,
//! small JSON replies parsed, failures turned into action errors.

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
}

/// An argument of a page function: a value, or a remote object.
pub enum Arg<'a> {
    Value(Value),
    Object(&'a str),
}

impl<'a> Page<'a> {
    pub fn new(transport: &'a dyn CdpTransport, what: &'a str, timeout_ms: u32) -> Page<'a> {
        Page { transport, deadline: Instant::now() + std::time::Duration::from_millis(timeout_ms as u64), what, timeout_ms }
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

    /// Evaluate an expression in the page's main frame, awaiting a promise.
    pub async fn evaluate(&self, expression: &str) -> Step<Value> {
        let r = self.send("Runtime.evaluate", json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }), None).await?;
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }

    /// The page's visual viewport: `{ width, height, scrollX, scrollY }`.
    pub async fn viewport(&self) -> Step<Value> {
        let m = self.send("Page.getLayoutMetrics", json!({}), None).await?;
        let v = m.get("cssVisualViewport").or_else(|| m.get("visualViewport")).cloned().unwrap_or(Value::Null);
        Ok(json!({ "width": v.get("clientWidth"), "height": v.get("clientHeight"), "scrollX": v.get("pageX"), "scrollY": v.get("pageY") }))
    }
}
