//! The napi surface: converts values at the edge and nothing else.
//!
//! Values cross as typed objects; JSON text only where it is the faster
//! road: a snapshot (one string instead of thousands of small objects) and
//! CDP replies (already text when the browser's session hands them over).
//! A deliberate failure of a synchronous function is thrown as an `Error`
//! carrying `errorCode`, `stage`, `retryHint` and `evidence`; an async one
//! resolves to an outcome with an `error` of those fields, which the JS
//! layer throws as a `WebAiError`.
//!
//! One file a concept: [`capture`], [`session`], [`action`], [`agent`]; this
//! one holds the constants and the error shape they share.
//!
//! Every async function awaits its capture, action or connection behind a
//! `Box::pin`. napi builds an async function's future on the JS thread's
//! stack when it is called, and a future is as large as its largest await:
//! inlined, a whole capture's state machine. The release addon then ran out
//! of V8's stack from a call 10 JS frames deep, or from the continuation of
//! an `await` of another call of the session (a page session's second look),
//! and threw `undefined`; the debug addon did from 3,000 frames. Boxed, a
//! call works from 8,000 frames deep in both (plain JS recurses about
//! 11,000 here), and `native.test.mjs` calls each from 6,000.

// napi-derive registers the exports only outside `cfg(test)`, so in the
// crate's own test build (clippy --all-targets) every export looks unused.
#![cfg_attr(test, allow(dead_code))]

use napi::bindgen_prelude::*;
use napi::threadsafe_function::ThreadsafeFunction;
use napi_derive::napi;
use serde_json::Value;

use crate::action::{self as act, ActionRequest, RefTarget};
use crate::agent::targets::{self, Pattern, PatternSpec, RefView, Target};
use crate::agent::{contracts, registry, staleness};
use crate::capture::pump::{Pump, PumpStep};
use crate::capture::{CaptureContext, Captured, CdpCall, CdpReply, CdpTransport, ReplyFuture};
use crate::compat::{dom_hash, hash};
use crate::error::{ErrorCode, WebAiError};
use crate::native::{self, Endpoint};
use crate::options::{self, SnapshotOptions};
use crate::text::snapshot::{build_snapshot, PageFacts};
use crate::tree::{cdp_reader, legacy_reader};

mod action;
mod agent;
mod capture;
mod session;

#[napi]
pub const DEFAULT_SNAPSHOT_MAX_DEPTH: u32 = options::DEFAULT_SNAPSHOT_MAX_DEPTH;

#[napi]
pub const DEFAULT_MAX_NAME_CHARS: u32 = options::DEFAULT_MAX_NAME_CHARS;

#[napi]
pub const DEFAULT_DOM_HASH_MAX_CHARS: u32 = options::DEFAULT_DOM_HASH_MAX_CHARS;

#[napi]
pub const DEFAULT_TIMEOUT_MS: u32 = options::DEFAULT_TIMEOUT_MS;

#[napi]
pub const DEFAULT_ACTION_TIMEOUT_MS: u32 = act::DEFAULT_ACTION_TIMEOUT_MS;

#[napi]
pub const DEFAULT_SCROLL_AMOUNT: u32 = act::DEFAULT_SCROLL_AMOUNT as u32;

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
pub(super) fn thrown(env: &Env, e: WebAiError) -> Error {
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

#[napi(object)]
pub struct Outcome {
    pub error: Option<ErrorInit>,
}

/// The error table (code, stage, retry hint) for the docs and the JS layer's checks.
#[napi]
pub fn error_table() -> Vec<Vec<&'static str>> {
    ErrorCode::ALL.iter().map(|c| vec![c.code(), c.stage(), c.retry_hint()]).collect()
}
