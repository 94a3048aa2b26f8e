//! The result of an action and seed 001's error codes.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionCode {
    RefInvalid,
    ElementDisabled,
    ElementObscured,
    ElementNotVisible,
    ActionFailed,
    Timeout,
    HumanRejected,
    InvalidParams,
}

impl ActionCode {
    pub const ALL: [ActionCode; 8] = [
        ActionCode::RefInvalid,
        ActionCode::ElementDisabled,
        ActionCode::ElementObscured,
        ActionCode::ElementNotVisible,
        ActionCode::ActionFailed,
        ActionCode::Timeout,
        ActionCode::HumanRejected,
        ActionCode::InvalidParams,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ActionCode::RefInvalid => "ref_invalid",
            ActionCode::ElementDisabled => "element_disabled",
            ActionCode::ElementObscured => "element_obscured",
            ActionCode::ElementNotVisible => "element_not_visible",
            ActionCode::ActionFailed => "action_failed",
            ActionCode::Timeout => "timeout",
            ActionCode::HumanRejected => "human_rejected",
            ActionCode::InvalidParams => "invalid_params",
        }
    }
}

/// Why an action stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct Fail {
    pub code: ActionCode,
    pub message: String,
    pub evidence: Option<Value>,
}

impl Fail {
    pub fn new(code: ActionCode, message: impl Into<String>) -> Fail {
        Fail { code, message: message.into(), evidence: None }
    }

    pub fn with_evidence(mut self, evidence: Value) -> Fail {
        self.evidence = Some(evidence);
        self
    }

    /// The browser (or the page) refused a step.
    pub fn refused(why: impl std::fmt::Display) -> Fail {
        Fail::new(ActionCode::ActionFailed, format!("the browser refused the action: {why}"))
    }
}

pub type Step<T> = std::result::Result<T, Fail>;

/// What `runAction` reports, before the fresh snapshot is added.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionOutcome {
    pub success: bool,
    pub error: Option<ActionCode>,
    pub message: Option<String>,
    pub evidence: Option<Value>,
    /// Action-specific facts (the click point, the value filled, the viewport).
    pub detail: Option<Value>,
    pub action_ms: f64,
}
