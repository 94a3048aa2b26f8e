//! Actions and the live check of a ref, over a JS session or an endpoint.

use super::*;
use super::{agent::*, capture::*};

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
    act::ActionCode::ALL.iter().map(|c| c.as_str()).collect()
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

pub(super) fn request_of(input: ActionInput) -> ActionRequest {
    ActionRequest {
        action: input.action,
        args: input.args,
        snapshot_id: input.snapshot_id,
        ref_count: input.ref_count as usize,
        target: input.target.and_then(|t| serde_json::from_value::<RefTarget>(t).ok()),
        timeout_ms: input.timeout_ms.unwrap_or(act::DEFAULT_ACTION_TIMEOUT_MS),
    }
}

pub(super) fn action_result(o: act::ActionOutcome) -> ActionResult {
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
    action_result(Box::pin(act::run(&JsTransport { send }, &request)).await)
}

/// Run one action on a tab of a running browser, connecting from Rust.
#[napi]
pub async fn act_native(endpoint: EndpointInput, input: ActionInput) -> ActionResult {
    let request = request_of(input);
    let started = std::time::Instant::now();
    let deadline = started + std::time::Duration::from_millis(request.timeout_ms.max(1) as u64);
    let opened = match Endpoint::try_from(endpoint) {
        Ok(endpoint) => Box::pin(native::NativeConnection::open(&endpoint, deadline)).await,
        Err(e) => Err(e),
    };
    match opened {
        Ok(conn) => {
            let left = deadline.saturating_duration_since(std::time::Instant::now()).as_millis() as u32;
            let mut o = Box::pin(act::run(&conn, &ActionRequest { timeout_ms: left.max(1), ..request })).await;
            conn.close().await;
            o.action_ms = started.elapsed().as_secs_f64() * 1000.0;
            action_result(o)
        }
        Err(e) => action_failed_to_connect(e, started),
    }
}

/// An action that could not reach the tab: `action_failed`, with the cause's code in its evidence.
pub(super) fn action_failed_to_connect(e: WebAiError, started: std::time::Instant) -> ActionResult {
    ActionResult {
        success: false,
        error: Some(act::ActionCode::ActionFailed.as_str().to_string()),
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
    match Box::pin(act::verify(&JsTransport { send }, &target, timeout_ms)).await {
        Ok(c) => VerifyOutcome {
            verdict: Some(Verdict { verdict: verdict_kind(c.verdict), message: c.message, now: c.now.map(|(role, name)| Identity { role, name }) }),
            failure: None,
            timed_out: false,
        },
        Err(f) => VerifyOutcome { verdict: None, timed_out: f.code == act::ActionCode::Timeout, failure: Some(f.message) },
    }
}
