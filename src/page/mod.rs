//! Everything this package runs inside the page, in one place: the
//! session's watcher, the capture's scripts and the actions' scripts. Each
//! is a real `.js` file holding one parenthesised function expression
//! (linted with the rest of the JS, parsed by `__test__/scripts.test.mjs`),
//! embedded here. They run in our isolated world ([`WORLD_NAME`]), where the
//! page can neither see nor change them, except the action scripts that
//! `Runtime.callFunctionOn` runs on an element of the page.
//!
//! # The globals contract
//!
//! What our world keeps between calls lives in these globals, and only in
//! them; every script that touches one names it as written here, which a test
//! checks (`every_global_a_script_names_is_in_the_contract`).

/// The isolated world every page-side script of ours runs in.
pub const WORLD_NAME: &str = "__web_ai_snapshot__";

/// The session's watcher function, compiled once per document (`watch.js`).
pub const WATCH_FN: &str = "__webAiSnapshotWatchFn";

/// The page facts function, compiled once per world (`page_facts.js`): a
/// capture in a world whose document the facts named already (`World::token`)
/// calls it by name instead of sending the script again. On a page of a few
/// elements that cut the facts' answer from 1.57 to 1.01 ms (medians of 60,
/// `node bench/script-calls.mjs ../shared/pages-more/title-en-dash.html`,
/// 2026-11-28; a first scratch timing gave 1.78 and 1.04): the script's text,
/// parsed on every call, was a third of it.
pub const FACTS_FN: &str = "__webAiSnapshotFactsFn";

/// A repeat capture's first question (`take_changes.js`) and its reader of a
/// changed subtree (`subtree_facts.js`), compiled once per world by the first
/// repeat capture there, which sends their text; later ones call them by name.
/// A script evaluated whole is parsed on every call: the page facts (11.7 KB,
/// evaluated as the take is) answered in 1.65 ms sent whole against 0.91 by
/// name; the subtree reader, a function called on a subtree's root, in 1.35
/// against 1.21 (medians of 60, `node bench/script-calls.mjs`, 2026-11-29).
pub const TAKE_FN: &str = "__webAiSnapshotTakeFn";
pub const SUBTREE_FACTS_FN: &str = "__webAiSnapshotSubtreeFactsFn";
/// An agent's repeat look's reader of layout boxes (`layout_boxes.js`, 4 KB),
/// compiled with the first question as the subtree reader is.
pub const LAYOUT_BOXES_FN: &str = "__webAiSnapshotLayoutBoxesFn";

/// Every global of the contract and what it holds. Only the tests read
/// this list; the scripts name the globals as written here.
#[cfg_attr(not(test), allow(dead_code))]
pub const GLOBALS: [(&str, &str); 10] = [
    (WATCH_FN, "the watcher function, compiled once per document (watch.js; the session calls it by name)"),
    (TAKE_FN, "a repeat capture's first question, compiled once per world (take_changes.js; later repeat captures call it by name)"),
    (SUBTREE_FACTS_FN, "the reader of a changed subtree, compiled with the first question (subtree_facts.js; repeat captures call it by name)"),
    (LAYOUT_BOXES_FN, "the reader of layout boxes, compiled with the first question (layout_boxes.js; an agent's repeat looks call it by name)"),
    (FACTS_FN, "the page facts function, compiled once per world (page_facts.js; a capture calls it by name where the facts ran before)"),
    ("__webAiSnapshotWatch", "the watcher's state: its document token, counts, each session's record of changed subtrees (watch.js, take_changes.js)"),
    ("__webAiSnapshotFrameWatch", "a frame's watch state, in our world inside a frame the page's watcher cannot enter (frame_watch.js)"),
    ("__webAiSnapshotDocument", "the name of the world's document that the page facts give (page_facts.js)"),
    ("__webAiSnapshotHashCut", "where each writing of the page for the DOM hash stopped, numbered (page_facts.js; take_changes.js keeps a hash whose changes all came after)"),
    ("__webAiSnapshotWalk", "the nodes a walk of a whole document listed and the generated boxes each left for later, until those are asked for (subtree_facts.js, pseudo_facts.js)"),
];

/// A page session's watcher (mutations, input, loading signals; records changed subtrees per session).
pub const WATCH: &str = include_str!("watch.js");

// The capture's scripts.
pub const PAGE_FACTS: &str = include_str!("capture/page_facts.js");
pub const MARKED_ELEMENT: &str = include_str!("capture/marked_element.js");
pub const TAKE_CHANGES: &str = include_str!("capture/take_changes.js");
pub const SUBTREE_FACTS: &str = include_str!("capture/subtree_facts.js");
pub const PSEUDO_FACTS: &str = include_str!("capture/pseudo_facts.js");
pub const FRAME_WATCH: &str = include_str!("capture/frame_watch.js");
pub const LAYOUT_BOXES: &str = include_str!("capture/layout_boxes.js");

// The actions' scripts.
pub const ELEMENT_STATE: &str = include_str!("action/element_state.js");
pub const DESCRIBE_ELEMENT: &str = include_str!("action/describe_element.js");
pub const CONTAINS_NODE: &str = include_str!("action/contains_node.js");
pub const PREPARE_FILL: &str = include_str!("action/prepare_fill.js");
pub const DELETE_SELECTION: &str = include_str!("action/delete_selection.js");
pub const READ_VALUE: &str = include_str!("action/read_value.js");
pub const SET_VALUE: &str = include_str!("action/set_value.js");
pub const SELECT_OPTION: &str = include_str!("action/select_option.js");
pub const POPUP_ROOT: &str = include_str!("action/popup_root.js");
pub const SCROLL_PAGE: &str = include_str!("action/scroll_page.js");
pub const SETTLE: &str = include_str!("action/settle.js");

/// Every script, by file name (for the tests).
#[cfg_attr(not(test), allow(dead_code))]
pub const ALL: [(&str, &str); 19] = [
    ("watch.js", WATCH),
    ("capture/page_facts.js", PAGE_FACTS),
    ("capture/marked_element.js", MARKED_ELEMENT),
    ("capture/take_changes.js", TAKE_CHANGES),
    ("capture/subtree_facts.js", SUBTREE_FACTS),
    ("capture/pseudo_facts.js", PSEUDO_FACTS),
    ("capture/frame_watch.js", FRAME_WATCH),
    ("capture/layout_boxes.js", LAYOUT_BOXES),
    ("action/element_state.js", ELEMENT_STATE),
    ("action/describe_element.js", DESCRIBE_ELEMENT),
    ("action/contains_node.js", CONTAINS_NODE),
    ("action/prepare_fill.js", PREPARE_FILL),
    ("action/delete_selection.js", DELETE_SELECTION),
    ("action/read_value.js", READ_VALUE),
    ("action/set_value.js", SET_VALUE),
    ("action/select_option.js", SELECT_OPTION),
    ("action/popup_root.js", POPUP_ROOT),
    ("action/scroll_page.js", SCROLL_PAGE),
    ("action/settle.js", SETTLE),
];

/// `(script)(args…)` for `Runtime.evaluate`.
pub fn call_expression(script: &str, args: &[serde_json::Value]) -> String {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    format!("({script})({})", args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_global_a_script_names_is_in_the_contract() {
        for (file, text) in ALL {
            let mut rest = text;
            while let Some(at) = rest.find("__webAi") {
                let name: String = rest[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                assert!(GLOBALS.iter().any(|(g, _)| *g == name), "{file} names {name}, which the globals contract (src/page/mod.rs) does not list");
                rest = &rest[at + name.len()..];
            }
        }
    }

    #[test]
    fn every_script_is_one_parenthesised_function_expression_after_its_comment() {
        for (file, text) in ALL {
            let code: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
            let first = code.iter().find(|l| !l.trim().is_empty()).copied().unwrap_or_default();
            assert!(first.starts_with("(function ") || first.starts_with("(async function "), "{file}: {first}");
            assert_eq!(code.iter().rev().find(|l| !l.trim().is_empty()).copied(), Some("})"), "{file}");
            assert!(text.trim_start().starts_with("//"), "{file} opens with a comment saying why it runs in the page");
        }
    }
}
