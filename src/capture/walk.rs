//! The DOM engine's second way to read a page: `DOM.getDocument` and a walk
//! in our world (`page/capture/subtree_facts.js`, the script a repeat
//! capture reads a changed subtree with) instead of one
//! `DOMSnapshot.captureSnapshot`. Both give the mirror's nodes, and the
//! engine's page and the DOM pass's tree are made from the walk's mirror
//! directly (`CaptureSession::take_page_mirror`), as from Chrome's reply.
//!
//! Why: DOMSnapshot carries every text node whole, and apps keep megabytes
//! of JSON state and style text inline (`npm run bench:engine --
//! --script-heavy`, 2026-11-27: a bare DOMSnapshot of the generated app
//! page, 1.5 MB of state, took 34.6 ms, Playwright's whole AI snapshot 9.0),
//! while `DOM.getDocument` cuts each text at 10,000 characters and the walk
//! never reads a script's or style's text (the walked capture: 13.6 ms). Element for element the walk costs much more (JS reads
//! style and layout node by node, and `DOM.getDocument` costs most of a
//! snapshot again), so `domRead: 'auto'` walks only where the page facts of
//! the first capture of the document found inline text dwarfs the elements
//! ([`prefers_walk`]): an app page that ships its state inline, not a news
//! page with a few hundred kilobytes of script.
//!
//! What the walk cannot read (a shadow root, a frame of another origin in
//! the page's process, a page that changed while it was read, a tree nested
//! deeper than Chromium's DevTools sends) makes the capture take its DOM snapshot after all.
//!
//! The DOM agent is on only from `DOM.enable` to `DOM.disable`, both in the
//! walk's first batch, before any page script: a page script's `:modal`
//! query between `DOM.enable` and a `DOM.describeNode` once left Chromium
//! 156's renderer hung (see `repeat.rs`), and the agent off streams no
//! mutation events to the session afterwards.

use serde_json::{json, Value};

use crate::dom::json_arena::{self, JArena};
use crate::incremental::fresh::{Described, InArena};
use crate::incremental::mirror::MDoc;
use crate::incremental::{fresh, Mirror};

/// The remote objects a walk makes (the page's document, for its
/// listeners): let go by the next walk's first batch, so a capture waits for
/// no release.
pub const OBJECT_GROUP: &str = "__web_ai_snapshot_walk__";

/// Inline script and style characters from which a walk may cost less.
const MIN_INLINE_CHARS: f64 = 100_000.0;
/// Inline characters per element of the page from which the walk costs
/// less. The walk spends far more an element than the snapshot (its script
/// reads style and layout node by node, and `DOM.getDocument` costs most of
/// a snapshot again). `npm run bench:engine -- --script-heavy`, which forces
/// each read, 2026-11-27: nytimes-5 (765k inline characters, 770 an element)
/// walked in 90.6 ms against the snapshot's 56.1; the generated app page
/// (1.5 MB of state, about 14,000 an element) in 13.6 against 34.6; every
/// other script-heavy page (at most a few hundred an element) walked 1.6 to
/// 3.4 times slower. So the walk is for pages whose inline state dwarfs their UI.
const CHARS_PER_ELEMENT: f64 = 2_000.0;

/// Whether a page with `inline_chars` of inline script and style text and
/// `elements` elements is cheaper to walk than to snapshot.
pub fn prefers_walk(inline_chars: f64, elements: f64) -> bool {
    inline_chars >= MIN_INLINE_CHARS && inline_chars >= CHARS_PER_ELEMENT * elements
}

/// The walk of the whole document in our world, with the computed `styles` in
/// the capture's order: the script sent whole, and kept, the first time in a
/// world; called by name once a walk there `walked` (see `crate::page::TAKE_FN`
/// for what sending it costs).
pub fn facts_expression(styles: &[String], walked: bool) -> String {
    let name = crate::page::SUBTREE_FACTS_FN;
    if walked {
        format!("globalThis.{name}.call(document, {})", json!(styles))
    } else {
        format!("(globalThis.{name} = ({})).call(document, {})", crate::page::SUBTREE_FACTS, json!(styles))
    }
}

/// The walk's replies, read: what the page is, but for its listeners and the
/// generated boxes left for later (`later`: the element's place in the facts, the kind).
pub struct Parsed {
    /// The `DOM.getDocument` reply, read again by [`finish`]: the arena it is
    /// read into borrows its text (and a `Value` would stop at 128 JSON levels,
    /// about 60 of the page's).
    document: String,
    /// The walk's list (`fresh::facts_in`).
    facts: Value,
    pub later: Vec<(usize, &'static str)>,
}

fn json(text: &str, what: &str) -> Result<Value, String> {
    crate::compat::json_text::from_str_lossy::<Value>(text).map_err(|e| format!("the {what} reply is not JSON: {e}"))
}

/// The generated boxes `DOM.getDocument` lists (`fresh::generated_boxes`),
/// asked for as soon as the document is in: the evaluation queues behind the
/// walk's in the page, so its answer comes with the listeners' instead of a
/// round trip after the facts are read.
pub fn generated_boxes(document: &str) -> Result<Vec<(usize, &'static str)>, String> {
    let arena = document_arena(document)?;
    Ok(fresh::generated_boxes(root_of(&arena)?))
}

/// Read the `DOM.getDocument` reply and the walk's evaluation: as soon as
/// both are in, so that the generated boxes are asked for while the
/// listeners are, unless they were already (`asked`, by [`generated_boxes`]).
/// An error says why the walk cannot stand in for a DOM snapshot.
pub fn parse(document: String, facts: &str, asked: Option<Vec<(usize, &'static str)>>) -> Result<Parsed, String> {
    let facts = json(facts, "walk")?;
    if let Some(e) = facts.get("exceptionDetails") {
        let text = e.pointer("/exception/description").or_else(|| e.get("text")).and_then(Value::as_str).unwrap_or("an exception");
        return Err(format!("the walk threw: {text}"));
    }
    let facts = fresh::facts_in(&facts).ok_or("the walk gave no value")?;
    // Boxes asked early (which include those of elements the walk found with no layout: their
    // answers are null, as `pseudo_facts.js` answers only what the walk left for later) need no
    // read here: `finish` reads the document against the facts, and says as well why it cannot.
    if let Some(later) = asked {
        return Ok(Parsed { document, facts, later });
    }
    let mut later = Vec::new();
    {
        let arena = document_arena(&document)?;
        fresh::read_document(root_of(&arena)?, &facts, None, &mut later).map_err(|u| u.0)?;
    }
    Ok(Parsed { document, facts, later })
}

/// The `DOM.getDocument` reply, read with no limit on its depth.
fn document_arena(text: &str) -> Result<JArena<'_>, String> {
    json_arena::parse(text).map_err(|e| format!("the DOM.getDocument reply is not JSON: {e}"))
}

fn root_of<'a, 't>(arena: &'a JArena<'t>) -> Result<InArena<'a, 't>, String> {
    let at = arena.field(0, "root").ok_or("the DOM.getDocument reply has no root")?;
    Ok(InArena { arena, at })
}

/// The generated boxes' styles (`pseudo_facts.js`), asked in our world: always
/// asked, even for none, as it lets go of the walk's list of the page's nodes.
pub fn later_expression(styles: &[String], later: &[(usize, &str)]) -> String {
    let asks: Vec<Value> = later.iter().map(|(i, kind)| json!([i, format!("::{kind}")])).collect();
    crate::page::call_expression(crate::page::PSEUDO_FACTS, &[json!(styles), Value::Array(asks)])
}

/// The page as a mirror, with its listeners (the `DOMDebugger.getEventListeners`
/// reply for the document) and the generated boxes' styles (`later`: the
/// `pseudo_facts.js` evaluation; a box it gives none for has none).
pub fn finish(mut parsed: Parsed, listeners: &str, later: Option<&str>, frame_id: Option<String>, style_count: usize) -> Result<Mirror, String> {
    let listeners = json(listeners, "DOMDebugger.getEventListeners")?;
    let answers = later
        .and_then(|t| crate::compat::json_text::from_str_lossy::<Value>(t).ok())
        .and_then(|v| v.pointer("/result/value").and_then(Value::as_array).cloned())
        .unwrap_or_default();
    if let Some(list) = parsed.facts.as_array_mut() {
        for (k, (i, kind)) in parsed.later.iter().enumerate() {
            let slot = match *kind {
                "marker" => 3,
                "before" => 4,
                _ => 5,
            };
            if let Some(fact) = list.get_mut(*i).and_then(Value::as_array_mut).and_then(|f| f.get_mut(slot)) {
                *fact = answers.get(k).cloned().unwrap_or(Value::Null);
            }
        }
    }
    let arena = document_arena(&parsed.document)?;
    let root = root_of(&arena)?;
    let doc = MDoc { frame_id, base_url: root.text("baseURL").map(str::to_string), document_url: root.text("documentURL").map(str::to_string), root: 0 };
    let mut left = Vec::new();
    let (nodes, entered) = fresh::read_document(root, &parsed.facts, Some(&listeners), &mut left).map_err(|u| u.0)?;
    let frames = entered.into_iter().map(|e| MDoc { frame_id: e.frame_id, base_url: e.base_url, document_url: e.document_url, root: e.root });
    Ok(Mirror::from_read(nodes, std::iter::once(doc).chain(frames).collect(), style_count))
}

/// [`parse`] and [`finish`] for a walk that left nothing for later.
#[cfg(test)]
fn read(document: &str, facts: &str, listeners: &str, frame_id: Option<String>, style_count: usize) -> Result<Mirror, String> {
    finish(parse(document.to_string(), facts, None)?, listeners, None, frame_id, style_count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::incremental::mirror::NONE as NONE_INDEX;

    #[test]
    fn walks_only_where_inline_text_outweighs_the_elements() {
        // The generated app page: 1.5 MB of state, about 110 elements.
        assert!(prefers_walk(1_560_000.0, 110.0));
        // A large page with ordinary inline script: the snapshot.
        assert!(!prefers_walk(200_000.0, 10_000.0));
        // nytimes-5: 765k characters of inline script among 994 elements: still the snapshot.
        assert!(!prefers_walk(765_571.0, 994.0));
        // A small page with little script: the snapshot.
        assert!(!prefers_walk(20_000.0, 50.0));
    }

    fn facts_reply(list: Value) -> String {
        json!({ "result": { "type": "object", "value": list } }).to_string()
    }

    #[test]
    fn the_document_becomes_a_mirror_in_dom_snapshot_shape() {
        let document = json!({ "root": {
            "backendNodeId": 1, "nodeType": 9, "nodeName": "#document", "documentURL": "https://a.test/", "baseURL": "https://a.test/",
            "childNodeCount": 1,
            "children": [{ "backendNodeId": 2, "nodeType": 1, "nodeName": "HTML", "localName": "html", "attributes": ["lang", "en"], "childNodeCount": 1,
                "children": [{ "backendNodeId": 3, "nodeType": 1, "nodeName": "BUTTON", "localName": "button", "attributes": [], "childNodeCount": 1,
                    "children": [{ "backendNodeId": 4, "nodeType": 3, "nodeName": "#text", "nodeValue": "Go" }] }] }]
        }})
        .to_string();
        let facts = facts_reply(json!([
            [9, "#document"],
            [1, "HTML", ["block"], null, null, null, null, null, false, false, false],
            [1, "BUTTON", ["inline-block"], null, null, null, null, null, false, false, false],
            [3, ["inline-block"], null]
        ]));
        let listeners = json!({ "listeners": [{ "type": "click", "backendNodeId": 3 }] }).to_string();
        let m = read(&document, &facts, &listeners, Some("F".into()), 1).unwrap();
        assert_eq!(m.len(), 4);
        assert!(m.node_of(3).is_some_and(|n| n.clickable && n.children.len() == 1));
        let snap = m.to_snapshot();
        assert_eq!(snap.documents.len(), 1);
        assert_eq!(snap.documents[0].nodes.node_type, vec![9, 1, 1, 3]);
        assert_eq!(snap.documents[0].nodes.parent_index, vec![-1, 0, 1, 2]);
        assert_eq!(crate::dom::snapshot_reader::string(&snap, snap.documents[0].frame_id), Some("F"));
    }

    #[test]
    fn frame_documents_follow_the_page_as_documents_of_their_own() {
        let document = json!({ "root": { "backendNodeId": 1, "nodeType": 9, "nodeName": "#document", "documentURL": "https://a.test/", "childNodeCount": 2,
            "children": [
                { "backendNodeId": 2, "nodeType": 1, "nodeName": "IFRAME", "localName": "iframe", "frameId": "G", "attributes": [],
                  "contentDocument": { "backendNodeId": 3, "nodeType": 9, "nodeName": "#document", "documentURL": "about:blank", "childNodeCount": 1,
                    "children": [{ "backendNodeId": 4, "nodeType": 1, "nodeName": "P", "localName": "p", "attributes": [], "childNodeCount": 0 }] } },
                { "backendNodeId": 5, "nodeType": 1, "nodeName": "IFRAME", "localName": "iframe", "frameId": "H", "attributes": [] }
            ] } })
        .to_string();
        let el = |name: &str| json!([1, name, ["block"], null, null, null, null, null, false, false, false]);
        // The page, then one entry a frame owner: the first's document, the second's none (another process).
        let facts = facts_reply(json!([[9, "#document"], el("IFRAME"), el("IFRAME"), [9, "#document"], el("P"), [-1]]));
        let m = read(&document, &facts, r#"{"listeners":[]}"#, Some("F".into()), 1).unwrap();
        assert_eq!(m.document_count(), 2);
        assert_eq!(m.node_of(2).and_then(|n| n.content_doc), Some(1));
        assert_eq!(m.node_of(5).and_then(|n| n.content_doc), None);
        assert!(m.node_of(3).is_some_and(|d| d.parent == NONE_INDEX && d.styles.as_deref() == Some(&[][..])), "a document is laid out, with no styles");
        let snap = m.to_snapshot();
        assert_eq!(crate::dom::snapshot_reader::string(&snap, snap.documents[1].frame_id), Some("G"));
        assert_eq!(snap.documents[1].nodes.node_type, vec![9, 1]);
    }

    #[test]
    fn generated_boxes_are_asked_for_only_where_the_dom_lists_them() {
        let document = json!({ "root": { "backendNodeId": 1, "nodeType": 9, "nodeName": "#document", "childNodeCount": 2,
            "children": [
                { "backendNodeId": 2, "nodeType": 1, "nodeName": "P", "localName": "p", "attributes": [], "childNodeCount": 0,
                  "pseudoElements": [{ "backendNodeId": 9, "nodeType": 1, "nodeName": "::before", "pseudoType": "before" }] },
                { "backendNodeId": 3, "nodeType": 1, "nodeName": "P", "localName": "p", "attributes": [], "childNodeCount": 0 }
            ] } })
        .to_string();
        // Both paragraphs laid out, their boxes left for later (0).
        let facts = facts_reply(json!([
            [9, "#document"],
            [1, "P", ["block"], null, 0, 0, null, null, false, false, false],
            [1, "P", ["block"], null, 0, 0, null, null, false, false, false]
        ]));
        let parsed = parse(document.clone(), &facts, None).unwrap();
        assert_eq!(parsed.later, vec![(1, "before")], "only the ::before the DOM lists");
        assert!(later_expression(&["display".into()], &parsed.later).ends_with(r#"(["display"], [[1,"::before"]])"#));
        let answer = json!({ "result": { "type": "object", "value": [["inline"]] } }).to_string();
        let m = finish(parsed, r#"{"listeners":[]}"#, Some(&answer), None, 1).unwrap();
        let before = m.node_of(9).expect("the ::before is in the mirror");
        assert_eq!((before.pseudo.as_deref(), before.parent), (Some("before"), 1));
        assert_eq!(before.styles.as_deref(), Some(&["inline".to_string()][..]));
        // A box the page gives no style for has none.
        let parsed = parse(document.clone(), &facts, None).unwrap();
        let none = json!({ "result": { "type": "object", "value": [null] } }).to_string();
        assert!(finish(parsed, r#"{"listeners":[]}"#, Some(&none), None, 1).unwrap().node_of(9).is_none());
        // Asked as soon as the document came: the same places, and the same mirror.
        let early = generated_boxes(&document).unwrap();
        assert_eq!(early, vec![(1, "before")]);
        let m = finish(parse(document.clone(), &facts, Some(early.clone())).unwrap(), r#"{"listeners":[]}"#, Some(&answer), None, 1).unwrap();
        assert_eq!(m.node_of(9).and_then(|n| n.styles.clone()), Some(vec!["inline".to_string()]));
        // A page that changed between the document and the walk is still found out, by `finish`.
        let fewer = facts_reply(json!([[9, "#document"], [1, "P", ["block"], null, 0, 0, null, null, false, false, false]]));
        let parsed = parse(document.clone(), &fewer, Some(early)).unwrap();
        assert!(finish(parsed, r#"{"listeners":[]}"#, Some(&answer), None, 1).is_err());
    }

    #[test]
    fn what_it_cannot_read_is_said() {
        let framed = json!({ "root": { "backendNodeId": 1, "nodeType": 9, "nodeName": "#document", "childNodeCount": 1,
            "children": [{ "backendNodeId": 2, "nodeType": 1, "nodeName": "IFRAME", "localName": "iframe", "frameId": "G", "contentDocument": { "backendNodeId": 3, "nodeType": 9 } }] } })
        .to_string();
        // A frame's document our world could not enter (another origin in this process).
        let facts = facts_reply(json!([[9, "#document"], [1, "IFRAME", null, null, null, null, null, null, false, false, false], [-1]]));
        assert!(read(&framed, &facts, r#"{"listeners":[]}"#, None, 1).unwrap_err().contains("another origin"));
        let threw = json!({ "exceptionDetails": { "text": "Uncaught", "exception": { "description": "TypeError: x" } } }).to_string();
        assert!(read(&framed, &threw, r#"{"listeners":[]}"#, None, 1).unwrap_err().contains("TypeError"));
        assert!(read("{", &facts, r#"{"listeners":[]}"#, None, 1).unwrap_err().contains("not JSON"));
    }

    #[test]
    fn a_document_nested_as_deep_as_a_page_likes_is_read_whole() {
        // serde_json stops at 128 JSON levels (about 60 of the page's); the arena has no such limit.
        let depth = 3_000;
        let div = |k: usize| {
            format!(r#"{{"backendNodeId":{},"nodeType":1,"nodeName":"DIV","localName":"div","attributes":[],"childNodeCount":1,"children":["#, 10 + k)
        };
        let text = r##"{"backendNodeId":5,"nodeType":3,"nodeName":"#text","nodeValue":"deep"}"##;
        let mut document = String::from(
            r##"{"root":{"backendNodeId":1,"nodeType":9,"nodeName":"#document","documentURL":"https://a.test/","childNodeCount":1,"children":[{"backendNodeId":2,"nodeType":1,"nodeName":"HTML","localName":"html","attributes":[],"childNodeCount":1,"children":["##,
        );
        for k in 0..depth {
            document.push_str(&div(k));
        }
        document.push_str(text);
        document.push_str(&"]}".repeat(depth + 1));
        document.push_str("]}}");
        let element = |name: &str| json!([1, name, ["block"], null, null, null, null, null, false, false, false]);
        let mut list = vec![json!([9, "#document"]), element("HTML")];
        list.extend((0..depth).map(|_| element("DIV")));
        list.push(json!([3, ["block"], null]));
        let m = read(&document, &facts_reply(Value::Array(list)), r#"{"listeners":[]}"#, None, 1).unwrap();
        assert_eq!(m.len(), depth + 3);
        assert_eq!(m.node_of(5).and_then(|n| n.value.as_deref()), Some("deep"));
        // Each element holds the next one, the deepest the text.
        for k in [0, depth / 2, depth - 1] {
            assert_eq!(m.node_of(10 + k as i64).map(|n| n.children.len()), Some(1), "div {k}");
        }
        let text_parent = m.node_of(5).map(|n| n.parent);
        assert_eq!(m.node_of(10 + depth as i64 - 1).map(|n| n.children.first().copied().is_some()), Some(true));
        assert_ne!(text_parent, Some(NONE_INDEX));
    }
}
