//! The DOM pass's tree of the mirror (elements and documents, for selectors
//! and click hints), built from its nodes directly: what the DOM pass reads
//! of [`super::Mirror::to_snapshot`]'s reply, without the reply. It serves a
//! kept build whose tree or DOM facts changed (`super::kept`).
//!
//! A mirror holding shadow trees is DOMSnapshot's flat tree, not the
//! element tree: a host's children there are its shadow tree's, a slot's the
//! light nodes assigned to it, and unslotted light nodes are missing. Its DOM
//! pass's tree is the last build's (first read with each shadow host's
//! element tree described, `DomTree::graft_described`: making it from the
//! mirror alone cannot be done, and asking again costs a round trip a look)
//! made again from the mirror wherever the element tree is the flat tree
//! ([`dom_tree_over_shadows`]).

use crate::dom::snapshot_reader::local_name;
use crate::dom::{is_kept_attr, DKind, DomTree};

use super::mirror::{MNode, Tree};

const NONE: u32 = u32::MAX;

/// Each live node's document as the mirror is written out (a parent in
/// another document, a frame's owner, is none in this one), the click hints
/// of every document (a listener, or where `cursor: pointer` begins, the
/// capture's first computed style being `cursor` when `cursor` is true), and
/// whether a node is a shadow root.
fn documents_and_hints(mirror: Tree<'_>, cursor: bool) -> (Vec<u32>, Vec<i64>, bool) {
    let nodes = mirror.nodes;
    let pointer = |k: u32| cursor && nodes.get(k as usize).and_then(|m| m.styles.as_ref()).and_then(|s| s.first()).is_some_and(|c| c == "pointer");
    let mut doc_of = vec![NONE; nodes.len()];
    let mut hints = Vec::new();
    let mut shadowed = false;
    for (d, doc) in mirror.docs.iter().enumerate() {
        if doc.root == NONE {
            continue;
        }
        for k in mirror.walk(doc.root) {
            let Some(m) = nodes.get(k as usize).filter(|m| m.alive) else { continue };
            shadowed |= m.shadow.is_some();
            let parent_here = doc_of.get(m.parent as usize) == Some(&(d as u32));
            doc_of[k as usize] = d as u32;
            if m.node_type == 1 && (m.clickable || pointer(k) && !(parent_here && pointer(m.parent))) {
                hints.push(m.backend);
            }
        }
    }
    (doc_of, hints, shadowed)
}

/// The element tree of `mirror` with its click hints. None when the mirror
/// holds a shadow root: its flat tree is then not the element tree (see
/// [`dom_tree_over_shadows`]).
pub(crate) fn dom_tree_of_mirror(mirror: Tree<'_>, cursor: bool) -> Option<DomTree> {
    let nodes = mirror.nodes;
    let docs = mirror.docs;
    let (doc_of, hints, shadowed) = documents_and_hints(mirror, cursor);
    if shadowed {
        return None;
    }
    let mut tree = DomTree::default();
    tree.without_user_agent_roots = true;
    // Each mirror node's place in the tree (NONE: left out, and so is everything under it).
    let mut model = vec![NONE; nodes.len()];
    let mut visited = vec![false; docs.len()];
    // (document, its owner element in the tree); owners are added before the
    // documents they host, so parents keep coming first.
    let mut pending: Vec<(usize, u32)> = vec![(0, NONE)];
    while let Some((d, owner)) = pending.pop() {
        let Some(doc) = docs.get(d) else { continue };
        if std::mem::replace(&mut visited[d], true) || doc.root == NONE {
            continue;
        }
        for k in mirror.walk(doc.root) {
            let Some(m) = nodes.get(k as usize).filter(|m| m.alive) else { continue };
            let parent = if doc_of.get(m.parent as usize) == Some(&(d as u32)) {
                match model[m.parent as usize] {
                    NONE => continue,
                    p => p,
                }
            } else if k == doc.root {
                owner
            } else {
                continue;
            };
            let Some(kind) = kind_of(m) else { continue };
            let hosted = m.content_doc.filter(|&c| c < docs.len());
            let idx = add_mirror_node(&mut tree, m, kind, parent, hosted.and_then(|c| docs[c].frame_id.clone()));
            model[k as usize] = idx;
            if let Some(c) = hosted {
                pending.push((c, idx));
            }
        }
    }
    tree.index_siblings();
    tree.add_hint_ids(hints);
    Some(tree)
}

/// The DOM pass's kind of a mirror node: None for what its tree leaves out
/// (text, comments, generated boxes, shadow roots), and with it everything under it.
fn kind_of(m: &MNode) -> Option<DKind> {
    match m.node_type {
        1 if m.pseudo.is_none() => Some(DKind::Element),
        9 => Some(DKind::Document),
        _ => None,
    }
}

fn add_mirror_node(tree: &mut DomTree, m: &MNode, kind: DKind, parent: u32, frame_id: Option<String>) -> u32 {
    tree.add_node(kind, local_name(&m.name), m.backend, parent, frame_id, kept_attrs(m, kind))
}

/// The attributes the DOM pass keeps of a mirror node of `kind` (an element's only).
fn kept_attrs(m: &MNode, kind: DKind) -> Vec<(String, String)> {
    if kind != DKind::Element {
        return Vec::new();
    }
    m.attrs.iter().filter(|(k, _)| is_kept_attr(k)).map(|(k, v)| (k.clone(), v.clone().unwrap_or_default())).collect()
}

/// A node of a subtree read again as the DOM has it (`fresh::dom_parts`), in
/// `DOM.getDocument`'s order, its parent an index into its list (`NONE`: the
/// subtree's root). Kept for the next build where the subtree holds a shadow
/// root or a slot: there the mirror has its flat tree, not its element tree.
#[derive(Debug, Clone, PartialEq)]
pub struct DomPart {
    pub kind: DKind,
    pub tag: String,
    pub backend: i64,
    pub parent: u32,
    pub frame_id: Option<String>,
    pub attrs: Vec<(String, String)>,
}

/// One step of [`dom_tree_over_shadows`], with the new tree's parent.
enum Step {
    /// A subtree read again (by its root's backend id), as the DOM has it.
    Read(i64, u32),
    /// A node of the old tree, made again from what the mirror says of it.
    Old(u32, u32),
    /// A node of the old tree and its subtree, copied as they were.
    Copy(u32, u32),
    /// A mirror node whose subtree is its element tree, taken from the mirror.
    Mirror(u32, u32),
}

fn is_slot(n: &crate::dom::DNode) -> bool {
    n.is_element() && n.tag == "slot"
}

/// The element tree of a mirror holding shadow trees: `old` (the last
/// build's, first read with each host described) made again from the
/// mirror. DOMSnapshot's flat tree lists no shadow root: a host's children
/// there are its shadow tree's, a slot's the light nodes assigned to it, and
/// a light node no slot takes is missing. So every subtree holding no host
/// and no slot, whose flat tree is its element tree, is taken from the
/// mirror; what only the element tree holds comes from `old`: the shadow
/// roots and each one's children, each host's light children and their
/// order, each slot's own children (changes to any of these make the look a
/// full capture: `page/watch.js`), and the light children no slot takes (not
/// in the flat tree: a change inside one is a full capture too). Other nodes
/// above a host or slot take their children from the mirror, which lists
/// them as the DOM does. The hosts are `old`'s, and those of the subtrees
/// read again since, which are taken as the DOM gave them (`Tree::dom_reads`).
/// None when the mirror and `old` do not fit (a host or slot new since and
/// not read, a frame's document with no owner).
pub(crate) fn dom_tree_over_shadows(old: &DomTree, mirror: Tree<'_>, cursor: bool) -> Option<DomTree> {
    let nodes = mirror.nodes;
    let docs = mirror.docs;
    let main_root = docs.first()?.root;
    let (_, hints, _) = documents_and_hints(mirror, cursor);
    let live = |backend: i64| mirror.by_backend.get(&backend).copied().filter(|&k| nodes.get(k as usize).is_some_and(|m| m.alive));
    // Whether a node's flat subtree holds a host or a slot, frames' documents included (a
    // document's root is below its owner element).
    let mut special_below = vec![false; nodes.len()];
    let mut owner_of: Vec<u32> = vec![NONE; docs.len()];
    for (k, m) in nodes.iter().enumerate() {
        if let Some(slot) = m.content_doc.filter(|_| m.alive).and_then(|d| owner_of.get_mut(d)) {
            *slot = k as u32;
        }
    }
    let hosts = old.nodes.iter().filter(|n| !n.shadow_roots.is_empty()).map(|n| n.backend).chain(mirror.dom_reads.keys().copied()).filter_map(live);
    let slots = nodes.iter().enumerate().filter(|(_, m)| m.alive && m.node_type == 1 && m.name.eq_ignore_ascii_case("slot")).map(|(k, _)| k as u32);
    for k in hosts.chain(slots) {
        let mut cur = k;
        loop {
            let slot = special_below.get_mut(cur as usize)?;
            if std::mem::replace(slot, true) {
                break;
            }
            let n = nodes.get(cur as usize)?;
            if n.node_type == 9 {
                if cur == main_root {
                    break;
                }
                // A frame's document: on up from its owner.
                let d = docs.iter().position(|d| d.root == cur)?;
                cur = *owner_of.get(d).filter(|&&o| o != NONE)?;
                continue;
            }
            cur = n.parent;
        }
    }
    let mut tree = DomTree::default();
    // Mirror parts lack the user-agent shadow roots a `getDocument` tree holds.
    tree.without_user_agent_roots = true;
    let mut stack = vec![Step::Old(0, NONE)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Read(backend, parent) => {
                let parts = mirror.dom_reads.get(&backend)?;
                tree.add_parts(parts.iter().cloned(), parent, Vec::with_capacity(parts.len())).ok()?;
            }
            Step::Copy(o, parent) => {
                let n = old.nodes.get(o as usize)?;
                let idx = tree.add_node(n.kind, n.tag.clone(), n.backend, parent, n.frame_id.clone(), n.attrs.clone());
                push_children(&mut stack, n, idx, Step::Copy);
            }
            Step::Mirror(k, parent) => {
                let m = nodes.get(k as usize)?;
                let Some(kind) = kind_of(m) else { continue };
                let hosted = m.content_doc.filter(|&c| c < docs.len());
                let idx = add_mirror_node(&mut tree, m, kind, parent, hosted.and_then(|c| docs[c].frame_id.clone()));
                // As `getDocument` lists them: a frame's document before the element's children.
                stack.extend(m.children.iter().rev().map(|&c| Step::Mirror(c, idx)));
                if let Some(root) = hosted.map(|c| docs[c].root).filter(|&r| r != NONE) {
                    stack.push(Step::Mirror(root, idx));
                }
            }
            Step::Old(o, parent) => {
                let n = old.nodes.get(o as usize)?;
                if mirror.dom_reads.contains_key(&n.backend) {
                    stack.push(Step::Read(n.backend, parent));
                    continue;
                }
                if matches!(n.kind, DKind::ShadowRoot(_)) {
                    // Not in the flat tree; its children are listed as they were.
                    let idx = tree.add_node(n.kind, n.tag.clone(), n.backend, parent, None, Vec::new());
                    push_children(&mut stack, n, idx, Step::Old);
                    continue;
                }
                let Some(k) = live(n.backend) else {
                    // Not in the flat tree (a light child no slot takes, a slot's own children
                    // where nodes are assigned to it): as it was.
                    stack.push(Step::Copy(o, parent));
                    continue;
                };
                if !special_below[k as usize] {
                    stack.push(Step::Mirror(k, parent));
                    continue;
                }
                let m = nodes.get(k as usize)?;
                if o == 0 && k != main_root {
                    return None;
                }
                let idx = tree.add_node(n.kind, n.tag.clone(), n.backend, parent, n.frame_id.clone(), kept_attrs(m, n.kind));
                if !n.shadow_roots.is_empty() || is_slot(n) {
                    // A host (its shadow roots, its light children) or a slot (its own children).
                    push_children(&mut stack, n, idx, Step::Old);
                    continue;
                }
                // Above a host or slot: its children as the mirror lists them (the DOM's order),
                // after a frame's document (`getDocument`'s order).
                let frame_doc = n.content_doc;
                for &c in m.children.iter().rev() {
                    let Some(child) = nodes.get(c as usize).filter(|c| c.alive && kind_of(c).is_some()) else { continue };
                    if mirror.dom_reads.contains_key(&child.backend) {
                        stack.push(Step::Read(child.backend, idx));
                        continue;
                    }
                    match old.by_backend(child.backend) {
                        Some(j) => stack.push(Step::Old(j, idx)),
                        // New since: read whole, which a subtree holding a host or slot is not (`fresh`).
                        None if !special_below[c as usize] => stack.push(Step::Mirror(c, idx)),
                        None => return None,
                    }
                }
                if frame_doc != NONE {
                    stack.push(Step::Old(frame_doc, idx));
                }
            }
        }
    }
    tree.index_siblings();
    tree.add_hint_ids(hints);
    tree.root_frame = old.root_frame.clone();
    Some(tree)
}

/// Push `n`'s children in `getDocument`'s order (its frame's document, its
/// shadow roots, its element children), each as `step`, for a walk that pops them.
fn push_children(stack: &mut Vec<Step>, n: &crate::dom::DNode, idx: u32, step: fn(u32, u32) -> Step) {
    stack.extend(n.children.iter().rev().map(|&c| step(c, idx)));
    stack.extend(n.shadow_roots.iter().rev().map(|&s| step(s, idx)));
    if n.content_doc != NONE {
        stack.push(step(n.content_doc, idx));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::snapshot_reader::read_parsed;
    use crate::incremental::mirror::tests::recorded_mirrors;

    #[test]
    fn equals_the_tree_read_from_the_mirror_written_out() {
        let mut trees = 0;
        for (name, mirror, style_at) in recorded_mirrors() {
            let snap = mirror.to_snapshot();
            let read = read_parsed(&snap, false, false);
            let ours = dom_tree_of_mirror(mirror.tree(), style_at > 0);
            assert_eq!(ours.is_some(), read.hosts.is_empty(), "{name}: a shadow root means no whole tree either way");
            let (Some(mut ours), Some(mut want)) = (ours, read.tree) else { continue };
            want.add_hint_ids(read.click_hints);
            assert_eq!(format!("{:?}", ours.nodes), format!("{:?}", want.nodes), "{name}");
            for (i, n) in want.nodes.iter().enumerate() {
                assert_eq!(ours.hints(n.backend), want.hints(n.backend), "{name}: hints of node {i}");
            }
            ours.index_root_document();
            trees += 1;
        }
        assert!(trees >= 5, "recorded pages with an element tree: {trees}");
    }

    /// A tree's nodes as (kind, tag, backend, parent's backend, attributes), in
    /// `getDocument`'s pre-order whatever the order of its arena, without the
    /// user-agent shadow roots and what they hold (DOMSnapshot has none).
    fn outline(t: &DomTree) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![0u32];
        while let Some(i) = stack.pop() {
            let Some(n) = t.node(i) else { continue };
            if n.kind == DKind::ShadowRoot(crate::dom::ShadowKind::UserAgent) {
                continue;
            }
            out.push(format!("{:?} {} {} <{:?}> {:?}", n.kind, n.tag, n.backend, t.node(n.parent).map(|p| p.backend), n.attrs));
            stack.extend(n.children.iter().rev());
            stack.extend(n.shadow_roots.iter().rev());
            if n.content_doc != NONE {
                stack.push(n.content_doc);
            }
        }
        out
    }

    #[test]
    fn over_shadow_roots_the_tree_patched_from_the_mirror_is_the_captures() {
        let mut checked = 0;
        for name in ["shadow.json", "shadow-dom.json"] {
            let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/recorded").join(name);
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            let replies = v["replies"].as_array().unwrap();
            let snapshot = replies.iter().find(|r| r["method"] == "DOMSnapshot.captureSnapshot").map(|r| r["result"].to_string()).expect(name);
            // The capture's tree: DOMSnapshot's without its shadow trees, each host's element tree grafted.
            let read = crate::dom::snapshot_reader::read_snapshot(&snapshot, false, false).unwrap();
            let mut old = read.tree.expect(name);
            assert_eq!(read.hosts.len(), 4, "{name}: the hosts outside shadow trees (one holds another)");
            for (backend, at) in &read.hosts {
                let described =
                    replies.iter().find(|r| r["method"] == "DOM.describeNode" && r["params"]["backendNodeId"] == *backend).expect("each host described");
                old.graft_described(&described["result"].to_string(), *at).unwrap();
            }
            old.index_siblings();
            let mirror = crate::dom::snapshot_reader::with_snapshot(&snapshot, |s| crate::incremental::Mirror::from_snapshot(s, 1)).unwrap();
            assert!(dom_tree_of_mirror(mirror.tree(), false).is_none(), "{name}: a flat tree with shadow roots is not the element tree");
            let patched = dom_tree_over_shadows(&old, mirror.tree(), false).expect(name);
            assert_eq!(outline(&patched), outline(&old), "{name}");
            assert!(outline(&old).iter().any(|l| l.contains("ShadowRoot(Closed)")), "{name}: the closed root is in the element tree");
            // Its sibling positions are the capture's too (selectors count them).
            let positions =
                |t: &DomTree| t.nodes.iter().filter(|n| n.is_element()).map(|n| (n.backend, n.child_pos, n.type_pos, n.type_count)).collect::<Vec<_>>();
            let mut want = positions(&old);
            want.retain(|(b, ..)| patched.by_backend(*b).is_some());
            want.sort_unstable();
            let mut got: Vec<_> = positions(&patched).into_iter().filter(|(b, ..)| old.by_backend(*b).is_some()).collect();
            got.sort_unstable();
            assert_eq!(got, want, "{name}");
            checked += 1;
        }
        assert_eq!(checked, 2, "recordings with a DOM snapshot and described hosts");
    }
}
