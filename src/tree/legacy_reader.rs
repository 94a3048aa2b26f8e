//! Reading a legacy `page.accessibility.snapshot()` tree (old Playwright, test
//! doubles) into an [`AxTree`].
//!
//! The JS layer flattens the nested object into `{ legacyNodes: [...] }` with
//! child indices (so nesting depth never reaches a recursive serializer); a
//! nested tree given as JSON text is read with an explicit stack.

use serde_json::{Map, Value};

use crate::error::{Result, WebAiError};
use crate::tree::{AxNode, AxTree, PropValue, States, Tristate};

pub fn from_value(value: Value) -> Result<AxTree> {
    match value {
        Value::Object(mut m) if m.contains_key("legacyNodes") => match m.remove("legacyNodes") {
            Some(Value::Array(items)) => Ok(from_flat(items)),
            _ => Err(WebAiError::invalid_input("legacyNodes", "`legacyNodes` must be an array")),
        },
        Value::Object(m) => Ok(from_nested(m)),
        Value::Null => Ok(AxTree::default()),
        _ => Err(WebAiError::invalid_input("axTree", "a legacy accessibility tree must be an object")),
    }
}

fn tristate(v: Option<&Value>) -> Option<Tristate> {
    v.map(PropValue::from_json).and_then(PropValue::tristate)
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn node_from(m: &Map<String, Value>) -> AxNode {
    let flag = |k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
    AxNode {
        role: text(m.get("role")).filter(|r| !r.is_empty()).map_or(std::borrow::Cow::Borrowed("generic"), |r| crate::tree::roles::intern(&r)),
        name: text(m.get("name")).unwrap_or_default(),
        value: text(m.get("value")).filter(|v| !v.is_empty()),
        ignored: false,
        // Old Playwright only reported `focused`; either means the element takes focus.
        focusable: flag("focusable") || flag("focused"),
        states: States {
            checked: tristate(m.get("checked")),
            pressed: tristate(m.get("pressed")),
            expanded: m.get("expanded").and_then(Value::as_bool),
            disabled: flag("disabled"),
            selected: flag("selected"),
            level: m.get("level").and_then(Value::as_f64).filter(|l| *l >= 0.0 && *l < 1e6).map(|l| l as u32),
            focused: flag("focused"),
            readonly: flag("readonly"),
            busy: flag("busy"),
            modal: flag("modal"),
        },
        backend_node_id: m.get("backendNodeId").and_then(Value::as_i64),
        frame_id: None,
        url: text(m.get("url")).filter(|u| !u.is_empty()),
        children: Vec::new(),
    }
}

fn from_flat(items: Vec<Value>) -> AxTree {
    let mut tree = AxTree::default();
    let n = items.len();
    let mut skipped = 0usize;
    let mut bad_children = 0usize;
    let mut has_parent = vec![false; n];
    // The root is nobody's child; with one parent each, no cycle is reachable from it.
    if let Some(first) = has_parent.first_mut() {
        *first = true;
    }
    for item in &items {
        match item.as_object() {
            Some(m) => {
                let mut node = node_from(m);
                if let Some(Value::Array(cs)) = m.get("children") {
                    for c in cs {
                        match c.as_u64().map(|c| c as usize) {
                            Some(c) if c < n && !has_parent[c] && items[c].is_object() => {
                                has_parent[c] = true;
                                node.children.push(c as u32);
                            }
                            _ => bad_children += 1,
                        }
                    }
                }
                tree.nodes.push(node);
            }
            None => {
                skipped += 1;
                tree.nodes.push(AxNode { ignored: true, ..AxNode::default() });
            }
        }
    }
    if skipped > 0 {
        tree.notes.push(format!("{skipped} malformed accessibility node(s) were skipped"));
    }
    if bad_children > 0 {
        tree.notes.push(format!("{bad_children} child reference(s) pointed at no node and were ignored"));
    }
    tree.root = if n == 0 { None } else { Some(0) };
    tree
}

fn from_nested(root: Map<String, Value>) -> AxTree {
    let mut tree = AxTree::default();
    let mut skipped = 0usize;
    // (object, parent index)
    let mut stack: Vec<(Map<String, Value>, Option<u32>)> = vec![(root, None)];
    while let Some((mut m, parent)) = stack.pop() {
        let children = m.remove("children");
        let idx = tree.nodes.len() as u32;
        tree.nodes.push(node_from(&m));
        if let Some(p) = parent {
            tree.nodes[p as usize].children.push(idx);
        }
        if let Some(Value::Array(cs)) = children {
            // Reverse so that children are numbered in document order.
            for c in cs.into_iter().rev() {
                match c {
                    Value::Object(cm) => stack.push((cm, Some(idx))),
                    Value::Null => {}
                    _ => skipped += 1,
                }
            }
        }
    }
    if skipped > 0 {
        tree.notes.push(format!("{skipped} malformed accessibility node(s) were skipped"));
    }
    tree.root = Some(0);
    tree
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_tree_keeps_document_order() {
        let t = from_value(json!({"role":"WebArea","name":"T","children":[
            {"role":"button","name":"A"},{"role":"link","name":"B","children":[{"role":"text","name":"x"}]}, 5]}))
        .unwrap();
        assert_eq!(t.nodes[0].children.len(), 2);
        let first = t.nodes[0].children[0] as usize;
        assert_eq!(t.nodes[first].name, "A");
        assert!(t.notes[0].contains("malformed"));
    }

    #[test]
    fn flat_tree_rejects_cycles_and_dangling_children() {
        let t = from_value(json!({"legacyNodes":[
            {"role":"WebArea","children":[1, 7, 0]}, {"role":"button","name":"A","children":[0, 1]}]}))
        .unwrap();
        assert_eq!(t.nodes[0].children, vec![1]);
        assert!(t.nodes[1].children.is_empty());
    }
}
