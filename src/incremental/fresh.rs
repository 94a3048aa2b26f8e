//! One changed subtree, read again: its DOM from `DOM.describeNode({ depth:
//! -1, pierce: true })` and, node by node in the same order, what style and
//! layout say of it (`page/capture/subtree_facts.js`), joined into the mirror's
//! nodes in DOMSnapshot's shape. A whole document (the walk's
//! `DOM.getDocument`) is read the same way. The captures read both replies
//! into `dom::json_arena`, whose depth has no limit ([`Described`]).

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::dom::json_arena::{JArena, JVal};

use super::mirror::{MNode, Unpatchable, NONE};
use super::to_dom::DomPart;
use crate::dom::{DKind, ShadowKind};

/// A node of a described DOM: as the arena read it (the captures: as deep
/// as the page nests it, which serde_json would refuse past 128 JSON levels,
/// about 60 of the page's), or as serde_json read it (the unit tests build theirs so).
pub trait Described<'a>: Copy {
    /// The member `key`, of any kind.
    fn member(self, key: &str) -> Option<Self>;
    /// The items of the list `key` (none when it is not a list).
    fn items(self, key: &str) -> Vec<Self>;
    fn as_text(self) -> Option<&'a str>;
    fn as_int(self) -> Option<i64>;
    fn as_flag(self) -> Option<bool>;
    fn is_list(self) -> bool;

    fn text(self, key: &str) -> Option<&'a str> {
        self.member(key).and_then(Self::as_text)
    }
    fn int(self, key: &str) -> Option<i64> {
        self.member(key).and_then(Self::as_int)
    }
    fn flag(self, key: &str) -> Option<bool> {
        self.member(key).and_then(Self::as_flag)
    }
}

impl<'a> Described<'a> for &'a Value {
    fn member(self, key: &str) -> Option<Self> {
        self.get(key)
    }
    fn items(self, key: &str) -> Vec<Self> {
        self.get(key).and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default()
    }
    fn as_text(self) -> Option<&'a str> {
        self.as_str()
    }
    fn as_int(self) -> Option<i64> {
        self.as_i64()
    }
    fn as_flag(self) -> Option<bool> {
        self.as_bool()
    }
    fn is_list(self) -> bool {
        self.is_array()
    }
}

/// A value of a [`JArena`]: `at` is its index.
#[derive(Clone, Copy)]
pub struct InArena<'a, 't> {
    pub arena: &'a JArena<'t>,
    pub at: u32,
}

impl<'a, 't> Described<'a> for InArena<'a, 't> {
    fn member(self, key: &str) -> Option<Self> {
        self.arena.field(self.at, key).map(|at| InArena { arena: self.arena, at })
    }
    fn items(self, key: &str) -> Vec<Self> {
        self.arena.arr_at(self.arena.field(self.at, key)).iter().map(|&at| InArena { arena: self.arena, at }).collect()
    }
    fn as_text(self) -> Option<&'a str> {
        match self.arena.get(self.at)? {
            JVal::Str(s) => Some(s),
            _ => None,
        }
    }
    fn as_int(self) -> Option<i64> {
        // An integral number as serde_json's `as_i64` reads one (DOM ids and counts are well inside f64's exact range).
        match self.arena.get(self.at)? {
            JVal::Num(n) if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 => Some(*n as i64),
            _ => None,
        }
    }
    fn as_flag(self) -> Option<bool> {
        match self.arena.get(self.at)? {
            JVal::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn is_list(self) -> bool {
        matches!(self.arena.get(self.at), Some(JVal::Arr(_)))
    }
}

/// The event types that make Chrome report a node as clickable
/// (`Node::WillRespondToMouseClickEvents`: mouse button events).
const CLICK_EVENTS: [&str; 5] = ["click", "mousedown", "mouseup", "dblclick", "auxclick"];

/// The facts script's list in its evaluation's reply (`None`: no value).
///
/// The script sends its list as one JSON string, which crosses DevTools
/// whole: a returned list is turned into protocol values item by item. On the
/// generated app page (about 400 entries, 15 KB) the same entries took 6.9 ms
/// a round trip as a list and 3.1 ms as one string (a one-off probe over
/// Playwright's CDP session, 2026-11-27). A list is still read as one.
pub fn facts_in(reply: &Value) -> Option<Value> {
    match reply.pointer("/result/value")? {
        Value::String(text) => crate::compat::json_text::from_str_lossy(text).ok(),
        other => Some(other.clone()),
    }
}

/// The subtree in pre-order, each node's `parent` an index into the list.
/// `root` is the `DOM.describeNode` result's node, `facts` the script's list,
/// `listeners` the `DOMDebugger.getEventListeners` result for the subtree.
pub fn read<'a, D: Described<'a>>(root: D, facts: &Value, listeners: Option<&Value>) -> Result<Vec<MNode>, Unpatchable> {
    read_nodes(root, facts, listeners, None).map(|(nodes, _)| nodes)
}

/// A frame's document a whole-document read entered.
#[derive(Debug, Clone, PartialEq)]
pub struct Entered {
    /// Its document node's index in the list.
    pub root: u32,
    /// The frame owner's `frameId`, and the document's URLs.
    pub frame_id: Option<String>,
    pub base_url: Option<String>,
    pub document_url: Option<String>,
}

/// A whole document (`root`, the `DOM.getDocument` root) with the documents
/// of its frames in this process, as the script lists them given a document:
/// the page's nodes first, then each frame's in the order their owners were
/// met. A frame owner's `content_doc` is its document's place among all (the
/// page's is 0), as in a DOM snapshot.
///
/// A generated box the script left for later (0: see `subtree_facts.js`)
/// that `DOM.getDocument` lists is not read; `later` gets it as `(the
/// element's index in the facts, its pseudo-element's kind)`.
pub fn read_document<'a, D: Described<'a>>(
    root: D,
    facts: &Value,
    listeners: Option<&Value>,
    later: &mut Vec<(usize, &'static str)>,
) -> Result<(Vec<MNode>, Vec<Entered>), Unpatchable> {
    read_nodes(root, facts, listeners, Some(later))
}

/// `later`: a whole document's read (frames entered, generated boxes left for later listed there).
fn read_nodes<'a, D: Described<'a>>(
    root: D,
    facts: &Value,
    listeners: Option<&Value>,
    mut later: Option<&mut Vec<(usize, &'static str)>>,
) -> Result<(Vec<MNode>, Vec<Entered>), Unpatchable> {
    let facts = facts.as_array().ok_or_else(|| bad("the page's facts are not a list"))?;
    let clickable: rustc_hash::FxHashSet<i64> = listeners
        .and_then(|l| l.get("listeners"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|l| l.get("type").and_then(Value::as_str).is_some_and(|t| CLICK_EVENTS.contains(&t)))
        .filter_map(|l| l.get("backendNodeId").and_then(Value::as_i64))
        .collect();
    let mut out: Vec<MNode> = Vec::new();
    let mut next_fact = 0usize;
    let mut entered: Vec<Entered> = Vec::new();
    let mut owners: Vec<Owner<'a, D>> = Vec::new();
    let mut walk_from = Some(root);
    let mut next_owner = 0usize;
    while let Some(start) = walk_from.take() {
        walk(start, facts, &clickable, &mut later, &mut next_fact, &mut out, &mut owners)?;
        // The next frame's document: the script lists [-1] for an owner it found none in.
        while next_owner < owners.len() {
            let Owner { document: doc, at: owner, frame_id } = owners[next_owner];
            next_owner += 1;
            let fact = facts.get(next_fact).and_then(Value::as_array).ok_or_else(|| bad("the page listed fewer documents than the DOM has"))?;
            let none = fact.first().and_then(Value::as_i64) == Some(-1);
            match (doc, none) {
                (None, true) => next_fact += 1,
                (Some(_), true) => return Err(Unpatchable("a frame of another origin is in this process".into())),
                (None, false) => return Err(bad("the page's walk and the DOM's disagree on a frame")),
                (Some(doc), false) => {
                    let root = out.len() as u32;
                    entered.push(Entered {
                        root,
                        frame_id: frame_id.map(str::to_string),
                        base_url: doc.text("baseURL").map(str::to_string),
                        document_url: doc.text("documentURL").map(str::to_string),
                    });
                    if let Some(o) = out.get_mut(owner as usize) {
                        o.content_doc = Some(entered.len());
                    }
                    walk_from = Some(doc);
                    break;
                }
            }
        }
    }
    if next_fact != facts.len() {
        return Err(bad("the page listed more nodes than the DOM has (the subtree changed while it was read)"));
    }
    Ok((out, entered))
}

/// A frame owner a whole-document read met: its document if this process has it, its index, its frame.
#[derive(Clone, Copy)]
struct Owner<'a, D> {
    document: Option<D>,
    at: u32,
    frame_id: Option<&'a str>,
}

/// One tree (a subtree, or a document without its frames') in pre-order, its root's parent none.
fn walk<'a, D: Described<'a>>(
    root: D,
    facts: &[Value],
    clickable: &rustc_hash::FxHashSet<i64>,
    later: &mut Option<&mut Vec<(usize, &'static str)>>,
    next_fact: &mut usize,
    out: &mut Vec<MNode>,
    owners: &mut Vec<Owner<'a, D>>,
) -> Result<(), Unpatchable> {
    let whole = later.is_some();
    // A subtree is read as DOMSnapshot lists it, in the flat tree: a host's children are its
    // shadow tree's, a slot's the light nodes assigned to it (`distributedNodes`, found by
    // their ids among the host's children), and a light child no slot takes is not there.
    // Each node is named with the shadow tree it is in (`MNode::shadow`; None: the root's
    // tree, which the mirror names). A whole document (the walk) holds none of them.
    let described = if whole { FxHashMap::default() } else { by_backend(root) };
    // The nodes taken into slots so far: a node taken twice (a reply whose slot takes one of
    // its own ancestors) would make the walk endless.
    let mut taken: rustc_hash::FxHashSet<i64> = rustc_hash::FxHashSet::default();
    // The trees the walk is in: (the kind of shadow root, the tree its host is in); 0 is the root's.
    let mut trees: Vec<(Option<String>, usize)> = vec![(None, 0)];
    // (described node, its parent's index in `out`, the tree it is in)
    let mut stack: Vec<(D, u32, usize)> = vec![(root, NONE, 0)];
    while let Some((d, parent, tree)) = stack.pop() {
        let node_type = d.int("nodeType").ok_or_else(|| bad("a described node has no type"))?;
        let name = d.text("nodeName").unwrap_or_default().to_string();
        let backend = d.int("backendNodeId").ok_or_else(|| bad("a described node has no backendNodeId"))?;
        let local = d.text("localName");
        let frame_owner = node_type == 1 && matches!(local, Some("iframe" | "frame")) && d.flag("isSVG") != Some(true);
        // A frame owner whose document is in this process (another of the mirror's documents).
        // (`frameId` alone says little: a frame's root element carries it too, and the
        // owner of a frame in another process has no document here.)
        if d.member("contentDocument").is_some() && !(whole && frame_owner) {
            return Err(Unpatchable("a changed subtree holds a frame".into()));
        }
        // User-agent roots (inside `<input>`, `<video>`) are not in DOMSnapshot's walk.
        let shadow_root = d.items("shadowRoots").into_iter().find(|r| r.text("shadowRootType") != Some("user-agent"));
        if whole && shadow_root.is_some() {
            return Err(Unpatchable("a changed subtree holds a shadow root".into()));
        }
        let fact = facts.get(*next_fact).and_then(Value::as_array).ok_or_else(|| bad("the page listed fewer nodes than the DOM has"))?;
        *next_fact += 1;
        let fact_type = fact.first().and_then(Value::as_i64).unwrap_or(-1);
        if fact_type != node_type || (node_type == 1 && fact.get(1).and_then(Value::as_str) != Some(name.as_str())) {
            return Err(bad("the page's walk and the DOM's disagree (the subtree changed while it was read)"));
        }
        let styles = |k: usize| -> Option<Vec<String>> {
            fact.get(k).and_then(Value::as_array).map(|a| a.iter().map(|v| v.as_str().unwrap_or_default().to_string()).collect())
        };
        let shadow = trees.get(tree).and_then(|t| t.0.clone());
        let mut node = MNode { node_type, name, backend, parent, alive: true, shadow, ..MNode::default() };
        let here = out.len() as u32;
        match node_type {
            1 => {
                node.attrs = attributes(d);
                node.styles = styles(2);
                node.input_value = fact.get(6).and_then(Value::as_str).map(str::to_string);
                node.text_value = fact.get(7).and_then(Value::as_str).map(str::to_string);
                node.checked = fact.get(8).and_then(Value::as_bool).unwrap_or(false);
                node.selected = fact.get(9).and_then(Value::as_bool).unwrap_or(false);
                // Chrome's `isClickable`: by the element's nature, or by a mouse button listener unless it is a disabled field.
                node.clickable = match fact.get(10) {
                    Some(Value::Bool(true)) => true,
                    Some(Value::Null) => false,
                    _ => clickable.contains(&backend),
                };
                out.push(node);
                if whole && frame_owner {
                    owners.push(Owner { document: d.member("contentDocument"), at: here, frame_id: d.text("frameId") });
                }
                // DOMSnapshot lists an element's generated boxes first, as its children.
                for (k, kind) in [(3usize, "marker"), (4, "before"), (5, "after")] {
                    let Some(p) = pseudo_element(d, kind) else { continue };
                    let Some(st) = styles(k) else {
                        if let (Some(asks), Some(0)) = (later.as_deref_mut(), fact.get(k).and_then(Value::as_i64)) {
                            asks.push((*next_fact - 1, kind));
                        }
                        continue;
                    };
                    let backend = p.int("backendNodeId").ok_or_else(|| bad("a pseudo-element has no backendNodeId"))?;
                    out.push(MNode {
                        node_type: 1,
                        name: format!("::{kind}"),
                        backend,
                        pseudo: Some(kind.to_string()),
                        styles: Some(st),
                        parent: here,
                        alive: true,
                        ..MNode::default()
                    });
                }
            }
            3 => {
                // A long text comes whole from the page: `describeNode` cuts it at 10,000 characters.
                let whole = fact.get(2).and_then(Value::as_str);
                node.value = whole.or_else(|| d.text("nodeValue")).map(str::to_string);
                node.styles = styles(1);
                out.push(node);
            }
            _ => {
                node.value = d.text("nodeValue").map(str::to_string).filter(|_| node_type == 8);
                // A document always has a layout object (its view), with no computed styles, as DOMSnapshot lists it.
                if node_type == 9 {
                    node.styles = Some(Vec::new());
                }
                out.push(node);
            }
        }
        let walk_children = node_type != 1 || !matches!(local, Some("template" | "iframe" | "frame"));
        if !walk_children {
            continue;
        }
        if let Some(r) = shadow_root {
            // A host: its shadow tree's children, in a tree of their own.
            let kind = r.text("shadowRootType").unwrap_or("open").to_string();
            trees.push((Some(kind), tree));
            let inner = trees.len() - 1;
            let kids = children_of(r)?;
            stack.extend(kids.into_iter().rev().map(|c| (c, here, inner)));
            continue;
        }
        let assigned = if node_type == 1 && local == Some("slot") { d.items("distributedNodes") } else { Vec::new() };
        if !assigned.is_empty() {
            // A slot with nodes assigned: those, from the tree its host is in.
            let host_tree = trees.get(tree).map_or(0, |t| t.1);
            for a in assigned.into_iter().rev() {
                let b = a.int("backendNodeId").ok_or_else(|| bad("an assigned node has no backendNodeId"))?;
                let node = *described.get(&b).ok_or_else(|| Unpatchable("a slot takes a node from outside the subtree read".into()))?;
                if !taken.insert(b) {
                    return Err(bad("a node is assigned to a slot twice"));
                }
                stack.push((node, here, host_tree));
            }
            continue;
        }
        stack.extend(children_of(d)?.into_iter().rev().map(|c| (c, here, tree)));
    }
    Ok(())
}

/// The element tree of a described subtree, as `DOM.getDocument` lists one
/// (a node, its frame's document, its shadow roots, its children), when it
/// holds a shadow root or a slot: there the flat tree `read` gives is not it
/// (`super::to_dom::DomPart`). None for any other subtree.
pub fn dom_parts<'a, D: Described<'a>>(root: D) -> Option<Vec<DomPart>> {
    let parts = element_parts(root);
    let special =
        parts.iter().any(|p| matches!(p.kind, DKind::ShadowRoot(ShadowKind::Open | ShadowKind::Closed)) || (p.kind == DKind::Element && p.tag == "slot"));
    special.then_some(parts)
}

/// The elements, documents and shadow roots of a described subtree (or a
/// `DOM.getDocument` root) in `getDocument`'s order, each with the DOM
/// pass's attributes; what is none of those (text, comments, a template's
/// content) is left out with all below it.
pub fn element_parts<'a, D: Described<'a>>(root: D) -> Vec<DomPart> {
    let mut out = Vec::new();
    let mut stack: Vec<(D, u32)> = vec![(root, NONE)];
    while let Some((d, parent)) = stack.pop() {
        let kind = match d.int("nodeType") {
            Some(1) => DKind::Element,
            Some(9) => DKind::Document,
            Some(11) => match d.text("shadowRootType") {
                Some("open") => DKind::ShadowRoot(ShadowKind::Open),
                Some("closed") => DKind::ShadowRoot(ShadowKind::Closed),
                Some(_) => DKind::ShadowRoot(ShadowKind::UserAgent),
                None => continue,
            },
            _ => continue,
        };
        let tag = match d.text("localName") {
            Some(l) if !l.is_empty() => l.to_string(),
            _ => d.text("nodeName").unwrap_or_default().to_ascii_lowercase(),
        };
        let attrs = if kind == DKind::Element {
            attributes(d).into_iter().filter(|(k, _)| crate::dom::is_kept_attr(k)).map(|(k, v)| (k, v.unwrap_or_default())).collect()
        } else {
            Vec::new()
        };
        let frame_id = d.text("frameId").filter(|_| kind == DKind::Element).map(str::to_string);
        let here = out.len() as u32;
        out.push(DomPart { kind, tag, backend: d.int("backendNodeId").unwrap_or(-1), parent, frame_id, attrs });
        stack.extend(d.items("children").into_iter().rev().map(|c| (c, here)));
        stack.extend(d.items("shadowRoots").into_iter().rev().map(|c| (c, here)));
        if let Some(doc) = d.member("contentDocument") {
            stack.push((doc, here));
        }
    }
    out
}

/// A described node's children: all of them, or an error when the description stopped short.
fn children_of<'a, D: Described<'a>>(d: D) -> Result<Vec<D>, Unpatchable> {
    if d.member("children").is_some_and(Described::is_list) {
        Ok(d.items("children"))
    } else if d.int("childNodeCount").unwrap_or(0) > 0 {
        Err(bad("the DOM was described without all of its children"))
    } else {
        Ok(Vec::new())
    }
}

/// Every node of a described subtree by its backend id (light children and
/// shadow trees; not frames' documents or template contents), for the slots
/// that take them.
fn by_backend<'a, D: Described<'a>>(root: D) -> FxHashMap<i64, D> {
    let mut out = FxHashMap::default();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        if let Some(b) = d.int("backendNodeId") {
            out.insert(b, d);
        }
        stack.extend(d.items("children"));
        stack.extend(d.items("shadowRoots"));
    }
    out
}

fn bad(why: &str) -> Unpatchable {
    Unpatchable(why.to_string())
}

/// `[name, value, …]`; an empty value is no string, as DOMSnapshot sends it.
fn attributes<'a>(d: impl Described<'a>) -> Vec<(String, Option<String>)> {
    d.items("attributes")
        .chunks(2)
        .filter_map(|pair| match pair {
            [k, v] => {
                let v = v.as_text().unwrap_or_default();
                Some((k.as_text()?.to_string(), (!v.is_empty()).then(|| v.to_string())))
            }
            _ => None,
        })
        .collect()
}

/// The generated boxes of a whole document's walk that `DOM.getDocument`
/// lists, as `(the element's place in the walk's facts, kind)`, from the
/// document alone: the places [`read_document`] gives them (its pre-order,
/// then each frame owner's document or one place where it has none, in the
/// order the owners were met). Known before the walk's facts arrive, they
/// are asked for while the facts are still on their way.
pub fn generated_boxes<'a, D: Described<'a>>(root: D) -> Vec<(usize, &'static str)> {
    let mut boxes = Vec::new();
    let mut place = 0usize;
    let mut documents: Vec<Option<D>> = vec![Some(root)];
    let mut next = 0usize;
    let mut stack: Vec<D> = Vec::new();
    while next < documents.len() {
        let doc = documents[next];
        next += 1;
        let Some(doc) = doc else {
            place += 1;
            continue;
        };
        stack.push(doc);
        while let Some(d) = stack.pop() {
            let here = place;
            place += 1;
            let node_type = d.int("nodeType").unwrap_or(0);
            let local = d.text("localName");
            if node_type == 1 {
                for kind in ["marker", "before", "after"] {
                    if pseudo_element(d, kind).is_some() {
                        boxes.push((here, kind));
                    }
                }
                if matches!(local, Some("iframe" | "frame")) && d.flag("isSVG") != Some(true) {
                    documents.push(d.member("contentDocument"));
                }
            }
            if node_type != 1 || !matches!(local, Some("template" | "iframe" | "frame")) {
                stack.extend(d.items("children").into_iter().rev());
            }
        }
    }
    boxes
}

fn pseudo_element<'a, D: Described<'a>>(d: D, kind: &str) -> Option<D> {
    d.items("pseudoElements").into_iter().find(|p| p.text("pseudoType") == Some(kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn generated_boxes_are_placed_as_the_walk_lists_nodes_frames_included() {
        // A frame with no document here, a frame with one, a list item, and a template (whose
        // content the walk does not enter).
        let doc = json!({
            "nodeType": 9, "backendNodeId": 1, "children": [
                { "nodeType": 1, "localName": "html", "backendNodeId": 2, "children": [
                    { "nodeType": 1, "localName": "body", "backendNodeId": 3, "pseudoElements": [{ "pseudoType": "before", "backendNodeId": 30 }], "children": [
                        { "nodeType": 1, "localName": "iframe", "backendNodeId": 4 },
                        { "nodeType": 1, "localName": "iframe", "backendNodeId": 5, "contentDocument": {
                            "nodeType": 9, "backendNodeId": 50, "children": [
                                { "nodeType": 1, "localName": "p", "backendNodeId": 51, "pseudoElements": [{ "pseudoType": "before", "backendNodeId": 52 }] }
                            ] } },
                        { "nodeType": 1, "localName": "li", "backendNodeId": 6,
                            "pseudoElements": [{ "pseudoType": "marker", "backendNodeId": 60 }, { "pseudoType": "after", "backendNodeId": 61 }],
                            "children": [{ "nodeType": 3, "backendNodeId": 7, "nodeValue": "x" }] },
                        { "nodeType": 1, "localName": "template", "backendNodeId": 8, "children": [
                            { "nodeType": 1, "localName": "p", "backendNodeId": 9, "pseudoElements": [{ "pseudoType": "before", "backendNodeId": 90 }] }
                        ] }
                    ] }
                ] }
            ]
        });
        // Places: #document 0, HTML 1, BODY 2, IFRAME 3, IFRAME 4, LI 5, text 6, TEMPLATE 7;
        // then the first owner's (none: place 8), the second's #document 9 and its P 10.
        assert_eq!(generated_boxes(&doc), vec![(2, "before"), (5, "marker"), (5, "after"), (10, "before")]);
    }

    #[test]
    fn joins_the_dom_and_the_facts_in_order() {
        let described = json!({ "node": {
            "backendNodeId": 10, "nodeType": 1, "nodeName": "LI", "localName": "li", "attributes": ["class", "x", "hidden", ""],
            "pseudoElements": [{ "backendNodeId": 11, "nodeType": 1, "nodeName": "::marker", "pseudoType": "marker" }],
            "childNodeCount": 2,
            "children": [
                { "backendNodeId": 12, "nodeType": 3, "nodeName": "#text", "nodeValue": "one " },
                { "backendNodeId": 13, "nodeType": 1, "nodeName": "B", "localName": "b", "attributes": [], "childNodeCount": 0 }
            ]
        }});
        let facts = json!([
            [1, "LI", ["list-item"], ["inline"], null, null, null, null, false, false, false],
            [3, ["list-item"]],
            [1, "B", null, null, null, null, null, null, false, false, false]
        ]);
        let listeners = json!({ "listeners": [{ "type": "click", "backendNodeId": 13 }, { "type": "scroll", "backendNodeId": 10 }] });
        let nodes = read(&described["node"], &facts, Some(&listeners)).unwrap();
        let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["LI", "::marker", "#text", "B"]);
        assert_eq!(nodes[0].attrs, vec![("class".into(), Some("x".into())), ("hidden".into(), None)]);
        assert_eq!(nodes[1].parent, 0);
        assert_eq!(nodes[2].value.as_deref(), Some("one "));
        assert_eq!(nodes[3].parent, 0);
        assert!(nodes[3].clickable && !nodes[0].clickable, "only mouse button listeners count");
        assert!(nodes[3].styles.is_none(), "not laid out");
    }

    #[test]
    fn a_long_text_is_taken_whole_from_the_page_not_as_describe_node_cut_it() {
        let whole = "word ".repeat(5000);
        let cut = format!("{}\u{2026}", &whole[..10000]);
        let described = json!({ "node": {
            "backendNodeId": 1, "nodeType": 1, "nodeName": "P", "localName": "p", "attributes": [], "childNodeCount": 1,
            "children": [{ "backendNodeId": 2, "nodeType": 3, "nodeName": "#text", "nodeValue": cut }]
        }});
        let facts = json!([[1, "P", ["block"], null, null, null, null, null, false, false, false], [3, ["block"], whole]]);
        let nodes = read(&described["node"], &facts, None).unwrap();
        assert_eq!(nodes[1].value.as_deref(), Some(whole.as_str()));
        // A short text is as described (the page sends null for it).
        let facts = json!([[1, "P", ["block"], null, null, null, null, null, false, false, false], [3, ["block"], null]]);
        assert_eq!(read(&described["node"], &facts, None).unwrap()[1].value.as_deref(), Some(cut.as_str()));
    }

    fn facts_iframe() -> Value {
        json!([[1, "IFRAME", ["inline"], null, null, null, null, null, false, false, false]])
    }

    /// A host as `DOM.describeNode` gives it (recorded from Chromium 156): a shadow tree of a
    /// `p` holding a slot named `t` (fallback text) and a default slot; light children `b`
    /// (slot `t`), `i` (default slot) and `u` (a slot no one has).
    fn host() -> Value {
        let el = |b: i64, name: &str, attrs: Value, children: Value| json!({ "backendNodeId": b, "nodeType": 1, "nodeName": name, "localName": name.to_ascii_lowercase(), "attributes": attrs, "children": children });
        let text = |b: i64| json!({ "backendNodeId": b, "nodeType": 3, "nodeName": "#text", "nodeValue": "x" });
        let mut slot_t = el(5, "SLOT", json!(["name", "t"]), json!([text(7)]));
        slot_t["distributedNodes"] = json!([{ "nodeType": 1, "nodeName": "B", "backendNodeId": 6 }]);
        let mut slot = el(8, "SLOT", json!([]), json!([]));
        slot["distributedNodes"] = json!([{ "nodeType": 1, "nodeName": "I", "backendNodeId": 9 }]);
        let mut host = el(
            2,
            "X-A",
            json!(["id", "h"]),
            json!([
                el(6, "B", json!(["slot", "t"]), json!([text(10)])),
                el(9, "I", json!([]), json!([text(11)])),
                el(12, "U", json!(["slot", "none"]), json!([text(13)]))
            ]),
        );
        host["shadowRoots"] = json!([{ "backendNodeId": 3, "nodeType": 11, "nodeName": "#document-fragment", "shadowRootType": "open", "children": [el(4, "P", json!([]), json!([slot_t])), slot] }]);
        host
    }

    #[test]
    fn a_host_is_read_as_its_flat_tree_each_node_named_with_its_tree() {
        let element = |name: &str| json!([1, name, ["block"], null, null, null, null, null, false, false, false]);
        let text = json!([3, ["block"], null]);
        // The facts script walks the same flat tree: X-A, P, SLOT(t), B, its text, SLOT, I, its text.
        let facts = json!([element("X-A"), element("P"), element("SLOT"), element("B"), text, element("SLOT"), element("I"), text]);
        let nodes = read(&host(), &facts, None).unwrap();
        let seen: Vec<(i64, u32, Option<&str>)> = nodes.iter().map(|n| (n.backend, n.parent, n.shadow.as_deref())).collect();
        assert_eq!(
            seen,
            vec![(2, NONE, None), (4, 0, Some("open")), (5, 1, Some("open")), (6, 2, None), (10, 3, None), (8, 0, Some("open")), (9, 5, None), (11, 6, None)]
        );
        // Its element tree (for the DOM pass) is kept as the DOM has it: light children, shadow root, slots' own text.
        let parts = dom_parts(&host()).expect("a host's subtree");
        let tags: Vec<&str> = parts.iter().map(|p| p.tag.as_str()).collect();
        assert_eq!(tags, ["x-a", "#document-fragment", "p", "slot", "slot", "b", "i", "u"]);
        assert!(dom_parts(&host()["children"][0]).is_none(), "a light child's subtree is its own flat tree");
        // A slot's node from outside what was read (its host not read with it): not patched here.
        let inner = host()["shadowRoots"][0]["children"][0].clone();
        let facts = json!([element("P"), element("SLOT"), element("B"), text]);
        assert!(read(&inner, &facts, None).unwrap_err().0.contains("outside the subtree"));
        // A reply whose slot takes its own host goes round no more than once (the page's facts,
        // however many, are no bound on it).
        let mut looping = host();
        looping["shadowRoots"][0]["children"][1]["distributedNodes"] = json!([{ "nodeType": 1, "nodeName": "X-A", "backendNodeId": 2 }]);
        let round = [element("X-A"), element("P"), element("SLOT"), element("B"), text.clone(), element("SLOT")];
        let many = Value::Array(round.iter().cycle().take(600).cloned().collect());
        let err = read(&looping, &many, None).unwrap_err().0;
        assert!(err.contains("assigned to a slot twice"), "{err}");
    }

    #[test]
    fn refuses_what_it_cannot_patch() {
        let facts = json!([[1, "DIV", null, null, null, null, null, null, false, false]]);
        // A whole document with a shadow root is not the walk's to read (its capture falls back).
        let shadow = json!({ "node": { "backendNodeId": 1, "nodeType": 1, "nodeName": "DIV", "shadowRoots": [{ "shadowRootType": "open" }] } });
        assert!(read_document(&shadow["node"], &facts, None, &mut Vec::new()).unwrap_err().0.contains("shadow root"));
        let frame = json!({ "node": { "backendNodeId": 1, "nodeType": 1, "nodeName": "IFRAME", "frameId": "F", "contentDocument": {} } });
        let elsewhere = json!({ "node": { "backendNodeId": 1, "nodeType": 1, "nodeName": "IFRAME", "localName": "iframe", "frameId": "F" } });
        assert!(read(&elsewhere["node"], &facts_iframe(), None).is_ok(), "a frame in another process is read by its own capture");
        assert!(read(&frame["node"], &facts, None).unwrap_err().0.contains("frame"));
        let plain = json!({ "node": { "backendNodeId": 1, "nodeType": 1, "nodeName": "DIV" } });
        assert!(read(&plain["node"], &json!([]), None).is_err(), "fewer facts than nodes");
        assert!(read(&plain["node"], &json!([[1, "SPAN"]]), None).is_err(), "another node");
        assert!(read(&plain["node"], &json!([[1, "DIV"], [3, null]]), None).is_err(), "more facts than nodes");
    }
}
