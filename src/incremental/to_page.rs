//! The engine's page of the mirror, built from its nodes directly instead of
//! writing the mirror out as a DOMSnapshot reply and reading that again.
//!
//! After a change to the tree (rows added, removed, moved or replaced) the
//! kept page's nodes still stand for every mirror node but those re-read:
//! they are moved into a new arena in the mirror's order, and only the nodes
//! read again are made anew. On the 40k-node page the mirror written out and
//! read by the engine was 10–15 ms of a look after a row was added (trace of
//! `node bench/repeat-calls.mjs --kind add`, release addon, 2026-11-28).
//!
//! The arena is what [`crate::engine::page::from_snapshot`] makes of
//! [`super::Mirror::to_snapshot`]'s reply, node for node (the tests check
//! it on every recorded page): each document's live nodes in pre-order, the
//! documents one after another.

use rustc_hash::FxHashMap;

use crate::dom::snapshot_reader::local_name;
use crate::engine::page::{Atom, Kind, Node, Page, Pseudo, Transform, NONE};

use super::mirror::{MDoc, MNode, Tree};

/// The kept page's nodes that may stand for the mirror's again: mirror node
/// `k` is `page.nodes[page_of[k]]` as the kept build read it, unless `stale[k]`
/// (its facts changed since; a node past `stale`'s end is stale).
pub(crate) struct Reuse<'a> {
    pub page: &'a mut Page,
    pub page_of: &'a [u32],
    pub stale: &'a [bool],
}

/// Atoms made once per distinct string of the build (tag and attribute
/// names, computed style values), as the reader makes one per string of a reply.
#[derive(Default)]
pub(super) struct Atoms<'m> {
    tags: FxHashMap<&'m str, Atom>,
    attrs: FxHashMap<&'m str, Atom>,
    styles: FxHashMap<&'m str, Atom>,
}

impl<'m> Atoms<'m> {
    fn tag(&mut self, name: &'m str) -> Atom {
        self.tags.entry(name).or_insert_with(|| Atom::from(local_name(name).as_str())).clone()
    }

    fn attr(&mut self, name: &'m str) -> Atom {
        self.attrs.entry(name).or_insert_with(|| Atom::from(name.to_ascii_lowercase().as_str())).clone()
    }

    fn style(&mut self, value: &'m str) -> Atom {
        self.styles.entry(value).or_insert_with(|| Atom::from(value)).clone()
    }
}

/// The engine's page of `mirror` (its computed styles the capture's, then the
/// engine's from `style_at`), and each mirror node's index in it (`NONE`:
/// not in it). With `reuse`, nodes of the kept page are moved over.
pub(crate) fn page_of_mirror(mirror: Tree<'_>, style_at: usize, mut reuse: Option<Reuse<'_>>) -> (Page, Vec<u32>) {
    let nodes = mirror.nodes;
    let docs = mirror.docs;
    let mut page_of = vec![NONE; nodes.len()];
    // (A new arena: keeping the last one's room for the next, 13 MB on the 40k-node page, took
    // a few of the slowest layouts out of 16 but not the median, 7.5 ms in both; a session
    // holds about 45 MB there. `WEB_AI_TRACE=1 node bench/repeat-calls.mjs --kind add --runs 15`, twice each.)
    let mut page = Page::default();
    page.nodes.reserve(mirror.live);
    let mut atoms = Atoms::default();
    // Per page node: its document, whether `cursor` is `pointer` there, its mirror node.
    let mut doc_of: Vec<u32> = Vec::with_capacity(mirror.live);
    let mut pointer: Vec<bool> = Vec::with_capacity(mirror.live);
    let mut mirror_of: Vec<u32> = Vec::with_capacity(mirror.live);
    let mut offsets = Vec::with_capacity(docs.len());
    for (d, doc) in docs.iter().enumerate() {
        offsets.push(page.nodes.len());
        let base = page.nodes.len() as u32;
        if doc.root == NONE {
            continue;
        }
        for k in mirror.walk(doc.root) {
            let Some(m) = nodes.get(k as usize).filter(|m| m.alive) else { continue };
            let i = page.nodes.len() as u32;
            page_of[k as usize] = i;
            // A parent in another document (a frame's owner) is none in this one.
            let parent = page_of.get(m.parent as usize).copied().filter(|&p| p != NONE && p >= base && p < i).unwrap_or(NONE);
            let is_pointer = style_at > 0 && m.styles.as_ref().and_then(|s| s.first()).is_some_and(|c| c == "pointer");
            let parent_pointer = parent != NONE && pointer.get(parent as usize).copied().unwrap_or(false);
            let kept = reuse.as_mut().and_then(|r| {
                let fresh = r.stale.get(k as usize).copied().unwrap_or(true);
                let p = r.page_of.get(k as usize).copied().filter(|&p| p != NONE && !fresh)?;
                r.page.nodes.get_mut(p as usize).map(std::mem::take)
            });
            let mut node = match kept {
                // (A node moved over before stands empty in the old arena: made anew.)
                Some(n) if n.kind.is_some() => n,
                _ => made(m, Some(doc), style_at, &mut atoms),
            };
            node.parent = parent;
            node.content_doc = NONE;
            node.clickable = m.clickable;
            node.pointer_root = is_pointer && m.node_type == 1 && !parent_pointer;
            page.nodes.push(node);
            doc_of.push(d as u32);
            pointer.push(is_pointer);
            mirror_of.push(k);
        }
    }
    let total = page.nodes.len();
    for (i, &k) in mirror_of.iter().enumerate() {
        let Some(v) = nodes.get(k as usize).and_then(|m| m.content_doc) else { continue };
        // As the reader takes `contentDocumentIndex`: the hosted document's first node, never its own.
        if let Some(&doc_base) = offsets.get(v) {
            if doc_base < total && doc_of.get(i).is_some_and(|&d| d as usize != v) {
                page.nodes[i].content_doc = doc_base as u32;
            }
        }
    }
    page.link();
    (page, page_of)
}

/// A page node of mirror node `m` of document `doc` (a document node's facts), as the
/// reader makes one of a reply's; its parent, `content_doc` and `pointer_root` are the caller's.
pub(super) fn made<'m>(m: &'m MNode, doc: Option<&MDoc>, style_at: usize, atoms: &mut Atoms<'m>) -> Node {
    let kind = match m.node_type {
        1 => Kind::Element,
        3 => Kind::Text,
        9 => Kind::Document,
        _ => Kind::Other,
    };
    let mut node = Node { kind: Some(kind), tag: atoms.tag(&m.name), backend: Some(m.backend), content_doc: NONE, ..Node::default() };
    match kind {
        Kind::Text => node.text = m.value.clone().unwrap_or_default(),
        Kind::Element => node.attrs = m.attrs.iter().map(|(k, v)| (atoms.attr(k), v.clone().unwrap_or_default())).collect(),
        Kind::Document => {
            if let Some(doc) = doc {
                node.frame_id = doc.frame_id.clone();
                node.base_url = doc.base_url.as_deref().and_then(|b| url::Url::parse(b).ok()).map(Box::new);
                node.url = doc.document_url.clone();
            }
        }
        Kind::Other => {}
    }
    node.pseudo = m.pseudo.as_deref().map(|p| match p {
        "before" => Pseudo::Before,
        "after" => Pseudo::After,
        _ => Pseudo::Other,
    });
    // An input's value first; a textarea's text when there is none.
    node.value = m.input_value.clone().or_else(|| m.text_value.clone());
    node.checked = m.checked;
    node.selected = m.selected;
    if let Some(styles) = &m.styles {
        let style = |j: usize| styles.get(style_at + j).map_or("", String::as_str);
        node.laid_out = true;
        node.display = atoms.style(style(0));
        node.visibility = atoms.style(style(1));
        if node.pseudo.is_some() {
            node.content = style(2).to_string();
        }
        node.transform = Transform::of(style(3));
    }
    node
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::incremental::mirror::tests::recorded_mirrors;

    #[test]
    fn equals_the_page_read_from_the_mirror_written_out() {
        let mut pages = 0;
        for (name, mirror, style_at) in recorded_mirrors() {
            let (page, page_of) = page_of_mirror(mirror.tree(), style_at, None);
            let (snap, want_of) = mirror.to_snapshot_mapped();
            let want = crate::engine::page::from_snapshot(&snap, style_at);
            assert_eq!(page.describe(), want.describe(), "{name}");
            assert_eq!(page_of, want_of, "{name}");
            pages += 1;
        }
        assert!(pages >= 5, "recorded pages: {pages}");
    }
}
