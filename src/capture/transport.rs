//! How CDP commands reach a browser, whoever holds the connection.
//!
//! Capture and actions are written once against [`CdpTransport`]: the JS
//! layer backs it with a Playwright page's or a `{ cdp }` session's `send`
//! (through the binding), the native path with its own DevTools connection,
//! and the tests with recorded replies. Calls are concurrent (`&self`), and
//! every call a plan makes is bounded by [`call_before`].

use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use serde_json::Value;

use crate::error::{ErrorCode, WebAiError};

/// One command as a transport sees it.
#[derive(Debug, Clone, Copy)]
pub struct CdpCall<'a> {
    pub method: &'a str,
    pub params: &'a Value,
    /// The out-of-process frame (by frame id) whose own session must answer;
    /// None: the page's session.
    pub session: Option<&'a str>,
    /// For transports that hold parsed results (the JS driver): copy only
    /// these fields into the reply text. Raw transports ignore it.
    pub project: Option<&'a Value>,
}

impl<'a> CdpCall<'a> {
    pub fn new(method: &'a str, params: &'a Value) -> CdpCall<'a> {
        CdpCall { method, params, session: None, project: None }
    }

    pub fn in_session(self, session: Option<&'a str>) -> CdpCall<'a> {
        CdpCall { session, ..self }
    }
}

/// A reply to one command: the `result` object as JSON text, or why not.
#[derive(Debug, Clone, PartialEq)]
pub enum CdpReply {
    Ok(String),
    Err(String),
    /// No answer before the deadline.
    TimedOut,
    /// The connection or the tab is gone (closed, crashed, detached, a
    /// protocol violation): no later call on it can succeed, so the caller
    /// fails with this error instead of taking it as one command's refusal.
    Broken(WebAiError),
}

/// A JS session's rejection as a reply. Playwright and Puppeteer word a
/// closed or crashed target in a few fixed ways; those end the capture with
/// the target's own code, anything else is the browser refusing one command.
pub fn js_rejection(message: &str) -> CdpReply {
    let m = message.to_ascii_lowercase();
    // Whole phrases: a command's own refusal may say "detached" of a node.
    let code = if m.contains("target crashed") {
        Some(ErrorCode::TargetCrashed)
    } else if m.contains("target closed")
        || m.contains("session closed")
        || m.contains("has been closed")
        || m.contains("session with given id not found")
        || m.contains("detached from target")
    {
        Some(ErrorCode::TargetDetached)
    } else {
        None
    };
    match code {
        Some(code) => CdpReply::Broken(
            WebAiError::new(code, format!("the tab's CDP session is gone: {message}")).with_evidence(serde_json::json!({ "message": message })),
        ),
        None => CdpReply::Err(message.to_string()),
    }
}

pub type ReplyFuture<'a> = Pin<Box<dyn Future<Output = CdpReply> + Send + 'a>>;

pub trait CdpTransport: Send + Sync {
    /// Send one command and wait for its reply. Implementations need not
    /// bound the wait: callers go through [`call_before`].
    fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a>;

    /// [`CdpTransport::call`], given up at `deadline` (on tokio's timer). A
    /// transport whose caller keeps the deadlines (the pump) passes it on.
    fn call_until<'a>(&'a self, call: CdpCall<'a>, deadline: Instant) -> ReplyFuture<'a> {
        Box::pin(async move {
            match tokio::time::timeout_at(deadline.into(), self.call(call)).await {
                Ok(reply) => reply,
                Err(_) => CdpReply::TimedOut,
            }
        })
    }
}

/// One call, given up at `deadline`.
pub async fn call_before(transport: &dyn CdpTransport, call: CdpCall<'_>, deadline: Instant) -> CdpReply {
    transport.call_until(call, deadline).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_rejections_name_a_gone_target_and_keep_refusals() {
        let code = |m: &str| match js_rejection(m) {
            CdpReply::Broken(e) => Some(e.code.code()),
            _ => None,
        };
        assert_eq!(code("Protocol error (Accessibility.getFullAXTree): Target crashed"), Some("target.crashed"));
        assert_eq!(code("Target page, context or browser has been closed"), Some("target.detached"));
        assert_eq!(code("Protocol error (DOM.getDocument): Session closed. Most likely the page has been closed."), Some("target.detached"));
        assert_eq!(code("Protocol error (DOM.describeNode): No node with given id found"), None);
        assert_eq!(code("Protocol error (DOM.scrollIntoViewIfNeeded): Node is detached from document"), None);
        assert_eq!(js_rejection("Cannot find context with specified id"), CdpReply::Err("Cannot find context with specified id".into()));
    }
}
