//! The DOM engine's input: every node of a `DOMSnapshot.captureSnapshot`
//! reply (text included), its attributes, form state and the few computed
//! styles the accessibility rules need, in one arena over all documents.
//!
//! DOMSnapshot walks the flat tree: shadow roots (closed ones too) are
//! already expanded in place of their host's children, and slots hold the
//! nodes assigned to them, which is the tree accessibility is computed over
//! (HTML-AAM, which computes over the flat tree of CSS Scoping). Same-process frame documents are separate
//! documents in the reply, linked from their `iframe` by `contentDocumentIndex`.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::dom::snapshot_reader::{self, local_name, Snapshot};

pub const NONE: u32 = u32::MAX;

/// The computed styles the engine asks for, after whatever the capture asked for.
pub const STYLES: [&str; 4] = ["display", "visibility", "content", "text-transform"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Element,
    Text,
    Document,
    /// Comments, doctypes, processing instructions: never in the tree.
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pseudo {
    Before,
    After,
    /// `::marker` and the rest: not read.
    Other,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    #[default]
    None,
    Upper,
    Lower,
    Capitalize,
}

impl Transform {
    /// The computed `text-transform`.
    pub fn of(value: &str) -> Transform {
        match value {
            "uppercase" => Transform::Upper,
            "lowercase" => Transform::Lower,
            "capitalize" => Transform::Capitalize,
            _ => Transform::None,
        }
    }

    /// The text as rendered (CSS Text 3 #text-transform-property; `capitalize` upper-cases each word's first letter).
    pub fn apply(self, text: &str) -> std::borrow::Cow<'_, str> {
        match self {
            Transform::None => std::borrow::Cow::Borrowed(text),
            Transform::Upper => std::borrow::Cow::Owned(text.to_uppercase()),
            Transform::Lower => std::borrow::Cow::Owned(text.to_lowercase()),
            Transform::Capitalize => {
                let mut out = String::with_capacity(text.len());
                let mut start = true;
                for c in text.chars() {
                    if start && c.is_alphabetic() {
                        out.extend(c.to_uppercase());
                    } else {
                        out.push(c);
                    }
                    start = c.is_whitespace();
                }
                std::borrow::Cow::Owned(out)
            }
        }
    }
}

/// A string many nodes share (tag and attribute names, computed style
/// values): made once per string of the reply that names it, not once per
/// node. On the 40k-node page these were four of the engine's allocations a
/// node (a replayed capture spends much of its time allocating: see
/// `src/allocator.rs`); sharing them made `npm run bench:replay`'s best time
/// on guardian-1 about 6% shorter. Not an interning crate: the reply's
/// string table already names each distinct string once, so its index is
/// the key and a `Vec` the table.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Atom(Arc<str>);

impl Atom {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Atom {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for Atom {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Atom {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl From<&str> for Atom {
    fn from(s: &str) -> Atom {
        Atom(Arc::from(s))
    }
}

impl std::fmt::Debug for Atom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

/// The atoms of one reply, by string index (`make` turns the reply's string into the atom's).
struct Atoms {
    made: Vec<Option<Atom>>,
}

impl Atoms {
    fn new(strings: usize) -> Atoms {
        Atoms { made: vec![None; strings] }
    }

    fn get(&mut self, snap: &Snapshot<'_>, index: i64, make: impl FnOnce(&str) -> Atom) -> Atom {
        let Some(slot) = usize::try_from(index).ok().and_then(|i| self.made.get_mut(i)) else { return Atom::default() };
        if let Some(a) = slot {
            return a.clone();
        }
        let a = snapshot_reader::string(snap, index).map(make).unwrap_or_default();
        *slot = Some(a.clone());
        a
    }
}

#[derive(Debug, Default, Clone)]
pub struct Node {
    pub kind: Option<Kind>,
    /// Lower-case local name for HTML elements (SVG and MathML as written).
    pub tag: Atom,
    pub parent: u32,
    pub children: Vec<u32>,
    pub backend: Option<i64>,
    /// Attribute names lower-cased (HTML attributes are case-insensitive).
    pub attrs: Vec<(Atom, String)>,
    /// A text node's data.
    pub text: String,
    /// It has a layout object: rendered (`display: contents` has none).
    pub laid_out: bool,
    pub display: Atom,
    pub visibility: Atom,
    /// A pseudo-element's `content`.
    pub content: String,
    /// `text-transform` (Chrome's accessible text is the transformed text).
    pub transform: Transform,
    /// A click listener (DOMSnapshot `isClickable`).
    pub clickable: bool,
    /// Where `cursor: pointer` begins (it is pointer, its parent is not):
    /// what the DOM pass marks clickable, so kept in the tree as Chrome keeps it.
    pub pointer_root: bool,
    pub pseudo: Option<Pseudo>,
    /// `input`'s value (checkboxes report "on"), `textarea`'s text.
    pub value: Option<String>,
    pub checked: bool,
    pub selected: bool,
    /// A frame owner's document node.
    pub content_doc: u32,
    /// A document's frame id.
    pub frame_id: Option<String>,
    /// A document's base URL (relative `href`s resolve against it), parsed once.
    /// (Boxed: a `Url` is 88 bytes, and only documents have one. Every node of a
    /// repeat look's page is moved into a new arena: `incremental::to_page`.)
    pub base_url: Option<Box<url::Url>>,
    /// A document's URL (its name when it has no title, as Chrome names it).
    pub url: Option<String>,
}

impl Node {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn has_attr(&self, name: &str) -> bool {
        self.attrs.iter().any(|(k, _)| k == name)
    }

    pub fn is_element(&self) -> bool {
        self.kind == Some(Kind::Element) && self.pseudo.is_none()
    }

    pub fn is(&self, tag: &str) -> bool {
        self.is_element() && self.tag == tag
    }
}

#[derive(Debug, Default)]
pub struct Page {
    pub nodes: Vec<Node>,
    /// The root document's node (0 when there is one).
    pub root: u32,
    /// Elements by `id`, per document root (ids are scoped to their tree).
    ids: FxHashMap<(u32, String), u32>,
    /// `label` elements by their `for`, per document root.
    labels: FxHashMap<(u32, String), Vec<u32>>,
    /// Each node's document (or shadow-free tree) root, for id lookups.
    pub scope: Vec<u32>,
}

impl Page {
    pub fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    pub fn get(&self, i: u32) -> Option<&Node> {
        self.nodes.get(i as usize)
    }

    /// The element with this `id` in `of`'s document.
    pub fn by_id(&self, of: u32, id: &str) -> Option<u32> {
        let scope = *self.scope.get(of as usize)?;
        self.ids.get(&(scope, id.to_string())).copied()
    }

    /// The element an SVG `use` shows a copy of (its `href`, or `xlink:href`, `#id`).
    pub fn used_element(&self, i: u32) -> Option<u32> {
        let n = self.get(i)?;
        let target = n.attr("href").or_else(|| n.attr("xlink:href"))?.trim().strip_prefix('#')?;
        self.by_id(i, target).filter(|&r| r != i)
    }

    /// Whether any element below `i` (not `i`) passes `f`; the walk is bounded by the page's size.
    pub fn descendants_any(&self, i: u32, f: impl Fn(&Node) -> bool) -> bool {
        let mut stack: Vec<u32> = self.get(i).map(|n| n.children.clone()).unwrap_or_default();
        let mut steps = 0usize;
        while let Some(c) = stack.pop() {
            steps += 1;
            if steps > self.nodes.len() {
                return false;
            }
            let Some(n) = self.get(c) else { continue };
            if f(n) {
                return true;
            }
            stack.extend(n.children.iter().copied());
        }
        false
    }

    /// The `label` elements whose `for` is `id` in `of`'s document, in order,
    /// when `of` is the element they label: the first with that id in tree
    /// order (HTML #attr-label-for; a page that repeats an id labels only the
    /// first copy, and Chrome names a later copy from its placeholder).
    pub fn labels_for(&self, of: u32, id: &str) -> &[u32] {
        let Some(&scope) = self.scope.get(of as usize) else { return &[] };
        if self.by_id(of, id) != Some(of) {
            return &[];
        }
        self.labels.get(&(scope, id.to_string())).map_or(&[], Vec::as_slice)
    }

    /// The labelable elements inside `label` (HTML #labeled-control's
    /// candidates: a label with no `for` labels the first), in tree order,
    /// at most `want` of them. None when more than `budget` nodes would be
    /// visited first: the caller must then not assume there are no others.
    pub fn labelables_in(&self, label: u32, want: usize, budget: usize) -> Option<Vec<u32>> {
        let mut found = Vec::new();
        // Children pushed last-first, so they pop in tree order.
        let mut stack: Vec<u32> = self.get(label)?.children.iter().rev().copied().collect();
        let mut visits = 0usize;
        while let Some(c) = stack.pop() {
            let Some(n) = self.get(c) else { continue };
            visits += 1;
            if visits > budget {
                return None;
            }
            if n.is_element() && crate::engine::name::is_labelable(&n.tag) {
                found.push(c);
                if found.len() == want {
                    break;
                }
            }
            stack.extend(n.children.iter().rev().copied());
        }
        Some(found)
    }

    /// Every node, each node's scope and the id and label indexes, as text
    /// in a stable order: for tests that compare two ways of making a page.
    #[cfg(test)]
    pub(crate) fn describe(&self) -> String {
        let mut ids: Vec<_> = self.ids.iter().collect();
        ids.sort();
        let mut labels: Vec<_> = self.labels.iter().collect();
        labels.sort();
        format!("root {}\n{:#?}\nscope {:?}\nids {:?}\nlabels {:?}", self.root, self.nodes, self.scope, ids, labels)
    }

    pub fn parent_element(&self, i: u32) -> Option<u32> {
        let p = self.get(i)?.parent;
        self.get(p).filter(|n| n.is_element()).map(|_| p)
    }

    /// Ancestors, nearest first, up to the document (not across frames).
    pub fn ancestors(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        let mut cur = i;
        let mut steps = 0usize;
        std::iter::from_fn(move || {
            let p = self.get(cur)?.parent;
            steps += 1;
            // Parents come first in the arena, so a walk up always ends; the bound is for safety.
            if p == NONE || steps > self.nodes.len() || self.get(p)?.kind == Some(Kind::Document) {
                return None;
            }
            cur = p;
            Some(p)
        })
    }
}

/// The reply fields the engine reads beyond the DOM pass's (`CdpCommand::project`).
pub fn add_projection(spec: &mut serde_json::Value) {
    let docs = &mut spec["pick"]["documents"];
    docs["baseURL"] = true.into();
    docs["documentURL"] = true.into();
    for f in ["nodeValue", "textValue", "inputValue", "inputChecked", "optionSelected"] {
        docs["nodes"][f] = true.into();
    }
}

/// Read a reply whose computed styles are the capture's, then [`STYLES`] from `style_at`.
pub fn read(text: &str, style_at: usize) -> Result<Page, String> {
    snapshot_reader::with_snapshot(text, |snap| from_snapshot(snap, style_at))
}

/// The page of a parsed reply (the DOM pass reads the same parse).
pub(crate) fn from_snapshot(snap: &Snapshot<'_>, style_at: usize) -> Page {
    let string = |i: i64| snapshot_reader::string(snap, i);
    let mut atoms = Atoms::new(snap.strings.len());
    let mut page = Page::default();
    // Offsets of each document's nodes in the arena.
    let mut offset = Vec::with_capacity(snap.documents.len());
    let mut total = 0usize;
    for d in &snap.documents {
        offset.push(total);
        total += d.nodes.node_type.len();
    }
    page.nodes = Vec::with_capacity(total);
    for (d, doc) in snap.documents.iter().enumerate() {
        let n = &doc.nodes;
        let count = n.node_type.len();
        let base = offset[d];
        for i in 0..count {
            let parent = match n.parent_index.get(i).copied() {
                // Pre-order: a parent comes first; anything else is malformed and detached.
                Some(p) if p >= 0 && (p as usize) < i => (base + p as usize) as u32,
                _ => NONE,
            };
            let kind = match n.node_type.get(i) {
                Some(1) => Kind::Element,
                Some(3) => Kind::Text,
                Some(9) => Kind::Document,
                _ => Kind::Other,
            };
            let tag = n.node_name.get(i).map_or_else(Atom::default, |&s| atoms.get(snap, s, |name| Atom::from(local_name(name).as_str())));
            let mut node = Node { kind: Some(kind), tag, parent, backend: n.backend_node_id.get(i).copied(), content_doc: NONE, ..Node::default() };
            match kind {
                Kind::Text => node.text = n.node_value.get(i).and_then(|&s| string(s)).unwrap_or_default().to_string(),
                Kind::Element => {
                    for pair in n.attributes.get(i).map_or(&[][..], Vec::as_slice).chunks(2) {
                        if let [k, v] = pair {
                            // An empty value (`disabled`) is sent as no string (-1).
                            if string(*k).is_some() {
                                let name = atoms.get(snap, *k, |k| Atom::from(k.to_ascii_lowercase().as_str()));
                                node.attrs.push((name, string(*v).unwrap_or_default().to_string()));
                            }
                        }
                    }
                }
                Kind::Document => {
                    node.frame_id = string(doc.frame_id).map(str::to_string);
                    node.base_url = string(doc.base_url).and_then(|b| url::Url::parse(b).ok()).map(Box::new);
                    node.url = string(doc.document_url).map(str::to_string);
                }
                Kind::Other => {}
            }
            page.nodes.push(node);
        }
        let at = |i: usize| page_index(base, i, count);
        if let Some(r) = &n.pseudo_type {
            for (i, v) in r.pairs() {
                if let Some(k) = at(i) {
                    page.nodes[k].pseudo = Some(match string(v) {
                        Some("before") => Pseudo::Before,
                        Some("after") => Pseudo::After,
                        _ => Pseudo::Other,
                    });
                }
            }
        }
        for (rare, text_area) in [(&n.input_value, false), (&n.text_value, true)] {
            if let Some(r) = rare {
                for (i, v) in r.pairs() {
                    if let (Some(k), Some(s)) = (at(i), string(v)) {
                        if !text_area || page.nodes[k].value.is_none() {
                            page.nodes[k].value = Some(s.to_string());
                        }
                    }
                }
            }
        }
        if let Some(r) = &n.input_checked {
            for &i in &r.index {
                if let Some(k) = at(i) {
                    page.nodes[k].checked = true;
                }
            }
        }
        if let Some(r) = &n.is_clickable {
            for &i in &r.index {
                if let Some(k) = at(i) {
                    page.nodes[k].clickable = true;
                }
            }
        }
        if let Some(r) = &n.option_selected {
            for &i in &r.index {
                if let Some(k) = at(i) {
                    page.nodes[k].selected = true;
                }
            }
        }
        if let Some(r) = &n.content_document_index {
            for (i, v) in r.pairs() {
                if let (Some(k), Some(&doc_base)) = (at(i), usize::try_from(v).ok().and_then(|v| offset.get(v))) {
                    // The hosted document must have nodes (its root is its first).
                    if doc_base < total && v as usize != d {
                        page.nodes[k].content_doc = doc_base as u32;
                    }
                }
            }
        }
        // The capture's first style is `cursor` (the DOM pass's click hints), when it asked for any.
        if style_at > 0 {
            for (i, root) in snapshot_reader::pointer_roots(snap, doc).into_iter().enumerate() {
                if let (true, Some(k)) = (root, at(i)) {
                    page.nodes[k].pointer_root = true;
                }
            }
        }
        for (l, &i) in doc.layout.node_index.iter().enumerate() {
            let Some(k) = at(i) else { continue };
            let node = &mut page.nodes[k];
            node.laid_out = true;
            let styles = doc.layout.styles.get(l).map_or(&[][..], Vec::as_slice);
            let style = |j: usize| styles.get(style_at + j).copied().unwrap_or(-1);
            node.display = atoms.get(snap, style(0), |v| Atom::from(v));
            node.visibility = atoms.get(snap, style(1), |v| Atom::from(v));
            if node.pseudo.is_some() {
                node.content = string(style(2)).unwrap_or_default().to_string();
            }
            node.transform = Transform::of(string(style(3)).unwrap_or_default());
        }
    }
    page.link();
    page
}

impl Page {
    /// Children lists, frame documents under their owners, each node's id
    /// scope and the id and label indexes, once every node holds its parent
    /// and `content_doc` (documents one after another, each in pre-order:
    /// parents come first).
    pub(crate) fn link(&mut self) {
        let page = self;
        for n in &mut page.nodes {
            n.children.clear();
        }
        // Children lists, in order (parents come first, so each push is in document order).
        for i in 0..page.nodes.len() {
            let p = page.nodes[i].parent;
            if let Some(parent) = page.nodes.get_mut(p as usize) {
                parent.children.push(i as u32);
            }
        }
        // A frame document's parent is its owner (one owner each; a second claim is ignored).
        for i in 0..page.nodes.len() {
            let doc = page.nodes[i].content_doc;
            if doc != NONE && page.nodes.get(doc as usize).is_some_and(|d| d.parent == NONE && d.kind == Some(Kind::Document)) && doc as usize > i {
                page.nodes[doc as usize].parent = i as u32;
            } else {
                page.nodes[i].content_doc = NONE;
            }
        }
        page.scope = scopes(page);
        page.index_ids();
    }

    /// The id and label indexes, again after attributes changed in place.
    pub(crate) fn index_ids(&mut self) {
        self.ids.clear();
        self.labels.clear();
        for (i, n) in self.nodes.iter().enumerate() {
            let Some(&scope) = self.scope.get(i) else { break };
            if let (true, Some(id)) = (n.is_element(), n.attr("id")) {
                self.ids.entry((scope, id.to_string())).or_insert(i as u32);
            }
            if let (true, Some(target)) = (n.is("label"), n.attr("for")) {
                self.labels.entry((scope, target.to_string())).or_default().push(i as u32);
            }
        }
    }
}

fn page_index(base: usize, i: usize, count: usize) -> Option<usize> {
    // `then`, not `then_some`: the sum is only taken for an index in range (a reply may send any).
    (i < count).then(|| base + i)
}

/// Each node's id scope: its document. (The flat tree has lost shadow root
/// boundaries, so ids inside shadow trees share their host document's scope;
/// a reference into another shadow tree may then resolve where Chrome's would not.)
fn scopes(page: &Page) -> Vec<u32> {
    let mut scope = vec![NONE; page.nodes.len()];
    for i in 0..page.nodes.len() {
        let n = &page.nodes[i];
        scope[i] = if n.kind == Some(Kind::Document) || n.parent == NONE {
            i as u32
        } else {
            // Parents come first, except a frame document re-parented under a later owner: it is its own scope (above).
            scope.get(n.parent as usize).copied().filter(|&s| s != NONE).unwrap_or(i as u32)
        };
    }
    scope
}
