//! The DOM pass's tree of the mirror (elements and documents, for selectors
//! and click hints), built from its nodes directly: what the DOM pass reads
//! of [`super::Mirror::to_snapshot`]'s reply, without the reply. It serves a
//! kept build whose tree or DOM facts changed (`super::kept`).

use crate::dom::snapshot_reader::local_name;
use crate::dom::{is_kept_attr, DKind, DomTree};

use super::mirror::Tree;

const NONE: u32 = u32::MAX;

/// The element tree of `mirror` with its click hints (a listener, or where
/// `cursor: pointer` begins, the capture's first computed style being
/// `cursor` when `cursor` is true). None when the mirror holds a shadow root:
/// its flat tree is then not the element tree (the DOM pass reads the DOM).
pub(crate) fn dom_tree_of_mirror(mirror: Tree<'_>, cursor: bool) -> Option<DomTree> {
    let nodes = mirror.nodes;
    let docs = mirror.docs;
    let pointer = |k: u32| cursor && nodes.get(k as usize).and_then(|m| m.styles.as_ref()).and_then(|s| s.first()).is_some_and(|c| c == "pointer");
    // Each live node's document as the mirror is written out (a parent in
    // another document, a frame's owner, is none in this one), and the click
    // hints of every document.
    let mut doc_of = vec![NONE; nodes.len()];
    let mut hints = Vec::new();
    for (d, doc) in docs.iter().enumerate() {
        if doc.root == NONE {
            continue;
        }
        for k in mirror.walk(doc.root) {
            let Some(m) = nodes.get(k as usize).filter(|m| m.alive) else { continue };
            if m.shadow.is_some() {
                return None;
            }
            let parent_here = doc_of.get(m.parent as usize) == Some(&(d as u32));
            doc_of[k as usize] = d as u32;
            if m.node_type == 1 && (m.clickable || pointer(k) && !(parent_here && pointer(m.parent))) {
                hints.push(m.backend);
            }
        }
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
            let kind = match m.node_type {
                1 if m.pseudo.is_none() => DKind::Element,
                9 => DKind::Document,
                _ => continue,
            };
            let hosted = m.content_doc.filter(|&c| c < docs.len());
            let frame_id = hosted.and_then(|c| docs[c].frame_id.clone());
            let attrs = if kind == DKind::Element {
                m.attrs.iter().filter(|(k, _)| is_kept_attr(k)).map(|(k, v)| (k.clone(), v.clone().unwrap_or_default())).collect()
            } else {
                Vec::new()
            };
            let idx = tree.add_node(kind, local_name(&m.name), m.backend, parent, frame_id, attrs);
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
            assert_eq!(ours.is_some(), read.tree.is_some(), "{name}: a shadow root means no tree either way");
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
}
