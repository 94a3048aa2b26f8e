//! The mirror: the last DOM snapshot of a page, kept as an editable tree so
//! that a repeat capture re-reads only the subtrees that changed and hands
//! the rest of the pipeline a snapshot identical in shape to Chrome's.
//!
//! It holds exactly what the capture reads of a `DOMSnapshot.captureSnapshot`
//! reply (the projection of [`crate::dom::snapshot_reader::projection_spec`]
//! and the engine's additions), node by node, in the reply's flat-tree order.
//! [`Mirror::to_snapshot`] writes it back out in that shape, so the engine and
//! the DOM pass run unchanged over it: equality with a full capture rests only
//! on the facts being the same, which the randomized test checks.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use crate::dom::snapshot_reader::{string, Rare, SnapDoc, SnapLayout, SnapNodes, Snapshot};

use super::kept::Kept;

pub const NONE: u32 = u32::MAX;

/// One node as DOMSnapshot reports it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MNode {
    pub node_type: i64,
    pub name: String,
    pub value: Option<String>,
    pub backend: i64,
    /// Attribute names and values; an empty value is `None` (Chrome sends no string for it).
    pub attrs: Vec<(String, Option<String>)>,
    pub pseudo: Option<String>,
    /// The kind of shadow root whose tree the node is in (None: the document's).
    pub shadow: Option<String>,
    pub clickable: bool,
    /// A frame owner's document (an index into the mirror's documents).
    pub content_doc: Option<usize>,
    pub text_value: Option<String>,
    pub input_value: Option<String>,
    pub checked: bool,
    pub selected: bool,
    /// Laid out: its computed styles, in the order the capture asked for them.
    pub styles: Option<Vec<String>>,
    pub parent: u32,
    pub children: Vec<u32>,
    pub alive: bool,
}

#[derive(Debug, Clone, Default)]
pub struct MDoc {
    pub frame_id: Option<String>,
    pub base_url: Option<String>,
    pub document_url: Option<String>,
    pub root: u32,
}

#[derive(Debug, Default)]
pub struct Mirror {
    nodes: Vec<MNode>,
    docs: Vec<MDoc>,
    by_backend: FxHashMap<i64, u32>,
    /// How many computed styles each laid-out node carries.
    pub style_count: usize,
    live: usize,
    /// Each frame's document when the mirror was taken: frame id → loaderId.
    pub documents: FxHashMap<String, String>,
    /// The page facts of the last snapshot built from the mirror, and its options' shape.
    pub facts: Option<crate::text::snapshot::PageFacts>,
    pub shape: String,
    /// The page has frames in other processes: their documents are read again by each repeat capture.
    pub frames_elsewhere: bool,
    /// Our world in each frame of another origin read again by a repeat capture:
    /// frame id → execution context (kept while the frame shows the mirror's document;
    /// `Page.createIsolatedWorld` costs the renderer about 4 ms a frame even when
    /// the world exists, one-off measurement).
    pub frame_worlds: FxHashMap<String, i64>,
    /// Of the frames the page's watcher cannot enter, those whose document was in another
    /// process when a repeat capture last read them (read by their own capture, not here).
    pub blind_elsewhere: usize,
    /// Frames of `frame_worlds` whose document held a shadow tree of the page's when last
    /// read: their watcher cannot see inside it, so they are read again on every look.
    pub unwatched_frames: rustc_hash::FxHashSet<String>,
    /// Our world in each frame in another process, by its frame (target) id: each look asks
    /// whether the frame is as it was and marks it again (`frame_watch.js`'s 'swap').
    pub oopif_worlds: FxHashMap<String, i64>,
    /// Frames in other processes that gave no world (a transport that cannot reach their
    /// sessions): not asked again; such a page is rebuilt on every look, as before.
    pub oopif_unreachable: rustc_hash::FxHashSet<String>,
    /// What each frame in another process answered the last capture that read it
    /// (`crate::capture::FrameReplies`), replayed while it is as it was.
    pub oopif_replies: crate::capture::FrameReplies,
    /// The last repeat capture may have left the DOM agent on and remote objects in the
    /// session's group (it read subtrees): the next one turns the one off and lets the
    /// others go. A new mirror assumes so (a repeat capture that fell back may have).
    pub left_open: bool,
    /// The world (execution context) where a repeat capture's scripts were
    /// compiled and kept (`crate::page::TAKE_FN`): later captures there call them by name.
    pub scripts_in: Option<i64>,
    /// A hash of the layout boxes the last build from the mirror placed (`super::layout`):
    /// a look that needs boxes finds the page unchanged only when they are the same.
    pub boxes_seen: Option<u64>,
    /// The engine's page and the DOM pass's trees of the last build, while
    /// only values changed since (see [`super::kept`]).
    kept: Option<Kept>,
    /// The nodes whose values changed since the kept build.
    changed: Vec<u32>,
    /// Nodes taken out of a list by [`Mirror::set_children`], retired unless another list takes them.
    detached: Vec<u32>,
    /// The tree changed since the kept build: its page is laid out again from the mirror
    /// (`super::to_page`), its DOM tree made again (`super::to_dom`).
    restructured: bool,
    /// The nodes whose children changed since the last build (their lists set again, or their
    /// subtrees read again in another shape): a child of one may have moved.
    relisted: Vec<u32>,
    /// What the DOM pass reads of a node (its attributes and styles) changed since the kept build.
    dom_stale: bool,
    /// The subtrees read again since the kept build whose element tree is not their flat
    /// tree (they hold a shadow root or a slot), as the DOM has them: see `Tree::dom_reads`.
    dom_reads: FxHashMap<i64, Vec<super::to_dom::DomPart>>,
}

/// The mirror's nodes (retired ones included) and documents, borrowed: what
/// the builds from it read (`super::to_page`, `super::to_dom`). Unlike the
/// mirror, which holds the kept build, it can be read from two threads.
#[derive(Clone, Copy)]
pub(crate) struct Tree<'m> {
    pub nodes: &'m [MNode],
    pub docs: &'m [MDoc],
    /// How many of `nodes` are live.
    pub live: usize,
    /// Each live node's index by its backend id.
    pub by_backend: &'m FxHashMap<i64, u32>,
    /// The subtrees read again since the kept build that hold a shadow root or
    /// a slot, as the DOM has them, by their roots' backend ids (`super::to_dom`).
    pub dom_reads: &'m FxHashMap<i64, Vec<super::to_dom::DomPart>>,
}

impl<'m> Tree<'m> {
    /// The subtree of `i` in pre-order.
    pub fn walk(&self, i: u32) -> impl Iterator<Item = u32> + 'm {
        walk(self.nodes, i)
    }
}

/// The subtree of `i` in pre-order (explicit stack: the depth is the page's).
fn walk(nodes: &[MNode], i: u32) -> impl Iterator<Item = u32> + '_ {
    let mut stack = vec![i];
    std::iter::from_fn(move || {
        let k = stack.pop()?;
        if let Some(n) = nodes.get(k as usize) {
            stack.extend(n.children.iter().rev().copied());
        }
        Some(k)
    })
}

/// Name `scope` as the shadow tree (None: the document) the nodes of `nodes`
/// that `fresh` left in the tree of their subtree's root are in.
fn in_scope(nodes: &mut [MNode], scope: &Option<String>) {
    for n in nodes.iter_mut().filter(|n| n.shadow.is_none()) {
        n.shadow.clone_from(scope);
    }
}

/// Options as far as they shape a snapshot (not the deadline).
pub fn shape_of(opts: &crate::options::SnapshotOptions) -> String {
    let bare = crate::options::SnapshotOptions { timeout_ms: 0, dom_read: crate::options::DomRead::Auto, ..opts.clone() };
    format!("{bare:?}")
}

/// The attributes the DOM pass reads (and `for`, which the engine's page indexes).
fn dom_attrs(attrs: &[(String, Option<String>)]) -> impl Iterator<Item = &(String, Option<String>)> {
    attrs.iter().filter(|(k, _)| crate::dom::is_kept_attr(k) || k == "for")
}

/// Why a subtree could not be patched in: the repeat capture falls back to a full one.
#[derive(Debug, Clone, PartialEq)]
pub struct Unpatchable(pub String);

impl Mirror {
    /// The mirror of a parsed reply with `style_count` computed styles per layout node.
    pub(crate) fn from_snapshot(snap: &Snapshot<'_>, style_count: usize) -> Mirror {
        let s = |i: i64| string(snap, i).map(str::to_string);
        let mut m = Mirror { style_count, left_open: true, ..Mirror::default() };
        for doc in &snap.documents {
            let n = &doc.nodes;
            let count = n.node_type.len();
            let base = m.nodes.len() as u32;
            for i in 0..count {
                let parent = match n.parent_index.get(i).copied() {
                    Some(p) if p >= 0 && (p as usize) < i => base + p as u32,
                    _ => NONE,
                };
                let attrs = n
                    .attributes
                    .get(i)
                    .map_or(&[][..], Vec::as_slice)
                    .chunks(2)
                    .filter_map(|pair| match pair {
                        [k, v] => Some((s(*k)?, s(*v))),
                        _ => None,
                    })
                    .collect();
                m.nodes.push(MNode {
                    node_type: n.node_type.get(i).copied().unwrap_or(0),
                    name: n.node_name.get(i).and_then(|&k| s(k)).unwrap_or_default(),
                    value: n.node_value.get(i).and_then(|&k| s(k)),
                    backend: n.backend_node_id.get(i).copied().unwrap_or(0),
                    attrs,
                    parent,
                    alive: true,
                    ..MNode::default()
                });
            }
            // The sum only for an index in range: a reply may send any index.
            let at = |i: usize| (i < count).then(|| base as usize + i);
            let strings = |r: &Option<Rare>, f: &mut dyn FnMut(&mut MNode, Option<String>), nodes: &mut Vec<MNode>| {
                if let Some(r) = r {
                    for (i, v) in r.pairs() {
                        if let Some(k) = at(i) {
                            f(&mut nodes[k], s(v));
                        }
                    }
                }
            };
            strings(&n.pseudo_type, &mut |node, v| node.pseudo = v, &mut m.nodes);
            strings(&n.shadow_root_type, &mut |node, v| node.shadow = v, &mut m.nodes);
            strings(&n.text_value, &mut |node, v| node.text_value = v, &mut m.nodes);
            strings(&n.input_value, &mut |node, v| node.input_value = v, &mut m.nodes);
            let flags = |r: &Option<Rare>, f: &mut dyn FnMut(&mut MNode), nodes: &mut Vec<MNode>| {
                if let Some(r) = r {
                    for &i in &r.index {
                        if let Some(k) = at(i) {
                            f(&mut nodes[k]);
                        }
                    }
                }
            };
            flags(&n.is_clickable, &mut |node| node.clickable = true, &mut m.nodes);
            flags(&n.input_checked, &mut |node| node.checked = true, &mut m.nodes);
            flags(&n.option_selected, &mut |node| node.selected = true, &mut m.nodes);
            if let Some(r) = &n.content_document_index {
                for (i, v) in r.pairs() {
                    if let (Some(k), Ok(d)) = (at(i), usize::try_from(v)) {
                        m.nodes[k].content_doc = Some(d);
                    }
                }
            }
            for (l, &i) in doc.layout.node_index.iter().enumerate() {
                if let Some(k) = at(i) {
                    let styles = doc.layout.styles.get(l).map_or(&[][..], Vec::as_slice);
                    m.nodes[k].styles = Some(styles.iter().map(|&v| s(v).unwrap_or_default()).collect());
                }
            }
            m.docs.push(MDoc {
                frame_id: s(doc.frame_id),
                base_url: s(doc.base_url),
                document_url: s(doc.document_url),
                root: if count > 0 { base } else { NONE },
            });
        }
        m.link();
        m
    }

    /// Children lists and the backend index of freshly made nodes (pre-order,
    /// parents first, no children listed yet), all of them live.
    fn link(&mut self) {
        for i in 0..self.nodes.len() {
            let p = self.nodes[i].parent;
            if let Some(parent) = self.nodes.get_mut(p as usize) {
                parent.children.push(i as u32);
            }
            self.by_backend.insert(self.nodes[i].backend, i as u32);
        }
        self.live = self.nodes.len();
    }

    /// The mirror of a page read by a walk (`crate::capture::walk`): `nodes`
    /// in pre-order, each `parent` an index into the list, and `docs` (the
    /// page's first, then its frames') naming their roots there (as
    /// [`super::fresh::read_document`] gives them), with `style_count`
    /// computed styles per laid-out node.
    pub(crate) fn from_read(nodes: Vec<MNode>, docs: Vec<MDoc>, style_count: usize) -> Mirror {
        let mut m = Mirror { style_count, left_open: true, nodes, ..Mirror::default() };
        let count = m.nodes.len() as u32;
        for i in 0..m.nodes.len() {
            // Pre-order: a parent comes first; anything else is detached.
            let p = m.nodes[i].parent;
            if p != NONE && p >= i as u32 {
                m.nodes[i].parent = NONE;
            }
            m.nodes[i].children.clear();
        }
        m.link();
        m.docs = docs.into_iter().map(|d| MDoc { root: if d.root < count { d.root } else { NONE }, ..d }).collect();
        m
    }

    pub fn len(&self) -> usize {
        self.live
    }

    /// The arena's length, retired nodes included (what the mirror's indices range over).
    pub fn node_slots(&self) -> usize {
        self.nodes.len()
    }

    pub fn document_count(&self) -> usize {
        self.docs.len()
    }

    /// How many frame documents the mirror holds of an origin other than the
    /// page's (a script in the page's world cannot enter them). A frame at
    /// `about:blank` or `about:srcdoc` has its parent's origin; `file:`,
    /// `data:` and error pages have an opaque one, never the page's.
    pub fn frames_of_other_origins(&self) -> usize {
        let origin = |d: &MDoc| d.document_url.as_deref().and_then(|u| url::Url::parse(u).ok()).map(|u| u.origin());
        let Some(page) = self.docs.first().and_then(origin) else { return self.docs.len().saturating_sub(1) };
        self.docs
            .iter()
            .skip(1)
            .filter(|d| {
                let url = d.document_url.as_deref().unwrap_or_default();
                !(url.starts_with("about:blank") || url.starts_with("about:srcdoc")) && origin(d).is_none_or(|o| !page.is_tuple() || o != page)
            })
            .count()
    }

    /// Whether the page holds a shadow tree (its flat tree is then not its
    /// element tree: `super::to_dom`). DOMSnapshot lists no shadow root node:
    /// a host's children there are its shadow tree's, each named with the kind
    /// of root it is in (`MNode::shadow`).
    pub fn holds_shadow_roots(&self) -> bool {
        self.nodes.iter().any(|n| n.alive && n.shadow.is_some())
    }

    /// Why the mirror's shadow roots keep it from serving a repeat capture, if
    /// they do: a closed one, whose changes no watcher sees.
    pub fn unmirrored_shadow_roots(&self) -> Option<&'static str> {
        self.nodes
            .iter()
            .any(|n| n.alive && n.shadow.as_deref().is_some_and(|s| s != "open"))
            .then_some("the page has a closed shadow root, whose changes no script sees")
    }

    /// The frame owners of the mirror hosting no document in it (frames in
    /// another process), by backend id, as
    /// [`crate::dom::snapshot_reader::unhosted_frame_owners`] finds them in the
    /// mirror written out.
    pub(crate) fn unhosted_frame_owners(&self) -> Vec<i64> {
        use crate::dom::snapshot_reader::Owner;
        self.docs
            .iter()
            .filter(|d| d.root != NONE)
            .flat_map(|d| self.walk(d.root))
            .filter_map(|k| {
                let m = self.nodes.get(k as usize).filter(|m| m.alive)?;
                let kind = Owner::of(&m.name);
                (kind != Owner::No
                    && kind.shows_document(m.attrs.iter().map(|(k, v)| (Some(k.as_str()), v.as_deref())))
                    && m.content_doc.is_none_or(|d| d >= self.docs.len()))
                .then_some(m.backend)
            })
            .collect()
    }

    /// Whether each frame whose document the mirror holds still shows that document.
    pub fn same_documents(&self, now: &FxHashMap<String, String>) -> bool {
        self.docs.iter().filter_map(|d| d.frame_id.as_deref()).all(|f| self.documents.get(f) == now.get(f))
    }

    pub fn node_of(&self, backend: i64) -> Option<&MNode> {
        self.by_backend.get(&backend).and_then(|&i| self.nodes.get(i as usize)).filter(|n| n.alive)
    }

    /// How many nodes the subtree of `backend` holds (itself included).
    pub fn subtree_size(&self, backend: i64) -> Option<usize> {
        let &root = self.by_backend.get(&backend)?;
        Some(self.walk(root).count())
    }

    /// The documents, elements and texts of the page in the order a walk of
    /// child nodes meets them (no generated boxes, shadow trees or template
    /// contents), the page's document first, then each frame's document in the
    /// order its owner was met (then theirs), as DOMSnapshot lists them. Each
    /// comes with its parent's place in the list (a frame's document: its
    /// owner's; the page's document: `usize::MAX`). For `super::layout`.
    pub(crate) fn document_order(&self) -> Vec<(&MNode, usize)> {
        let Some(root) = self.docs.first().map(|d| d.root).filter(|&r| r != NONE) else { return Vec::new() };
        let mut out = Vec::with_capacity(self.live);
        let mut documents = vec![(root, usize::MAX)];
        let mut visited = vec![false; self.docs.len()];
        visited[0] = true;
        let mut d = 0;
        while let Some(&(doc_root, owner)) = documents.get(d) {
            d += 1;
            let mut stack = vec![(doc_root, owner)];
            while let Some((k, parent)) = stack.pop() {
                // (A shadow root is walked through: its children are its host's in the flat tree.)
                let Some(n) = self.nodes.get(k as usize).filter(|n| n.alive && n.pseudo.is_none()) else { continue };
                let here = if matches!(n.node_type, 1 | 3 | 9) {
                    out.push((n, parent));
                    out.len() - 1
                } else {
                    parent
                };
                if let Some(c) = n.content_doc.filter(|&c| c < self.docs.len() && !std::mem::replace(&mut visited[c], true)) {
                    if let Some(r) = self.docs.get(c).map(|d| d.root).filter(|&r| r != NONE) {
                        documents.push((r, here));
                    }
                }
                stack.extend(n.children.iter().rev().map(|&c| (c, here)));
            }
        }
        out
    }

    /// The nodes and documents alone, for a build that reads them on another thread.
    pub(crate) fn tree(&self) -> Tree<'_> {
        Tree { nodes: &self.nodes, docs: &self.docs, live: self.live, by_backend: &self.by_backend, dom_reads: &self.dom_reads }
    }

    /// The subtree of `i` in pre-order (explicit stack: the depth is the page's).
    fn walk(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        walk(&self.nodes, i)
    }

    /// Replace the subtree rooted at `fresh[0]`'s node with `fresh`, a
    /// pre-order list whose `parent` fields index into `fresh` (the root's is
    /// ignored: it keeps its place). A node that moved here from elsewhere is
    /// taken from its old place, which its own re-read replaces in turn.
    pub fn replace(&mut self, mut fresh: Vec<MNode>) -> Result<(), Unpatchable> {
        let Some(first) = fresh.first() else { return Err(Unpatchable("an empty subtree was read".into())) };
        let Some(&root) = self.by_backend.get(&first.backend).filter(|&&i| self.nodes.get(i as usize).is_some_and(|n| n.alive)) else {
            return Err(Unpatchable(format!("node {} is not in the last snapshot", first.backend)));
        };
        // DOMSnapshot names the shadow tree each node is in; `fresh` names those in shadow trees
        // the subtree holds, and leaves the rest to be its root's.
        in_scope(&mut fresh, &self.nodes[root as usize].shadow);
        if fresh.iter().any(|n| n.content_doc.is_some()) {
            return Err(Unpatchable("a changed subtree holds a frame".into()));
        }
        let old: Vec<u32> = self.walk(root).collect();
        let same = self.same_nodes(&old, &fresh);
        if !same && self.kept.is_some() && self.same_but_generated(&old, &fresh) {
            self.replace_generated(&old, fresh);
            return Ok(());
        }
        if same {
            // The same nodes in the same places: their facts are written over in place. What
            // the last build made still serves unless the DOM pass reads what changed.
            let style_at = self.kept.as_ref().map_or(0, |k| k.style_at);
            for (&k, f) in old.iter().zip(fresh) {
                self.write_over(k, f, style_at);
            }
            if self.kept.is_none() {
                self.changed.clear();
            }
            return Ok(());
        }
        // The tree changed: the kept build is laid out again from the mirror by the next one.
        self.restructured = true;
        self.relisted.push(root);
        // Retire the old subtree below the root (the root's slot is reused).
        for child in std::mem::take(&mut self.nodes[root as usize].children) {
            self.retire(child);
        }
        self.place(fresh, Some(root))?;
        if self.nodes.len() > 4 * self.live.max(1024) {
            self.compact();
        }
        Ok(())
    }

    /// Give element `parent` the children the page now lists for it
    /// (`children`, backend ids in DOM order), after its generated boxes, which
    /// stay. A child read again is taken from `fresh` (by its backend id; any
    /// old copy of it goes); another must be a node the mirror has, moved here
    /// if it was elsewhere. Children no longer listed are detached, and retired
    /// by [`Mirror::retire_detached`] unless another list takes them.
    pub fn set_children(&mut self, parent: i64, children: &[i64], fresh: &mut FxHashMap<i64, Vec<MNode>>) -> Result<(), Unpatchable> {
        let Some(p) = self.alive(parent).filter(|&p| self.nodes[p as usize].node_type == 1) else {
            return Err(Unpatchable(format!("element {parent} is not in the last snapshot")));
        };
        if self.swap_texts(p, children, fresh) {
            return Ok(());
        }
        // The tree changed: the kept build is laid out again from the mirror by the next one.
        self.restructured = true;
        self.relisted.push(p);
        let old = std::mem::take(&mut self.nodes[p as usize].children);
        let mut list: Vec<u32> = old.iter().copied().filter(|&k| self.nodes[k as usize].alive && self.nodes[k as usize].pseudo.is_some()).collect();
        // (An element whose children are listed is neither a host nor a slot: its children are in its tree.)
        let scope = self.nodes[p as usize].shadow.clone();
        for &b in children {
            let k = if let Some(mut sub) = fresh.remove(&b) {
                if let Some(was) = self.alive(b) {
                    self.retire(was);
                }
                in_scope(&mut sub, &scope);
                self.insert(sub)?
            } else if let Some(k) = self.alive(b) {
                if self.nodes[k as usize].shadow != scope {
                    return Err(Unpatchable(format!("node {b} moved into or out of a shadow tree")));
                }
                // Moved here from above (the mirror still has this list inside it): patching
                // in that order would make a cycle; the whole page is read instead.
                if self.is_ancestor(k, p) {
                    return Err(Unpatchable(format!("node {b} moved below its own descendant")));
                }
                let from = self.nodes[k as usize].parent;
                if from != p && from != NONE {
                    if let Some(q) = self.nodes.get_mut(from as usize) {
                        q.children.retain(|&c| c != k);
                    }
                }
                k
            } else {
                return Err(Unpatchable(format!("node {b} is new and was not read")));
            };
            self.nodes[k as usize].parent = p;
            list.push(k);
        }
        if !self.nodes[p as usize].alive {
            return Err(Unpatchable(format!("element {parent} was inside a subtree read again")));
        }
        let now: rustc_hash::FxHashSet<u32> = list.iter().copied().collect();
        for k in old {
            let n = &mut self.nodes[k as usize];
            if n.alive && n.parent == p && !now.contains(&k) {
                n.parent = NONE;
                self.detached.push(k);
            }
        }
        self.nodes[p as usize].children = list;
        Ok(())
    }

    /// A list whose only change is texts replaced by texts in their places
    /// (`textContent` set on an element that held one text, the commonest
    /// update of a page's own scripts): each new text takes its old one's
    /// place in the mirror, as a change of value, and what the last build
    /// made still serves. False (nothing done) for any other change.
    ///
    /// The new text's backend id is not the old one's. The kept build knows
    /// texts by place, not id; what reads a text's id (its box, whether it is
    /// concealed) is only asked for with options whose captures never use
    /// the mirror (`CaptureSession::mirror_unusable`).
    fn swap_texts(&mut self, p: u32, children: &[i64], fresh: &mut FxHashMap<i64, Vec<MNode>>) -> bool {
        let olds: Vec<u32> =
            self.nodes[p as usize].children.iter().copied().filter(|&k| self.nodes[k as usize].alive && self.nodes[k as usize].pseudo.is_none()).collect();
        if self.kept.is_none() || olds.len() != children.len() {
            return false;
        }
        let mut swaps = Vec::new();
        for (&k, &b) in olds.iter().zip(children) {
            let n = &self.nodes[k as usize];
            if n.backend == b {
                continue;
            }
            let lone_text = fresh.get(&b).is_some_and(|sub| sub.len() == 1 && sub[0].node_type == 3);
            if n.node_type != 3 || !lone_text || self.alive(b).is_some() {
                return false;
            }
            swaps.push((k, b));
        }
        if swaps.is_empty() {
            return false;
        }
        let mut taken = Vec::with_capacity(swaps.len());
        for (k, b) in swaps {
            // (Each was seen above; one missing now makes the caller's structural patch fail, safely.)
            let Some(f) = fresh.remove(&b).and_then(|sub| sub.into_iter().next()) else { return false };
            taken.push((k, b, f));
        }
        for (k, b, f) in taken {
            let was = self.nodes[k as usize].backend;
            self.nodes[k as usize] = MNode { parent: p, children: Vec::new(), alive: true, ..f };
            self.rekey(k, was, b);
            self.changed.push(k);
        }
        true
    }

    /// Node `k`, known as `was`, is now known as `now` (a text put in another's place).
    fn rekey(&mut self, k: u32, was: i64, now: i64) {
        if self.by_backend.get(&was) == Some(&k) {
            self.by_backend.remove(&was);
        }
        self.by_backend.insert(now, k);
    }

    /// Retire the subtrees [`Mirror::set_children`] took out that no list took back.
    pub fn retire_detached(&mut self) {
        for k in std::mem::take(&mut self.detached) {
            if self.nodes.get(k as usize).is_some_and(|n| n.alive && n.parent == NONE) {
                self.retire(k);
            }
        }
        if self.nodes.len() > 4 * self.live.max(1024) {
            self.compact();
        }
    }

    /// Whether `a` is `b` or one of its ancestors (bounded by the arena's size).
    fn is_ancestor(&self, a: u32, b: u32) -> bool {
        let mut at = b;
        for _ in 0..=self.nodes.len() {
            if at == a {
                return true;
            }
            match self.nodes.get(at as usize) {
                Some(n) if n.parent != NONE => at = n.parent,
                _ => return false,
            }
        }
        true
    }

    /// The backend ids of live element `backend`'s children, generated boxes left out.
    pub fn child_backends(&self, backend: i64) -> Option<Vec<i64>> {
        let p = self.alive(backend)?;
        let kids = &self.nodes[p as usize].children;
        Some(kids.iter().map(|&k| &self.nodes[k as usize]).filter(|n| n.alive && n.pseudo.is_none()).map(|n| n.backend).collect())
    }

    /// The arena index of live node `backend`.
    fn alive(&self, backend: i64) -> Option<u32> {
        self.by_backend.get(&backend).copied().filter(|&i| self.nodes.get(i as usize).is_some_and(|n| n.alive))
    }

    /// Retire the subtree of `root` and take it out of its parent's children.
    fn retire(&mut self, root: u32) {
        let parent = self.nodes[root as usize].parent;
        if let Some(q) = self.nodes.get_mut(parent as usize) {
            q.children.retain(|&c| c != root);
        }
        let order: Vec<u32> = self.walk(root).collect();
        for k in order {
            let n = &mut self.nodes[k as usize];
            if !n.alive {
                continue;
            }
            n.alive = false;
            n.children = Vec::new();
            if self.by_backend.get(&n.backend) == Some(&k) {
                self.by_backend.remove(&n.backend);
            }
            self.live -= 1;
        }
    }

    /// Add `fresh` (a pre-order subtree, parents as indices into it) to the
    /// arena, its root unplaced: the caller links it. A node of it the mirror
    /// had elsewhere (moved here) loses its old copy.
    fn insert(&mut self, fresh: Vec<MNode>) -> Result<u32, Unpatchable> {
        if fresh.iter().any(|n| n.content_doc.is_some() || n.node_type == 9) {
            return Err(Unpatchable("a new subtree holds a frame or a document".into()));
        }
        self.place(fresh, None)
    }

    /// Put `fresh` (pre-order, parents as indices into it) into the arena:
    /// its root in slot `root` (keeping that slot's parent) or, with none,
    /// in a new slot of its own, unlinked; the rest below it. A node the
    /// mirror has alive elsewhere moved here: its old copy is retired.
    fn place(&mut self, fresh: Vec<MNode>, root: Option<u32>) -> Result<u32, Unpatchable> {
        let mut index: Vec<u32> = Vec::with_capacity(fresh.len());
        for (j, mut node) in fresh.into_iter().enumerate() {
            node.children = Vec::new();
            node.alive = true;
            if let (0, Some(r)) = (j, root) {
                node.parent = self.nodes[r as usize].parent;
                // A document's layout object is its view, which no script can ask about: it stays.
                if node.node_type == 9 {
                    node.styles = self.nodes[r as usize].styles.take();
                }
                self.by_backend.insert(node.backend, r);
                self.nodes[r as usize] = node;
                index.push(r);
                continue;
            }
            if let Some(was) = self.alive(node.backend) {
                self.retire(was);
            }
            let at = self.nodes.len() as u32;
            if j == 0 {
                node.parent = NONE;
            } else {
                let p = index.get(node.parent as usize).copied().ok_or_else(|| Unpatchable("a read node has no parent in its subtree".into()))?;
                node.parent = p;
                self.nodes[p as usize].children.push(at);
            }
            self.by_backend.insert(node.backend, at);
            self.nodes.push(node);
            self.live += 1;
            index.push(at);
        }
        index.first().copied().ok_or_else(|| Unpatchable("an empty subtree was read".into()))
    }

    /// Whether re-read node `f`, `j`th of its subtree, is live node `o` (its
    /// facts may differ; its place is the caller's to check). A text put in
    /// another's place is the old one with a new id (see `swap_texts`), when
    /// the id is new to the mirror (not a text moved here from elsewhere).
    fn same_node(&self, j: usize, o: &MNode, f: &MNode) -> bool {
        let text_swap = j > 0 && o.node_type == 3 && f.node_type == 3 && !self.by_backend.contains_key(&f.backend);
        o.alive
            && (o.backend == f.backend || text_swap)
            && o.node_type == f.node_type
            && o.name == f.name
            && o.shadow == f.shadow
            && o.content_doc == f.content_doc
    }

    /// Whether `fresh`, a re-read of the subtree whose nodes are `old`, holds
    /// the same nodes in the same places but for generated boxes (`::marker`,
    /// `::before`, `::after`), which come and go with being laid out: a row
    /// hidden loses its list items' markers. Each generated box must be a leaf.
    fn same_but_generated(&self, old: &[u32], fresh: &[MNode]) -> bool {
        if fresh.first().is_none_or(|f| f.node_type == 9 || f.pseudo.is_some()) {
            return false;
        }
        let generated_leaf = old.iter().all(|&k| self.nodes[k as usize].pseudo.is_none() || self.nodes[k as usize].children.is_empty())
            && fresh.iter().all(|f| fresh.get(f.parent as usize).is_none_or(|p| p.pseudo.is_none()));
        if !generated_leaf {
            return false;
        }
        let old_real: Vec<u32> = old.iter().copied().filter(|&k| self.nodes[k as usize].pseudo.is_none()).collect();
        let fresh_real: Vec<usize> = (0..fresh.len()).filter(|&j| fresh[j].pseudo.is_none()).collect();
        if old_real.len() != fresh_real.len() {
            return false;
        }
        // Each node's place among the real ones, for the parents' places.
        let old_place: FxHashMap<u32, u32> = old_real.iter().enumerate().map(|(j, &k)| (k, j as u32)).collect();
        let fresh_place: FxHashMap<u32, u32> = fresh_real.iter().enumerate().map(|(j, &i)| (i as u32, j as u32)).collect();
        old_real.iter().zip(&fresh_real).enumerate().all(|(j, (&k, &i))| {
            let (o, f) = (&self.nodes[k as usize], &fresh[i]);
            self.same_node(j, o, f)
                && (j == 0 || (f.parent as usize) < i && old_place.contains_key(&o.parent) && old_place.get(&o.parent) == fresh_place.get(&f.parent))
        })
    }

    /// [`Mirror::replace`] for a re-read that [`Mirror::same_but_generated`]
    /// accepts: the real nodes' facts are written over as for the same nodes,
    /// generated boxes that went are retired and new ones placed, each
    /// parent's children in the order the re-read gives, and what the last
    /// build made is told of both (`Kept::regenerate`).
    fn replace_generated(&mut self, old: &[u32], fresh: Vec<MNode>) {
        let style_at = self.kept.as_ref().map_or(0, |k| k.style_at);
        // Each fresh node's arena slot: the real ones are `old`'s, generated ones found or new.
        let real_old: Vec<u32> = old.iter().copied().filter(|&k| self.nodes[k as usize].pseudo.is_none()).collect();
        let mut slot: Vec<u32> = vec![NONE; fresh.len()];
        let mut real = real_old.iter();
        for (i, f) in fresh.iter().enumerate() {
            if f.pseudo.is_none() {
                slot[i] = real.next().copied().unwrap_or(NONE);
            }
        }
        // The old generated boxes of each parent, by kind, to be taken by the new ones of that kind.
        let mut spare: FxHashMap<(u32, Option<String>), Vec<u32>> = FxHashMap::default();
        for &k in old.iter().rev() {
            let n = &self.nodes[k as usize];
            if n.pseudo.is_some() {
                spare.entry((n.parent, n.pseudo.clone())).or_default().push(k);
            }
        }
        let mut parents: Vec<u32> = Vec::new();
        let mut order: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        let mut added = Vec::new();
        for (i, f) in fresh.into_iter().enumerate() {
            if i == 0 {
                self.write_over(slot[0], f, style_at);
                continue;
            }
            let parent = slot.get(f.parent as usize).copied().unwrap_or(NONE);
            let k = if f.pseudo.is_none() {
                self.write_over(slot[i], f, style_at);
                slot[i]
            } else if let Some(k) = spare.get_mut(&(parent, f.pseudo.clone())).and_then(Vec::pop) {
                self.write_over(k, f, style_at);
                k
            } else {
                // A box known elsewhere (never seen: ids are new) would leave the page's copy stale.
                if let Some(was) = self.alive(f.backend) {
                    self.retire(was);
                    self.kept = None;
                }
                let k = self.nodes.len() as u32;
                self.by_backend.insert(f.backend, k);
                self.nodes.push(MNode { parent, children: Vec::new(), alive: true, ..f });
                self.live += 1;
                added.push(k);
                k
            };
            if !order.contains_key(&parent) {
                parents.push(parent);
            }
            order.entry(parent).or_default().push(k);
        }
        let removed: Vec<u32> = spare.into_values().flatten().collect();
        for &k in &removed {
            self.retire(k);
        }
        for &p in &parents {
            if let (Some(n), Some(kids)) = (self.nodes.get_mut(p as usize), order.remove(&p)) {
                n.children = kids;
            }
        }
        let told = match self.kept.as_mut() {
            Some(kept) => kept.regenerate(&parents, &self.nodes, &removed, &added),
            None => false,
        };
        if !told {
            self.kept = None;
            self.changed.clear();
        }
    }

    /// Write fresh facts over node `k` (the same node, re-read), as [`Mirror::replace`] does.
    fn write_over(&mut self, k: u32, f: MNode, style_at: usize) {
        let Some(n) = self.nodes.get_mut(k as usize) else { return };
        let rekeyed = (n.backend != f.backend).then_some((n.backend, f.backend));
        let same = rekeyed.is_none()
            && n.value == f.value
            && n.attrs == f.attrs
            && n.styles == f.styles
            && n.clickable == f.clickable
            && (&n.text_value, &n.input_value, n.checked, n.selected) == (&f.text_value, &f.input_value, f.checked, f.selected);
        if same {
            return;
        }
        let dom_styles_differ = n.styles.as_ref().map(|s| s.get(..style_at)) != f.styles.as_ref().map(|s| s.get(..style_at));
        if (style_at > 1 && dom_styles_differ) || dom_attrs(&n.attrs).ne(dom_attrs(&f.attrs)) {
            self.dom_stale = true;
        }
        let (parent, children) = (n.parent, std::mem::take(&mut n.children));
        *n = MNode { parent, children, alive: true, ..f };
        if let Some((was, now)) = rekeyed {
            self.rekey(k, was, now);
        }
        if self.kept.is_some() {
            self.changed.push(k);
        }
    }

    /// Whether `fresh`, a re-read of the subtree whose nodes are `old` (in
    /// pre-order), holds the same nodes in the same places (their attributes,
    /// styles and values may differ).
    fn same_nodes(&self, old: &[u32], fresh: &[MNode]) -> bool {
        if old.len() != fresh.len() || fresh.first().is_some_and(|f| f.node_type == 9) {
            return false;
        }
        // Where each old node stands in `old`, for the parents' places.
        let place: FxHashMap<u32, u32> = old.iter().enumerate().map(|(j, &k)| (k, j as u32)).collect();
        old.iter().zip(fresh).enumerate().all(|(j, (&k, f))| {
            let o = &self.nodes[k as usize];
            self.same_node(j, o, f) && o.pseudo == f.pseudo && (j == 0 || (f.parent as usize) < j && place.get(&o.parent) == Some(&f.parent))
        })
    }

    /// The subtree of `backend` as a re-read gives it (pre-order, parents as
    /// indices into the list): for tests that change a page without Chrome.
    #[cfg(test)]
    pub(crate) fn read_again(&self, backend: i64) -> Vec<MNode> {
        let Some(&root) = self.by_backend.get(&backend) else { return Vec::new() };
        let order: Vec<u32> = self.walk(root).collect();
        let place: FxHashMap<u32, u32> = order.iter().enumerate().map(|(j, &k)| (k, j as u32)).collect();
        order
            .iter()
            .map(|&k| {
                let n = &self.nodes[k as usize];
                MNode { parent: place.get(&n.parent).copied().unwrap_or(NONE), children: Vec::new(), ..n.clone() }
            })
            .collect()
    }

    /// The backend id of the first live node `is` accepts.
    #[cfg(test)]
    pub(crate) fn find(&self, is: impl Fn(&MNode) -> bool) -> Option<i64> {
        self.nodes.iter().find(|n| n.alive && is(n)).map(|n| n.backend)
    }

    /// Whether a build's page and DOM trees are kept for the next.
    #[cfg(test)]
    pub(crate) fn has_kept(&self) -> bool {
        self.kept.is_some()
    }

    /// Patch what is kept for the changes so far (as the next build will) and
    /// say whether its engine tree could be told of them ([`super::kept`]).
    #[cfg(test)]
    pub(crate) fn patches_tree(&mut self, shape: &str) -> bool {
        let kept = self.take_kept(shape);
        let told = kept.as_ref().is_some_and(|k| k.tree.is_some());
        self.kept = kept;
        told
    }

    /// Keep what a build from the mirror made, for the next build.
    pub fn keep(&mut self, kept: Kept) {
        self.kept = Some(kept);
        self.changed.clear();
        self.restructured = false;
        self.relisted.clear();
        self.dom_stale = false;
    }

    /// What the last build made, with the values changed since written in:
    /// for a build after changes of values only (None after any other).
    /// (None also when it was built with options of another shape.)
    pub fn take_kept(&mut self, shape: &str) -> Option<Kept> {
        let changed = std::mem::take(&mut self.changed);
        let restructured = std::mem::take(&mut self.restructured);
        let relisted = std::mem::take(&mut self.relisted);
        let dom_stale = std::mem::take(&mut self.dom_stale);
        let kept = self.kept.take().filter(|k| k.shape == shape);
        let fits = kept.map(|mut kept| {
            let fits = if restructured || dom_stale {
                kept.rebuild(self.tree(), &changed, restructured.then_some(relisted.as_slice()))
            } else {
                kept.patch(&changed, &self.nodes)
            };
            (kept, fits)
        });
        self.dom_reads.clear();
        fits.and_then(|(kept, fits)| fits.then_some(kept))
    }

    /// Keep the element tree of a subtree read again whose flat tree is not it
    /// (it holds a shadow root or a slot) for the next build's DOM tree: that
    /// tree is made again (its light children no slot takes are in it alone).
    pub(crate) fn keep_dom_read(&mut self, root: i64, parts: Vec<super::to_dom::DomPart>) {
        self.dom_reads.insert(root, parts);
        self.dom_stale = true;
    }

    /// Drop retired nodes (and links to them) from the arena.
    fn compact(&mut self) {
        let mut remap = vec![NONE; self.nodes.len()];
        let mut kept = Vec::with_capacity(self.live);
        for d in 0..self.docs.len() {
            let root = self.docs[d].root;
            if root == NONE {
                continue;
            }
            let order: Vec<u32> = self.walk(root).collect();
            for k in order {
                if self.nodes[k as usize].alive && remap[k as usize] == NONE {
                    remap[k as usize] = kept.len() as u32;
                    kept.push(k);
                }
            }
        }
        let mut nodes = Vec::with_capacity(kept.len());
        for &k in &kept {
            let mut n = std::mem::take(&mut self.nodes[k as usize]);
            n.parent = remap.get(n.parent as usize).copied().unwrap_or(NONE);
            n.children = n.children.iter().map(|&c| remap[c as usize]).filter(|&c| c != NONE).collect();
            nodes.push(n);
        }
        for d in &mut self.docs {
            d.root = remap.get(d.root as usize).copied().unwrap_or(NONE);
        }
        // What indexes the arena follows it.
        let moved = |list: &mut Vec<u32>| list.retain_mut(|k| remap.get(*k as usize).is_some_and(|&r| r != NONE && (*k = r, true).1));
        moved(&mut self.changed);
        moved(&mut self.detached);
        moved(&mut self.relisted);
        if let Some(kept) = self.kept.as_mut() {
            let mut page_of = vec![NONE; kept_len(&remap)];
            for (old, &new) in remap.iter().enumerate() {
                if let (Some(slot), Some(&p)) = (page_of.get_mut(new as usize), kept.page_of.get(old)) {
                    *slot = p;
                }
            }
            kept.page_of = page_of;
        }
        self.nodes = nodes;
        self.by_backend = self.nodes.iter().enumerate().map(|(i, n)| (n.backend, i as u32)).collect();
        self.live = self.nodes.len();
    }

    /// The mirror as a DOMSnapshot reply: each document's live nodes in pre-order.
    pub(crate) fn to_snapshot(&self) -> Snapshot<'static> {
        self.to_snapshot_mapped().0
    }

    /// [`Mirror::to_snapshot`], and each mirror node's index in the engine's
    /// page of it (its documents' nodes one after another; `NONE`: not in it).
    pub(crate) fn to_snapshot_mapped(&self) -> (Snapshot<'static>, Vec<u32>) {
        let mut strings = Interner::default();
        strings.index.reserve(self.live);
        strings.list.reserve(self.live);
        // Each mirror node's document and place in its arrays (a parent in
        // another document, as a frame's owner, is none in this one).
        let mut pos: Vec<(usize, i64)> = vec![(usize::MAX, -1); self.nodes.len()];
        // The last value of each style and its string: neighbours mostly share
        // their computed styles, and a compare is cheaper than a hash lookup.
        let mut last_style: Vec<(&str, i64)> = Vec::new();
        let mut documents = Vec::with_capacity(self.docs.len());
        for (d, doc) in self.docs.iter().enumerate() {
            let mut nodes = SnapNodes::default();
            let mut layout = SnapLayout::default();
            let mut rare = RareSet::default();
            if doc.root != NONE {
                for k in self.walk(doc.root) {
                    let n = &self.nodes[k as usize];
                    if !n.alive {
                        continue;
                    }
                    let i = nodes.node_type.len();
                    pos[k as usize] = (d, i as i64);
                    nodes.parent_index.push(pos.get(n.parent as usize).filter(|p| p.0 == d).map_or(-1, |p| p.1));
                    nodes.backend_node_id.push(n.backend);
                    nodes.node_type.push(n.node_type);
                    nodes.node_name.push(strings.get(&n.name));
                    nodes.node_value.push(n.value.as_deref().map_or(-1, |v| strings.get(v)));
                    let mut attrs = Vec::with_capacity(n.attrs.len() * 2);
                    for (k, v) in &n.attrs {
                        attrs.push(strings.get(k));
                        attrs.push(v.as_deref().map_or(-1, |v| strings.get(v)));
                    }
                    nodes.attributes.push(attrs);
                    if n.clickable {
                        rare.clickable.index.push(i);
                    }
                    for (slot, v) in [
                        (&mut rare.pseudo, &n.pseudo),
                        (&mut rare.shadow, &n.shadow),
                        (&mut rare.text_value, &n.text_value),
                        (&mut rare.input_value, &n.input_value),
                    ] {
                        if let Some(v) = v {
                            slot.index.push(i);
                            slot.value.push(strings.get(v));
                        }
                    }
                    if let Some(d) = n.content_doc {
                        rare.content_doc.index.push(i);
                        rare.content_doc.value.push(d as i64);
                    }
                    if n.checked {
                        rare.checked.index.push(i);
                    }
                    if n.selected {
                        rare.selected.index.push(i);
                    }
                    if let Some(styles) = &n.styles {
                        layout.node_index.push(i);
                        if last_style.len() < styles.len() {
                            last_style.resize(styles.len(), ("", -1));
                        }
                        let ids = styles
                            .iter()
                            .zip(last_style.iter_mut())
                            .map(|(s, last)| {
                                if last.1 < 0 || last.0 != s.as_str() {
                                    *last = (s.as_str(), strings.get(s));
                                }
                                last.1
                            })
                            .collect();
                        layout.styles.push(ids);
                    }
                }
            }
            let some = |r: Rare| (!r.index.is_empty()).then_some(r);
            nodes.is_clickable = some(rare.clickable);
            nodes.pseudo_type = some(rare.pseudo);
            nodes.shadow_root_type = some(rare.shadow);
            nodes.text_value = some(rare.text_value);
            nodes.input_value = some(rare.input_value);
            nodes.content_document_index = some(rare.content_doc);
            nodes.input_checked = some(rare.checked);
            nodes.option_selected = some(rare.selected);
            documents.push(SnapDoc {
                frame_id: strings.opt(&doc.frame_id),
                base_url: strings.opt(&doc.base_url),
                document_url: strings.opt(&doc.document_url),
                nodes,
                layout,
                scroll_offset_x: 0.0,
                scroll_offset_y: 0.0,
            });
        }
        let mut offsets = Vec::with_capacity(documents.len());
        let mut total = 0usize;
        for d in &documents {
            offsets.push(total);
            total += d.nodes.node_type.len();
        }
        let page_of = pos.iter().map(|&(d, i)| offsets.get(d).map_or(NONE, |o| (o + i as usize) as u32)).collect();
        (Snapshot { documents, strings: strings.list }, page_of)
    }
}

/// How many nodes a compaction keeps (the slots `remap` gives).
fn kept_len(remap: &[u32]) -> usize {
    remap.iter().filter(|&&r| r != NONE).count()
}

/// The reply's string table: each string once (readers compare indices, as
/// `cursor: pointer` is found by its index).
#[derive(Default)]
struct Interner<'s> {
    list: Vec<Cow<'static, str>>,
    index: FxHashMap<&'s str, i64>,
}

impl<'s> Interner<'s> {
    fn get(&mut self, s: &'s str) -> i64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as i64;
        self.list.push(Cow::Owned(s.to_string()));
        self.index.insert(s, i);
        i
    }

    fn opt(&mut self, s: &'s Option<String>) -> i64 {
        s.as_deref().map_or(-1, |v| self.get(v))
    }
}

/// The rare-data columns of one document while it is written.
#[derive(Default)]
struct RareSet {
    clickable: Rare,
    pseudo: Rare,
    shadow: Rare,
    text_value: Rare,
    input_value: Rare,
    content_doc: Rare,
    checked: Rare,
    selected: Rare,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dom::snapshot_reader::{read_parsed, with_snapshot};

    /// Every recorded DOMSnapshot reply (real Chromium, `npm run record-fixtures`).
    fn recorded_replies() -> Vec<(String, String)> {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/recorded");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).expect("fixtures/recorded").flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
            for r in v["replies"].as_array().into_iter().flatten() {
                if r["method"] == "DOMSnapshot.captureSnapshot" && r["result"].is_object() {
                    out.push((path.display().to_string(), r["result"].to_string()));
                }
            }
        }
        assert!(out.len() >= 10, "the recordings hold DOM snapshots");
        out
    }

    /// A mirror of every recorded DOMSnapshot reply, with where the engine's
    /// computed styles begin among a node's (after the capture's).
    pub(crate) fn recorded_mirrors() -> Vec<(String, Mirror, usize)> {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/recorded");
        let mut out = Vec::new();
        let mut paths: Vec<_> = std::fs::read_dir(dir).expect("fixtures/recorded").flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
            for r in v["replies"].as_array().into_iter().flatten() {
                if r["method"] != "DOMSnapshot.captureSnapshot" || !r["result"].is_object() {
                    continue;
                }
                let styles: Vec<&str> = r["params"]["computedStyles"].as_array().into_iter().flatten().filter_map(|s| s.as_str()).collect();
                let engine = styles.len() >= 4 && styles[styles.len() - 4..] == crate::engine::page::STYLES;
                let style_at = if engine { styles.len() - 4 } else { 1 };
                let text = r["result"].to_string();
                let mirror = with_snapshot(&text, |s| Mirror::from_snapshot(s, styles.len().max(1))).unwrap();
                out.push((path.display().to_string(), mirror, style_at));
            }
        }
        assert!(out.len() >= 10, "the recordings hold DOM snapshots");
        out
    }

    /// What the engine and the DOM pass read of a snapshot, as text.
    fn reading(snap: &Snapshot<'_>) -> String {
        let page = crate::engine::page::from_snapshot(snap, 1);
        let tree = crate::engine::build::build(&page);
        let read = read_parsed(snap, false, false);
        format!("{:?}\n{:?}\n{:?}", tree.nodes, read.click_hints, read.tree.map(|t| t.nodes))
    }

    #[test]
    fn a_mirror_written_back_reads_as_the_reply_did() {
        for (name, text) in recorded_replies() {
            let (before, mirror) = with_snapshot(&text, |s| (reading(s), Mirror::from_snapshot(s, 1))).unwrap();
            let after = reading(&mirror.to_snapshot());
            assert_eq!(before, after, "{name}");
        }
    }

    /// A laid-out text node as a re-read gives it (`parent`: an index into the read).
    fn text_node(value: &str, backend: i64, parent: u32) -> MNode {
        MNode {
            node_type: 3,
            name: "#text".into(),
            value: Some(value.into()),
            backend,
            parent,
            styles: Some(vec!["auto".to_string()]),
            alive: true,
            ..MNode::default()
        }
    }

    #[test]
    fn a_replaced_subtree_is_what_the_snapshot_then_says() {
        let (_, text) = recorded_replies().into_iter().find(|(n, _)| n.ends_with("forms.json")).unwrap();
        let mut mirror = with_snapshot(&text, |s| Mirror::from_snapshot(s, 1)).unwrap();
        let total = mirror.len();
        // The first list item: replace its text and add a button.
        let li = mirror.nodes.iter().position(|n| n.alive && n.name == "LI").unwrap() as u32;
        let li_backend = mirror.nodes[li as usize].backend;
        let old_size = mirror.subtree_size(li_backend).unwrap();
        let mut fresh = vec![MNode { parent: NONE, ..mirror.nodes[li as usize].clone() }];
        let laid = Some(vec!["auto".to_string()]);
        fresh.push(text_node("3 × Green mug", 900_001, 0));
        fresh.push(MNode { node_type: 1, name: "BUTTON".into(), backend: 900_002, parent: 0, styles: laid, alive: true, ..MNode::default() });
        fresh.push(text_node("Remove", 900_003, 2));
        mirror.replace(fresh).unwrap();
        assert_eq!(mirror.len(), total - old_size + 4);
        assert_eq!(mirror.subtree_size(li_backend), Some(4));
        let snap = mirror.to_snapshot();
        let page = crate::engine::page::from_snapshot(&snap, 0);
        let tree = crate::engine::build::build(&page);
        let names: Vec<&str> = tree.nodes.iter().map(|n| n.name.as_str()).collect();
        assert!(names.contains(&"3 × Green mug") && names.contains(&"Remove"), "{names:?}");
        assert!(!names.contains(&"2 × Blue mug"));
        assert!(tree.nodes.iter().any(|n| n.role == "button" && n.name == "Remove"));
        // A node the mirror never had cannot be a root.
        let stray = vec![MNode { backend: 123_456_789, alive: true, ..MNode::default() }];
        assert!(mirror.replace(stray).is_err());
    }

    #[test]
    fn a_list_given_its_children_adds_removes_and_moves_them() {
        let (_, text) = recorded_replies().into_iter().find(|(n, _)| n.ends_with("forms.json")).unwrap();
        let (before, mut mirror) = with_snapshot(&text, |s| (reading(s), Mirror::from_snapshot(s, 1))).unwrap();
        let ul = mirror.nodes.iter().position(|n| n.alive && n.name == "UL").unwrap() as u32;
        let ul_backend = mirror.nodes[ul as usize].backend;
        let kids: Vec<i64> = mirror.nodes[ul as usize].children.iter().map(|&k| mirror.nodes[k as usize].backend).collect();
        let items: Vec<i64> = kids.iter().copied().filter(|&b| mirror.node_of(b).is_some_and(|n| n.name == "LI")).collect();
        assert!(items.len() >= 2, "forms.html's cart has two items");
        // The same children again: nothing changes.
        mirror.set_children(ul_backend, &kids, &mut FxHashMap::default()).unwrap();
        mirror.retire_detached();
        assert_eq!(reading(&mirror.to_snapshot()), before);

        let total = mirror.len();
        let first_size = mirror.subtree_size(items[0]).unwrap();
        // The first item removed, the second moved to the end, and a new item after it.
        let laid = Some(vec!["auto".to_string()]);
        let row = vec![
            MNode { node_type: 1, name: "LI".into(), backend: 910_001, parent: NONE, styles: laid, alive: true, ..MNode::default() },
            text_node("1 × Red kettle", 910_002, 0),
        ];
        let mut now: Vec<i64> = kids.iter().copied().filter(|&b| b != items[0] && b != items[1]).collect();
        now.extend([items[1], 910_001]);
        let mut fresh: FxHashMap<i64, Vec<MNode>> = [(910_001, row)].into_iter().collect();
        mirror.set_children(ul_backend, &now, &mut fresh).unwrap();
        assert!(fresh.is_empty(), "the new row was taken");
        mirror.retire_detached();
        assert_eq!(mirror.len(), total - first_size + 2);
        assert!(mirror.node_of(items[0]).is_none(), "the removed item is retired");
        let order: Vec<i64> = mirror.nodes[ul as usize].children.iter().map(|&k| mirror.nodes[k as usize].backend).collect();
        assert_eq!(order, now);
        let snap = mirror.to_snapshot();
        let tree = crate::engine::build::build(&crate::engine::page::from_snapshot(&snap, 0));
        let names: Vec<&str> = tree.nodes.iter().map(|n| n.name.as_str()).collect();
        assert!(names.contains(&"1 × Red kettle"), "{names:?}");
        assert_eq!(tree.nodes.iter().filter(|n| n.role == "listitem").count(), items.len());

        // A listed node that is neither known nor read, and an ancestor moved below its descendant, are refused.
        assert!(mirror.set_children(ul_backend, &[123_456_789], &mut FxHashMap::default()).is_err());
        let body = mirror.nodes.iter().find(|n| n.alive && n.name == "BODY").unwrap().backend;
        let li = mirror.nodes.iter().position(|n| n.alive && n.name == "LI").unwrap() as u32;
        let li_backend = mirror.nodes[li as usize].backend;
        assert!(mirror.set_children(li_backend, &[body], &mut FxHashMap::default()).is_err());
    }

    #[test]
    fn compaction_keeps_the_live_tree() {
        let (_, text) = recorded_replies().into_iter().find(|(n, _)| n.ends_with("forms.json")).unwrap();
        let (before, mut mirror) = with_snapshot(&text, |s| (reading(s), Mirror::from_snapshot(s, 1))).unwrap();
        let body = mirror.nodes.iter().find(|n| n.alive && n.name == "BODY").unwrap().backend;
        // Re-read the body's subtree unchanged, many times over: retired copies pile up, then go.
        for _ in 0..12 {
            let root = mirror.by_backend[&body];
            let order: Vec<u32> = mirror.walk(root).collect();
            let pos: FxHashMap<u32, u32> = order.iter().enumerate().map(|(j, &k)| (k, j as u32)).collect();
            let fresh: Vec<MNode> = order
                .iter()
                .map(|&k| {
                    let n = &mirror.nodes[k as usize];
                    MNode { parent: pos.get(&n.parent).copied().unwrap_or(NONE), children: Vec::new(), ..n.clone() }
                })
                .collect();
            mirror.replace(fresh).unwrap();
        }
        assert!(mirror.nodes.len() <= 4 * mirror.len().max(1024) + mirror.len());
        assert_eq!(reading(&mirror.to_snapshot()), before);
        mirror.compact();
        assert_eq!(mirror.nodes.len(), mirror.len(), "only live nodes are left");
        assert_eq!(reading(&mirror.to_snapshot()), before);
    }
}
