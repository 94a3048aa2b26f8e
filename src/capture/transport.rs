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
}

pub type ReplyFuture<'a> = Pin<Box<dyn Future<Output = CdpReply> + Send + 'a>>;

pub trait CdpTransport: Send + Sync {
    /// Send one command and wait for its reply. Implementations need not
    /// bound the wait: callers go through [`call_before`].
    fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a>;
}

/// One call, given up at `deadline`.
pub async fn call_before(transport: &dyn CdpTransport, call: CdpCall<'_>, deadline: Instant) -> CdpReply {
    match tokio::time::timeout_at(deadline.into(), transport.call(call)).await {
        Ok(reply) => reply,
        Err(_) => CdpReply::TimedOut,
    }
}
