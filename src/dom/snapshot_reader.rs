//! Reading a `DOMSnapshot.captureSnapshot` reply: the click facts only
//! layout knows (listeners, where `cursor: pointer` begins) and, on pages
//! without author shadow roots, the element tree itself.
//!
//! DOMSnapshot walks the flat tree: a shadow host's children there are its
//! shadow root's, and a slot's are the nodes assigned to it, while unslotted
//! light children are left out. Without author shadow roots the flat tree is
//! the DOM tree (user-agent shadow roots are skipped and their hosts' own
//! children walked), so the capture can skip `DOM.getDocument`, which costs
//! about as much again on a large page. With them, this reply says so and
//! the capture asks for `DOM.getDocument`.

use std::borrow::Cow;

use crate::dom::concealment::{judge, Concealed, Inherited, Own};
use crate::dom::viewport::{Boxes, Rect};
use crate::dom::{is_kept_attr, DKind, DomTree, NONE};
use rustc_hash::FxHashMap;

/// What one reply gives.
#[derive(Debug, Default)]
pub struct SnapshotRead {
    /// Backend ids of elements with a click listener or where `cursor: pointer` begins.
    pub click_hints: Vec<i64>,
    /// The element tree, when the reply's walk is the DOM tree; with shadow
    /// trees, the tree without them, to which `hosts` are still to be grafted.
    pub tree: Option<DomTree>,
    /// The shadow hosts outside any shadow tree (backend id, index in `tree`):
    /// DOMSnapshot lists their flat trees, not their element trees, which
    /// `DOM.describeNode` gives (`crate::dom::DomTree::graft`).
    pub hosts: Vec<(i64, u32)>,
    /// Layout boxes, when asked for (`viewportOnly`).
    pub boxes: Option<Boxes>,
    /// Nodes whose text cannot be seen, when asked for (`untrustedContent: 'mark'`).
    pub concealed: Vec<(i64, Concealed)>,
}

// The reply as read; `pub(crate)` for the DOM engine (`crate::engine::page`),
// which reads the same parse. Its fields (`nodeValue`, form state, URLs) are
// absent unless the projection asked for them, and then cost nothing.
#[derive(serde::Deserialize)]
pub(crate) struct Snapshot<'a> {
    pub documents: Vec<SnapDoc>,
    #[serde(borrow)]
    pub strings: Vec<Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SnapDoc {
    /// Index into `strings`.
    #[serde(default = "no_string")]
    pub frame_id: i64,
    #[serde(default = "no_string", rename = "baseURL")]
    pub base_url: i64,
    #[serde(default = "no_string", rename = "documentURL")]
    pub document_url: i64,
    pub nodes: SnapNodes,
    pub layout: SnapLayout,
    #[serde(default)]
    pub scroll_offset_x: f64,
    #[serde(default)]
    pub scroll_offset_y: f64,
}

fn no_string() -> i64 {
    -1
}

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct SnapNodes {
    pub parent_index: Vec<i64>,
    pub backend_node_id: Vec<i64>,
    pub node_type: Vec<i64>,
    pub node_name: Vec<i64>,
    pub node_value: Vec<i64>,
    /// Per node, name and value string indices in turn.
    pub attributes: Vec<Vec<i64>>,
    pub is_clickable: Option<Rare>,
    pub shadow_root_type: Option<Rare>,
    pub pseudo_type: Option<Rare>,
    pub content_document_index: Option<Rare>,
    pub text_value: Option<Rare>,
    pub input_value: Option<Rare>,
    pub input_checked: Option<Rare>,
    pub option_selected: Option<Rare>,
}

/// CDP's rare data: the nodes that have it (`index`) and, for strings and
/// integers, their values.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
pub(crate) struct Rare {
    pub index: Vec<usize>,
    pub value: Vec<i64>,
}

impl Rare {
    pub fn pairs(&self) -> impl Iterator<Item = (usize, i64)> + '_ {
        self.index.iter().copied().zip(self.value.iter().copied())
    }
}

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct SnapLayout {
    pub node_index: Vec<usize>,
    pub styles: Vec<Vec<i64>>,
    /// x, y, width, height in the document's coordinates, scroll included.
    pub bounds: Vec<Vec<f64>>,
}

/// What a driver holding the parsed reply needs to pass on (`CdpCommand::project`):
/// the reply has per-node text values, input values, bounds and text boxes
/// this module never reads.
/// Boxes and scroll offsets only with `boxes` (`viewportOnly`, or concealment).
pub fn projection_spec(boxes: bool) -> serde_json::Value {
    let mut spec = serde_json::json!({ "pick": {
        "strings": true,
        "documents": {
            "frameId": true,
            "nodes": {
                "parentIndex": true, "backendNodeId": true, "nodeType": true, "nodeName": true, "attributes": true,
                "isClickable": true, "shadowRootType": true, "pseudoType": true, "contentDocumentIndex": true,
            },
            "layout": { "nodeIndex": true, "styles": true },
        },
    },
    // Inline scripts' and styles' text, read by no rule, need not travel (lib/transport.cjs).
    "blankText": { "under": ["SCRIPT", "STYLE", "script", "style"], "minChars": 256 } });
    if boxes {
        let docs = &mut spec["pick"]["documents"];
        docs["scrollOffsetX"] = true.into();
        docs["scrollOffsetY"] = true.into();
        docs["layout"]["bounds"] = true.into();
    }
    spec
}

/// Parse a reply (repairing lone surrogates first) and hand it to `f`.
pub(crate) fn with_snapshot<R>(text: &str, f: impl FnOnce(&Snapshot<'_>) -> R) -> Result<R, String> {
    let repaired = crate::compat::json_text::repaired(text);
    let snap: Snapshot<'_> = serde_json::from_str(repaired.as_deref().unwrap_or(text)).map_err(|e| format!("DOMSnapshot reply is not readable: {e}"))?;
    Ok(f(&snap))
}

/// Read the reply of `DOMSnapshot.captureSnapshot({ computedStyles: ['cursor', …] })`
/// (with `want_concealed`, the styles of [`crate::dom::concealment::STYLES`] follow `cursor`).
pub fn read_snapshot(text: &str, want_boxes: bool, want_concealed: bool) -> Result<SnapshotRead, String> {
    with_snapshot(text, |snap| read_parsed(snap, want_boxes, want_concealed))
}

pub(crate) fn read_parsed(snap: &Snapshot<'_>, want_boxes: bool, want_concealed: bool) -> SnapshotRead {
    let click_hints = click_hints(snap);
    let (tree, hosts) = if snap.documents.is_empty() {
        (None, Vec::new())
    } else {
        let (tree, hosts) = element_tree(snap);
        (Some(tree), hosts)
    };
    // The styles asked for: `cursor`, then concealment's, then `overflow-y` with boxes.
    let overflow_y = 1 + if want_concealed { crate::dom::concealment::STYLES.len() } else { 0 };
    let boxes = want_boxes.then(|| boxes(snap, overflow_y));
    let concealed = if want_concealed { concealed(snap) } else { Vec::new() };
    SnapshotRead { click_hints, tree, hosts, boxes, concealed }
}

/// Each of a document's `count` nodes' layout index (`u32::MAX`: no layout box).
fn layout_index(doc: &SnapDoc, count: usize) -> Vec<u32> {
    let mut layout_of = vec![u32::MAX; count];
    for (k, &i) in doc.layout.node_index.iter().enumerate() {
        if i < count {
            layout_of[i] = k as u32;
        }
    }
    layout_of
}

/// The nodes (text, and elements whose own box hides them) that a person cannot see.
fn concealed(snap: &Snapshot<'_>) -> Vec<(i64, Concealed)> {
    let mut out = Vec::new();
    for doc in &snap.documents {
        let n = &doc.nodes;
        let count = n.node_type.len();
        let layout_of = layout_index(doc, count);
        let mut passed: Vec<Inherited> = Vec::with_capacity(count);
        for (i, &k) in layout_of.iter().enumerate().take(count) {
            let parent = match n.parent_index.get(i).copied() {
                Some(p) if p >= 0 && (p as usize) < i => passed[p as usize],
                _ => Inherited::ROOT,
            };
            let own = match k {
                u32::MAX => None,
                k => doc.layout.styles.get(k as usize).map(|st| {
                    let style = |j: usize| st.get(j + 1).and_then(|&s| string(snap, s)).unwrap_or_default();
                    Own {
                        styles: [style(0), style(1), style(2), style(3), style(4), style(5), style(6)],
                        bounds: doc.layout.bounds.get(k as usize).and_then(|b| <[f64; 4]>::try_from(b.as_slice()).ok()),
                    }
                }),
            };
            let text = n.node_type.get(i) == Some(&3);
            let (verdict, inherited) = judge(parent, own.as_ref(), text);
            passed.push(inherited);
            if let (Some(v), Some(&backend)) = (verdict, n.backend_node_id.get(i)) {
                // Elements are flagged only for what hides them whole; size and colour are their text's.
                if text || matches!(v, Concealed::Transparent | Concealed::Clipped | Concealed::Offscreen) {
                    out.push((backend, v));
                }
            }
        }
    }
    out
}

/// Every layout box, relative to the root document's viewport, clipped by
/// the viewports of the same-process frames it is in.
fn boxes(snap: &Snapshot<'_>, overflow_y: usize) -> Boxes {
    let scrolls = |s: &str| matches!(s, "auto" | "scroll");
    // A box that clips its content: what is scrolled out of it is not shown.
    let clips = |s: &str| matches!(s, "auto" | "scroll" | "hidden" | "clip");
    let docs = &snap.documents;
    let mut out = Boxes::default();
    let mut visited = vec![false; docs.len()];
    // (document, its offset into the root viewport, its clip there)
    let root_offset = docs.first().map_or((0.0, 0.0), |d| (-d.scroll_offset_x, -d.scroll_offset_y));
    let mut pending: Vec<(usize, (f64, f64), Rect)> = vec![(0, root_offset, Rect::EVERYWHERE)];
    while let Some((d, (dx, dy), clip)) = pending.pop() {
        if docs.is_empty() || std::mem::replace(&mut visited[d], true) {
            continue;
        }
        let doc = &docs[d];
        let n = &doc.nodes;
        let content = hosted_documents(n, docs.len());
        let count = n.node_type.len();
        let layout_of = layout_index(doc, count);
        // The clip each node's content gets: the frame's, narrowed by every
        // ancestor that clips (nodes come in order, parents first). Content
        // taken out of flow (position: fixed) escaping a clip is not modelled.
        let mut inner_clip: Vec<Rect> = Vec::with_capacity(count);
        for (i, &k) in layout_of.iter().enumerate().take(count) {
            let own_clip = match n.parent_index.get(i).copied() {
                Some(p) if p >= 0 && (p as usize) < i => inner_clip[p as usize],
                _ => clip,
            };
            let laid = (k != u32::MAX).then(|| doc.layout.bounds.get(k as usize).and_then(|b| Rect::from_slice(b))).flatten();
            let overflow =
                (k != u32::MAX).then(|| doc.layout.styles.get(k as usize).and_then(|st| st.get(overflow_y)).and_then(|&v| string(snap, v))).flatten();
            let (Some(&backend), Some(rect)) = (n.backend_node_id.get(i), laid) else {
                inner_clip.push(own_clip);
                continue;
            };
            let rect = rect.moved(dx, dy);
            out.insert(backend, rect, own_clip);
            if overflow.is_some_and(scrolls) {
                out.mark_scroller(backend);
            }
            // The root elements' overflow is the viewport's (CSS overflow propagation), not a box's.
            let root_element = n.node_name.get(i).and_then(|&s| string(snap, s)).is_some_and(|name| name == "HTML" || name == "BODY");
            let clipping = overflow.is_some_and(clips) && !root_element;
            inner_clip.push(if clipping { rect.clip(own_clip) } else { own_clip });
            if let Some(&c) = content.get(&i) {
                let child = &docs[c];
                pending.push((c, (rect.x - child.scroll_offset_x, rect.y - child.scroll_offset_y), rect.clip(own_clip)));
            }
        }
    }
    out
}

/// How many nodes the reply holds, over all its documents.
pub(crate) fn node_count(snap: &Snapshot<'_>) -> usize {
    snap.documents.iter().map(|d| d.nodes.node_type.len()).sum()
}

pub(crate) fn string<'s>(snap: &'s Snapshot<'_>, index: i64) -> Option<&'s str> {
    usize::try_from(index).ok().and_then(|i| snap.strings.get(i)).map(|s| s.as_ref())
}

/// An element's `localName` from its `nodeName`: HTML elements' names are
/// upper-cased there, other namespaces' (SVG, MathML) are as written.
pub(crate) fn local_name(node_name: &str) -> String {
    if node_name.bytes().any(|b| b.is_ascii_lowercase()) {
        node_name.to_string()
    } else {
        node_name.to_ascii_lowercase()
    }
}

/// Elements and documents, the frame documents placed under their `iframe`
/// as `DOM.getDocument` places them. Pseudo-elements and their insides are
/// left out: no selector matches them.
/// The element tree of the reply's documents, and the shadow hosts outside
/// any shadow tree (backend id, index in the tree): a node in a shadow tree
/// is left out with all below it (its host's element tree comes from
/// `DOM.describeNode`), so the tree is whole only when there are none.
fn element_tree(snap: &Snapshot<'_>) -> (DomTree, Vec<(i64, u32)>) {
    let docs = &snap.documents;
    let mut tree = DomTree { without_user_agent_roots: true, ..DomTree::default() };
    let mut hosts: Vec<(i64, u32)> = Vec::new();
    let mut visited = vec![false; docs.len()];
    // (document, its owner element in the model); owners are added before
    // the documents they host, so parents keep coming first.
    let mut pending: Vec<(usize, u32)> = vec![(0, NONE)];
    while let Some((d, owner)) = pending.pop() {
        if std::mem::replace(&mut visited[d], true) {
            continue;
        }
        let n = &docs[d].nodes;
        let pseudo: FxHashMap<usize, ()> = n.pseudo_type.iter().flat_map(|r| r.index.iter().map(|&i| (i, ()))).collect();
        // Nodes in a shadow tree (DOMSnapshot names the kind of root each is in).
        let shadowed: rustc_hash::FxHashSet<usize> = n.shadow_root_type.iter().flat_map(|r| r.index.iter().copied()).collect();
        let content = hosted_documents(n, docs.len());
        let count = n.node_type.len();
        // Model index of each node of this document (NONE: left out, and so is everything under it).
        let mut model = vec![NONE; count];
        for i in 0..count {
            let parent = match n.parent_index.get(i).copied() {
                Some(p) if p < 0 && i == 0 => owner,
                // Pre-order: a parent comes first; anything else is malformed and left out.
                Some(p) if p >= 0 && (p as usize) < i => match model[p as usize] {
                    NONE => continue,
                    m => m,
                },
                _ => continue,
            };
            if shadowed.contains(&i) {
                // The top of a shadow tree: its parent is a host outside any (the parent of a
                // node deeper in one was left out, so this is not reached for it).
                if hosts.last().map(|h: &(i64, u32)| h.1) != Some(parent) {
                    if let Some(host) = tree.node(parent) {
                        hosts.push((host.backend, parent));
                    }
                }
                continue;
            }
            let kind = match n.node_type[i] {
                1 if !pseudo.contains_key(&i) => DKind::Element,
                9 => DKind::Document,
                _ => continue,
            };
            let backend = n.backend_node_id.get(i).copied().unwrap_or(-1);
            let name = n.node_name.get(i).and_then(|&s| string(snap, s)).unwrap_or_default();
            let hosted = content.get(&i).copied();
            let frame_id = hosted.and_then(|k| string(snap, docs[k].frame_id)).map(str::to_string);
            let mut attrs = Vec::new();
            if kind == DKind::Element {
                for pair in n.attributes.get(i).map_or(&[][..], Vec::as_slice).chunks(2) {
                    if let [k, v] = pair {
                        // An empty value (`contenteditable`, `disabled`) is sent as no string (-1).
                        if let Some(k) = string(snap, *k).filter(|k| is_kept_attr(k)) {
                            attrs.push((k.to_string(), string(snap, *v).unwrap_or_default().to_string()));
                        }
                    }
                }
            }
            let idx = tree.add_node(kind, local_name(name), backend, parent, frame_id, attrs);
            model[i] = idx;
            if let Some(k) = hosted {
                pending.push((k, idx));
            }
        }
    }
    tree.index_siblings();
    (tree, hosts)
}

/// Frame owner nodes of a document and the documents they host, those
/// indices checked against the `count` documents of the reply.
fn hosted_documents(n: &SnapNodes, count: usize) -> FxHashMap<usize, usize> {
    n.content_document_index
        .iter()
        .flat_map(Rare::pairs)
        .filter_map(|(node, doc)| usize::try_from(doc).ok().filter(|&d| d < count).map(|d| (node, d)))
        .collect()
}

/// What an element of this node name may host: a frame (`iframe`, `frame`,
/// `fencedframe`), maybe one (`object`, `embed`: unless its type or URL says
/// a plugin or a media file), or none.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Owner {
    No,
    Frame,
    Maybe,
}

impl Owner {
    pub(crate) fn of(node_name: &str) -> Owner {
        match node_name {
            "IFRAME" | "FRAME" | "FENCEDFRAME" | "iframe" | "frame" | "fencedframe" => Owner::Frame,
            "OBJECT" | "EMBED" | "object" | "embed" => Owner::Maybe,
            _ => Owner::No,
        }
    }

    /// Whether an element of this kind with these attributes (name, value) shows a document.
    pub(crate) fn shows_document<'a>(self, mut attrs: impl Iterator<Item = (Option<&'a str>, Option<&'a str>)>) -> bool {
        let not_a_document = |pair: (Option<&str>, Option<&str>)| match pair {
            (Some("type"), Some(t)) => !t.is_empty() && !t.contains("html") && !t.contains("xml"),
            (Some("src" | "data"), Some(url)) => {
                let path = url.split(['?', '#']).next().unwrap_or_default().to_ascii_lowercase();
                const FILES: [&str; 14] = [".swf", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".ico", ".mp3", ".mp4", ".webm", ".ogg", ".wav", ".flv"];
                FILES.iter().any(|ext| path.ends_with(ext))
            }
            _ => false,
        };
        match self {
            Owner::No => false,
            Owner::Frame => true,
            Owner::Maybe => !attrs.any(not_a_document),
        }
    }
}

/// The frame owner elements (`iframe`, `frame`, `fencedframe`, and an
/// `object` or `embed` that may show a document) of the reply that host no
/// document in it, by `backendNodeId`: frames in another process (or not
/// loaded), which only `Target.getTargets` can find.
pub(crate) fn unhosted_frame_owners(snap: &Snapshot<'_>) -> Vec<i64> {
    let kinds: Vec<Owner> = snap.strings.iter().map(|s| Owner::of(s)).collect();
    let text = |k: i64| usize::try_from(k).ok().and_then(|k| snap.strings.get(k)).map(|s| s.as_ref());
    let mut owners = Vec::new();
    for doc in &snap.documents {
        let n = &doc.nodes;
        let hosted = hosted_documents(n, snap.documents.len());
        for (i, &name) in n.node_name.iter().enumerate() {
            let kind = usize::try_from(name).ok().and_then(|k| kinds.get(k)).copied().unwrap_or(Owner::No);
            let attrs = n.attributes.get(i).map_or(&[][..], Vec::as_slice).chunks(2).filter_map(|pair| match pair {
                [name, value] => Some((text(*name), text(*value))),
                _ => None,
            });
            if kind != Owner::No && kind.shows_document(attrs) && !hosted.contains_key(&i) {
                // An owner without a backend id still counts (it can match no frame owner).
                owners.push(n.backend_node_id.get(i).copied().unwrap_or(-1));
            }
        }
    }
    owners
}

/// Per node of document `doc`: whether it is an element where `cursor:
/// pointer` begins (it is pointer, its parent is not), the capture's first
/// computed style being `cursor`. The pointer that every descendant inherits
/// marks one target, not each of its pieces.
pub(crate) fn pointer_roots(snap: &Snapshot<'_>, doc: &SnapDoc) -> Vec<bool> {
    let n = &doc.nodes;
    let count = n.backend_node_id.len();
    let Some(pointer) = snap.strings.iter().position(|s| s == "pointer").map(|p| p as i64) else { return vec![false; count] };
    let mut is_pointer = vec![false; count];
    for (k, &i) in doc.layout.node_index.iter().enumerate() {
        if i < count && doc.layout.styles.get(k).and_then(|s| s.first()) == Some(&pointer) {
            is_pointer[i] = true;
        }
    }
    (0..count)
        .map(|i| {
            let parent = n.parent_index.get(i).copied().unwrap_or(-1);
            let parent_pointer = usize::try_from(parent).ok().and_then(|p| is_pointer.get(p).copied()).unwrap_or(false);
            is_pointer[i] && n.node_type.get(i) == Some(&1) && !parent_pointer
        })
        .collect()
}

/// Elements with a click listener, or where `cursor: pointer` begins.
fn click_hints(snap: &Snapshot<'_>) -> Vec<i64> {
    let mut out = Vec::new();
    for doc in &snap.documents {
        let n = &doc.nodes;
        if let Some(rb) = &n.is_clickable {
            out.extend(rb.index.iter().filter(|&&i| n.node_type.get(i) == Some(&1)).filter_map(|&i| n.backend_node_id.get(i).copied()));
        }
        let roots = pointer_roots(snap, doc);
        out.extend((0..roots.len()).filter(|&i| roots[i]).filter_map(|i| n.backend_node_id.get(i).copied()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Recorded shape (Chromium 131): a page with an `::before`, SVG, a
    // template, an iframe with a same-process document, and a `::marker`.
    const PAGE: &str = r##"{"strings":["F1","#document","HTML","BODY","DIV","id","a","P","::before","svg","foreignObject","IFRAME","title","t","F2","BUTTON","#text","auto","pointer","TEMPLATE","data-testid","x","class","c"],
      "documents":[
        {"frameId":0,"nodes":{
          "parentIndex":[-1,0,1,2,3,4,2,6,6,2,9,1],
          "nodeType":[9,1,1,1,1,1,1,1,1,1,3,1],
          "nodeName":[1,2,3,4,7,8,9,10,19,11,16,11],
          "backendNodeId":[1,2,3,4,5,6,7,8,9,10,11,12],
          "attributes":[[],[],[],[5,6],[20,21,22,23],[],[],[],[],[12,13],[],[]],
          "pseudoType":{"index":[5],"value":[8]},
          "contentDocumentIndex":{"index":[9],"value":[1]},
          "isClickable":{"index":[4]}},
         "layout":{"nodeIndex":[3,4],"styles":[[18],[18]]}},
        {"frameId":14,"nodes":{
          "parentIndex":[-1,0,1],"nodeType":[9,1,1],"nodeName":[1,2,15],"backendNodeId":[20,21,22],"attributes":[[],[],[]]},
         "layout":{"nodeIndex":[2],"styles":[[18]]}}]}"##;

    #[test]
    fn builds_the_element_tree_with_frames() {
        let read = read_snapshot(PAGE, false, false).unwrap();
        let t = read.tree.expect("no shadow roots: the snapshot is the tree");
        let div = t.node(t.by_backend(4).unwrap()).unwrap();
        assert_eq!(div.tag, "div");
        assert_eq!(div.attr("id"), Some("a"));
        let p = t.node(t.by_backend(5).unwrap()).unwrap();
        assert_eq!(p.attrs, vec![("data-testid".to_string(), "x".to_string())], "only kept attributes");
        assert!(t.by_backend(6).is_none(), "pseudo-elements are not elements a selector can match");
        assert_eq!(t.node(t.by_backend(8).unwrap()).unwrap().tag, "foreignObject", "SVG names keep their case");
        assert!(t.by_backend(11).is_none(), "text nodes are left out");
        // The frame document sits under its iframe, as getDocument puts it.
        let iframe = t.by_backend(10).unwrap();
        assert_eq!(t.owners.get("F2").copied(), Some(iframe));
        assert_eq!(t.document_of_frame("F2"), t.by_backend(20));
        assert_eq!(t.node(t.by_backend(20).unwrap()).unwrap().parent, iframe);
        assert_eq!(t.node(t.by_backend(22).unwrap()).unwrap().tag, "button");
        for (i, n) in t.nodes.iter().enumerate() {
            assert!(n.parent == NONE || (n.parent as usize) < i, "parents come first");
        }
    }

    #[test]
    fn empty_attribute_values_are_kept() {
        // Chrome sends `<div contenteditable>`'s empty value as no string (-1).
        let text = r##"{"strings":["#document","DIV","contenteditable","id","x"],"documents":[{"nodes":{"parentIndex":[-1,0],"nodeType":[9,1],"nodeName":[0,1],"backendNodeId":[1,2],"attributes":[[],[2,-1,3,4]]},"layout":{}}]}"##;
        let t = read_snapshot(text, false, false).unwrap().tree.unwrap();
        let div = t.node(t.by_backend(2).unwrap()).unwrap();
        assert_eq!(div.attr("contenteditable"), Some(""));
        assert_eq!(div.attr("id"), Some("x"));
    }

    #[test]
    fn pointer_roots_and_listeners() {
        let mut hints = read_snapshot(PAGE, false, false).unwrap().click_hints;
        hints.sort();
        // The div is where `cursor: pointer` begins (the p inherits it); the p has a listener; so has the frame's button.
        assert_eq!(hints, vec![4, 5, 22]);
    }

    #[test]
    fn a_shadow_tree_is_left_out_and_its_host_named_for_its_element_tree() {
        let shadowed = PAGE.replacen(r#""isClickable""#, r#""shadowRootType":{"index":[4],"value":[0]},"isClickable""#, 1);
        let read = read_snapshot(&shadowed, false, false).unwrap();
        let whole = read_snapshot(PAGE, false, false).unwrap().tree.unwrap();
        let tree = read.tree.expect("the tree without the shadow tree");
        // Node 4 of the page's document (backend 5) is in a shadow tree: its host, node 3 (backend 4), is named.
        assert!(tree.by_backend(5).is_none(), "the flat tree's shadow part is not the element tree");
        let host = tree.by_backend(4).expect("the host is in the tree");
        assert_eq!(read.hosts, vec![(4, host)]);
        assert_eq!(tree.nodes.len() + 1, whole.nodes.len(), "only the shadow tree's node is left out");
        assert!(!read.click_hints.is_empty(), "click facts still count");
    }

    #[test]
    fn malformed_replies() {
        assert!(read_snapshot("{\"documents\":1}", false, true).is_err());
        assert!(read_snapshot("[", false, true).is_err());
        // Parents after children, out of range, or missing: those nodes are left out, nothing panics.
        let odd = r##"{"strings":["#document","DIV"],"documents":[{"nodes":{"parentIndex":[-1,5,0,-1],"nodeType":[9,1,1,1],"nodeName":[0,1,1,9],"backendNodeId":[1,2,3]},"layout":{}}]}"##;
        let t = read_snapshot(odd, true, true).unwrap().tree.unwrap();
        assert!(t.by_backend(2).is_none());
        assert_eq!(t.node(t.by_backend(3).unwrap()).unwrap().tag, "div");
        assert_eq!(t.nodes.len(), 2);
    }

    #[test]
    fn frames_in_other_processes_are_told_by_owners_without_documents() {
        // strings: 0 #document, 1 IFRAME, 2 OBJECT, 3 type, 4 application/x-shockwave-flash, 5 EMBED, 6 src, 7 a.swf, 8 b.html
        let page = |nodes: &str, docs: &str| {
            format!(
                r##"{{"strings":["#document","IFRAME","OBJECT","type","application/x-shockwave-flash","EMBED","src","a.swf","b.html"],"documents":[{{"nodes":{nodes},"layout":{{}}}}{docs}]}}"##
            )
        };
        let unhosted = |text: String| !with_snapshot(&text, unhosted_frame_owners).unwrap().is_empty();
        // An iframe hosting the second document: nothing to look for.
        let hosted = r#"{"parentIndex":[-1,0],"nodeType":[9,1],"nodeName":[0,1],"backendNodeId":[1,2],"contentDocumentIndex":{"index":[1],"value":[1]}}"#;
        let child = r#",{"nodes":{"parentIndex":[-1],"nodeType":[9],"nodeName":[0],"backendNodeId":[3]},"layout":{}}"#;
        assert!(!unhosted(page(hosted, child)));
        // The same iframe with no document in the reply: another process.
        assert!(unhosted(page(r#"{"parentIndex":[-1,0],"nodeType":[9,1],"nodeName":[0,1],"backendNodeId":[1,2]}"#, "")));
        // A flash object and an embed of a .swf are plugins, not frames; an embed of a page may be one.
        let plugins = r#"{"parentIndex":[-1,0,0],"nodeType":[9,1,1],"nodeName":[0,2,5],"backendNodeId":[1,2,3],"attributes":[[],[3,4],[6,7]]}"#;
        assert!(!unhosted(page(plugins, "")));
        let document = r#"{"parentIndex":[-1,0],"nodeType":[9,1],"nodeName":[0,5],"backendNodeId":[1,2],"attributes":[[],[6,8]]}"#;
        assert!(unhosted(page(document, "")));
    }
}
