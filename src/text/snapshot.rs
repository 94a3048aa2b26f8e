//! Assembling a `WebAiSnapshot` (SPEC §6) from a tree, page facts and options.

use crate::compat::hash::{estimate_tokens, hash_accessibility_snapshot};
use crate::dom::selector::{Located, Locator};
use crate::dom::DomTree;
use crate::options::SnapshotOptions;
use crate::text::numbering::RefMemory;
use crate::text::serialize::{serialize, ElementRef, HintFn, Keying, SelectorFn, Serialized};
use crate::tree::AxTree;
use serde::Serialize;
use serde_json::value::RawValue;

/// What the capture learned about the page besides its accessibility tree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageFacts {
    pub url: Option<String>,
    pub title: Option<String>,
    pub dom_hash: Option<String>,
    /// The page's viewport (`innerWidth`, `innerHeight`), for `viewportOnly`.
    pub viewport: Option<(f64, f64)>,
    pub notes: Vec<String>,
    /// Each frame's current document: frame id → `loaderId` (keys stable refs).
    pub documents: rustc_hash::FxHashMap<String, String>,
    /// The DOM engine's marks by script (`backendNodeId`s): the focused element,
    /// and the `<dialog>` shown with `showModal()`.
    pub focused: Option<i64>,
    pub modal: Option<i64>,
    /// Frames whose document was not read or not placed (the notes say which).
    pub unread_frames: usize,
    /// Which writing of the page the DOM hash came from, when it stopped
    /// before the page's end (`page_facts.js`): a repeat look whose changes
    /// all come after where it stopped keeps the hash (`take_changes.js`).
    pub hash_cut: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct WebAiSnapshot {
    pub snapshot_id: String,
    pub provider: Option<String>,
    pub url: Option<String>,
    pub title: Option<String>,
    pub dom_hash: Option<String>,
    pub ax_hash: String,
    pub text: String,
    pub refs: Vec<ElementRef>,
    pub notes: Vec<String>,
    pub node_count: usize,
    pub token_estimate: u64,
    /// The text's o200k count (counted when `maxTokens` is set).
    pub tokens: Option<usize>,
    pub capture_ms: f64,
    /// With a session's numbering: each ref's element key (order of `refs`) and the next free number.
    pub ref_keys: Vec<Option<String>>,
    pub next_ref: u32,
    /// With `includeElements`: seed 001's elements, focused ref and timestamp.
    pub elements: Option<Elements>,
    /// With `untrustedContent: 'mark'`: the boundaries' nonce and the page's origin.
    pub untrusted: Option<(String, String)>,
    /// A page session's capture: whether it read the whole page or only what
    /// changed since the session's last capture (None outside sessions, whose
    /// stats keep the old modules' fields).
    pub capture_mode: Option<CaptureMode>,
    /// With a session's capture: how many changed subtrees were read again.
    pub subtrees_reread: u32,
}

/// `stats.captureMode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CaptureMode {
    #[default]
    Full,
    Incremental,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Elements {
    pub list: Vec<crate::text::elements::Element>,
    pub focused: Option<String>,
    pub timestamp: String,
}

/// The page's `<canvas>` and `<video>` elements, whose content is pixels:
/// from the DOM read, or (without it) the videos in the tree.
fn media_elements(dom: &[DomTree], tree: &AxTree) -> (usize, usize) {
    if dom.is_empty() {
        return (0, tree.nodes.iter().filter(|n| n.role == "Video" || n.role == "video").count());
    }
    let mut counts = (0, 0);
    for n in dom.iter().flat_map(|t| t.nodes.iter()).filter(|n| n.is_element()) {
        match n.tag.as_str() {
            "canvas" => counts.0 += 1,
            "video" => counts.1 += 1,
            _ => {}
        }
    }
    counts
}

/// Build the snapshot; `dom` (the DOM pass, one tree per process) marks
/// clickable elements and gives every ref its selector, frames and hosts.
/// With `numbering` (a page session's): refs keep the numbers their elements had.
pub fn build_snapshot(
    tree: &AxTree,
    subtree_root: Option<u32>,
    facts: PageFacts,
    opts: &SnapshotOptions,
    numbering: Option<&RefMemory>,
    capture_ms: f64,
    dom: &[DomTree],
) -> WebAiSnapshot {
    let title = facts.title.clone().filter(|t| !t.is_empty()).or_else(|| tree.title().map(str::to_string));
    let hints = |frame: Option<&str>, backend: i64| crate::dom::hints_in(dom, frame, backend);
    let hint_fn: Option<HintFn<'_>> = if dom.is_empty() { None } else { Some(&hints) };
    let keying = numbering.map(|memory| Keying { memory, documents: &facts.documents });
    // One locator (it indexes the DOM on first use) for `more` lines' expand
    // hints (maxElements) and then for every ref.
    let shared_locator = std::cell::RefCell::new(Locator::new(dom));
    let select = |frame: Option<&str>, backend: i64| {
        shared_locator.borrow_mut().locate(frame, backend).and_then(|l| l.selector.filter(|_| l.frame_path.is_empty() && l.shadow_path.is_empty()))
    };
    let select_fn: Option<SelectorFn<'_>> = if dom.is_empty() || (opts.max_elements.is_none() && opts.max_tokens.is_none()) { None } else { Some(&select) };
    let untrusted = opts.mark_untrusted.then(|| (crate::text::untrusted::nonce(), crate::text::untrusted::origin_of(facts.url.as_deref())));
    // The boundaries are part of what the model reads: the budget is for the text inside them.
    let budgeted;
    let opts = match (opts.max_tokens, &untrusted) {
        (Some(max), Some((nonce, origin))) => {
            let frame = crate::text::tokens::count(&crate::text::untrusted::wrap("", nonce, origin)).unwrap_or(0) as u32;
            budgeted = SnapshotOptions { max_tokens: Some(max.saturating_sub(frame).max(1)), ..opts.clone() };
            &budgeted
        }
        _ => opts,
    };
    // Without a locator shared with the serializer (maxElements, maxTokens), the refs are
    // located on the other core while the serializer lays its lines out (neither reads what
    // the other makes): on the 40k-node page's first look (`WEB_AI_TRACE=1 node bench/replay.mjs
    // --only generated-40k`), locating its 3,751 refs took 2.3 ms and laying out its lines 1.8,
    // one after the other; side by side, build_snapshot went from 10.4 to 9.0 ms.
    let beside_layout = select_fn.is_none() && !dom.is_empty();
    // Not for a tree kept from the last build (a repeat look): its refs are mostly found in its
    // memo, and the renderer is then busy on the other core with the look after the capture
    // (`WEB_AI_TRACE=1 node bench/repeat-calls.mjs --kind add`: layout and locate side by side
    // took 0.5 ms longer than one after the other).
    let split = beside_layout && tree.nodes.len() >= crate::capture::PARALLEL_READ_NODES && dom.iter().all(|t| t.located.is_none());
    let locate_all = |refs: &[ElementRef]| -> Vec<Option<Located>> {
        if !beside_layout {
            return Vec::new();
        }
        crate::trace::timed("locate", || locate_refs(refs, tree, Locator::new(dom)))
    };
    let (Serialized { mut text, mut refs, notes: ser_notes, node_count, ref_keys, next_ref, mut unseen }, found) = crate::trace::timed("serialize", || {
        serialize(tree, subtree_root, title.as_deref(), facts.url.as_deref(), opts, hint_fn, keying.as_ref(), select_fn, split, locate_all)
    });
    let located = std::time::Instant::now();
    if text.is_empty() {
        text.push_str("- document");
    }
    let mut notes = tree.notes.clone();
    notes.extend(facts.notes);
    notes.extend(ser_notes);
    unseen.frames = facts.unread_frames;
    (unseen.canvases, unseen.videos) = media_elements(dom, tree);
    if !dom.is_empty() {
        let found: Vec<Option<Located>> = if beside_layout { found } else { locate_refs(&refs, tree, shared_locator.into_inner()) };
        let mut unlocated = Vec::new();
        let mut no_selector = Vec::new();
        for (r, found) in refs.iter_mut().zip(found) {
            match found {
                Some(located) => {
                    if located.selector.is_none() && !located.shadow_closed {
                        no_selector.push(r.ref_id.clone());
                    }
                    r.located = located;
                }
                None => unlocated.push(r.ref_id.clone()),
            }
        }
        if !unlocated.is_empty() {
            notes.push(format!("{} ref(s) are not in the DOM that was read and have no selector: {}", unlocated.len(), list_refs(&unlocated)));
        }
        if !no_selector.is_empty() {
            notes.push(format!("{} ref(s) have no unique CSS selector and resolve by backendNodeId only: {}", no_selector.len(), list_refs(&no_selector)));
        }
        let closed: Vec<&str> = refs.iter().filter(|r| r.located.shadow_closed).map(|r| r.ref_id.as_str()).collect();
        if !closed.is_empty() {
            notes.push(format!(
                "{} ref(s) are inside closed or built-in shadow roots, which no selector reaches; they resolve by backendNodeId: {}",
                closed.len(),
                list_refs(&closed)
            ));
        }
    }
    crate::trace::phase("locate.rest", located);
    let elements = opts.include_elements.then(|| {
        let (mut list, left_out, hidden) = crate::text::elements::elements(&refs, opts.max_elements);
        if hidden > 0 && hidden == refs.iter().filter(|r| r.blocked_by.is_none()).count() {
            notes.push("elements: no ref has a layout box (the DOM pass's boxes were not read), so none is listed".to_string());
        } else if hidden > 0 {
            notes.push(format!("elements: {hidden} ref(s) with no layout box, nor any above them, are hidden and not listed (seed 001 §1.3.2)"));
        }
        if opts.mark_untrusted {
            for e in list.iter_mut() {
                if let std::borrow::Cow::Owned(n) = crate::text::untrusted::neutralise(&e.name) {
                    e.name = n;
                }
            }
        }
        if left_out > 0 {
            notes.push(format!(
                "elements: {} of {} (maxElements; seed 001's ranking: in view first, then buttons and links, fields, lists, headings, regions, then document order)",
                list.len(),
                refs.len()
            ));
        }
        Elements { list, focused: crate::text::elements::focused(&refs).map(str::to_string), timestamp: crate::text::elements::timestamp_now() }
    });
    notes.extend(unseen.note());
    // The hash is of the page's text, not of the boundaries (a new nonce each time).
    let ax_hash = crate::trace::timed("ax_hash", || hash_accessibility_snapshot(&text));
    if let Some((nonce, origin)) = &untrusted {
        text = crate::text::untrusted::wrap(&crate::text::untrusted::neutralise(&text), nonce, origin);
    }
    WebAiSnapshot {
        snapshot_id: uuid::Uuid::new_v4().to_string(),
        provider: opts.provider.clone(),
        url: facts.url,
        title,
        dom_hash: facts.dom_hash,
        ax_hash,
        token_estimate: estimate_tokens(&text),
        tokens: opts.max_tokens.and_then(|_| crate::text::tokens::text_count(&text)),
        text,
        refs,
        notes,
        node_count,
        capture_ms,
        ref_keys,
        next_ref,
        elements,
        untrusted,
        capture_mode: None,
        subtrees_reread: 0,
    }
}

/// Where each ref's element is in the DOM, found by `locator` (or, for one
/// the DOM tree lacks, the element whose built-in shadow root holds it).
fn locate_refs(refs: &[ElementRef], tree: &AxTree, mut locator: Locator<'_>) -> Vec<Option<Located>> {
    let mut inside = InsideHosts::new(tree);
    refs.iter()
        .map(|r| {
            let frame = r.frame_id.as_deref();
            r.backend_node_id.and_then(|b| locator.locate(frame, b).or_else(|| inside.host_of(b, frame, &mut locator)))
        })
        .collect()
}

/// Finds, for a ref the DOM tree lacks, the element whose built-in shadow
/// root holds it: its nearest accessibility ancestor the tree has. Parents
/// and backend ids are indexed on first use, which most captures never need.
struct InsideHosts<'a> {
    tree: &'a AxTree,
    index: Option<(Vec<u32>, rustc_hash::FxHashMap<i64, u32>)>,
}

impl<'a> InsideHosts<'a> {
    fn new(tree: &'a AxTree) -> Self {
        InsideHosts { tree, index: None }
    }

    fn host_of(&mut self, backend: i64, frame: Option<&str>, locator: &mut Locator<'_>) -> Option<crate::dom::selector::Located> {
        let tree = self.tree;
        let (parents, by_backend) = self.index.get_or_insert_with(|| {
            let mut by_backend = rustc_hash::FxHashMap::default();
            for (i, n) in tree.nodes.iter().enumerate() {
                if let Some(b) = n.backend_node_id {
                    by_backend.entry(b).or_insert(i as u32);
                }
            }
            (tree.parents(), by_backend)
        });
        // Up from the node, nearest first; the step cap stops a malformed cycle.
        let mut cur = *by_backend.get(&backend)?;
        for _ in 0..parents.len() {
            cur = *parents.get(cur as usize).filter(|&&p| p != u32::MAX)?;
            if let Some(found) = tree.node(cur).and_then(|n| n.backend_node_id).and_then(|b| locator.locate_inside_host(frame, b)) {
                return Some(found);
            }
        }
        None
    }
}

fn list_refs<S: AsRef<str>>(refs: &[S]) -> String {
    let shown: Vec<&str> = refs.iter().take(10).map(AsRef::as_ref).collect();
    let more = if refs.len() > 10 { format!(" and {} more", refs.len() - 10) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// An `ElementRef` as JSON, in the field order of SPEC §6.
#[derive(Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct RefJson<'a> {
    #[serde(rename = "ref")]
    ref_id: &'a str,
    role: &'a str,
    name: &'a str,
    occurrence_index: u32,
    selector: &'a Option<String>,
    frame_path: &'a [String],
    shadow_path: &'a [String],
    signature_hash: &'a str,
    backend_node_id: Option<i64>,
    frame_id: &'a Option<String>,
    shadow_closed: bool,
    clickable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocked_by: &'a Option<String>,
}

impl<'a> From<&'a ElementRef> for RefJson<'a> {
    fn from(r: &'a ElementRef) -> RefJson<'a> {
        RefJson {
            ref_id: &r.ref_id,
            role: &r.role,
            name: &r.name,
            occurrence_index: r.occurrence_index,
            selector: &r.located.selector,
            frame_path: &r.located.frame_path,
            shadow_path: &r.located.shadow_path,
            signature_hash: &r.signature_hash,
            backend_node_id: r.backend_node_id,
            frame_id: &r.frame_id,
            shadow_closed: r.located.shadow_closed,
            clickable: r.clickable,
            blocked_by: &r.blocked_by,
        }
    }
}

/// Refs as an object keyed by ref, in document order (the order
/// `Object.values(snapshot.refs)` gives in JS).
struct RefsJson<'a>(&'a [ElementRef]);

impl Serialize for RefsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for r in self.0 {
            map.serialize_entry(&r.ref_id, &RefJson::from(r))?;
        }
        map.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StatsJson {
    node_count: usize,
    interactive_count: usize,
    token_estimate: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<usize>,
    capture_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    capture_mode: Option<CaptureMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    subtrees_reread: Option<u32>,
}

/// Refs whose values are JSON already (a value may be `0`: see `crate::text::sent_refs`).
struct RenderedRefs<'a>(&'a [(&'a str, &'a RawValue)]);

impl Serialize for RenderedRefs<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SnapshotJson<'a, R: Serialize> {
    snapshot_id: &'a str,
    provider: &'a Option<String>,
    url: &'a Option<String>,
    title: &'a Option<String>,
    dom_hash: &'a Option<String>,
    ax_hash: &'a str,
    text: &'a str,
    refs: R,
    notes: &'a [String],
    stats: StatsJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    elements: Option<&'a [crate::text::elements::Element]>,
    /// Present (maybe null) with `elements`.
    #[serde(skip_serializing_if = "Option::is_none")]
    focused: Option<Option<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    untrusted: Option<UntrustedJson<'a>>,
}

#[derive(Serialize)]
struct UntrustedJson<'a> {
    nonce: &'a str,
    origin: &'a str,
}

impl WebAiSnapshot {
    /// The snapshot as JSON text (SPEC §6).
    pub fn to_json(&self) -> String {
        self.json_with(RefsJson(&self.refs), true)
    }

    /// A ref's JSON (`snapshot.refs[ref]`); None if it would not serialize
    /// (strings, integers and booleans: never).
    pub fn ref_json(r: &ElementRef) -> Option<Box<RawValue>> {
        serde_json::value::to_raw_value(&RefJson::from(r)).ok()
    }

    /// Whether two refs are written as the same JSON but for their `signatureHash`.
    pub fn same_ref_json_but_signature(a: &ElementRef, b: &ElementRef) -> bool {
        RefJson { signature_hash: "", ..RefJson::from(a) } == RefJson { signature_hash: "", ..RefJson::from(b) }
    }

    /// The snapshot as JSON text with `refs` written as given (each entry is
    /// (ref, its value as JSON); see `crate::text::sent_refs`) and `text` as
    /// `""`: the text goes to JS as a string of its own, not escaped into
    /// the JSON and parsed out of it again.
    pub fn to_json_without_text(&self, refs: Option<&[(&str, &RawValue)]>) -> String {
        match refs {
            Some(refs) => self.json_with(RenderedRefs(refs), false),
            None => self.json_with(RefsJson(&self.refs), false),
        }
    }

    fn json_with<R: Serialize>(&self, refs: R, with_text: bool) -> String {
        let capture_ms = if self.capture_ms.is_finite() { (self.capture_ms * 1000.0).round() / 1000.0 } else { 0.0 };
        let view = SnapshotJson {
            snapshot_id: &self.snapshot_id,
            provider: &self.provider,
            url: &self.url,
            title: &self.title,
            dom_hash: &self.dom_hash,
            ax_hash: &self.ax_hash,
            text: if with_text { &self.text } else { "" },
            refs,
            notes: &self.notes,
            stats: StatsJson {
                node_count: self.node_count,
                interactive_count: self.refs.len(),
                token_estimate: self.token_estimate,
                tokens: self.tokens,
                capture_ms,
                capture_mode: self.capture_mode,
                subtrees_reread: self.capture_mode.map(|_| self.subtrees_reread),
            },
            elements: self.elements.as_ref().map(|e| e.list.as_slice()),
            focused: self.elements.as_ref().map(|e| e.focused.as_deref()),
            timestamp: self.elements.as_ref().map(|e| e.timestamp.as_str()),
            untrusted: self.untrusted.as_ref().map(|(nonce, origin)| UntrustedJson { nonce, origin }),
        };
        // Strings, integers and a finite float: serialization cannot fail.
        serde_json::to_string(&view).unwrap_or_default()
    }
}
