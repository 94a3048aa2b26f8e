//! Actions by ref (seed 001 §1.1): click, fill, select, scroll, over the
//! same [`CdpTransport`] as capture, so they run alike on a Playwright page,
//! a `{ cdp }` session and a native connection. Every action is bounded by
//! one deadline and ends in an [`ActionOutcome`] with seed 001's error
//! codes; the caller takes the fresh snapshot.

mod element;
mod outcome;
mod page;
mod perform;
pub mod scripts;

use std::time::Instant;

use serde_json::Value;

pub use element::RefTarget;
pub use outcome::{ActionCode, ActionOutcome, Fail};

use crate::agent::registry::normalize_ref;
use crate::agent::staleness::{self, Verdict};
use crate::capture::CdpTransport;
use outcome::Step;
use page::Page;

pub const DEFAULT_ACTION_TIMEOUT_MS: u32 = 2000;
/// Pixels `scroll` moves the page when no `amount` is given.
pub const DEFAULT_SCROLL_AMOUNT: u64 = 300;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Click,
    Fill,
    Select,
    Scroll,
}

impl Action {
    pub fn parse(name: &str) -> Option<Action> {
        Some(match name {
            "click" => Action::Click,
            "fill" => Action::Fill,
            "select" => Action::Select,
            "scroll" => Action::Scroll,
            _ => return None,
        })
    }
}

/// What an action is asked to do, against which snapshot.
#[derive(Debug, Clone, Default)]
pub struct ActionRequest {
    pub action: String,
    /// The tool call's arguments as the agent sent them: `{ ref?, value?,
    /// clear_first?, direction?, amount?, snapshot_id? }`.
    pub args: Value,
    /// The snapshot the refs come from (None: no snapshot was taken).
    pub snapshot_id: Option<String>,
    pub ref_count: usize,
    /// The snapshot's entry for the normalised `args.ref`, when it has one.
    pub target: Option<RefTarget>,
    pub timeout_ms: u32,
}

fn is_ref(v: &str) -> bool {
    let v = v.trim();
    let digits = v.strip_prefix('@').unwrap_or(v).strip_prefix('e').unwrap_or("");
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A JS `Number.isInteger(n) && n >= 0` (JS numbers may arrive as floats).
fn scroll_amount(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= 9_007_199_254_740_991.0).map(|f| f as u64))
}

fn show(v: Option<&Value>) -> String {
    v.map_or_else(|| "undefined".to_string(), Value::to_string)
}

fn js_type(v: Option<&Value>) -> &'static str {
    match v {
        None => "undefined",
        Some(Value::Null) | Some(Value::Array(_)) | Some(Value::Object(_)) => "object",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
    }
}

/// The first problem with an action's arguments, as seed 001's `invalid_params` says it.
pub fn check_params(action: Action, args: &Value) -> Option<String> {
    let get = |k: &str| args.get(k);
    let r = get("ref");
    let needs_ref = action != Action::Scroll || r.is_some();
    if needs_ref && !r.and_then(Value::as_str).is_some_and(is_ref) {
        return Some(format!("ref must be a string like \"@e7\", got {}", show(r)));
    }
    match action {
        Action::Fill => {
            if !get("value").is_some_and(Value::is_string) {
                return Some(format!("value must be a string, got {}", js_type(get("value"))));
            }
            if get("clear_first").is_some_and(|c| !c.is_boolean()) {
                return Some("clear_first must be a boolean".into());
            }
        }
        Action::Select if !get("value").is_some_and(Value::is_string) => {
            return Some(format!("value must be a string, got {}", js_type(get("value"))));
        }
        Action::Scroll if r.is_none() => {
            let Some(direction) = get("direction") else { return Some("browser_scroll needs either ref or direction".into()) };
            if !matches!(direction.as_str(), Some("up" | "down" | "top" | "bottom")) {
                return Some(format!("direction must be up, down, top or bottom, got {direction}"));
            }
            if let Some(a) = get("amount") {
                if scroll_amount(a).is_none() {
                    return Some(format!("amount must be a non-negative integer, got {a}"));
                }
            }
        }
        _ => {}
    }
    None
}

/// Run one action; never fails, the outcome says what happened.
pub async fn run(transport: &dyn CdpTransport, request: &ActionRequest) -> ActionOutcome {
    let started = Instant::now();
    let timeout_ms = if request.timeout_ms > 0 { request.timeout_ms } else { DEFAULT_ACTION_TIMEOUT_MS };
    let page = Page::new(transport, &request.action, timeout_ms);
    let result = match tokio::time::timeout_at(page.deadline().into(), perform(&page, request)).await {
        Ok(r) => r,
        Err(_) => Err(page.timed_out()),
    };
    let action_ms = started.elapsed().as_secs_f64() * 1000.0;
    match result {
        Ok(detail) => ActionOutcome { success: true, error: None, message: None, evidence: None, detail: Some(detail), action_ms },
        Err(f) => ActionOutcome { success: false, error: Some(f.code), message: Some(f.message), evidence: f.evidence, detail: None, action_ms },
    }
}

async fn perform(page: &Page<'_>, request: &ActionRequest) -> Step<Value> {
    let Some(action) = Action::parse(&request.action) else {
        return Err(Fail::new(ActionCode::InvalidParams, format!("unknown action {}", Value::String(request.action.clone()))));
    };
    if let Some(problem) = check_params(action, &request.args) {
        return Err(Fail::new(ActionCode::InvalidParams, problem));
    }
    let args = &request.args;
    if action == Action::Scroll && args.get("ref").is_none() {
        let direction = args.get("direction").and_then(Value::as_str).unwrap_or("down");
        let amount = args.get("amount").and_then(scroll_amount).unwrap_or(DEFAULT_SCROLL_AMOUNT);
        return perform::scroll_page(page, direction, amount).await;
    }
    let ref_id = normalize_ref(args.get("ref").and_then(Value::as_str).unwrap_or_default());
    let Some(snapshot_id) = &request.snapshot_id else {
        return Err(Fail::new(ActionCode::RefInvalid, format!("no snapshot to resolve {ref_id} against: take a snapshot first")));
    };
    if let Some(asked) = args.get("snapshot_id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        if asked != snapshot_id {
            return Err(Fail::new(
                ActionCode::RefInvalid,
                format!("{ref_id} is from snapshot {asked}, not the latest ({snapshot_id}); refs are valid for one snapshot only"),
            ));
        }
    }
    let Some(target) = &request.target else {
        return Err(Fail::new(
            ActionCode::RefInvalid,
            format!("{ref_id} is not in the current snapshot ({} refs); refs are valid for one snapshot only", request.ref_count),
        ));
    };
    if let (Some(modal), Action::Click | Action::Fill | Action::Select) = (&target.blocked_by, action) {
        return Err(Fail::new(
            ActionCode::ElementObscured,
            format!("{} is behind the open modal {modal}: act inside the modal or close it first", target.label()),
        )
        .with_evidence(serde_json::json!({ "coveredBy": modal, "modal": true })));
    }
    let Some(el) = element::live_element(page, target).await? else {
        return Err(Fail::new(ActionCode::RefInvalid, staleness::gone_message(&target.role, &target.name, &ref_id)));
    };
    let detail = match action {
        Action::Click => perform::click(page, &el, target).await?,
        Action::Fill => {
            let value = args.get("value").and_then(Value::as_str).unwrap_or_default();
            let clear = args.get("clear_first").and_then(Value::as_bool).unwrap_or(true);
            perform::fill(page, &el, target, value, clear).await?
        }
        Action::Select => perform::select(page, &el, target, args.get("value").and_then(Value::as_str).unwrap_or_default()).await?,
        // A ref brought into view: the same checks as a click's.
        Action::Scroll => perform::click_point(page, &el, target).await?,
    };
    perform::settle(page).await;
    Ok(detail)
}

/// A ref's element as the live page shows it now.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// `same`, `minor`, `changed` or `gone`.
    pub verdict: &'static str,
    pub message: Option<String>,
    /// Role and name now (None: gone).
    pub now: Option<(String, String)>,
}

/// Check a ref's element on the live page (`resolveRef(…, { verify: true })`).
pub async fn verify(transport: &dyn CdpTransport, target: &RefTarget, timeout_ms: u32) -> Result<Checked, Fail> {
    let page = Page::new(transport, "verify", timeout_ms);
    let work = async {
        let Some(el) = element::live_element(&page, target).await? else {
            return Ok(Checked { verdict: "gone", message: Some(staleness::gone_message(&target.role, &target.name, &target.ref_id)), now: None });
        };
        let tree = page
            .send("Accessibility.getPartialAXTree", serde_json::json!({ "backendNodeId": el.backend_node_id, "fetchRelatives": false }), el.session.as_deref())
            .await?;
        let nodes = tree.get("nodes").and_then(Value::as_array).cloned().unwrap_or_default();
        let node = nodes.iter().find(|n| n.get("backendDOMNodeId").and_then(Value::as_i64) == Some(el.backend_node_id)).or(nodes.first());
        let text = |k: &str| node.and_then(|n| n.pointer(&format!("/{k}/value"))).and_then(Value::as_str).unwrap_or_default().to_string();
        let (role, name) = (text("role"), text("name"));
        let (verdict, message) = match staleness::compare(&target.role, &target.name, &role, &name) {
            Verdict::Same => ("same", None),
            Verdict::Minor { note } => ("minor", Some(note)),
            Verdict::Changed { message } => ("changed", Some(message)),
        };
        Ok(Checked { verdict, message, now: Some((role, name)) })
    };
    match tokio::time::timeout_at(page.deadline().into(), work).await {
        Ok(r) => r,
        Err(_) => Err(page.timed_out()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn params_are_checked_with_seed_messages() {
        assert_eq!(check_params(Action::Click, &json!({})), Some("ref must be a string like \"@e7\", got undefined".into()));
        assert_eq!(check_params(Action::Click, &json!({ "ref": 7 })), Some("ref must be a string like \"@e7\", got 7".into()));
        assert_eq!(check_params(Action::Click, &json!({ "ref": "e7" })), None);
        assert_eq!(check_params(Action::Click, &json!({ "ref": "@x7" })), Some("ref must be a string like \"@e7\", got \"@x7\"".into()));
        assert_eq!(check_params(Action::Fill, &json!({ "ref": "@e1" })), Some("value must be a string, got undefined".into()));
        assert_eq!(check_params(Action::Fill, &json!({ "ref": "@e1", "value": "a", "clear_first": 1 })), Some("clear_first must be a boolean".into()));
        assert_eq!(check_params(Action::Scroll, &json!({})), Some("browser_scroll needs either ref or direction".into()));
        assert_eq!(check_params(Action::Scroll, &json!({ "direction": "left" })), Some("direction must be up, down, top or bottom, got \"left\"".into()));
        assert_eq!(check_params(Action::Scroll, &json!({ "direction": "up", "amount": -1 })), Some("amount must be a non-negative integer, got -1".into()));
        assert_eq!(check_params(Action::Scroll, &json!({ "direction": "up", "amount": 1.5 })), Some("amount must be a non-negative integer, got 1.5".into()));
        assert_eq!(check_params(Action::Scroll, &json!({ "direction": "bottom" })), None);
        assert_eq!(check_params(Action::Scroll, &json!({ "direction": "up", "amount": 200.0 })), None);
    }

    #[test]
    fn every_page_script_is_a_function_expression() {
        for s in [
            scripts::ELEMENT_STATE,
            scripts::DESCRIBE_ELEMENT,
            scripts::CONTAINS_NODE,
            scripts::PREPARE_FILL,
            scripts::DELETE_SELECTION,
            scripts::READ_VALUE,
            scripts::SELECT_OPTION,
            scripts::POPUP_ROOT,
            scripts::SCROLL_PAGE,
            scripts::SETTLE,
        ] {
            let code = s.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
            assert!(code.trim_start().starts_with("(function ("), "{s}");
        }
    }
}
