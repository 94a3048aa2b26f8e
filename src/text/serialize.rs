//! The text format of SPEC §5 and the ref rules of SPEC §6.
//!
//! Four passes over arenas, each an explicit-stack walk (page-controlled depth
//! never reaches the Rust call stack):
//! 1. view: drop what is never printed and lift its children;
//! 2. compact: merge adjacent text, drop text that repeats its parent;
//! 3. prune (`interactiveOnly`): drop nodes with nothing to show;
//! 4. refs, then print with the `maxDepth` cut.

use rustc_hash::FxHashMap;
use std::borrow::Cow;

use crate::compat::hash::{element_signature_hash, hash_doctor_field};
use crate::compat::js_string::{is_blank, json_quote, normalize_name, normalize_name_cow, push_json_quoted};
use crate::dom::selector::Located;
use crate::dom::Hints;
use crate::options::{SnapshotOptions, REF_BUDGET};
use crate::text::budget::{self, plural, Printed, NO_PARENT};
use crate::text::numbering::{element_key, Numberer, RefMemory};
use crate::tree::roles;
use crate::tree::{AxTree, States, Tristate};

/// One ref'd element (SPEC §6 `ElementRef`); the DOM pass fills `located`.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementRef {
    pub ref_id: String,
    pub role: String,
    pub name: String,
    pub occurrence_index: u32,
    pub signature_hash: String,
    pub backend_node_id: Option<i64>,
    pub frame_id: Option<String>,
    /// Ref'd for inviting a click (listener, pointer, tabindex, editable), not for its role.
    pub clickable: bool,
    pub located: Located,
    /// What seed 001's structured elements need: box, states, value, child refs.
    pub facts: RefFacts,
    /// Behind an open modal (`activeLayerOnly`): the modal, as `dialog "Cookies"`.
    pub blocked_by: Option<String>,
}

/// A ref'd element's facts beyond its line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RefFacts {
    /// Its box in the page's viewport and how much shows (with layout boxes only).
    pub placed: Option<(crate::dom::viewport::Rect, crate::dom::viewport::Shown)>,
    pub states: States,
    pub value: Option<String>,
    /// Indices (into the refs) of the refs whose nearest ref'd ancestor this is.
    pub children: Vec<u32>,
}

/// DOM facts about an accessibility node, by its frame and backend id.
pub type HintFn<'h> = &'h dyn Fn(Option<&str>, i64) -> Hints;

/// A node's unique CSS selector, by its frame and backend id (for stub lines' `expand`).
pub type SelectorFn<'s> = &'s dyn Fn(Option<&str>, i64) -> Option<String>;

#[derive(Debug, Clone, Default)]
pub struct Serialized {
    pub text: String,
    pub refs: Vec<ElementRef>,
    pub notes: Vec<String>,
    pub node_count: usize,
    /// Each ref's element key (same order as `refs`), when numbering with a memory.
    pub ref_keys: Vec<Option<String>>,
    /// The first ref number not given yet.
    pub next_ref: u32,
    /// What the options left out (depth, viewport, budget), by kind.
    pub unseen: crate::text::unseen::Unseen,
}

/// A session's numbering: what it gave before, and each frame's document
/// (frame id → loaderId) to key elements by.
pub struct Keying<'k> {
    pub memory: &'k RefMemory,
    pub documents: &'k FxHashMap<String, String>,
}

const SIGNATURE_PATH_STEPS: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Element,
    Text,
}

#[derive(Debug, Clone)]
struct VNode<'a> {
    kind: Kind,
    role: Cow<'a, str>,
    /// Element: normalized name. Text: raw text until the compact pass.
    name: Cow<'a, str>,
    value: Option<Cow<'a, str>>,
    states: States,
    focusable: bool,
    hints: Hints,
    backend_node_id: Option<i64>,
    frame_id: Option<&'a str>,
    /// A link's target.
    url: Option<&'a str>,
    /// A scrollable region: its items scrolled out above and below.
    scrolled: (u32, u32),
    from_list_marker: bool,
    /// Text: the block it was written in (a nameless container in the tree,
    /// a line broken by `<br>`, or its element). compact joins text of one
    /// block only: a chapter's paragraphs in block `div`s stay on their own
    /// lines, while inline runs (`<b>`, `<span>`, which the tree leaves out
    /// as ignored) read as one.
    segment: u32,
    /// Printed only because the DOM says it is clickable: if it gets no ref
    /// after all, it is lifted like any nameless container.
    soft: bool,
    /// A long name taken from its content, which its children say in full
    /// (text between its links included): its line leaves the name out.
    name_said_below: bool,
    children: Vec<u32>,
    kept: bool,
}

impl<'a> VNode<'a> {
    fn element(role: Cow<'a, str>, name: Cow<'a, str>) -> VNode<'a> {
        VNode {
            kind: Kind::Element,
            role,
            name,
            value: None,
            states: States::default(),
            focusable: false,
            hints: Hints::default(),
            backend_node_id: None,
            frame_id: None,
            url: None,
            scrolled: (0, 0),
            from_list_marker: false,
            segment: 0,
            soft: false,
            name_said_below: false,
            children: Vec::new(),
            kept: true,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tier {
    One,
    Two,
    /// Tier 1 for the budget, ref'd for what the DOM says, not for its role.
    Clickable,
}

/// Serialize `tree` (or the subtree at `subtree_root`) with `title` for the
/// document line; `hints` (from the DOM pass) mark clickable elements.
/// `beside` is given the refs once they are final, and runs on a second
/// thread while the lines are laid out when `split` (the caller locates the
/// refs there: neither reads what the other makes).
// Each input is a different source (tree, page, options, DOM pass, session);
// bundling them would only move the list into a struct built at the one call.
#[allow(clippy::too_many_arguments)]
pub fn serialize<R: Send>(
    tree: &AxTree,
    subtree_root: Option<u32>,
    title: Option<&str>,
    page_url: Option<&str>,
    opts: &SnapshotOptions,
    hints: Option<HintFn<'_>>,
    keying: Option<&Keying<'_>>,
    selector: Option<SelectorFn<'_>>,
    split: bool,
    beside: impl FnOnce(&[ElementRef]) -> R + Send,
) -> (Serialized, R) {
    let max_name = opts.max_name_chars as usize;
    let mut notes: Vec<String> = Vec::new();
    use crate::trace::timed;
    let mut view = timed("serialize.view", || build_view(tree, subtree_root, title, max_name, hints, (opts.viewport_only, opts.mark_untrusted), &mut notes));
    for v in view.iter_mut() {
        v.url = v.url.filter(|_| opts.urls).map(|u| relative_url(u, page_url));
    }
    // Before viewportOnly drops what is off screen: those items are the ones to count.
    if hints.is_some() {
        timed("serialize.scrolled", || count_scrolled(&mut view));
    }
    let mut unseen = crate::text::unseen::Unseen::default();
    if opts.viewport_only {
        match hints {
            Some(_) => unseen.viewport = keep_in_view(&mut view, &mut notes),
            None => notes.push("viewportOnly needs the DOM pass (its layout boxes), which was off or not read, so the whole page is shown".into()),
        }
    }
    timed("serialize.text", || normalize_text(&mut view, opts.compact, opts.max_text_chars as usize, &mut notes));
    if opts.interactive_only {
        timed("serialize.prune", || prune(&mut view));
    }
    // A subtree keeps the context of where it sits: an option whose listbox is
    // above the rootSelector match is still inside an interactive container.
    let in_container = subtree_root
        .is_some_and(|r| tree.ancestors(r).iter().any(|&a| tree.node(a).is_some_and(|n| roles::is_interactive_container(roles::aria_role(&n.role)))));
    let tiers = timed("serialize.classify", || classify(&view, in_container));
    timed("serialize.lift", || lift_unref_soft(&mut view, &tiers));
    let Assigned { mut refs, ref_of, keys: ref_keys, next_ref } = timed("serialize.refs", || assign_refs(&view, &tiers, opts, keying, &mut notes));
    if opts.active_layer_only {
        timed("serialize.active", || active_layer(&mut view, &ref_of, &mut refs, &mut notes));
    }
    if let Some(max) = opts.max_elements {
        keep_best_refs(&mut view, &ref_of, &refs, max as usize, selector, &mut notes);
    }
    let shared = &refs;
    let ((lines, below_depth), beside) =
        crate::parallel::beside(split, || timed("serialize.layout", || layout(&view, &ref_of, shared, opts, &mut notes)), move || beside(shared));
    unseen.depth = below_depth;
    let node_count = lines.len();
    let text = match opts.max_tokens {
        Some(max) => {
            let expand = |node: u32| {
                let v = view.get(node as usize)?;
                selector.and_then(|f| f(v.frame_id, v.backend_node_id?))
            };
            let fitted = budget::fit(&lines, max as usize, &expand);
            unseen.budget = fitted.left_out;
            notes.extend(fitted.note);
            fitted.text
        }
        None => timed("serialize.emit", || budget::emit(&lines, None, &[], None)),
    };
    if view[0].children.iter().all(|&c| !view[c as usize].kept) {
        notes.push("the page has no accessible content".to_string());
    }
    (Serialized { text, refs, notes, node_count, ref_keys, next_ref, unseen }, beside)
}

fn build_view<'a>(
    tree: &'a AxTree,
    subtree_root: Option<u32>,
    title: Option<&str>,
    max_name: usize,
    hints: Option<HintFn<'_>>,
    // Text nodes' own DOM facts: (their boxes, whether they can be seen).
    (text_boxes, text_concealment): (bool, bool),
    notes: &mut Vec<String>,
) -> Vec<VNode<'a>> {
    let doc_title = title.or_else(|| tree.title()).unwrap_or_default();
    // At most one view node for each tree node (and the document): sized once,
    // not grown by doubling (each growth copies every node so far).
    let mut view = Vec::with_capacity(tree.nodes.len() + 1);
    view.push(VNode::element(Cow::Borrowed("document"), Cow::Owned(normalize_name(doc_title, max_name))));
    let Some(tree_root) = tree.root else { return view };
    let mut visited = vec![false; tree.nodes.len()];
    let mut repeats = 0usize;
    // Chrome puts frameId on a frame's root only; every node below inherits it.
    let root_frame = tree.node(tree_root).and_then(|n| n.frame_id.as_deref());
    // (ax index, view parent, inside a list marker, frame, text segment)
    let mut stack: Vec<(u32, u32, bool, Option<&'a str>, u32)> = Vec::new();
    let mut segments = 0u32;
    // The view parent whose next text follows a `<br>`.
    let mut broken_in: Option<u32> = None;
    // After a `<br>`: text of (this view parent, this segment) continues on segment .2.
    let mut pending_segment: Option<(u32, u32, u32)> = None;
    match subtree_root {
        Some(r) if Some(r) != tree.root => stack.push((r, 0, false, root_frame, 0)),
        _ => {
            let root_is_document = tree.node(tree_root).is_some_and(|n| roles::aria_role(&n.role) == "document");
            if root_is_document {
                visited[tree_root as usize] = true;
                let root = &tree.nodes[tree_root as usize];
                view[0].backend_node_id = root.backend_node_id;
                view[0].frame_id = root.frame_id.as_deref();
                for &c in root.children.iter().rev() {
                    stack.push((c, 0, false, root_frame, 0));
                }
            } else {
                stack.push((tree_root, 0, false, root_frame, 0));
            }
        }
    }
    while let Some((ax, parent, in_marker, inherited_frame, segment)) = stack.pop() {
        let Some(node) = tree.node(ax) else { continue };
        let frame = node.frame_id.as_deref().or(inherited_frame);
        if std::mem::replace(&mut visited[ax as usize], true) {
            repeats += 1;
            continue;
        }
        if roles::is_dropped_with_subtree(&node.role) {
            // A line break: the text after it starts a line of its own.
            if node.role == "LineBreak" {
                broken_in = Some(parent);
            }
            continue;
        }
        let role = roles::aria_role(&node.role);
        if role == "text" {
            let mut t = VNode::element(Cow::Borrowed("text"), Cow::Borrowed(node.name.as_str()));
            t.kind = Kind::Text;
            t.from_list_marker = in_marker;
            t.segment = segment;
            if broken_in == Some(parent) {
                broken_in = None;
                segments += 1;
                t.segment = segments;
                // The rest of this block's text goes on the new line with it.
                pending_segment = Some((parent, segment, segments));
            } else if let Some((_, _, to)) = pending_segment.filter(|&(p, from, _)| p == parent && from == segment) {
                t.segment = to;
            }
            if let (true, Some(h), Some(b)) = (text_boxes || text_concealment, hints, node.backend_node_id) {
                let facts = h(frame, b);
                t.hints.in_view = facts.in_view.filter(|_| text_boxes);
                t.hints.concealed = facts.concealed;
            }
            let idx = view.len() as u32;
            view.push(t);
            view[parent as usize].children.push(idx);
            continue;
        }
        let node_hints = match (hints, node.backend_node_id) {
            (Some(h), Some(b)) if !node.ignored => h(frame, b),
            _ => Hints::default(),
        };
        let nameless = roles::is_nameless_container(role) && !node.focusable && is_blank(&node.name);
        let transparent = node.ignored || roles::is_transparent(&node.role) || (nameless && !node_hints.clickable);
        let marker = in_marker || roles::is_transparent(&node.role);
        let target = if transparent {
            parent
        } else {
            let mut v = VNode::element(roles::sanitize_role(role), normalize_name_cow(&node.name, max_name));
            v.value = node.value.as_deref().map(|s| normalize_name_cow(s, max_name)).filter(|s| !s.is_empty());
            v.states = node.states.clone();
            v.focusable = node.focusable;
            v.hints = node_hints;
            v.soft = nameless;
            v.backend_node_id = node.backend_node_id;
            v.frame_id = frame;
            v.url = node.url.as_deref().filter(|_| role == "link");
            // Sized for its own children (most of what it gets), not grown by doubling.
            v.children = Vec::with_capacity(node.children.len());
            let idx = view.len() as u32;
            view.push(v);
            view[parent as usize].children.push(idx);
            idx
        };
        // A node in the tree (not ignored, as Chrome leaves most inline spans
        // out) is a block of its own, unless its tag flows inline (an
        // `inline-block` span is in the tree, and still in its line).
        let inline = hints.is_some() && node_hints.inline && transparent;
        let inner = if node.ignored || roles::is_transparent(&node.role) || inline {
            segment
        } else {
            segments += 1;
            segments
        };
        for &c in node.children.iter().rev() {
            stack.push((c, target, marker, frame, inner));
        }
    }
    if repeats > 0 {
        notes.push(format!("{repeats} accessibility node(s) were reachable more than once (a cycle or shared child) and are shown once"));
    }
    view
}

/// `viewportOnly`: keep what shows in the viewport and the nodes around
/// it. A node without a box of its own (an option in a closed select, a
/// `display: contents` wrapper) goes with its nearest ancestor that has one;
/// a container stays when anything in it shows. Children come after their
/// parent in the arena, so one forward sweep passes the verdict down and
/// one backward sweep passes "something shows" up.
fn keep_in_view(view: &mut [VNode<'_>], notes: &mut Vec<String>) -> usize {
    let n = view.len();
    let mut parent = vec![0u32; n];
    let mut shown = vec![true; n];
    for i in 0..n {
        let own = view[i].hints.in_view.unwrap_or(shown[i]);
        shown[i] = own;
        for &c in &view[i].children {
            if (c as usize) > i && (c as usize) < n {
                parent[c as usize] = i as u32;
                shown[c as usize] = own;
            }
        }
    }
    for i in (1..n).rev() {
        if shown[i] {
            shown[parent[i] as usize] = true;
        }
    }
    let mut hidden_controls = 0usize;
    let mut hidden = 0usize;
    for i in 0..n {
        if !shown[i] {
            hidden += 1;
            if view[i].kind == Kind::Element && (roles::is_tier1_role(&view[i].role) || view[i].hints.clickable) {
                hidden_controls += 1;
            }
            view[i].kept = false;
        }
        let children = std::mem::take(&mut view[i].children);
        view[i].children = children.into_iter().filter(|&c| shown.get(c as usize).copied().unwrap_or(false)).collect();
    }
    if hidden > 0 {
        notes.push(format!("viewportOnly: {hidden} node(s) outside the viewport are left out, {hidden_controls} of them controls; scroll to see them"));
    }
    hidden
}

fn is_bullet(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty() && t.chars().all(|c| matches!(c, '•' | '◦' | '▪' | '▫' | '‣' | '⁃' | '∙' | '·' | '-' | '*' | '–' | '—' | '■' | '□' | '○' | '●'))
}

/// A scrollable region's items (its children with a box) that are scrolled
/// wholly above or below its box: a reader of the region needs to know
/// there is more than it shows.
fn count_scrolled(view: &mut [VNode<'_>]) {
    for i in 0..view.len() {
        let v = &view[i];
        let (true, Some((r, _))) = (v.hints.scroller, v.hints.placed) else { continue };
        let (mut above, mut below) = (0u32, 0u32);
        for &c in &v.children {
            let Some((b, _)) = view[c as usize].hints.placed else { continue };
            if b.y + b.h <= r.y + 1.0 {
                above += 1;
            } else if b.y >= r.y + r.h - 1.0 {
                below += 1;
            }
        }
        view[i].scrolled = (above, below);
    }
}

/// Punctuation that only separates its neighbours: `Home | About`, `a, b`.
fn is_separator(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty()
        && t.chars().count() <= 3
        && t.chars().all(|c| c.is_whitespace() || matches!(c, '•' | '·' | '|' | '/' | ',' | ';' | '[' | ']' | '(' | ')' | '–' | '—' | '∙' | '◦' | '▪'))
}

/// Merge adjacent text (compact), normalize it, and drop empty text, list
/// bullets and text repeating the parent's name (compact). Text is never
/// cut here: `maxNameChars` is for names and values (SPEC §5); a long text
/// line is the budget's to shorten, and it says how much it left out.
fn normalize_text<'a>(view: &mut [VNode<'a>], compact: bool, max_text: usize, notes: &mut Vec<String>) {
    let max_name = usize::MAX;
    let mut cut = 0usize;
    for i in 0..view.len() {
        if view[i].kind != Kind::Element || view[i].children.is_empty() {
            continue;
        }
        // The children kept are written back into their own list, each at or before
        // where it was read (a list a parent, every look: 20k of them on the 40k-node page).
        let mut children = std::mem::take(&mut view[i].children);
        let mut out = KeptSoFar { at: 0 };
        // A run of adjacent text: the first node and, once a second joins, the merged text.
        let mut run: Option<(u32, Option<String>)> = None;
        let mut flush = |run: &mut Option<(u32, Option<String>)>, out: &mut KeptSoFar, children: &mut [u32], view: &mut [VNode<'a>]| {
            if let Some((idx, merged)) = run.take() {
                // Text read from the tree as it is written stays borrowed (no copy per text node).
                let text: Cow<'a, str> = match (merged, &view[idx as usize].name) {
                    (Some(m), _) => Cow::Owned(normalize_name(&m, max_name)),
                    (None, Cow::Borrowed(name)) => normalize_name_cow(name, max_name),
                    (None, Cow::Owned(name)) => Cow::Owned(normalize_name_cow(name, max_name).into_owned()),
                };
                let text = match cut_text(text, max_text) {
                    (t, true) => {
                        cut += 1;
                        t
                    }
                    (t, false) => t,
                };
                let parent_name = &view[i].name;
                let repeats_parent = compact && !parent_name.is_empty() && text == *parent_name;
                if !text.is_empty() && !repeats_parent {
                    view[idx as usize].name = text;
                    out.push(children, idx);
                } else {
                    view[idx as usize].kept = false;
                    said_by_parent(view, i, idx as usize);
                }
            }
        };
        // A text that says the name of the element beside it (a dropped label's
        // "Pro" after its radio "Pro") goes before adjacent text is merged: merged
        // with the next label's text ("Pro Country") it would no longer match.
        for k in 0..children.len() {
            let c = children[k];
            // The neighbours read are those of the list as it came: nothing after `k` is
            // written yet, and `k - 1` holds what it held, unless a child before was left
            // out or joined, when nothing reached that far.
            if compact && echoes_neighbour(view, &children, k, c) {
                view[c as usize].kept = false;
                continue;
            }
            let child = &view[c as usize];
            if child.kind == Kind::Text {
                // A list bullet: from a ListMarker, or (inside ARIA items, where Chrome
                // reports the ::marker as an ignored node) leading bullet-only text.
                let leading = out.at == 0 && run.is_none();
                if compact && (child.from_list_marker || leading) && is_bullet(&child.name) {
                    view[c as usize].kept = false;
                    continue;
                }
                let concealed = child.hints.concealed;
                match run.as_mut() {
                    Some((first, merged))
                        if compact && view[*first as usize].hints.concealed == concealed && view[*first as usize].segment == view[c as usize].segment =>
                    {
                        let m = merged.get_or_insert_with(|| view[*first as usize].name.to_string());
                        m.push_str(&view[c as usize].name);
                        view[c as usize].kept = false;
                    }
                    _ => {
                        flush(&mut run, &mut out, &mut children, view);
                        run = Some((c, None));
                    }
                }
            } else {
                flush(&mut run, &mut out, &mut children, view);
                out.push(&mut children, c);
            }
        }
        flush(&mut run, &mut out, &mut children, view);
        children.truncate(out.at);
        if compact {
            drop_redundant_text(view, i, &mut children);
        }
        view[i].children = children;
    }
    if cut > 0 {
        notes.push(format!("{cut} text line(s) longer than maxTextChars ({max_text}) were cut; each says how many characters it left out"));
    }
}

/// The children kept so far, written over the list they are read from.
struct KeptSoFar {
    at: usize,
}

impl KeptSoFar {
    fn push(&mut self, children: &mut [u32], c: u32) {
        children[self.at] = c;
        self.at += 1;
    }
}

/// Whether text `c`, the `k`th of `children`, is the name of a control next to it.
fn echoes_neighbour(view: &[VNode<'_>], children: &[u32], k: usize, c: u32) -> bool {
    let text = &view[c as usize];
    let said = text.name.trim();
    if text.kind != Kind::Text || said.is_empty() {
        return false;
    }
    let names_it = |j: Option<usize>| {
        j.and_then(|j| children.get(j)).is_some_and(|&s| {
            let s = &view[s as usize];
            s.kind == Kind::Element && roles::is_tier1_role(&s.role) && s.name.trim() == said
        })
    };
    names_it(k.checked_sub(1)) || names_it(Some(k + 1))
}

/// A text line cut at `max` characters, with what it left out said at the cut.
fn cut_text(text: Cow<'_, str>, max: usize) -> (Cow<'_, str>, bool) {
    // Bytes bound characters: most lines are decided without counting.
    if text.len() <= max {
        return (text, false);
    }
    let total = text.chars().count();
    if total <= max {
        return (text, false);
    }
    let head: String = text.chars().take(max).collect();
    (Cow::Owned(format!("{}… [{} more characters; maxTextChars shows more]", head.trim_end(), total - max)), true)
}

/// Above this many characters a name taken from content is left to the children to say.
const LONG_CONTENT_NAME: usize = 120;

/// Text that only repeats what an element next to it already says: a label
/// before its control, a field's value inside it, an icon glyph inside a named
/// control.
fn drop_redundant_text(view: &mut [VNode<'_>], parent: usize, children: &mut Vec<u32>) {
    let parent_value = view[parent].value.clone();
    let named_control = !view[parent].name.is_empty() && roles::is_tier1_role(&view[parent].role);
    let named_from_content = !view[parent].name.is_empty() && roles::is_named_from_content(&view[parent].role);
    // A long name from content (a layout table's cell holding a chapter) is a
    // flattened copy of its children: they are printed in full and the name
    // is left off the line, rather than the text between its links dropped
    // as "said" by a name that may itself be cut at maxNameChars.
    let said_below = named_from_content
        && !named_control
        && view[parent].name.chars().count() > LONG_CONTENT_NAME
        && children.iter().any(|&c| view[c as usize].kind == Kind::Element);
    if said_below {
        view[parent].name_said_below = true;
    }
    let named_from_content = named_from_content && !said_below;
    // Most parents hold no text beside their elements: nothing to weigh.
    if !children.iter().any(|&c| view[c as usize].kind == Kind::Text) {
        return;
    }
    let mut keep = vec![true; children.len()];
    let mut parent_says = Vec::new();
    for (k, &c) in children.iter().enumerate() {
        let text = &view[c as usize];
        if text.kind != Kind::Text {
            continue;
        }
        let sibling_says = |j: Option<usize>| {
            j.and_then(|j| children.get(j)).is_some_and(|&s| {
                let s = &view[s as usize];
                s.kind == Kind::Element && !s.name.is_empty() && s.name == text.name
            })
        };
        let repeats_value = parent_value.as_deref() == Some(text.name.as_ref());
        let icon_only = named_control && !text.name.chars().any(char::is_alphanumeric);
        // A heading's "Title[" + link "edit" + "]": the heading's name already says it.
        let in_name = named_from_content && view[parent].name.contains(text.name.trim());
        if in_name || icon_only {
            keep[k] = false;
            parent_says.push(c as usize);
        } else if sibling_says(k.checked_sub(1)) || sibling_says(Some(k + 1)) || repeats_value || is_separator(&text.name) {
            keep[k] = false;
        }
    }
    let mut k = 0;
    children.retain(|&c| {
        let kept = keep[k];
        k += 1;
        if !kept {
            view[c as usize].kept = false;
        }
        kept
    });
    for c in parent_says {
        said_by_parent(view, parent, c);
    }
}

/// Text dropped because its parent's line says it: if a person cannot see
/// it, the parent's name holds invisible text, and its line says so.
fn said_by_parent(view: &mut [VNode<'_>], parent: usize, text: usize) {
    if let Some(why) = view[text].hints.concealed {
        let p = &mut view[parent].hints;
        p.concealed = p.concealed.or(Some(why));
    }
}

/// `interactiveOnly`: keep controls, named nodes, landmarks/headings and
/// anything with kept content; drop the rest. Children always have higher
/// indices than their parent, so one reverse sweep is a post-order walk.
fn prune(view: &mut [VNode<'_>]) {
    for i in (1..view.len()).rev() {
        if !view[i].kept {
            continue;
        }
        let keep = match view[i].kind {
            Kind::Text => !view[i].name.is_empty(),
            Kind::Element => {
                let v = &view[i];
                (v.focusable && !roles::is_never_ref_role(&v.role))
                    || v.hints.clickable
                    || roles::is_tier1_role(&v.role)
                    || !v.name.is_empty()
                    || v.value.is_some()
                    || v.children.iter().any(|&c| view[c as usize].kept)
            }
        };
        view[i].kept = keep;
    }
    let kept: Vec<bool> = view.iter().map(|v| v.kept).collect();
    for v in view.iter_mut() {
        v.children.retain(|&c| kept[c as usize]);
    }
}

/// A control by role, or a tab stop (`tabindex >= 0`; Chrome's `focusable`
/// also covers `tabindex=-1`, which the DOM pass tells apart).
fn is_control(v: &VNode<'_>) -> bool {
    v.kind == Kind::Element && (roles::is_tier1_role(&v.role) || (v.focusable && !v.hints.negative_tabindex && !roles::is_never_ref_role(&v.role)))
}

fn classify(view: &[VNode<'_>], in_container: bool) -> Vec<Option<Tier>> {
    // Whether a control sits below each node (children follow their parent,
    // so a reverse sweep sees them first): a clickable container of controls
    // is event delegation, not a click target.
    let mut control_below = vec![false; view.len()];
    for i in (0..view.len()).rev() {
        control_below[i] = view[i].children.iter().any(|&c| control_below[c as usize] || is_control(&view[c as usize]));
    }
    let mut tiers = vec![None; view.len()];
    // (index, inside an interactive container, inside a ref'd element)
    let mut stack: Vec<(u32, bool, bool)> = view[0].children.iter().rev().map(|&c| (c, in_container, false)).collect();
    while let Some((i, in_container, inside_ref)) = stack.pop() {
        let v = &view[i as usize];
        if v.kind != Kind::Element {
            continue;
        }
        tiers[i as usize] = if roles::is_tier1_role(&v.role) || (in_container && roles::is_tier2_role(&v.role) && is_control(v)) {
            Some(Tier::One)
        } else if in_container && roles::is_tier2_role(&v.role) {
            Some(Tier::Two)
        } else if is_control(v) {
            // A tab stop with a widget role (a listbox, a grid) is a control;
            // only one without any (a focusable div) is marked clickable.
            let widget = roles::is_tier2_role(&v.role) || roles::is_interactive_container(&v.role);
            Some(if widget { Tier::One } else { Tier::Clickable })
        } else if v.hints.clickable && !inside_ref && !control_below[i as usize] {
            // The insides of real controls (a span with the button's pointer
            // cursor) are the control's, not targets of their own.
            Some(Tier::Clickable)
        } else {
            None
        };
        let inner = in_container || roles::is_interactive_container(&v.role);
        let inside = inside_ref || tiers[i as usize].is_some();
        for &c in v.children.iter().rev() {
            stack.push((c, inner, inside));
        }
    }
    tiers
}

/// Lift soft nodes that got no ref, splicing their children into the parent.
/// Children have higher indices than their parent, so a reverse sweep finds
/// every child's list already final.
fn lift_unref_soft(view: &mut [VNode<'_>], tiers: &[Option<Tier>]) {
    let lifted: Vec<bool> = view.iter().enumerate().map(|(i, v)| v.soft && tiers[i].is_none()).collect();
    if !lifted.iter().any(|&l| l) {
        return;
    }
    for i in (0..view.len()).rev() {
        if !view[i].children.iter().any(|&c| lifted[c as usize]) {
            continue;
        }
        let children = std::mem::take(&mut view[i].children);
        let mut out = Vec::with_capacity(children.len());
        for c in children {
            if lifted[c as usize] {
                out.extend(view[c as usize].children.iter().copied());
            } else {
                out.push(c);
            }
        }
        view[i].children = out;
    }
}

/// The refs given, each view node's ref (by index into `refs`), each ref's element key, and the next number.
struct Assigned {
    refs: Vec<ElementRef>,
    ref_of: Vec<Option<u32>>,
    keys: Vec<Option<String>>,
    next_ref: u32,
}

fn assign_refs(view: &[VNode<'_>], tiers: &[Option<Tier>], opts: &SnapshotOptions, keying: Option<&Keying<'_>>, notes: &mut Vec<String>) -> Assigned {
    let mut numberer = Numberer::new(keying.map(|k| k.memory));
    let mut keys: Vec<Option<String>> = Vec::new();
    // The ref'd ancestors of the node being visited: (depth, ref index).
    let mut ref_ancestors: Vec<(usize, u32)> = Vec::new();
    let total = tiers.iter().filter(|t| t.is_some()).count();
    let tier1 = tiers.iter().filter(|t| matches!(t, Some(Tier::One | Tier::Clickable))).count();
    let only_tier1 = total > REF_BUDGET && !opts.all_refs && tier1 < total;
    if only_tier1 {
        notes
            .push(format!("{total} interactive elements found: only the {tier1} tier-1 controls have refs; {} more are available with allRefs", total - tier1));
    }
    let mut refs = Vec::new();
    let mut ref_of: Vec<Option<u32>> = vec![None; view.len()];
    let mut occurrences: FxHashMap<(&str, &str), u32> = FxHashMap::with_capacity_and_hasher(total, Default::default());
    // The frame of the last ref keyed, and its document.
    let mut last_document: Option<(&str, &str)> = None;
    // Preorder walk; `path` holds the child indices down to the node being visited.
    let mut path: Vec<u32> = Vec::new();
    let mut stack: Vec<(u32, usize, u32)> = view[0].children.iter().enumerate().rev().map(|(k, &c)| (c, 1, k as u32)).collect();
    while let Some((i, depth, k)) = stack.pop() {
        path.truncate(depth - 1);
        path.push(k);
        let v = &view[i as usize];
        while ref_ancestors.last().is_some_and(|&(d, _)| d >= depth) {
            ref_ancestors.pop();
        }
        let wanted = match tiers[i as usize] {
            Some(Tier::One | Tier::Clickable) => true,
            Some(Tier::Two) => !only_tier1,
            None => false,
        };
        if wanted {
            let occ = occurrences.entry((v.role.as_ref(), v.name.as_ref())).or_insert(0);
            let key = keying.and_then(|k| {
                // Nearly every ref is of the frame the last one was of: its document is looked up once.
                let document = match (v.frame_id, last_document) {
                    (Some(f), Some((was, document))) if std::ptr::eq(f, was) => document,
                    (Some(f), _) => {
                        let document = k.documents.get(f).map_or(f, String::as_str);
                        last_document = Some((f, document));
                        document
                    }
                    (None, _) => "",
                };
                element_key(document, v.backend_node_id)
            });
            let number = numberer.number(key.as_deref());
            if keying.is_some() {
                keys.push(key);
            }
            let index = refs.len() as u32;
            if let Some(&(_, parent)) = ref_ancestors.last() {
                let parent: &mut ElementRef = &mut refs[parent as usize];
                parent.facts.children.push(index);
            }
            ref_ancestors.push((depth, index));
            ref_of[i as usize] = Some(index);
            refs.push(ElementRef {
                ref_id: format!("{}{}", opts.ref_prefix, number),
                role: v.role.to_string(),
                name: v.name.to_string(),
                occurrence_index: *occ,
                // Only the last steps of the path: enough to tell siblings apart,
                // and bounded so that refs deep in a malformed tree stay linear.
                signature_hash: element_signature_hash(&v.role, &v.name, depth, &path[path.len().saturating_sub(SIGNATURE_PATH_STEPS)..]),
                backend_node_id: v.backend_node_id,
                frame_id: v.frame_id.map(str::to_string),
                clickable: tiers[i as usize] == Some(Tier::Clickable),
                located: Located::default(),
                facts: RefFacts { placed: v.hints.placed, states: v.states.clone(), value: v.value.as_deref().map(str::to_string), children: Vec::new() },
                blocked_by: None,
            });
            *occ += 1;
        }
        for (k, &c) in v.children.iter().enumerate().rev() {
            stack.push((c, depth + 1, k as u32));
        }
    }
    Assigned { refs, ref_of, keys, next_ref: numberer.next() }
}

/// WAI-ARIA 1.2 `aria-modal`: while a modal dialog is open, what is outside it
/// is inert to the user. Show the topmost modal (the last in document order)
/// under the document with one `inert` line counting what is behind it; the
/// refs behind keep their numbers and are marked blocked by it.
fn active_layer(view: &mut Vec<VNode<'_>>, ref_of: &[Option<u32>], refs: &mut [ElementRef], notes: &mut Vec<String>) {
    let is_modal = |v: &VNode<'_>| v.kind == Kind::Element && v.states.modal && matches!(v.role.as_ref(), "dialog" | "alertdialog");
    // Most pages have none: one pass over the list settles it without the
    // walk below (the walk was 7% of serializing the 40k-node page, by `perf`).
    if !view.iter().any(is_modal) {
        return;
    }
    // Preorder, so the last modal found is the one opened on top.
    let mut modal = None;
    let mut stack: Vec<u32> = view[0].children.iter().rev().copied().collect();
    while let Some(i) = stack.pop() {
        let v = &view[i as usize];
        if is_modal(v) {
            modal = Some(i);
        }
        stack.extend(v.children.iter().rev().copied());
    }
    let Some(modal) = modal else { return };
    let mut inside = vec![false; view.len()];
    let mut stack = vec![modal];
    while let Some(i) = stack.pop() {
        inside[i as usize] = true;
        stack.extend(view[i as usize].children.iter().copied());
    }
    let m = &view[modal as usize];
    let label = if m.name.is_empty() { m.role.to_string() } else { format!("{} {}", m.role, json_quote(&m.name)) };
    let mut counts: Vec<(String, usize)> = Vec::new();
    for (i, r) in ref_of.iter().enumerate() {
        let Some(r) = r else { continue };
        if inside[i] {
            continue;
        }
        let e = &mut refs[*r as usize];
        e.blocked_by = Some(label.clone());
        match counts.iter_mut().find(|(role, _)| role == &e.role) {
            Some((_, n)) => *n += 1,
            None => counts.push((e.role.clone(), 1)),
        }
    }
    let behind: usize = counts.iter().map(|(_, n)| n).sum();
    // A `<dialog>` opened with showModal() makes the page inert in Chrome's
    // own tree: nothing behind it is listed, so there is nothing to count.
    let line = if counts.is_empty() {
        format!("behind the modal {label}: the rest of the page, inert while it is open")
    } else {
        let what = counts.iter().map(|(role, n)| format!("{n} {}", plural(role, *n))).collect::<Vec<_>>().join(", ");
        format!("behind the modal {label}: {what} (blocked; activeLayerOnly: false shows them)")
    };
    let inert_idx = push_summary_line(view, "inert", line);
    view[0].children = vec![inert_idx, modal];
    notes.push(format!("activeLayerOnly: the modal {label} is open; {behind} ref(s) behind it are blocked"));
}

/// `maxElements` on the text: the best-ranked refs stay (seed 001 §1.3.3, the
/// ranking of `elements`); every other ref'd element is lifted out (its
/// children stay) and counted on one `more` line under its nearest printed
/// ancestor, with the selector that shows them (`rootSelector`). Their refs
/// stay in `refs`, resolvable.
fn keep_best_refs(
    view: &mut Vec<VNode<'_>>,
    ref_of: &[Option<u32>],
    refs: &[ElementRef],
    max: usize,
    selector: Option<SelectorFn<'_>>,
    notes: &mut Vec<String>,
) {
    let mut order: Vec<usize> = (0..refs.len()).filter(|&k| refs[k].blocked_by.is_none()).collect();
    if order.len() <= max {
        return;
    }
    order.sort_by_key(|&k| crate::text::elements::rank_key(&refs[k], k));
    let mut kept = vec![false; refs.len()];
    for &k in &order[..max] {
        kept[k] = true;
    }
    let n = view.len();
    let omitted: Vec<bool> =
        (0..n).map(|i| matches!(ref_of.get(i).copied().flatten(), Some(r) if !kept[r as usize] && refs[r as usize].blocked_by.is_none())).collect();
    // Per node, the roles counted on its `more` line: (role, count), first seen first.
    let mut counts: Vec<Vec<(String, usize)>> = vec![Vec::new(); n];
    // Children have higher indices than their parent (lines added later too),
    // so a reverse sweep finds every child's list and counts already final.
    for i in (0..n).rev() {
        if !view[i].children.iter().any(|&c| omitted.get(c as usize) == Some(&true)) {
            continue;
        }
        let children = std::mem::take(&mut view[i].children);
        let mut out = Vec::with_capacity(children.len());
        for c in children {
            if omitted.get(c as usize) == Some(&true) {
                out.extend(view[c as usize].children.iter().copied());
                let mut carried = std::mem::take(&mut counts[c as usize]);
                carried.insert(0, (view[c as usize].role.to_string(), 1));
                for (role, k) in carried {
                    match counts[i].iter_mut().find(|(r, _)| *r == role) {
                        Some((_, m)) => *m += k,
                        None => counts[i].push((role, k)),
                    }
                }
            } else {
                out.push(c);
            }
        }
        view[i].children = out;
    }
    let mut left = 0usize;
    for i in 0..n {
        if counts[i].is_empty() || omitted[i] {
            continue;
        }
        let total: usize = counts[i].iter().map(|(_, k)| k).sum();
        left += total;
        let what = counts[i].iter().map(|(role, k)| format!("{k} {}", plural(role, *k))).collect::<Vec<_>>().join(", ");
        let container = &view[i];
        let expand = match (i, container.backend_node_id, selector) {
            (0, _, _) => "raise maxElements".to_string(),
            (_, Some(b), Some(f)) => f(container.frame_id, b).map_or_else(|| "raise maxElements".to_string(), |s| format!("rootSelector={}", json_quote(&s))),
            _ => "raise maxElements".to_string(),
        };
        let more_idx = push_summary_line(view, "more", format!("{what} [expand: {expand}]"));
        view[i].children.push(more_idx);
    }
    notes.push(format!(
        "maxElements: {max} of {} refs shown (seed 001's ranking); {left} left out are counted on `more` lines and stay resolvable in refs",
        order.len()
    ));
}

/// A line of ours (`- inert: …`, `- more: …`): a nameless `role` node whose
/// one text child prints inline. Appended, so its index is above every parent's.
fn push_summary_line(view: &mut Vec<VNode<'_>>, role: &'static str, text: String) -> u32 {
    let mut t = VNode::element(Cow::Borrowed("text"), Cow::Owned(text));
    t.kind = Kind::Text;
    view.push(t);
    let mut line = VNode::element(Cow::Borrowed(role), Cow::Borrowed(""));
    line.children.push(view.len() as u32 - 1);
    view.push(line);
    view.len() as u32 - 1
}

fn shown<'t>(text: &'t str, opts: &SnapshotOptions) -> Cow<'t, str> {
    if opts.redact_text && !text.is_empty() {
        Cow::Owned(format!("[redacted:{}]", hash_doctor_field(text)))
    } else {
        Cow::Borrowed(text)
    }
}

/// A line's bracketed attributes, written straight into it: `[` before the
/// first, a space between, `]` by [`Attrs::close`]. (A `Vec<String>` joined
/// cost an allocation an attribute, on every line of every look.)
struct Attrs<'l> {
    line: &'l mut String,
    any: bool,
}

impl<'l> Attrs<'l> {
    fn new(line: &'l mut String) -> Attrs<'l> {
        Attrs { line, any: false }
    }

    /// Starts the next attribute and hands back the line to write it into.
    fn next(&mut self) -> &mut String {
        self.line.push_str(if self.any { " " } else { " [" });
        self.any = true;
        self.line
    }

    fn push(&mut self, attr: &str) {
        self.next().push_str(attr);
    }

    fn close(self) {
        if self.any {
            self.line.push(']');
        }
    }
}

fn state_attrs(v: &VNode<'_>, opts: &SnapshotOptions, out: &mut Attrs<'_>) {
    use std::fmt::Write;
    let s = &v.states;
    if let Some(t @ (Tristate::True | Tristate::Mixed)) = s.checked {
        out.push("checked=");
        out.line.push_str(t.as_str());
    }
    if s.disabled {
        out.push("disabled=true");
    }
    if let Some(e) = s.expanded {
        out.push(if e { "expanded=true" } else { "expanded=false" });
    }
    if s.selected {
        out.push("selected=true");
    }
    if let Some(p) = s.pressed {
        out.push("pressed=");
        out.line.push_str(p.as_str());
    }
    // Chrome reports a nesting level on list items and rows too; only headings
    // and tree items carry information in it.
    if let Some(l) = s.level.filter(|_| matches!(v.role.as_ref(), "heading" | "treeitem")) {
        let _ = write!(out.next(), "level={l}");
    }
    if let Some(val) = &v.value {
        if val != &v.name {
            out.push("value=");
            push_json_quoted(out.line, &shown(val, opts));
        }
    }
    if let Some(u) = v.url {
        out.push("url=");
        push_json_quoted(out.line, u);
    }
    if v.scrolled.0 > 0 {
        let _ = write!(out.next(), "items-above={}", v.scrolled.0);
    }
    if v.scrolled.1 > 0 {
        let _ = write!(out.next(), "items-below={}", v.scrolled.1);
    }
    if let Some(why) = v.hints.concealed.filter(|_| opts.mark_untrusted) {
        out.push("invisible=");
        out.line.push_str(why.as_str());
    }
}

/// A link target as a reader needs it: the path when it is on the page's own
/// origin (`/news`), the whole URL otherwise.
fn relative_url<'u>(url: &'u str, page_url: Option<&str>) -> &'u str {
    let origin = |u: &str| -> Option<usize> {
        let scheme_end = u.find("://")? + 3;
        Some(u[scheme_end..].find(['/', '?', '#']).map_or(u.len(), |k| scheme_end + k))
    };
    let (Some(page), Some(end)) = (page_url, origin(url)) else { return url };
    match origin(page) {
        Some(page_end) if url[..end].eq_ignore_ascii_case(&page[..page_end]) && end < url.len() && url.as_bytes()[end] == b'/' => &url[end..],
        _ => url,
    }
}

/// A text node's line, flagged when a person cannot see it (`untrustedContent: 'mark'`).
fn text_line(v: &VNode<'_>, opts: &SnapshotOptions) -> String {
    let text = shown(&v.name, opts);
    let mut line = String::with_capacity(32 + text.len());
    line.push_str("- text");
    if let Some(why) = v.hints.concealed.filter(|_| opts.mark_untrusted) {
        line.push_str(" [invisible=");
        line.push_str(why.as_str());
        line.push(']');
    }
    line.push_str(": ");
    line.push_str(&text);
    line
}

fn element_line(v: &VNode<'_>, r: Option<&ElementRef>, opts: &SnapshotOptions) -> String {
    named_line(v, r, opts, true)
}

/// `element_line`, with the name left out when another line says it (`said_once`).
fn named_line(v: &VNode<'_>, r: Option<&ElementRef>, opts: &SnapshotOptions, with_name: bool) -> String {
    let mut line = String::with_capacity(32 + v.role.len() + v.name.len());
    line.push_str("- ");
    line.push_str(&v.role);
    if with_name && !v.name.is_empty() {
        line.push(' ');
        push_json_quoted(&mut line, &shown(&v.name, opts));
    }
    let mut attrs = Attrs::new(&mut line);
    if let Some(r) = r {
        attrs.push("ref=");
        attrs.line.push_str(&r.ref_id);
        if r.clickable {
            attrs.push("clickable");
        }
    }
    state_attrs(v, opts, &mut attrs);
    attrs.close();
    line
}

/// A nameless element whose only child is text prints it inline (`- listitem: 2 × Blue mug`).
/// compact also reads inline formatting as text: a paragraph of text and
/// `emphasis` without refs is one line, not one per run.
fn inline_text<'v>(view: &'v [VNode<'_>], ref_of: &[Option<u32>], v: &VNode<'_>, opts: &SnapshotOptions) -> Option<Cow<'v, str>> {
    if !opts.compact || (!v.name.is_empty() && !v.name_said_below) || v.children.is_empty() {
        return None;
    }
    // Text that cannot be seen keeps a line of its own, flagged.
    if v.children.iter().any(|&c| view[c as usize].hints.concealed.is_some()) {
        return None;
    }
    if let [only] = v.children[..] {
        let child = &view[only as usize];
        if child.kind == Kind::Text {
            return Some(Cow::Borrowed(child.name.as_ref()));
        }
    }
    // Adjacent text that compact left apart is text of separate blocks or lines: lines of its own.
    if v.children.windows(2).any(|w| view[w[0] as usize].kind == Kind::Text && view[w[1] as usize].kind == Kind::Text) {
        return None;
    }
    let mut pieces: Vec<&str> = Vec::new();
    for &c in &v.children {
        let child = &view[c as usize];
        if child.kind == Kind::Text {
            pieces.push(&child.name);
            continue;
        }
        let plain = roles::is_phrasing(&child.role)
            && child.name.is_empty()
            && child.value.is_none()
            && !has_states(child)
            && ref_of.get(c as usize).copied().flatten().is_none()
            && !child.children.is_empty()
            && child.children.iter().all(|&g| view[g as usize].kind == Kind::Text);
        if !plain {
            return None;
        }
        pieces.extend(child.children.iter().map(|&g| view[g as usize].name.as_ref()));
    }
    let mut out = String::new();
    for p in pieces {
        let glued = out.is_empty()
            || out.ends_with(['(', '[', '“', '‘', '"', '\'', '/', '-', ' '])
            || p.starts_with([',', '.', ';', ':', '!', '?', ')', ']', '”', '’', '"', '\'', '/', ' ']);
        if !glued {
            out.push(' ');
        }
        out.push_str(p);
    }
    Some(Cow::Owned(out))
}

/// The line of a ref'd element listed on its own (refsOnly, depth cut): its
/// inline text is kept so a nameless control is still recognisable.
fn standalone_line(view: &[VNode<'_>], ref_of: &[Option<u32>], i: u32, r: Option<&ElementRef>, opts: &SnapshotOptions) -> String {
    let v = &view[i as usize];
    let mut line = element_line(v, r, opts);
    if let Some(t) = inline_text(view, ref_of, v, opts) {
        line.push_str(": ");
        line.push_str(&shown(&t, opts));
    }
    line
}

/// compact: a nameless, stateless wrapper without a ref around a single
/// element is skipped for that element (a list item holding one link is the
/// link's line), repeatedly. Returns the node to print in `i`'s place.
fn unwrapped(view: &[VNode<'_>], ref_of: &[Option<u32>], mut i: u32) -> u32 {
    loop {
        let v = &view[i as usize];
        let wrapper = i != 0
            && v.kind == Kind::Element
            && v.name.is_empty()
            && v.value.is_none()
            && v.children.len() == 1
            && roles::is_unwrappable(&v.role)
            && ref_of.get(i as usize).copied().flatten().is_none()
            && !has_states(v);
        if !wrapper {
            return i;
        }
        let c = v.children[0];
        if view[c as usize].kind != Kind::Element {
            return i;
        }
        i = c;
    }
}

/// Whether `state_attrs` prints anything for `v` besides a value.
/// A line with nothing below it and nothing to act on or read but its name.
fn is_bare_leaf(view: &[VNode<'_>], ref_of: &[Option<u32>], i: u32) -> bool {
    let v = &view[i as usize];
    v.kind == Kind::Element && v.children.is_empty() && ref_of.get(i as usize).copied().flatten().is_none() && v.value.is_none() && !has_states(v)
}

fn has_states(v: &VNode<'_>) -> bool {
    let s = &v.states;
    matches!(s.checked, Some(Tristate::True | Tristate::Mixed))
        || s.disabled
        || s.expanded.is_some()
        || s.selected
        || s.pressed.is_some()
        || (s.level.is_some() && matches!(v.role.as_ref(), "heading" | "treeitem"))
        || v.scrolled != (0, 0)
}

/// compact: when an element's only child (past wrappers) has the same name,
/// the name is said once, on the line with the ref: `Some(true)` leaves it
/// off the parent, `Some(false)` off the child.
fn said_once(view: &[VNode<'_>], ref_of: &[Option<u32>], i: u32) -> Option<(bool, u32)> {
    let v = &view[i as usize];
    if v.kind != Kind::Element || v.name.is_empty() || v.children.len() != 1 || i == 0 {
        return None;
    }
    let c = unwrapped(view, ref_of, v.children[0]);
    let child = &view[c as usize];
    if child.kind != Kind::Element || child.name != v.name {
        return None;
    }
    let has_ref = |k: u32| ref_of.get(k as usize).copied().flatten().is_some();
    match (has_ref(i), has_ref(c)) {
        (false, _) => Some((true, c)),
        (true, false) => Some((false, c)),
        (true, true) => None,
    }
}

/// The printed lines, in order, with what the budget needs to rank them.
/// Also how many nodes the `maxDepth` cut left out.
fn layout<'v>(
    view: &'v [VNode<'_>],
    ref_of: &[Option<u32>],
    refs: &[ElementRef],
    opts: &SnapshotOptions,
    notes: &mut Vec<String>,
) -> (Vec<Printed<'v>>, usize) {
    let ref_id = |i: u32| ref_of.get(i as usize).copied().flatten().map(|r| &refs[r as usize]);
    let mut lines: Vec<Printed<'v>> = Vec::with_capacity(view.len());
    if opts.refs_only {
        for i in 0..view.len() as u32 {
            if let Some(r) = ref_id(i) {
                let text = standalone_line(view, ref_of, i, Some(r), opts);
                lines.push(printed(view, i, text, 0, NO_PARENT, 1, true, false));
            }
        }
        return (lines, 0);
    }
    let max_depth = opts.max_depth as usize;
    let mut omitted = 0usize;
    let mut lifted_refs = 0usize;
    let mut lifted_lines = 0usize;
    // The line open at each depth: the parent of the next line one deeper.
    let mut open: Vec<u32> = Vec::new();
    // (node, depth, its name is said by its parent's line)
    let mut stack: Vec<(u32, usize, bool)> = vec![(0, 0, false)];
    while let Some((i, depth, quiet)) = stack.pop() {
        let i = if opts.compact { unwrapped(view, ref_of, i) } else { i };
        let v = &view[i as usize];
        open.truncate(depth);
        let parent = open.last().copied().unwrap_or(NO_PARENT);
        let parent_view = match parent {
            NO_PARENT => 1,
            p => lines[p as usize].rank.0,
        };
        let push = |lines: &mut Vec<Printed<'v>>, open: &mut Vec<u32>, text: String, texty: bool| {
            open.push(lines.len() as u32);
            lines.push(printed(view, i, text, depth as u32, parent, parent_view, ref_id(i).is_some(), texty));
        };
        if v.kind == Kind::Text {
            push(&mut lines, &mut open, text_line(v, opts), true);
            continue;
        }
        // Nameless decorative images say nothing (compact): `alt=""`, an icon in a named link.
        if opts.compact && opts.interactive_only && v.role == "img" && v.name.is_empty() && is_bare_leaf(view, ref_of, i) {
            continue;
        }
        let once = if opts.compact { said_once(view, ref_of, i) } else { None };
        // So does a leaf whose name this line says (a logo inside its link).
        let child_said = once.is_some_and(|(parent_quiet, c)| !parent_quiet && is_bare_leaf(view, ref_of, c));
        let with_name = !quiet && !v.name_said_below && once.is_none_or(|(parent_quiet, _)| !parent_quiet);
        let mut line = named_line(v, ref_id(i), opts, with_name);
        if let Some(t) = inline_text(view, ref_of, v, opts) {
            line.push_str(": ");
            line.push_str(&shown(&t, opts));
            push(&mut lines, &mut open, line, true);
            continue;
        }
        if v.children.is_empty() || child_said {
            push(&mut lines, &mut open, line, false);
            continue;
        }
        if depth >= max_depth {
            // Cut: what a reader needs from the subtree (its ref'd controls,
            // its named elements such as headings, and its text; a generic's
            // name is a tooltip, not content) is listed
            // flat one level down in document order; only the structure is
            // left out and counted. Text that the name of the line above it
            // already says is not said again.
            // A text is said by the nearest name printed above it, as printed:
            // the cut's own line may leave its name out (a cell named by its
            // content), and a long name is cut at `maxNameChars`.
            let mut below: Vec<(u32, String)> = Vec::new();
            let cut_namer = (with_name && !v.name.is_empty()).then_some(i);
            let mut inner: Vec<(u32, Option<u32>)> = v.children.iter().rev().map(|&c| (c, cut_namer)).collect();
            while let Some((d, namer)) = inner.pop() {
                let dv = &view[d as usize];
                let r = ref_id(d);
                let mut next_namer = namer;
                if dv.kind == Kind::Text {
                    let said = namer.is_some_and(|n| shown(&view[n as usize].name, opts).contains(dv.name.trim()));
                    if !said && !dv.name.trim().is_empty() {
                        below.push((d, text_line(dv, opts)));
                    }
                } else if r.is_some() || (!dv.name.trim().is_empty() && dv.role != "generic") {
                    let inline = inline_text(view, ref_of, dv, opts).is_some();
                    below.push((d, standalone_line(view, ref_of, d, r, opts)));
                    if inline {
                        // Its text is on its line: nothing below it but refs and names.
                        next_namer = Some(d);
                        for &c in dv.children.iter().rev() {
                            if view[c as usize].kind != Kind::Text {
                                inner.push((c, next_namer));
                            }
                        }
                        continue;
                    }
                    next_namer = if dv.name.is_empty() { namer } else { Some(d) };
                } else {
                    omitted += 1;
                }
                for &c in dv.children.iter().rev() {
                    inner.push((c, next_namer));
                }
            }
            if !below.is_empty() {
                line.push(':');
            }
            push(&mut lines, &mut open, line, false);
            let cut = lines.len() as u32 - 1;
            let cut_view = lines[cut as usize].rank.0;
            for (d, text) in below {
                let has_ref = ref_id(d).is_some();
                lifted_refs += usize::from(has_ref);
                lifted_lines += 1;
                let texty = view[d as usize].kind == Kind::Text;
                lines.push(printed(view, d, text, depth as u32 + 1, cut, cut_view, has_ref, texty));
            }
            continue;
        }
        line.push(':');
        push(&mut lines, &mut open, line, false);
        for &c in v.children.iter().rev() {
            let quiet = once.is_some_and(|(parent_quiet, _)| !parent_quiet);
            stack.push((c, depth + 1, quiet));
        }
    }
    if omitted > 0 || lifted_lines > 0 {
        let lines = match lifted_refs {
            0 => format!("{lifted_lines} text and named line(s)"),
            n => format!("{lifted_lines} line(s) of text, names and controls ({n} ref'd)"),
        };
        notes.push(match (omitted, lifted_lines) {
            (_, 0) => format!("maxDepth {max_depth}: {omitted} node(s) deeper than the limit are not shown"),
            (0, _) => format!("maxDepth {max_depth}: the {lines} deeper than the limit are listed at the cut"),
            _ => format!("maxDepth {max_depth}: {omitted} node(s) deeper than the limit are not shown; their {lines} are listed at the cut"),
        });
    }
    (lines, omitted)
}

/// A line with its budget rank: in the viewport first (a node without a box
/// of its own ranks as the line above it), then seed 001's role order, then
/// landmarks and headings before other structure before text.
#[allow(clippy::too_many_arguments)]
fn printed<'v>(view: &'v [VNode<'_>], i: u32, text: String, depth: u32, parent: u32, parent_view: u8, has_ref: bool, texty: bool) -> Printed<'v> {
    let v = &view[i as usize];
    let role: &'v str = v.role.as_ref();
    let summary = v.kind == Kind::Element && matches!(role, "more" | "inert") && v.name.is_empty() && !has_ref;
    let in_view = match v.hints.in_view {
        Some(true) => 0,
        Some(false) => 2,
        None => parent_view,
    };
    let kind = if summary || matches!(role, "heading" | "banner" | "navigation" | "main" | "contentinfo" | "complementary" | "region" | "search" | "form") {
        0
    } else if texty && !has_ref {
        2
    } else {
        1
    };
    let rank = if summary { (0, 0, 0) } else { (in_view, crate::text::elements::role_rank(role), kind) };
    let counted_as = if summary {
        None
    } else if has_ref || (v.kind == Kind::Element && !v.name.is_empty()) {
        Some(if v.kind == Kind::Text { "text line" } else { role })
    } else if texty {
        Some("text line")
    } else {
        None
    };
    Printed { text, depth, parent, rank, counted_as, node: i }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn serialized(children: serde_json::Value, opts: &SnapshotOptions) -> Serialized {
        let tree = crate::tree::legacy_reader::from_value(json!({ "role": "RootWebArea", "name": "P", "children": children })).unwrap();
        serialize(&tree, None, None, Some("https://shop.test/cart"), opts, None, None, None, false, |_| ()).0
    }

    fn text_of(children: serde_json::Value, opts: &SnapshotOptions) -> String {
        serialized(children, opts).text
    }

    fn compact(children: serde_json::Value) -> String {
        text_of(children, &SnapshotOptions::default())
    }

    #[test]
    fn text_below_the_depth_cut_is_listed_when_the_cut_line_leaves_the_name_out() {
        // A cell named by its long content leaves its name off its line (its
        // children say it): at the cut, that name cannot say their text.
        let first = "The Arduino project grew out of 2005-era course work taught at the Interaction Design Institute Ivrea, in Italy (using ";
        let last = ", and pre-existing microcontroller hardware).";
        let name = format!("{first}Processing{last}");
        let opts = SnapshotOptions { max_depth: 1, ..SnapshotOptions::default() };
        let cell = json!([{ "role": "cell", "name": name, "children": [
            { "role": "StaticText", "name": first }, { "role": "link", "name": "Processing" }, { "role": "StaticText", "name": last }
        ] }]);
        let text = text_of(cell.clone(), &opts);
        assert!(text.contains("2005-era course work"), "{text}");
        assert!(text.contains("pre-existing microcontroller hardware"), "{text}");
        // A name that its line prints still says the text below it once.
        let short = json!([{ "role": "heading", "name": "Intro to Processing", "children": [
            { "role": "generic", "children": [{ "role": "StaticText", "name": "Intro to Processing" }] }
        ] }]);
        assert_eq!(text_of(short, &opts).matches("Intro to Processing").count(), 1);
    }

    #[test]
    fn a_list_item_holding_one_control_is_that_controls_line() {
        let items = json!([{ "role": "list", "children": [
            { "role": "listitem", "children": [{ "role": "link", "name": "Home" }] },
            { "role": "listitem", "children": [{ "role": "paragraph", "children": [{ "role": "link", "name": "About" }] }] },
            { "role": "listitem", "children": [{ "role": "link", "name": "Blog" }, { "role": "StaticText", "name": "new" }] },
        ] }]);
        assert_eq!(
            compact(items.clone()),
            "- document \"P\":\n  - list:\n    - link \"Home\" [ref=@e1]\n    - link \"About\" [ref=@e2]\n    - listitem:\n      - link \"Blog\" [ref=@e3]\n      - text: new"
        );
        let full = text_of(items, &SnapshotOptions { compact: false, ..SnapshotOptions::default() });
        assert!(full.contains("- listitem:\n      - link \"Home\""), "{full}");
    }

    #[test]
    fn a_single_wrapper_keeps_its_line_when_it_says_something() {
        // A landmark, a named group and a checked-state wrapper are not mere wrappers.
        let t = compact(json!([
            { "role": "navigation", "children": [{ "role": "link", "name": "Home" }] },
            { "role": "group", "name": "Size", "children": [{ "role": "radio", "name": "S" }] },
        ]));
        assert_eq!(t, "- document \"P\":\n  - navigation:\n    - link \"Home\" [ref=@e1]\n  - group \"Size\":\n    - radio \"S\" [ref=@e2]");
    }

    #[test]
    fn a_name_its_only_child_repeats_is_said_once_on_the_line_with_the_ref() {
        let t = compact(json!([
            { "role": "heading", "name": "Deals", "level": 2, "children": [{ "role": "link", "name": "Deals" }] },
            { "role": "link", "name": "BBC", "children": [{ "role": "image", "name": "BBC" }] },
            { "role": "link", "name": "Card", "children": [{ "role": "heading", "name": "Card", "level": 3 }] },
        ]));
        assert_eq!(
            t,
            "- document \"P\":\n  - heading [level=2]:\n    - link \"Deals\" [ref=@e1]\n  - link \"BBC\" [ref=@e2]\n  - link \"Card\" [ref=@e3]:\n    - heading [level=3]"
        );
    }

    #[test]
    fn a_labels_text_beside_its_control_goes_before_it_could_merge_with_the_next_labels() {
        // `<label><input type=radio> Pro</label>\n<label>Country <select>`: the labels
        // are out of the tree, their texts adjacent, each with the space that joined it.
        let t = compact(json!([{ "role": "group", "name": "Plan", "children": [
            { "role": "radio", "name": "Free" }, { "role": "StaticText", "name": "Free" },
            { "role": "radio", "name": "Pro" }, { "role": "StaticText", "name": "Pro " },
            { "role": "StaticText", "name": "Country " }, { "role": "combobox", "name": "Country" },
            { "role": "StaticText", "name": "Prices in euros" },
        ] }]));
        assert_eq!(
            t,
            "- document \"P\":\n  - group \"Plan\":\n    - radio \"Free\" [ref=@e1]\n    - radio \"Pro\" [ref=@e2]\n    - combobox \"Country\" [ref=@e3]\n    - text: Prices in euros"
        );
        // Text that says more than the control's name stays whole.
        let t =
            compact(json!([{ "role": "StaticText", "name": "Press " }, { "role": "StaticText", "name": "Send now" }, { "role": "button", "name": "Send" }]));
        assert!(t.contains("- text: Press Send now"), "{t}");
    }

    #[test]
    fn text_of_separate_blocks_and_lines_stays_on_lines_of_its_own() {
        // A chapter's paragraphs in block divs (nameless generics in the tree): one line each.
        let t = compact(json!([{ "role": "main", "children": [
            { "role": "generic", "children": [{ "role": "StaticText", "name": "It was a bright cold day." }] },
            { "role": "generic", "children": [{ "role": "StaticText", "name": "Winston slipped through " }, { "role": "StaticText", "name": "the glass doors." }] },
            { "role": "StaticText", "name": "Before a break" },
            { "role": "LineBreak", "name": "\n" },
            { "role": "StaticText", "name": "after " },
            { "role": "StaticText", "name": "it" },
        ] }]));
        assert_eq!(
            t,
            "- document \"P\":\n  - main:\n    - text: It was a bright cold day.\n    - text: Winston slipped through the glass doors.\n    - text: Before a break\n    - text: after it"
        );
    }

    #[test]
    fn a_long_text_line_is_not_cut_at_max_name_chars_but_a_name_is() {
        let long = "word ".repeat(390);
        let t = compact(json!([
            { "role": "generic", "children": [{ "role": "StaticText", "name": long.clone() }] },
            { "role": "link", "name": long.clone() },
        ]));
        assert!(t.contains(long.trim()), "{t}");
        assert!(t.contains(&format!("link \"{}…\"", &long.trim()[..900])), "{t}");
        // Past maxTextChars the line is cut, and says by how much.
        let huge = "x".repeat(5000);
        let s = serialized(json!([{ "role": "generic", "children": [{ "role": "StaticText", "name": huge }] }]), &SnapshotOptions::default());
        assert!(s.text.contains(&format!("{}… [3000 more characters; maxTextChars shows more]", "x".repeat(2000))), "{}", s.text);
        assert!(s.notes.iter().any(|n| n.starts_with("1 text line(s) longer than maxTextChars (2000) were cut")), "{:?}", s.notes);
    }

    #[test]
    fn inline_formatting_reads_as_one_line_of_text() {
        let t = compact(json!([{ "role": "paragraph", "children": [
            { "role": "StaticText", "name": "Our " },
            { "role": "emphasis", "children": [{ "role": "StaticText", "name": "specific" }] },
            { "role": "StaticText", "name": ", instance (" },
            { "role": "strong", "children": [{ "role": "StaticText", "name": "sic" }] },
            { "role": "StaticText", "name": ")." },
        ] }]));
        assert_eq!(t, "- document \"P\":\n  - paragraph: Our specific, instance (sic).");
        // A ref'd child keeps the paragraph a container.
        let t = compact(json!([{ "role": "paragraph", "children": [
            { "role": "StaticText", "name": "See" },
            { "role": "link", "name": "terms" },
        ] }]));
        assert_eq!(t, "- document \"P\":\n  - paragraph:\n    - text: See\n    - link \"terms\" [ref=@e1]");
    }

    #[test]
    fn separators_decorative_images_and_text_inside_the_name_go() {
        let t = compact(json!([
            { "role": "navigation", "children": [
                { "role": "link", "name": "Home" }, { "role": "StaticText", "name": " | " }, { "role": "link", "name": "About" },
            ] },
            { "role": "image", "name": "" },
            { "role": "heading", "name": "History[edit]", "level": 2, "children": [
                { "role": "StaticText", "name": "History[" }, { "role": "link", "name": "edit" }, { "role": "StaticText", "name": "]" },
            ] },
        ]));
        assert_eq!(
            t,
            "- document \"P\":\n  - navigation:\n    - link \"Home\" [ref=@e1]\n    - link \"About\" [ref=@e2]\n  - heading \"History[edit]\" [level=2]:\n    - link \"edit\" [ref=@e3]"
        );
    }

    #[test]
    fn urls_print_link_targets_relative_to_the_page_origin() {
        let links = json!([
            { "role": "link", "name": "Cart", "url": "https://shop.test/cart?x=1" },
            { "role": "link", "name": "Docs", "url": "https://docs.test/a" },
        ]);
        assert!(!compact(links.clone()).contains("url="));
        let t = text_of(links, &SnapshotOptions { urls: true, ..SnapshotOptions::default() });
        assert_eq!(t, "- document \"P\":\n  - link \"Cart\" [ref=@e1 url=\"/cart?x=1\"]\n  - link \"Docs\" [ref=@e2 url=\"https://docs.test/a\"]");
        assert_eq!(relative_url("https://SHOP.test/a", Some("https://shop.test/")), "/a");
        assert_eq!(relative_url("https://shop.test.evil/a", Some("https://shop.test/")), "https://shop.test.evil/a");
        assert_eq!(relative_url("https://shop.test", Some("https://shop.test/")), "https://shop.test");
        assert_eq!(relative_url("javascript:void(0)", Some("https://shop.test/")), "javascript:void(0)");
        assert_eq!(relative_url("/already", None), "/already");
    }
}
