//! The DOM side of a capture, joined to the accessibility tree by
//! `backendNodeId`: the element tree that selectors are evaluated in, with
//! shadow roots and same-process frame documents, plus the click facts only
//! layout knows (click listeners, `cursor: pointer`).
//!
//! The tree comes from `DOMSnapshot.captureSnapshot` (see `dom_snapshot`)
//! when that walk is the DOM tree, and from `DOM.getDocument` with `pierce`
//! when the page has shadow roots, which DOMSnapshot flattens.

pub mod backend_index;
pub mod concealment;
pub mod json_arena;
pub mod selector;
pub mod snapshot_reader;
pub mod viewport;

use crate::dom::viewport::{Boxes, Placement};

use rustc_hash::FxHashMap;

pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShadowKind {
    Open,
    Closed,
    UserAgent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DKind {
    Element,
    Document,
    ShadowRoot(ShadowKind),
}

/// Attributes kept for selectors and click hints; others are dropped on read.
pub(crate) fn is_kept_attr(name: &str) -> bool {
    KEPT_ATTRS.contains(&name)
}

const KEPT_ATTRS: &[&str] = &[
    "id",
    "name",
    "aria-label",
    "placeholder",
    "title",
    "alt",
    "href",
    "type",
    "role",
    "data-testid",
    "data-test-id",
    "data-test",
    "data-qa",
    "data-cy",
    "tabindex",
    "contenteditable",
    "onclick",
];

#[derive(Debug, Clone)]
pub struct DNode {
    pub kind: DKind,
    /// `localName`: lower case for HTML, as written for SVG and MathML.
    pub tag: String,
    pub backend: i64,
    /// The DOM parent: a shadow root's host, a frame document's `iframe`.
    pub parent: u32,
    /// Element children in tree order (not shadow roots, not documents).
    pub children: Vec<u32>,
    pub shadow_roots: Vec<u32>,
    pub content_doc: u32,
    /// The frame an `iframe`/`frame` element hosts.
    pub frame_id: Option<String>,
    pub attrs: Vec<(String, String)>,
    /// Among its parent's element children (see [`DomTree::index_siblings`]):
    /// its 1-based position, its position among those of its tag, and how
    /// many share its tag.
    pub child_pos: u32,
    pub type_pos: u32,
    pub type_count: u32,
}

impl DNode {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn is_element(&self) -> bool {
        self.kind == DKind::Element
    }
}

/// One process's DOM: the page's (its main frame and same-process frames) or
/// an out-of-process frame's. Backend node ids are unique within a process only.
#[derive(Debug, Default)]
pub struct DomTree {
    pub nodes: Vec<DNode>,
    by_backend: backend_index::BackendIndex,
    /// The frame documents of `iframe` elements, by frame id.
    frame_docs: FxHashMap<String, u32>,
    /// Frame owner elements by the frame they host (also out-of-process ones,
    /// whose document is in another tree).
    pub owners: FxHashMap<String, u32>,
    /// The frame of the root document.
    pub root_frame: Option<String>,
    /// From DOMSnapshot: listener or `cursor: pointer` root, by backend id.
    click_hints: FxHashMap<i64, bool>,
    /// Built from DOMSnapshot, which skips user-agent shadow roots (the
    /// insides of `<video controls>`, date fields): a node missing here may
    /// be inside one of its elements' built-in roots.
    pub without_user_agent_roots: bool,
    /// Layout boxes (`viewportOnly`), and where this process's viewport sits in the page's.
    pub boxes: Option<Boxes>,
    /// Nodes whose text a person cannot see (`untrustedContent: 'mark'`), by backend id.
    pub concealed: FxHashMap<i64, concealment::Concealed>,
    pub placement: Option<Placement>,
    /// The selector index of the root document's elements, built ahead where
    /// a thread is idle (see [`DomTree::index_root_document`]).
    pub(crate) root_region: Option<(u32, selector::RegionIndex)>,
    /// Where its elements were located, for a tree kept from one build to the
    /// next (`crate::incremental::kept`): none until [`DomTree::remember_locations`].
    pub(crate) located: Option<std::sync::Mutex<selector::Remembered>>,
    /// Each node's hints once asked, for a tree kept from one build to the
    /// next, with the placement they hold for: none until [`DomTree::remember_hints`].
    hint_memo: Option<(Option<Placement>, Vec<std::sync::OnceLock<Hints>>)>,
}

impl DomTree {
    /// Keep each element's location once found: the tree serves more than one
    /// build. (Each build of the 40k-node page located its 3,751 refs again,
    /// about 3 ms of a repeat capture's 20–28 in a scratch probe.)
    pub fn remember_locations(&mut self) {
        self.located.get_or_insert_with(Default::default);
    }

    /// Keep each node's hints once asked, while the placement stays: the
    /// serializer asks for every element's, each a handful of lookups (about
    /// 1 ms of a repeat build of the 40k-node page, whose tree is kept).
    pub fn remember_hints(&mut self) {
        let stale = self.hint_memo.as_ref().is_none_or(|(at, memo)| *at != self.placement || memo.len() != self.nodes.len());
        if stale {
            self.hint_memo = Some((self.placement, (0..self.nodes.len()).map(|_| std::sync::OnceLock::new()).collect()));
        }
    }

    /// Layout boxes read again since the tree was built (a repeat capture's,
    /// `crate::incremental::layout`): the hints remembered of the old ones go.
    pub fn set_boxes(&mut self, boxes: Boxes) {
        self.boxes = Some(boxes);
        self.hint_memo = None;
    }

    /// Build the selector index of the root document now: a capture does it
    /// on the thread that read the DOM, beside the engine, instead of after it.
    pub fn index_root_document(&mut self) {
        let root = self.scope_root(0);
        if self.node(root).is_some() {
            self.root_region = Some((root, selector::RegionIndex::build(self, root)));
        }
    }

    /// Read a `DOM.getDocument({ depth: -1, pierce: true })` result.
    pub fn from_get_document(text: &str, root_frame: Option<String>) -> Result<DomTree, String> {
        use crate::incremental::fresh::{element_parts, InArena};
        let arena = json_arena::parse(text)?;
        let root = arena.field(0, "root").ok_or("the reply has no root node")?;
        let mut tree = DomTree { root_frame, ..Default::default() };
        tree.add_parts(element_parts(InArena { arena: &arena, at: root }), NONE, Vec::new())?;
        tree.index_siblings();
        Ok(tree)
    }

    /// Add `parts` (`crate::incremental::to_dom::DomPart`s in document order,
    /// each parent an index into the whole list, NONE: `parent`). `placed`:
    /// where the list's first parts already are in the tree (a host grafted
    /// into keeps its own index), which `parts` then goes on from.
    pub(crate) fn add_parts(
        &mut self,
        parts: impl IntoIterator<Item = crate::incremental::to_dom::DomPart>,
        parent: u32,
        mut placed: Vec<u32>,
    ) -> Result<(), String> {
        for p in parts {
            let under = if p.parent == NONE { parent } else { *placed.get(p.parent as usize).ok_or("a described node's parent is not before it")? };
            placed.push(self.add_node(p.kind, p.tag, p.backend, under, p.frame_id, p.attrs));
        }
        Ok(())
    }

    /// Graft the element tree of the shadow host at `at` from its
    /// `DOM.describeNode({ depth: -1, pierce: true })` reply: its shadow roots
    /// and light children, below the host already in the tree (read from
    /// DOMSnapshot, whose flat tree it is not). The caller indexes the
    /// siblings again once every host is in ([`DomTree::index_siblings`]).
    pub(crate) fn graft_described(&mut self, text: &str, at: u32) -> Result<(), String> {
        use crate::incremental::fresh::{dom_parts, InArena};
        let arena = json_arena::parse(text)?;
        let node = arena.field(0, "node").ok_or("the reply has no node")?;
        let parts = dom_parts(InArena { arena: &arena, at: node }).ok_or("the node holds no shadow root")?;
        let host = self.node(at).map(|n| n.backend).ok_or("no such host in the tree")?;
        if parts.first().map(|p| p.backend) != Some(host) {
            return Err("the reply describes another node".into());
        }
        // The host is the parts' first (already in the tree); the rest follow under it.
        self.add_parts(parts.into_iter().skip(1), at, vec![at])?;
        // The selector index built ahead was of the tree without them.
        self.root_region = None;
        Ok(())
    }

    /// Append a node under `parent`, an index already in the tree (or
    /// `NONE`): parents always come before their children, so walks up the
    /// tree only go to smaller indices and cannot cycle.
    pub(crate) fn add_node(&mut self, kind: DKind, tag: String, backend: i64, parent: u32, frame_id: Option<String>, attrs: Vec<(String, String)>) -> u32 {
        let idx = self.nodes.len() as u32;
        let parent = if parent < idx { parent } else { NONE };
        self.nodes.push(DNode {
            kind,
            tag,
            backend,
            parent,
            children: Vec::new(),
            shadow_roots: Vec::new(),
            content_doc: NONE,
            frame_id: frame_id.clone(),
            attrs,
            child_pos: 1,
            type_pos: 1,
            type_count: 1,
        });
        if backend >= 0 {
            self.by_backend.insert(backend, idx);
        }
        if let Some(f) = frame_id {
            self.owners.insert(f, idx);
        }
        if let Some(p) = self.nodes.get_mut(parent as usize) {
            match kind {
                DKind::Element => p.children.push(idx),
                DKind::ShadowRoot(_) => p.shadow_roots.push(idx),
                DKind::Document => {
                    p.content_doc = idx;
                    if let Some(f) = p.frame_id.clone() {
                        self.frame_docs.insert(f, idx);
                    }
                }
            }
        }
        idx
    }

    /// Fill each element's sibling positions, once for the whole tree, so
    /// that selector steps cost the same under a parent of ten thousand
    /// children as under one of two.
    pub(crate) fn index_siblings(&mut self) {
        let mut positions: Vec<(u32, u32, u32, u32)> = Vec::new();
        for p in 0..self.nodes.len() {
            if self.nodes[p].children.is_empty() {
                continue;
            }
            positions.clear();
            {
                let nodes = &self.nodes;
                let tag_of = |c: u32| nodes.get(c as usize).map_or("", |n| n.tag.as_str());
                let mut per_tag: FxHashMap<&str, (u32, u32)> = FxHashMap::default();
                for &c in &nodes[p].children {
                    per_tag.entry(tag_of(c)).or_insert((0, 0)).1 += 1;
                }
                for (k, &c) in nodes[p].children.iter().enumerate() {
                    let (seen, count) = per_tag.entry(tag_of(c)).or_insert((0, 0));
                    *seen += 1;
                    positions.push((c, k as u32 + 1, *seen, *count));
                }
            }
            for &(c, pos, type_pos, type_count) in &positions {
                if let Some(n) = self.nodes.get_mut(c as usize) {
                    n.child_pos = pos;
                    n.type_pos = type_pos;
                    n.type_count = type_count;
                }
            }
        }
    }

    /// Record the element that hosts `frame` when the reply that built this
    /// tree did not say (DOMSnapshot does not name out-of-process frames).
    pub fn add_owner(&mut self, frame: &str, backend: i64) {
        if self.owners.contains_key(frame) {
            return;
        }
        if let Some(idx) = self.by_backend(backend).filter(|&i| self.node(i).is_some_and(DNode::is_element)) {
            self.owners.insert(frame.to_string(), idx);
        }
    }

    pub fn node(&self, idx: u32) -> Option<&DNode> {
        self.nodes.get(idx as usize)
    }

    pub fn by_backend(&self, backend: i64) -> Option<u32> {
        self.by_backend.get(backend)
    }

    /// The document node of `frame`, if this tree holds it.
    pub fn document_of_frame(&self, frame: &str) -> Option<u32> {
        if self.root_frame.as_deref() == Some(frame) && !self.nodes.is_empty() {
            return Some(0);
        }
        self.frame_docs.get(frame).copied()
    }

    /// The parent element within the same tree scope (what CSS `>` sees).
    pub fn scope_parent(&self, idx: u32) -> Option<u32> {
        let p = self.node(idx)?.parent;
        self.node(p).filter(|n| n.is_element()).map(|_| p)
    }

    /// The document or shadow root whose tree holds `idx`.
    pub fn scope_root(&self, idx: u32) -> u32 {
        let mut cur = idx;
        while let Some(n) = self.node(cur) {
            if !n.is_element() {
                return cur;
            }
            cur = n.parent;
        }
        NONE
    }

    /// The element children of a scope root or element.
    pub fn element_children(&self, idx: u32) -> &[u32] {
        self.node(idx).map_or(&[], |n| n.children.as_slice())
    }

    /// Add DOMSnapshot's click facts (see `dom_snapshot`).
    pub fn add_hint_ids(&mut self, backend_ids: Vec<i64>) {
        for b in backend_ids {
            self.click_hints.insert(b, true);
        }
    }

    /// A kept tree told that the click facts of `backend`'s element changed
    /// (a listener, or where `cursor: pointer` begins), as a DOM snapshot would
    /// now give them (`crate::incremental::kept`). False when it has no such node.
    pub fn set_click_hint(&mut self, backend: i64, on: bool) -> bool {
        let Some(i) = self.by_backend(backend) else { return false };
        if on {
            self.click_hints.insert(backend, true);
        } else {
            self.click_hints.remove(&backend);
        }
        if let Some(cell) = self.hint_memo.as_mut().and_then(|(_, memo)| memo.get_mut(i as usize)) {
            *cell = std::sync::OnceLock::new();
        }
        true
    }

    /// Whether the element of `backend` invites a click without being a
    /// control: a click listener, the root of a `cursor: pointer` area,
    /// `onclick`, `tabindex >= 0` or `contenteditable`.
    pub fn hints(&self, backend: i64) -> Hints {
        if let Some(memo) = self.hint_memo.as_ref().filter(|(at, _)| *at == self.placement).map(|(_, memo)| memo) {
            if let Some(cell) = self.by_backend(backend).and_then(|i| memo.get(i as usize)) {
                return *cell.get_or_init(|| self.hints_now(backend));
            }
        }
        self.hints_now(backend)
    }

    fn hints_now(&self, backend: i64) -> Hints {
        let (in_view, placed) = match (&self.boxes, &self.placement) {
            (Some(b), Some(at)) => (b.in_view(backend, at), b.placed(backend, at)),
            _ => (None, None),
        };
        let concealed = self.concealed.get(&backend).copied();
        let scroller = self.boxes.as_ref().is_some_and(|b| b.is_scroller(backend));
        let Some(n) = self.by_backend(backend).and_then(|i| self.node(i)) else { return Hints { in_view, placed, concealed, scroller, ..Hints::default() } };
        let tabindex = n.attr("tabindex").and_then(|t| t.trim().parse::<i64>().ok());
        let editable = n.attr("contenteditable").is_some_and(|v| !v.eq_ignore_ascii_case("false"));
        Hints {
            clickable: self.click_hints.contains_key(&backend) || n.attr("onclick").is_some() || tabindex.is_some_and(|t| t >= 0) || editable,
            negative_tabindex: tabindex.is_some_and(|t| t < 0),
            in_view,
            placed,
            concealed,
            scroller,
            inline: is_inline_tag(&n.tag),
        }
    }
}

/// Elements that flow inside a line of text by default (HTML's phrasing
/// content that renders inline). Their text continues the line around
/// them; text of any other element is a block of its own. The tag, not the
/// computed `display`: the DOM pass does not read styles for every element,
/// and a `span` made `inline-block` still sits in its line.
pub fn is_inline_tag(tag: &str) -> bool {
    matches!(
        tag,
        "span"
            | "a"
            | "b"
            | "i"
            | "u"
            | "s"
            | "em"
            | "strong"
            | "small"
            | "big"
            | "code"
            | "kbd"
            | "samp"
            | "var"
            | "abbr"
            | "acronym"
            | "cite"
            | "dfn"
            | "q"
            | "sub"
            | "sup"
            | "mark"
            | "font"
            | "time"
            | "data"
            | "label"
            | "bdi"
            | "bdo"
            | "ins"
            | "del"
            | "tt"
            | "nobr"
            | "wbr"
            | "output"
    )
}

/// Which tree holds the node `backend` of `frame`: the one with that frame's
/// document, else the first that knows the backend id (backend ids are unique
/// per process only, so the frame decides when it can).
pub fn tree_for(trees: &[DomTree], frame: Option<&str>, backend: i64) -> Option<usize> {
    // Another process's tree may use the same number for an unrelated node:
    // once a tree holds the frame, only that tree can answer.
    // (Asked for every node the serializer writes: no allocation here.)
    // One tree (a page without frames in other processes) answers either way.
    if let [only] = trees {
        return only.by_backend(backend).map(|_| 0);
    }
    if let Some(f) = frame {
        let mut held = false;
        for (t, tree) in trees.iter().enumerate() {
            if tree.document_of_frame(f).is_some() {
                if tree.by_backend(backend).is_some() {
                    return Some(t);
                }
                held = true;
            }
        }
        if held {
            return None;
        }
    }
    trees.iter().position(|t| t.by_backend(backend).is_some())
}

/// The hints for the node `backend` of `frame`.
pub fn hints_in(trees: &[DomTree], frame: Option<&str>, backend: i64) -> Hints {
    // Text nodes are not in the element tree; their frame's tree has their box.
    let by_frame = || frame.and_then(|f| trees.iter().position(|t| t.document_of_frame(f).is_some()));
    tree_for(trees, frame, backend).or_else(by_frame).map_or_else(Hints::default, |t| trees[t].hints(backend))
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Hints {
    pub clickable: bool,
    /// `tabindex < 0`: focusable by script only, not a tab stop.
    pub negative_tabindex: bool,
    /// Whether its box shows in the viewport (None: no box, or not asked).
    pub in_view: Option<bool>,
    /// Its box in the page's viewport coordinates and how much of it shows
    /// (None: no box, or boxes not asked for).
    pub placed: Option<(viewport::Rect, viewport::Shown)>,
    /// Why its text cannot be seen, when it cannot (`untrustedContent: 'mark'`).
    pub concealed: Option<concealment::Concealed>,
    /// Its content scrolls (`overflow-y: auto | scroll`; with layout boxes).
    pub scroller: bool,
    /// Its tag flows inside a line of text (`span`, `a`, `b`, …; see [`is_inline_tag`]).
    pub inline: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r##"{"root":{"nodeType":9,"nodeName":"#document","backendNodeId":1,"children":[
      {"nodeType":1,"localName":"html","backendNodeId":2,"attributes":[],"children":[
        {"nodeType":1,"localName":"body","backendNodeId":3,"attributes":["class","x"],"children":[
          {"nodeType":1,"localName":"my-card","backendNodeId":4,"attributes":["id","c1"],
            "shadowRoots":[{"nodeType":11,"shadowRootType":"open","backendNodeId":5,"children":[
              {"nodeType":1,"localName":"button","backendNodeId":6,"attributes":["tabindex","-1"]}]}],
            "children":[{"nodeType":3,"nodeName":"#text","backendNodeId":7}]},
          {"nodeType":1,"localName":"iframe","backendNodeId":8,"frameId":"F2","attributes":["title","t"],
            "contentDocument":{"nodeType":9,"backendNodeId":9,"children":[{"nodeType":1,"localName":"html","backendNodeId":10}]}}
        ]}]}]}}"##;

    #[test]
    fn reads_scopes_frames_and_attributes() {
        let t = DomTree::from_get_document(DOC, Some("F1".into())).unwrap();
        let button = t.by_backend(6).unwrap();
        let card = t.by_backend(4).unwrap();
        assert_eq!(t.scope_parent(button), None, "a shadow root's child has no parent element in its scope");
        assert_eq!(t.node(t.scope_root(button)).unwrap().kind, DKind::ShadowRoot(ShadowKind::Open));
        assert_eq!(t.node(t.node(t.scope_root(button)).unwrap().parent).unwrap().backend, 4);
        assert_eq!(t.node(card).unwrap().attr("id"), Some("c1"));
        assert_eq!(t.node(t.by_backend(3).unwrap()).unwrap().attrs, vec![], "unused attributes are not kept");
        assert_eq!(t.document_of_frame("F2"), t.by_backend(9));
        assert_eq!(t.document_of_frame("F1"), Some(0));
        assert_eq!(t.owners.get("F2").copied(), t.by_backend(8));
        assert!(t.hints(6).negative_tabindex);
        assert!(!t.hints(6).clickable);
    }

    #[test]
    fn remembered_hints_are_the_hints_and_a_new_placement_is_not_answered_from_the_old() {
        let mut t = DomTree::from_get_document(DOC, Some("F1".into())).unwrap();
        t.boxes = Some(Boxes::default());
        t.remember_hints();
        for b in 1..=10 {
            assert_eq!(t.hints(b), t.hints_now(b), "backend {b}");
            assert_eq!(t.hints(b), t.hints_now(b), "backend {b}, remembered");
        }
        t.placement = Some(Placement::page(800.0, 600.0));
        assert!(t.hint_memo.as_ref().is_some_and(|(at, _)| *at != t.placement), "the memo is of the old placement");
        assert_eq!(t.hints(6), t.hints_now(6));
        t.remember_hints();
        assert!(t.hint_memo.as_ref().is_some_and(|(at, _)| *at == t.placement), "made again for the new one");
    }

    #[test]
    fn backend_ids_of_another_process_do_not_answer_for_a_frame() {
        let main = DomTree::from_get_document(DOC, Some("F1".into())).unwrap();
        let other = DomTree::from_get_document(
            r#"{"root":{"nodeType":9,"backendNodeId":1,"children":[{"nodeType":1,"localName":"html","backendNodeId":2}]}}"#,
            Some("F9".into()),
        )
        .unwrap();
        let trees = [main, other];
        assert_eq!(tree_for(&trees, Some("F9"), 2), Some(1));
        // Backend 6 is a button in the page's process; in F9's it is nothing (a text node, a built-in root's insides).
        assert_eq!(tree_for(&trees, Some("F9"), 6), None);
        assert_eq!(tree_for(&trees, None, 6), Some(0), "without a frame, any tree that knows it");
    }

    #[test]
    fn malformed_replies_are_errors() {
        assert!(DomTree::from_get_document("{}", None).is_err());
        assert!(DomTree::from_get_document("[", None).is_err());
    }
}
