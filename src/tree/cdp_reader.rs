//! Reading a CDP `Accessibility.getFullAXTree` result into an [`AxTree`].
//!
//! The browser's answer is the largest thing a snapshot touches (tens of MB on
//! big pages), so the common case is one typed serde pass that skips every
//! field we do not use. Anything malformed falls back to a lenient pass that
//! keeps every good node and reports what it dropped; nothing here panics on
//! page-controlled data.

use rustc_hash::FxHashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Result, WebAiError};
use crate::tree::{AxNode, AxTree, PropValue};

#[derive(Deserialize)]
struct RawResult {
    nodes: Vec<RawNode>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct RawNode {
    node_id: Option<Value>,
    ignored: Option<bool>,
    role: Option<RawValue>,
    chrome_role: Option<RawValue>,
    name: Option<RawValue>,
    value: Option<RawValue>,
    properties: Option<Vec<RawProperty>>,
    child_ids: Option<Vec<Value>>,
    #[serde(rename = "backendDOMNodeId")]
    backend_dom_node_id: Option<i64>,
    frame_id: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawValue {
    value: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawProperty {
    name: String,
    value: Option<RawValue>,
}

/// Parse the JSON text of a `getFullAXTree` result (`{ nodes }` or the bare array).
pub fn parse_full_ax_tree(json: &str) -> Result<AxTree> {
    let trimmed = json.trim_start();
    let fast: std::result::Result<Vec<RawNode>, _> =
        if trimmed.starts_with('[') { serde_json::from_str::<Vec<RawNode>>(json) } else { serde_json::from_str::<RawResult>(json).map(|r| r.nodes) };
    match fast {
        Ok(nodes) => Ok(build_tree(nodes, 0)),
        Err(_) => parse_lenient(json),
    }
}

fn parse_lenient(json: &str) -> Result<AxTree> {
    let value: Value = crate::compat::json_text::from_str_lossy(json)
        .map_err(|e| WebAiError::invalid_input("axTree", format!("the accessibility tree is not valid JSON: {e}")))?;
    from_value(value)
}

/// Build from an already parsed value (the lenient path, and tests).
pub fn from_value(value: Value) -> Result<AxTree> {
    let items = match value {
        Value::Array(items) => items,
        Value::Object(mut map) => match map.remove("nodes") {
            Some(Value::Array(items)) => items,
            Some(other) => return Err(WebAiError::invalid_input("axTree.nodes", format!("`nodes` must be an array, got {}", json_type(&other)))),
            None => return Err(WebAiError::invalid_input("axTree", "a CDP accessibility tree needs a `nodes` array")),
        },
        Value::Null => return Ok(AxTree::default()),
        other => return Err(WebAiError::invalid_input("axTree", format!("expected an object with `nodes` or an array, got {}", json_type(&other)))),
    };
    let mut skipped = 0usize;
    let mut nodes = Vec::with_capacity(items.len());
    for item in items {
        if !item.is_object() {
            skipped += 1;
            continue;
        }
        match serde_json::from_value::<RawNode>(item.clone()) {
            Ok(n) => nodes.push(n),
            Err(_) => match salvage(item) {
                Some(n) => nodes.push(n),
                None => skipped += 1,
            },
        }
    }
    Ok(build_tree(nodes, skipped))
}

/// Keep a node whose fields have the wrong types: read what can be read.
fn salvage(item: Value) -> Option<RawNode> {
    let obj = item.as_object()?;
    let text_of = |key: &str| -> Option<RawValue> { obj.get(key).map(|v| RawValue { value: v.get("value").cloned().or_else(|| Some(v.clone())) }) };
    Some(RawNode {
        node_id: obj.get("nodeId").cloned(),
        ignored: obj.get("ignored").and_then(Value::as_bool),
        role: text_of("role"),
        chrome_role: None,
        name: text_of("name"),
        value: text_of("value"),
        properties: obj.get("properties").and_then(Value::as_array).map(|ps| ps.iter().filter_map(|p| serde_json::from_value(p.clone()).ok()).collect()),
        child_ids: obj.get("childIds").and_then(Value::as_array).cloned(),
        backend_dom_node_id: obj.get("backendDOMNodeId").and_then(Value::as_i64),
        frame_id: obj.get("frameId").and_then(Value::as_str).map(str::to_string),
    })
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn id_key(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn value_text(v: &Option<RawValue>) -> Option<String> {
    match v.as_ref()?.value.as_ref()? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn read_properties(props: &[RawProperty], node: &mut AxNode) {
    for p in props {
        if let Some(v) = p.value.as_ref().and_then(|v| v.value.as_ref()) {
            node.apply_property(&p.name, PropValue::from_json(v));
        }
    }
}

fn build_tree(raw: Vec<RawNode>, skipped_non_objects: usize) -> AxTree {
    let mut tree = AxTree::default();
    if skipped_non_objects > 0 {
        tree.notes.push(format!("{skipped_non_objects} malformed accessibility node(s) were skipped"));
    }
    let mut index: FxHashMap<String, u32> = FxHashMap::with_capacity_and_hasher(raw.len(), Default::default());
    let mut child_keys: Vec<Vec<String>> = Vec::with_capacity(raw.len());
    let mut duplicates = 0usize;
    for r in raw {
        let key = r.node_id.as_ref().and_then(id_key);
        let idx = tree.nodes.len() as u32;
        if let Some(k) = key {
            if index.contains_key(&k) {
                // Chrome itself lists some InlineTextBox nodes twice; that is not the page's fault.
                if value_text(&r.role).as_deref() != Some("InlineTextBox") {
                    duplicates += 1;
                }
                continue;
            }
            index.insert(k, idx);
        }
        let mut node = AxNode {
            role: value_text(&r.role).or_else(|| value_text(&r.chrome_role)).map_or(std::borrow::Cow::Borrowed("generic"), |r| crate::tree::roles::intern(&r)),
            name: value_text(&r.name).unwrap_or_default(),
            value: value_text(&r.value),
            ignored: r.ignored.unwrap_or(false),
            backend_node_id: r.backend_dom_node_id,
            frame_id: r.frame_id,
            ..AxNode::default()
        };
        if let Some(props) = &r.properties {
            read_properties(props, &mut node);
        }
        child_keys.push(r.child_ids.unwrap_or_default().iter().filter_map(id_key).collect());
        tree.nodes.push(node);
    }
    if duplicates > 0 {
        tree.notes.push(format!("{duplicates} accessibility node(s) with a repeated nodeId were skipped"));
    }

    let mut dangling = 0usize;
    let mut is_child = vec![false; tree.nodes.len()];
    for (i, keys) in child_keys.iter().enumerate() {
        let mut children = Vec::with_capacity(keys.len());
        for k in keys {
            match index.get(k) {
                Some(&c) if c as usize != i => {
                    is_child[c as usize] = true;
                    children.push(c);
                }
                Some(_) => dangling += 1,
                None => dangling += 1,
            }
        }
        tree.nodes[i].children = children;
    }
    if dangling > 0 {
        tree.notes.push(format!("{dangling} child reference(s) pointed at no node and were ignored"));
    }
    // CDP lists the root first; if the input is out of order, the first node that
    // is nobody's child is the root.
    tree.root = if tree.nodes.is_empty() {
        None
    } else if !is_child[0] {
        Some(0)
    } else {
        Some(is_child.iter().position(|c| !c).unwrap_or(0) as u32)
    };
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, role: &str, name: &str, children: &[&str]) -> String {
        format!(
            r#"{{"nodeId":"{id}","ignored":false,"role":{{"type":"role","value":"{role}"}},"name":{{"type":"computedString","value":"{name}"}},"childIds":[{}]}}"#,
            children.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(",")
        )
    }

    #[test]
    fn reads_typed_result() {
        let json = format!(r#"{{"nodes":[{},{}]}}"#, node("1", "RootWebArea", "T", &["2"]), node("2", "button", "Go", &[]));
        let t = parse_full_ax_tree(&json).unwrap();
        assert_eq!(t.root, Some(0));
        assert_eq!(t.nodes[0].children, vec![1]);
        assert_eq!(t.nodes[1].name, "Go");
        assert!(t.notes.is_empty());
    }

    #[test]
    fn keeps_good_nodes_among_malformed_ones() {
        let json = format!(
            r#"{{"nodes":[{}, 5, "x", null, {}, {{"nodeId":"3","name":7,"childIds":"oops"}}]}}"#,
            node("1", "RootWebArea", "T", &["2", "9", "3"]),
            node("2", "link", "L", &["1"])
        );
        let t = parse_full_ax_tree(&json).unwrap();
        assert_eq!(t.nodes.len(), 3);
        assert!(t.notes.iter().any(|n| n.contains("malformed")));
        assert!(t.notes.iter().any(|n| n.contains("pointed at no node")));
    }

    #[test]
    fn rejects_non_trees_with_invalid_input() {
        for bad in ["", "{", "42", r#"{"nodes":3}"#, r#"{"x":1}"#] {
            let err = parse_full_ax_tree(bad).unwrap_err();
            assert_eq!(err.code, crate::error::ErrorCode::InvalidInput, "{bad}");
        }
        assert!(parse_full_ax_tree("null").unwrap().root.is_none());
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let json = r#"{"nodes":[{"nodeId":"1","role":{"value":"RootWebArea"},"name":{"value":"a\ud800b\ud83d\ude00"}}]}"#;
        let t = parse_full_ax_tree(json).unwrap();
        assert_eq!(t.nodes[0].name, "a\u{FFFD}b😀");
    }
}
