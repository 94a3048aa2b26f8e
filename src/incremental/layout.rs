//! Layout boxes for a repeat capture that needs them (`viewportOnly`,
//! `maxTokens`): the mirror keeps none, since boxes move with any change (a
//! row added moves every row below it; an image that loads or a scroll moves
//! them with no mutation at all). Each such look reads the box of every
//! laid-out element and text of the page's document again with one script
//! (`page/capture/layout_boxes.js`) and places them as a DOM snapshot's
//! bounds are placed (`crate::dom::snapshot_reader`): clipped by every
//! ancestor whose overflow clips, scrollers marked.
//!
//! Why a script and not a DOM snapshot: the snapshot carries the whole page
//! again (every text, every attribute) to give the boxes, and then the whole
//! page must be read and built again from it. `node bench/layout-boxes.mjs`
//! (2026-11-28, this 2-core machine) puts the script at 0.21–0.92× a bare
//! `DOMSnapshot.captureSnapshot` on the benchmark pages (0.50× on the
//! generated 40k-node page: 209 against 418 ms, a loaded run), and its boxes
//! equal the snapshot's bounds less the scroll offset: 53,673 of 54,006 to
//! the bit and 176 more within 0.02 px; the rest are SVG shapes and `wbr`,
//! which carry no text a snapshot shows.
//!
//! What the script cannot measure it leaves out, as a box the snapshot would
//! not give either: generated boxes (`::before`, `::after`, `::marker`),
//! whose visibility then follows their element's.

use serde_json::json;

use super::mirror::MNode;
use super::Mirror;
use crate::dom::viewport::{Boxes, Rect};

/// What the page's walk must meet to measure the mirror's nodes: which are
/// laid out, how many there are and the hash of their types and names.
pub struct Order {
    laid: String,
    count: usize,
    hash: u32,
    documents: usize,
}

const FNV_OFFSET: u32 = 0x811c_9dc5;
const FNV_PRIME: u32 = 0x0100_0193;

/// The hash `layout_boxes.js` keeps of each node it meets: its type, then
/// its name's UTF-16 code units.
/// (A document: its type alone.)
fn hash_node(mut hash: u32, n: &MNode) -> u32 {
    hash = (hash ^ n.node_type as u32).wrapping_mul(FNV_PRIME);
    if n.node_type == 9 {
        return hash;
    }
    for unit in n.name.encode_utf16() {
        hash = (hash ^ unit as u32).wrapping_mul(FNV_PRIME);
    }
    hash
}

/// Whether the script measures the node: an element or text with a layout object (a
/// document has one too, the layout view, whose box is its frame's viewport). Not a
/// text of white space alone: the engine makes no node of one (`engine/build.rs`), so
/// nothing asks for its box, and most texts of a real page are such (515 of ars-1's 734).
fn measured(n: &MNode) -> bool {
    n.styles.is_some()
        && match n.node_type {
            1 => true,
            3 => !n.value.as_deref().unwrap_or_default().trim().is_empty(),
            _ => false,
        }
}

/// The order of the mirror's page document, as the script will walk it.
pub fn order(m: &Mirror) -> Order {
    let nodes = m.document_order();
    let laid: String = nodes.iter().map(|(n, _)| if measured(n) { '1' } else { '0' }).collect();
    let hash = nodes.iter().fold(FNV_OFFSET, |h, (n, _)| hash_node(h, n));
    let documents = nodes.iter().filter(|(n, _)| n.node_type == 9).count();
    Order { laid, count: nodes.len(), hash, documents }
}

/// Where a listed node sits, for its children (see [`boxes`]).
#[derive(Clone, Copy)]
struct At {
    /// What the node's content is clipped by, in the page's viewport.
    inner: Rect,
    /// Where its document's viewport sits in the page's.
    offset: (f64, f64),
    /// Its document is shown (its owner has a box, and so on up).
    placed: bool,
    /// What the node itself is clipped by.
    own: Rect,
    /// Its box in the page's viewport, when it has one.
    rect: Option<Rect>,
}

impl At {
    const PAGE: At = At { inner: Rect::EVERYWHERE, offset: (0.0, 0.0), placed: true, own: Rect::EVERYWHERE, rect: None };
}

/// Why a page's looks that need boxes are full captures: `count` frames the
/// script cannot enter (another origin in the page's process).
pub fn other_origins(count: usize) -> String {
    format!("{count} frame(s) of other origins in the page's process, whose layout boxes only a full capture reads (viewportOnly, maxTokens)")
}

/// The script's call by name, for `Runtime.evaluate` in our world, where the
/// repeat capture's first question compiled it (`crate::page::LAYOUT_BOXES_FN`).
pub fn expression(order: &Order) -> String {
    format!("globalThis.{}({})", crate::page::LAYOUT_BOXES_FN, json!(order.laid))
}

/// The boxes of the script's answer (`value`, the string it returned) for
/// the mirror it was asked with. `overflow_at` is where `overflow-y` is
/// among the mirror's computed styles. An error says why the answer is not
/// of this mirror's page (it changed since, or lists other nodes).
pub fn boxes(m: &Mirror, order: &Order, value: &str, overflow_at: usize) -> Result<Boxes, String> {
    let (count, hash, documents, rects): (usize, u32, usize, Vec<f64>) =
        serde_json::from_str(value).map_err(|e| format!("the layout boxes' answer is not as written: {e}"))?;
    if documents < order.documents {
        return Err(other_origins(order.documents - documents));
    }
    if count != order.count || hash != order.hash {
        return Err(format!("the page lists {count} elements and texts where the mirror has {} (or others)", order.count));
    }
    let nodes = m.document_order();
    let laid = nodes.iter().filter(|(n, _)| measured(n)).count();
    if nodes.len() != count || rects.len() != laid * 4 {
        return Err(format!("the layout boxes' answer gives {} numbers for {laid} laid-out nodes", rects.len()));
    }
    let scrolls = |s: &str| matches!(s, "auto" | "scroll");
    let clips = |s: &str| matches!(s, "auto" | "scroll" | "hidden" | "clip");
    let mut out = Boxes::default();
    // Per listed node (parents come first): what its content is clipped by, where its
    // document's viewport sits in the page's, and its own box there.
    let mut at: Vec<At> = Vec::with_capacity(nodes.len());
    let mut next = rects.chunks_exact(4);
    for (n, parent) in &nodes {
        let up = at.get(*parent).copied();
        if n.node_type == 9 {
            // The page's document is the viewport; a frame's sits at its owner's box and is
            // seen through it. An owner with no box shows nothing of its document.
            at.push(match up {
                None => At::PAGE,
                Some(owner) => match owner.rect.filter(|_| owner.placed) {
                    Some(r) => At { inner: r.clip(owner.own), offset: (r.x, r.y), placed: true, own: owner.own, rect: None },
                    None => At { placed: false, ..owner },
                },
            });
            continue;
        }
        let up = up.unwrap_or(At::PAGE);
        let here = At { own: up.inner, rect: None, ..up };
        let Some(styles) = n.styles.as_ref().filter(|_| measured(n)) else {
            at.push(here);
            continue;
        };
        let Some(rect) = next.next().and_then(Rect::from_slice).map(|r| r.moved(up.offset.0, up.offset.1)) else {
            at.push(here);
            continue;
        };
        let overflow = styles.get(overflow_at).map(String::as_str);
        if up.placed {
            out.insert(n.backend, rect, up.inner);
            if overflow.is_some_and(scrolls) {
                out.mark_scroller(n.backend);
            }
        }
        // The root elements' overflow is the viewport's (CSS overflow propagation), not a box's.
        let root_element = n.name == "HTML" || n.name == "BODY";
        let inner = if overflow.is_some_and(clips) && !root_element { rect.clip(up.inner) } else { up.inner };
        at.push(At { inner, rect: Some(rect), ..here });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::viewport::Placement;
    use crate::incremental::mirror::{MDoc, NONE};

    /// A node of a test mirror: laid out with `overflow` (styles: cursor, overflow-y), or not.
    fn node(node_type: i64, name: &str, backend: i64, parent: u32, overflow: Option<&str>) -> MNode {
        MNode {
            node_type,
            name: name.into(),
            value: (node_type == 3).then(|| "words".to_string()),
            backend,
            parent,
            styles: overflow.map(|o| vec!["auto".to_string(), o.to_string()]),
            alive: true,
            ..MNode::default()
        }
    }

    /// document > html > body > (div.scroller > p > text, div[hidden] > text, span::before)
    fn page() -> Mirror {
        let nodes = vec![
            node(9, "#document", 1, NONE, Some("auto")),
            node(1, "HTML", 2, 0, Some("visible")),
            node(1, "BODY", 3, 1, Some("hidden")),
            node(1, "DIV", 4, 2, Some("auto")),
            node(1, "P", 5, 3, Some("visible")),
            node(3, "#text", 6, 4, Some("visible")),
            node(1, "DIV", 7, 2, None),
            node(3, "#text", 8, 6, None),
            // Laid out, but white space alone: no node of the engine's asks for its box.
            MNode { value: Some(" \n ".into()), ..node(3, "#text", 12, 2, Some("visible")) },
            node(1, "SPAN", 9, 2, Some("visible")),
            MNode { pseudo: Some("before".into()), ..node(1, "::before", 10, 9, Some("visible")) },
            node(8, "#comment", 11, 2, None),
        ];
        Mirror::from_read(nodes, vec![MDoc { root: 0, ..MDoc::default() }], 2)
    }

    fn answer(order: &Order, rects: &[[f64; 4]]) -> String {
        json!([order.count, order.hash, order.documents, rects.concat()]).to_string()
    }

    #[test]
    fn boxes_are_placed_and_clipped_as_a_snapshot_places_them() {
        let m = page();
        let order = order(&m);
        // Pseudo-elements and comments are not met; nodes outside layout are not measured.
        assert_eq!(order.laid, "0111110001", "the document, html, body, div, p, text, div (none), text (none), white space, span");
        assert_eq!(order.count, 10);
        let rects = [
            [0.0, 0.0, 800.0, 3000.0],
            [0.0, 0.0, 800.0, 3000.0],
            [0.0, 100.0, 300.0, 200.0],
            [0.0, 350.0, 300.0, 20.0],
            [0.0, 350.0, 120.0, 20.0],
            [0.0, 400.0, 50.0, 20.0],
        ];
        let b = boxes(&m, &order, &answer(&order, &rects), 1).expect("the answer is of this mirror");
        let view = Placement::page(800.0, 600.0);
        // The paragraph is inside the viewport but scrolled out of its scroller's box.
        assert_eq!(b.in_view(5, &view), Some(false));
        assert_eq!(b.in_view(6, &view), Some(false));
        assert_eq!(b.in_view(4, &view), Some(true));
        assert!(b.is_scroller(4) && !b.is_scroller(5));
        // BODY's `overflow: hidden` is the viewport's, not a clip of its own box.
        assert_eq!(b.in_view(9, &view), Some(true));
        // No box for a node outside layout, as in a DOM snapshot.
        assert_eq!(b.in_view(7, &view), None);
        assert_eq!(b.in_view(10, &view), None);
        assert_eq!(b.in_view(12, &view), None);
    }

    #[test]
    fn an_answer_of_another_page_or_shape_is_refused() {
        let m = page();
        let order = order(&m);
        let rects = [[0.0, 0.0, 1.0, 1.0]; 6];
        let other = Order { laid: order.laid.clone(), hash: order.hash ^ 1, ..order };
        assert!(boxes(&m, &order, &answer(&other, &rects), 1).is_err(), "other names");
        assert!(boxes(&m, &order, &answer(&order, &rects[..5]), 1).is_err(), "a box short");
        assert!(boxes(&m, &order, "[1, 2]", 1).is_err(), "not an answer");
        let blind = json!([order.count, order.hash, 0, rects.concat()]).to_string();
        assert!(boxes(&m, &order, &blind, 1).is_err_and(|e| e.contains("frame(s) of other origins")), "a document it could not enter");
        assert!(boxes(&m, &order, "not json", 1).is_err());
    }

    #[test]
    fn a_frame_document_is_placed_at_its_owner_and_seen_through_it() {
        let nodes = vec![
            node(9, "#document", 1, NONE, None),
            node(1, "HTML", 2, 0, Some("visible")),
            node(1, "BODY", 3, 1, Some("visible")),
            MNode { content_doc: Some(1), ..node(1, "IFRAME", 4, 2, Some("visible")) },
            node(1, "IFRAME", 5, 2, None),
            // The first frame's document: a paragraph inside the frame's box, one below it.
            node(9, "#document", 11, NONE, Some("auto")),
            node(1, "HTML", 12, 5, Some("visible")),
            node(1, "BODY", 13, 6, Some("visible")),
            node(1, "P", 14, 7, Some("visible")),
            node(1, "P", 15, 7, Some("visible")),
        ];
        let m = Mirror::from_read(nodes, vec![MDoc { root: 0, ..MDoc::default() }, MDoc { root: 5, ..MDoc::default() }], 2);
        let order = order(&m);
        assert_eq!(order.laid, "0111001111", "the page's nodes, then the frame's document and its nodes");
        let rects = [
            [0.0, 0.0, 800.0, 600.0],
            [0.0, 0.0, 800.0, 600.0],
            [100.0, 200.0, 300.0, 150.0],
            [0.0, 0.0, 300.0, 150.0],
            [0.0, 0.0, 300.0, 150.0],
            [10.0, 20.0, 100.0, 20.0],
            [10.0, 400.0, 100.0, 20.0],
        ];
        let b = boxes(&m, &order, &answer(&order, &rects), 1).expect("the answer is of this mirror");
        let view = Placement::page(800.0, 600.0);
        let (inside, shown) = b.placed(14, &view).expect("a box");
        assert_eq!((inside.x, inside.y), (110.0, 220.0), "at the owner's box");
        assert_eq!(shown, crate::dom::viewport::Shown::Fully);
        assert_eq!(b.in_view(15, &view), Some(false), "inside the viewport, but below the frame's box");
    }

    #[test]
    fn frames_of_other_origins_are_counted_by_their_documents_urls() {
        let doc = |url: &str| MDoc { document_url: Some(url.into()), ..MDoc::default() };
        let docs = |urls: &[&str]| {
            let nodes: Vec<MNode> = urls.iter().enumerate().map(|(i, _)| node(9, "#document", i as i64 + 1, NONE, None)).collect();
            let docs = urls.iter().enumerate().map(|(i, u)| MDoc { root: i as u32, ..doc(u) }).collect();
            Mirror::from_read(nodes, docs, 2).frames_of_other_origins()
        };
        assert_eq!(docs(&["https://a.example/x", "https://a.example/frame", "about:srcdoc", "about:blank"]), 0);
        assert_eq!(docs(&["https://a.example/x", "https://b.example/", "http://a.example/", "https://a.example:8443/"]), 3);
        // Opaque origins (an error page, data:, file:) are never the page's.
        assert_eq!(docs(&["https://a.example/x", "chrome-error://chromewebdata/", "data:text/html,hi"]), 2);
        assert_eq!(docs(&["file:///tmp/a.html", "file:///tmp/b.html", "about:srcdoc"]), 1);
    }
}
