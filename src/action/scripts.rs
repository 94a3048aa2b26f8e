//! The functions actions run in the page, from the real `.js` files beside
//! this one (linted and parsed by the tests). Each is a function expression,
//! used as `Runtime.callFunctionOn`'s `functionDeclaration` or called by an
//! expression.

pub const ELEMENT_STATE: &str = include_str!("scripts/element_state.js");
pub const DESCRIBE_ELEMENT: &str = include_str!("scripts/describe_element.js");
pub const CONTAINS_NODE: &str = include_str!("scripts/contains_node.js");
pub const PREPARE_FILL: &str = include_str!("scripts/prepare_fill.js");
pub const DELETE_SELECTION: &str = include_str!("scripts/delete_selection.js");
pub const READ_VALUE: &str = include_str!("scripts/read_value.js");
pub const SELECT_OPTION: &str = include_str!("scripts/select_option.js");
pub const POPUP_ROOT: &str = include_str!("scripts/popup_root.js");
pub const SCROLL_PAGE: &str = include_str!("scripts/scroll_page.js");
pub const SETTLE: &str = include_str!("scripts/settle.js");

/// `(script)(args…)` for `Runtime.evaluate`.
pub fn call_expression(script: &str, args: &[serde_json::Value]) -> String {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    format!("({script})({})", args.join(", "))
}
