//! The error taxonomy of SPEC §2: every deliberate failure carries a stable
//! `errorCode`, the `stage` it happened in and a `retryHint` for the caller.

use std::fmt;

use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    Unavailable,
    RootNotFound,
    CaptureFailed,
    Timeout,
    InvalidInput,
    RefNotFound,
    RefStale,
    CdpUnreachable,
    CdpTargetMismatch,
    BrowserNotFound,
    BrowserLaunchFailed,
    NavigationFailed,
    DnsFailed,
    BinaryMissing,
    ConnectionClosed,
    ProtocolViolation,
    MessageTooLarge,
    InvalidJson,
    TargetCrashed,
    TargetDetached,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 20] = [
        ErrorCode::Unavailable,
        ErrorCode::RootNotFound,
        ErrorCode::CaptureFailed,
        ErrorCode::Timeout,
        ErrorCode::InvalidInput,
        ErrorCode::RefNotFound,
        ErrorCode::RefStale,
        ErrorCode::CdpUnreachable,
        ErrorCode::CdpTargetMismatch,
        ErrorCode::BrowserNotFound,
        ErrorCode::BrowserLaunchFailed,
        ErrorCode::NavigationFailed,
        ErrorCode::DnsFailed,
        ErrorCode::BinaryMissing,
        ErrorCode::ConnectionClosed,
        ErrorCode::ProtocolViolation,
        ErrorCode::MessageTooLarge,
        ErrorCode::InvalidJson,
        ErrorCode::TargetCrashed,
        ErrorCode::TargetDetached,
    ];

    pub fn code(self) -> &'static str {
        match self {
            ErrorCode::Unavailable => "snapshot.unavailable",
            ErrorCode::RootNotFound => "snapshot.root-not-found",
            ErrorCode::CaptureFailed => "snapshot.capture-failed",
            ErrorCode::Timeout => "snapshot.timeout",
            ErrorCode::InvalidInput => "snapshot.invalid-input",
            ErrorCode::RefNotFound => "snapshot.ref-not-found",
            ErrorCode::RefStale => "snapshot.ref-stale",
            ErrorCode::CdpUnreachable => "cdp.unreachable",
            ErrorCode::CdpTargetMismatch => "cdp.target-mismatch",
            ErrorCode::BrowserNotFound => "browser.not-found",
            ErrorCode::BrowserLaunchFailed => "browser.launch-failed",
            ErrorCode::NavigationFailed => "page.navigation-failed",
            ErrorCode::DnsFailed => "page.dns-failed",
            ErrorCode::BinaryMissing => "addon.binary-missing",
            ErrorCode::ConnectionClosed => "cdp.connection-closed",
            ErrorCode::ProtocolViolation => "cdp.protocol-violation",
            ErrorCode::MessageTooLarge => "cdp.message-too-large",
            ErrorCode::InvalidJson => "cdp.invalid-json",
            ErrorCode::TargetCrashed => "target.crashed",
            ErrorCode::TargetDetached => "target.detached",
        }
    }

    pub fn stage(self) -> &'static str {
        match self {
            ErrorCode::Unavailable | ErrorCode::RootNotFound | ErrorCode::CaptureFailed | ErrorCode::Timeout => "snapshot-capture",
            ErrorCode::InvalidInput => "snapshot-input",
            ErrorCode::RefNotFound | ErrorCode::RefStale => "snapshot-ref-resolve",
            ErrorCode::CdpUnreachable | ErrorCode::CdpTargetMismatch => "cdp-connect",
            ErrorCode::BrowserNotFound | ErrorCode::BrowserLaunchFailed => "browser-launch",
            ErrorCode::NavigationFailed | ErrorCode::DnsFailed => "page-navigate",
            ErrorCode::BinaryMissing => "addon-load",
            ErrorCode::ConnectionClosed | ErrorCode::ProtocolViolation | ErrorCode::MessageTooLarge | ErrorCode::InvalidJson => "cdp-transport",
            ErrorCode::TargetCrashed | ErrorCode::TargetDetached => "page-target",
        }
    }

    pub fn retry_hint(self) -> &'static str {
        match self {
            ErrorCode::Unavailable => "pin-playwright-or-add-cdp-fallback",
            ErrorCode::RootNotFound => "fix-root-selector",
            ErrorCode::CaptureFailed | ErrorCode::Timeout => "retry",
            ErrorCode::InvalidInput => "fix-input",
            ErrorCode::RefNotFound | ErrorCode::RefStale => "re-snapshot",
            ErrorCode::CdpUnreachable => "check-endpoint",
            ErrorCode::CdpTargetMismatch => "tab-switch",
            ErrorCode::BrowserNotFound => "install-chromium-or-set-chrome-path",
            ErrorCode::BrowserLaunchFailed => "check-browser",
            ErrorCode::NavigationFailed => "check-url",
            ErrorCode::DnsFailed => "check-url-or-network",
            ErrorCode::BinaryMissing => "install-platform-package",
            ErrorCode::ConnectionClosed => "reconnect",
            ErrorCode::ProtocolViolation | ErrorCode::InvalidJson => "check-endpoint",
            ErrorCode::MessageTooLarge => "raise-max-message-bytes",
            ErrorCode::TargetCrashed => "reload-page",
            ErrorCode::TargetDetached => "tab-switch",
        }
    }

    pub fn from_code(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.code() == code)
    }
}

/// A failure the package raises on purpose. The JS layer turns it into a
/// `WebAiError` with the same fields.
#[derive(Debug, Clone, PartialEq)]
pub struct WebAiError {
    pub code: ErrorCode,
    pub message: String,
    pub evidence: Value,
}

impl WebAiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        WebAiError { code, message: message.into(), evidence: Value::Null }
    }

    pub fn with_evidence(mut self, evidence: Value) -> Self {
        self.evidence = evidence;
        self
    }

    pub fn invalid_input(what: &str, message: impl Into<String>) -> Self {
        WebAiError::new(ErrorCode::InvalidInput, message).with_evidence(json!({ "what": what }))
    }

    /// The payload the binding hands to JS to construct a `WebAiError`.
    pub fn to_json(&self) -> Value {
        json!({
            "errorCode": self.code.code(),
            "stage": self.code.stage(),
            "retryHint": self.code.retry_hint(),
            "message": self.message,
            "evidence": self.evidence,
        })
    }
}

impl fmt::Display for WebAiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.code(), self.message)
    }
}

impl std::error::Error for WebAiError {}

pub type Result<T> = std::result::Result<T, WebAiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trips() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_code(code.code()), Some(code));
        }
        let e = WebAiError::new(ErrorCode::RootNotFound, "no match").to_json();
        assert_eq!(e["stage"], "snapshot-capture");
        assert_eq!(e["retryHint"], "fix-root-selector");
    }
}
