//! Reaching a ref's element on the live page: the session of its frame, its
//! remote object, and where its frame sits in the page's viewport. The
//! element is found by its `backendNodeId` in the process that holds its
//! frame; an id is meaningless in any other process.

use serde::Deserialize;
use serde_json::{json, Value};

use super::outcome::Step;
use super::page::{Arg, Page};
use super::scripts;
use crate::compat::js_string::json_quote;

/// The fields of a snapshot's `ElementRef` an action needs.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct RefTarget {
    #[serde(rename = "ref")]
    pub ref_id: String,
    pub role: String,
    pub name: String,
    pub backend_node_id: Option<i64>,
    pub frame_id: Option<String>,
    /// The snapshot showed the element behind this open modal (`activeLayerOnly`).
    pub blocked_by: Option<String>,
}

impl RefTarget {
    /// `button "Send" (ref @e4)`, as messages name an element.
    pub fn label(&self) -> String {
        let name = if self.name.is_empty() { String::new() } else { format!(" {}", json_quote(&self.name)) };
        format!("{}{name} (ref {})", self.role, self.ref_id)
    }
}

pub struct Live {
    /// The out-of-process frame whose session holds the element (None: the page's).
    pub session: Option<String>,
    pub object_id: String,
    pub backend_node_id: i64,
    /// Where the session's viewport sits in the page's.
    pub offset: (f64, f64),
    /// Our isolated world the object lives in (None: the page's own world).
    pub context: Option<i64>,
    /// What `scripts/element_state.js` reported (disabled, read-only, kind of field…).
    pub state: Value,
}

fn frame_tree_has(tree: &Value, frame_id: &str) -> bool {
    let mut stack: Vec<&Value> = tree.get("frameTree").into_iter().collect();
    while let Some(node) = stack.pop() {
        if node.pointer("/frame/id").and_then(Value::as_str) == Some(frame_id) {
            return true;
        }
        stack.extend(node.get("childFrames").and_then(Value::as_array).into_iter().flatten());
    }
    false
}

/// The cross-site frame whose own session answers for `frame_id`, which is
/// not in the page's process: itself, or the one it is nested in. None: no
/// process has it.
async fn oopif_root(page: &Page<'_>, frame_id: &str) -> Step<Option<String>> {
    let targets = page.send("Target.getTargets", json!({}), None).await?;
    let roots: Vec<String> = targets
        .get("targetInfos")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|t| t.get("type").and_then(Value::as_str) == Some("iframe"))
        .filter_map(|t| t.get("targetId").and_then(Value::as_str).map(str::to_string))
        .collect();
    for root in roots {
        if root == frame_id {
            return Ok(Some(root));
        }
        if let Ok(tree) = page.send_raw("Page.getFrameTree", &json!({}), Some(&root)).await? {
            if frame_tree_has(&tree, frame_id) {
                return Ok(Some(root));
            }
        }
    }
    Ok(None)
}

/// Where an out-of-process frame's viewport sits in the page's: its `iframe`'s content box.
async fn frame_offset(page: &Page<'_>, root: &str) -> Step<(f64, f64)> {
    let owner = page.send("DOM.getFrameOwner", json!({ "frameId": root }), None).await?;
    let backend = owner.get("backendNodeId").cloned().unwrap_or(Value::Null);
    let model = page.send("DOM.getBoxModel", json!({ "backendNodeId": backend }), None).await?;
    let at = |i: usize| model.pointer(&format!("/model/content/{i}")).and_then(Value::as_f64).unwrap_or(0.0);
    Ok((at(0), at(1)))
}

/// The live element of a ref and its state, or None when it is gone.
pub async fn live_element(page: &Page<'_>, target: &RefTarget) -> Step<Option<Live>> {
    let Some(backend) = target.backend_node_id else { return Ok(None) };
    let (session, offset, frame) = match &target.frame_id {
        None => (None, (0.0, 0.0), page.main_frame(None).await?),
        Some(frame) => {
            // Most refs are in the page's own process: keep that if it holds the frame.
            let tree = page.send_raw("Page.getFrameTree", &json!({}), None).await?;
            if tree.is_ok_and(|t| frame_tree_has(&t, frame)) {
                (None, (0.0, 0.0), Some(frame.clone()))
            } else {
                // No process holds the frame any more: it and the element are gone.
                let Some(root) = oopif_root(page, frame).await? else { return Ok(None) };
                let offset = frame_offset(page, &root).await?;
                (Some(root), offset, Some(frame.clone()))
            }
        }
    };
    let context = match &frame {
        Some(f) => page.world(session.as_deref(), f).await?,
        None => None,
    };
    let resolved = page.resolve(backend, session.as_deref(), context).await?;
    // Only a node the page no longer has means gone; a dead session is a failure, not a verdict.
    let (resolved, context) = match resolved {
        Ok(v) => v,
        Err(m) if node_gone(&m) => return Ok(None),
        Err(m) => return Err(super::outcome::Fail::refused(m)),
    };
    let Some(object_id) = resolved.pointer("/object/objectId").and_then(Value::as_str).map(str::to_string) else { return Ok(None) };
    let state = page.call_on(session.as_deref(), &object_id, scripts::ELEMENT_STATE, Vec::<Arg>::new()).await?;
    // A node removed from the page still resolves while something holds it.
    if state.get("connected") != Some(&Value::Bool(true)) {
        return Ok(None);
    }
    Ok(Some(Live { session, object_id, backend_node_id: backend, offset, context, state }))
}

/// Whether `DOM.resolveNode` said the node is not in the page: Chrome
/// answers "No node with given id found" for a node collected, and "Node
/// with given id does not belong to the document" for one of a document the
/// page has navigated away from (a ref taken before a link was followed, a
/// form sent, the page reloaded).
fn node_gone(message: &str) -> bool {
    let m = message.to_lowercase();
    m.contains("no node") || m.contains("does not belong to the document")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromes_answers_for_a_node_not_in_the_page_are_gone_and_others_are_failures() {
        assert!(node_gone("No node with given id found"));
        assert!(node_gone("Node with given id does not belong to the document"));
        assert!(!node_gone("Cannot find context with specified id"));
        assert!(!node_gone("Target closed"));
    }

    #[test]
    fn frame_trees_are_searched_at_any_depth() {
        let tree = json!({ "frameTree": { "frame": { "id": "A" }, "childFrames": [{ "frame": { "id": "B" }, "childFrames": [{ "frame": { "id": "C" } }] }] } });
        assert!(frame_tree_has(&tree, "C"));
        assert!(!frame_tree_has(&tree, "D"));
        assert!(!frame_tree_has(&json!({ "frameTree": null }), "A"));
    }

    #[test]
    fn labels_quote_names_like_json() {
        let t = RefTarget { ref_id: "@e4".into(), role: "button".into(), name: "Say \"hi\"".into(), ..Default::default() };
        assert_eq!(t.label(), r#"button "Say \"hi\"" (ref @e4)"#);
        assert_eq!(RefTarget { ref_id: "@e1".into(), role: "link".into(), ..Default::default() }.label(), "link (ref @e1)");
    }
}
