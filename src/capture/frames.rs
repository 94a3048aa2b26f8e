//! Frames: reading `Page.getFrameTree` and stitching each child frame's
//! accessibility tree under the `iframe` node that owns it.

use serde_json::Value;

use crate::tree::AxTree;

#[derive(Debug, Clone, PartialEq)]
pub struct FrameInfo {
    pub id: String,
    pub parent_id: Option<String>,
    pub url: String,
}

/// Every frame below the main one, parents before children (an explicit
/// queue: frame nesting is page-controlled).
pub fn child_frames(frame_tree_result: &Value) -> Vec<FrameInfo> {
    let mut out = Vec::new();
    let Some(root) = frame_tree_result.get("frameTree") else { return out };
    let mut queue: std::collections::VecDeque<&Value> = std::collections::VecDeque::new();
    if let Some(children) = root.get("childFrames").and_then(Value::as_array) {
        queue.extend(children.iter());
    }
    while let Some(node) = queue.pop_front() {
        let frame = node.get("frame");
        let id = frame.and_then(|f| f.get("id")).and_then(Value::as_str);
        if let Some(id) = id {
            out.push(FrameInfo {
                id: id.to_string(),
                parent_id: frame.and_then(|f| f.get("parentId")).and_then(Value::as_str).map(str::to_string),
                url: frame.and_then(|f| f.get("url")).and_then(Value::as_str).unwrap_or_default().to_string(),
            });
        }
        if let Some(children) = node.get("childFrames").and_then(Value::as_array) {
            queue.extend(children.iter());
        }
    }
    out
}

/// Every frame's current document, frame id → `loaderId`, of a
/// `Page.getFrameTree` result (an explicit stack: nesting is page-controlled).
pub fn documents(frame_tree_result: &Value, out: &mut rustc_hash::FxHashMap<String, String>) {
    let mut stack: Vec<&Value> = frame_tree_result.get("frameTree").into_iter().collect();
    while let Some(node) = stack.pop() {
        let frame = node.get("frame");
        let id = frame.and_then(|f| f.get("id")).and_then(Value::as_str);
        let loader = frame.and_then(|f| f.get("loaderId")).and_then(Value::as_str);
        if let (Some(id), Some(loader)) = (id, loader) {
            out.insert(id.to_string(), loader.to_string());
        }
        if let Some(children) = node.get("childFrames").and_then(Value::as_array) {
            stack.extend(children.iter());
        }
    }
}

/// One child frame's capture result.
pub struct FrameCapture {
    pub info: FrameInfo,
    pub tree: AxTree,
    /// The iframe element in the parent frame's document.
    pub owner_backend_id: Option<i64>,
}

/// Append each frame's tree to `main` and hang its root under the owning
/// iframe node of its parent frame. Frames whose owner is not found are noted.
/// Returns how many frames could not be placed.
pub fn stitch(main: &mut AxTree, main_frame_id: Option<&str>, frames: Vec<FrameCapture>, notes: &mut Vec<String>) -> usize {
    // (frame id, first node index, end) of every frame already in `main`.
    let mut ranges: Vec<(Option<String>, usize, usize)> = vec![(main_frame_id.map(str::to_string), 0, main.nodes.len())];
    // Mostly hidden frames (trackers, ad syncs) whose iframe the tree leaves
    // out: one note for all of them, not one each.
    let mut unplaced: Vec<String> = Vec::new();
    for f in frames {
        let Some(child_root) = f.tree.root else {
            notes.push(format!("frame {} has no accessible content", shown_url(&f.info.url)));
            continue;
        };
        let parent_range = ranges
            .iter()
            .find(|(id, _, _)| id.as_deref() == f.info.parent_id.as_deref())
            .or_else(|| if f.info.parent_id.is_none() { ranges.first() } else { None })
            .map(|(_, s, e)| (*s, *e));
        let owner = match (parent_range, f.owner_backend_id) {
            (Some((start, end)), Some(backend)) => (start..end).find(|&i| main.nodes[i].backend_node_id == Some(backend) && !main.nodes[i].ignored),
            _ => None,
        };
        let Some(owner) = owner else {
            unplaced.push(shown_url(&f.info.url));
            continue;
        };
        let offset = main.nodes.len();
        let count = f.tree.nodes.len();
        for mut node in f.tree.nodes {
            for c in node.children.iter_mut() {
                *c += offset as u32;
            }
            main.nodes.push(node);
        }
        let root_idx = offset + child_root as usize;
        // The frame boundary: its document line shows the title, or the URL.
        if main.nodes[root_idx].name.trim().is_empty() {
            main.nodes[root_idx].name = f.info.url.clone();
        }
        main.nodes[owner].children.push(root_idx as u32);
        main.notes.extend(f.tree.notes);
        ranges.push((Some(f.info.id.clone()), offset, offset + count));
    }
    match unplaced.len() {
        0 => {}
        1 => notes.push(format!("frame {} could not be placed under its iframe (hidden, or not in the tree) and is left out", unplaced[0])),
        n => {
            let shown: Vec<&str> = unplaced.iter().take(3).map(String::as_str).collect();
            let more = if n > 3 { format!(" and {} more", n - 3) } else { String::new() };
            notes.push(format!("{n} frames could not be placed under their iframe (hidden, or not in the tree) and are left out: {}{more}", shown.join(", ")));
        }
    }
    unplaced.len()
}

/// Undo [`stitch`]: the tree as it was before, `nodes` and `notes` long
/// (stitching only appends frames' nodes and notes, and links each frame's
/// root under its owner).
pub fn unstitch(main: &mut AxTree, nodes: usize, notes: usize) {
    main.nodes.truncate(nodes);
    main.notes.truncate(notes);
    for n in &mut main.nodes {
        n.children.retain(|&c| (c as usize) < nodes);
    }
}

fn shown_url(url: &str) -> String {
    let cut: String = url.chars().take(120).collect();
    if cut.is_empty() {
        "(no URL)".into()
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::AxNode;
    use serde_json::json;

    fn node(role: &str, name: &str, backend: i64, children: Vec<u32>) -> AxNode {
        AxNode { role: crate::tree::roles::intern(role), name: name.into(), backend_node_id: Some(backend), children, ..AxNode::default() }
    }

    #[test]
    fn frame_tree_is_flattened_parents_first() {
        let ft = json!({"frameTree":{"frame":{"id":"A"},"childFrames":[
            {"frame":{"id":"B","parentId":"A","url":"b"},"childFrames":[{"frame":{"id":"D","parentId":"B","url":"d"}}]},
            {"frame":{"id":"C","parentId":"A","url":"c"}}]}});
        let ids: Vec<String> = child_frames(&ft).into_iter().map(|f| f.id).collect();
        assert_eq!(ids, vec!["B", "C", "D"]);
    }

    #[test]
    fn stitches_nested_frames_under_their_iframes() {
        let mut main = AxTree {
            nodes: vec![node("RootWebArea", "Top", 1, vec![1]), node("Iframe", "f", 5, vec![])],
            root: Some(0),
            notes: vec!["the page's own".into()],
            chrome_subtrees: vec![],
        };
        let before = format!("{main:?}");
        let child =
            AxTree { nodes: vec![node("RootWebArea", "", 1, vec![1]), node("Iframe", "g", 7, vec![])], root: Some(0), notes: vec![], chrome_subtrees: vec![] };
        let grandchild = AxTree {
            nodes: vec![node("RootWebArea", "Deep", 1, vec![1]), node("button", "b", 2, vec![])],
            root: Some(0),
            notes: vec![],
            chrome_subtrees: vec![],
        };
        let info = |id: &str, parent: &str| FrameInfo { id: id.into(), parent_id: Some(parent.into()), url: format!("https://{id}/") };
        let mut notes = vec![];
        stitch(
            &mut main,
            Some("A"),
            vec![
                FrameCapture { info: info("B", "A"), tree: child, owner_backend_id: Some(5) },
                FrameCapture { info: info("C", "B"), tree: grandchild, owner_backend_id: Some(7) },
                FrameCapture {
                    info: info("X", "A"),
                    tree: AxTree { nodes: vec![node("RootWebArea", "", 1, vec![])], root: Some(0), notes: vec![], chrome_subtrees: vec![] },
                    owner_backend_id: Some(99),
                },
            ],
            &mut notes,
        );
        assert_eq!(main.nodes[1].children, vec![2]);
        assert_eq!(main.nodes[2].name, "https://B/");
        assert_eq!(main.nodes[3].children, vec![4]);
        assert_eq!(main.nodes[5].name, "b");
        assert!(notes[0].contains("https://X/"));
        // Taken out again, the tree is the engine's, to be kept for the next build.
        unstitch(&mut main, 2, 1);
        assert_eq!(format!("{main:?}"), before);
    }
}
