//! The accessibility tree from the DOM: which nodes are in it (exclusion
//! rules), their roles, names and states, `aria-owns`, and frame documents
//! under their owners, as an [`AxTree`] the serializer reads like Chrome's.

use std::borrow::Cow;

use crate::engine::name::{author_only, collapse, generated_text, Namer};
use crate::engine::page::{Kind, Page, Pseudo, NONE};
use crate::engine::retext::Index;
use crate::engine::role::{is_disabled_control, is_focusable, role_of};
use crate::tree::{AxNode, AxTree, Tristate};
use rustc_hash::FxHashSet;

/// Per node: is it (and its subtree) out of the tree, and is it itself invisible.
#[derive(Debug, Default)]
pub(super) struct Exclusion {
    pub(super) gone: Vec<bool>,
    pub(super) invisible: Vec<bool>,
    /// `aria-disabled="true"` on the element or an ancestor (it applies to the subtree).
    pub(super) aria_disabled: Vec<bool>,
}

/// Exclusion (Core-AAM 1.2 "Excluding Elements from the Accessibility Tree",
/// #exclude_elements; WAI-ARIA 1.2 #aria-hidden; HTML #the-inert-attribute): not rendered (`display: none`, `hidden`, the head),
/// `aria-hidden="true"`, `inert` take the subtree out; `visibility: hidden`
/// hides the element itself, and children that set `visible` come back.
/// A rendered `canvas`'s content is its fallback content (HTML #the-canvas-element:
/// "the element's fallback content" is what assistive technology is given):
/// not rendered, yet in Chrome's tree, unless `hidden` takes it out.
fn exclusion(page: &Page) -> Exclusion {
    let count = page.nodes.len();
    // Rendered: a layout object, or a rendered descendant (`display: contents`).
    let mut renders = vec![false; count];
    for i in (0..count).rev() {
        let n = &page.nodes[i];
        if n.laid_out {
            renders[i] = true;
        }
        if renders[i] && n.parent != NONE && (n.parent as usize) < i {
            renders[n.parent as usize] = true;
        }
    }
    let mut gone = vec![false; count];
    let mut invisible = vec![false; count];
    let mut aria_disabled = vec![false; count];
    let mut fallback = vec![false; count];
    for i in 0..count {
        let n = &page.nodes[i];
        let parent = n.parent as usize;
        fallback[i] = n.parent != NONE && parent < i && (fallback[parent] || (renders[parent] && page.nodes.get(parent).is_some_and(|p| p.is("canvas"))));
        aria_disabled[i] = (n.parent != NONE && aria_disabled.get(n.parent as usize).copied().unwrap_or(false))
            || (n.is_element() && aria_bool(n, "aria-disabled") == Some(true));
        let parent_gone = n.parent != NONE && gone.get(n.parent as usize).copied().unwrap_or(false);
        gone[i] = parent_gone || excluded(page, i as u32, |a| renders[a as usize], fallback[i]);
        invisible[i] = n.laid_out && matches!(n.visibility.as_str(), "hidden" | "collapse");
    }
    Exclusion { gone, invisible, aria_disabled }
}

/// Whether node `i`, under a parent in the tree, is out of it: `renders`
/// says whether a node renders, `fallback` whether `i` is a canvas's fallback content.
fn excluded(page: &Page, i: u32, renders: impl Fn(u32) -> bool, fallback: bool) -> bool {
    let n = page.node(i);
    let in_select = || {
        // Options of a rendered `select` have no boxes of their own but are in the tree.
        page.ancestors(i).take(2).any(|a| page.node(a).is("select") && renders(a))
    };
    match n.kind {
        Some(Kind::Document) => false,
        Some(Kind::Text) => !renders(i) && !fallback && !in_select(),
        Some(Kind::Element) => {
            let in_tree_unrendered = if fallback { !n.has_attr("hidden") } else { matches!(n.tag.as_str(), "option" | "optgroup") && in_select() };
            let not_rendered = !renders(i) && !in_tree_unrendered;
            not_rendered || n.attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) || n.has_attr("inert")
        }
        _ => true,
    }
}

/// [`exclusion`] of the nodes `inside` again: a subtree in page order, its
/// top first, whose parent renders (so does everything above it), with no
/// `canvas` in it or above it (nothing in it is fallback content).
pub(super) fn exclude_again(page: &Page, ex: &mut Exclusion, inside: &[u32]) {
    let mut renders: FxHashSet<u32> = FxHashSet::default();
    for &i in inside.iter().rev() {
        let n = page.node(i);
        if n.laid_out || renders.contains(&i) {
            renders.insert(i);
            renders.insert(n.parent);
        }
    }
    let within: FxHashSet<u32> = inside.iter().copied().collect();
    // Above the subtree everything renders: its parent does.
    let rendering = |a: u32| renders.contains(&a) || !within.contains(&a);
    for &i in inside {
        let n = page.node(i);
        let parent = n.parent as usize;
        let (Some(&parent_gone), Some(&parent_disabled)) = (ex.gone.get(parent), ex.aria_disabled.get(parent)) else { continue };
        let disabled = parent_disabled || (n.is_element() && aria_bool(n, "aria-disabled") == Some(true));
        let gone = parent_gone || excluded(page, i, rendering, false);
        if let (Some(g), Some(v), Some(d)) = (ex.gone.get_mut(i as usize), ex.invisible.get_mut(i as usize), ex.aria_disabled.get_mut(i as usize)) {
            *g = gone;
            *v = n.laid_out && matches!(n.visibility.as_str(), "hidden" | "collapse");
            *d = disabled;
        }
    }
}

/// Build the tree of the page's documents from the root document.
pub fn build(page: &Page) -> AxTree {
    build_indexed(page).0
}

/// The role the build gives element `i`.
pub(super) fn role_of_node(page: &Page, i: u32) -> &'static str {
    role_of(page, i, || has_author_name(page, i))
}

/// [`build`], with what a later patch of changed text needs ([`super::retext`]).
pub fn build_indexed(page: &Page) -> (AxTree, Index) {
    let mut tree = AxTree::default();
    if page.nodes.is_empty() {
        return (tree, Index::default());
    }
    // Most rendered nodes become tree nodes: sized once, not grown by doubling.
    tree.nodes.reserve(page.nodes.len());
    let ex = exclusion(page);
    // Roles first: names depend on them (name from content, embedded controls).
    let mut roles: Vec<&'static str> = vec!["generic"; page.nodes.len()];
    for (i, n) in page.nodes.iter().enumerate() {
        if n.is_element() {
            // Names for the two name-dependent mappings are author names only (cheap, and what decides them).
            roles[i] = role_of_node(page, i as u32);
        }
    }
    let namer = Namer { page, gone: &ex.gone, invisible: &ex.invisible, roles: &roles, nesting: Default::default(), visits: Default::default() };
    let mut ax_of = vec![NONE; page.nodes.len()];
    let mut spaced = FxHashSet::default();
    Placer { page, namer: &namer, roles: &roles, ex: &ex, last_text: None, joined_before: false }.place(&mut tree, &mut ax_of, &mut spaced, page.root, NONE);
    apply_owns(page, &mut tree, &ax_of, &ex.gone);
    (tree, Index::new(ax_of, spaced, ex, roles))
}

/// The build's walk from one page node down: each node placed in the tree
/// under its parent's tree node, parents before children, in page order.
/// A whole build walks from the root; a subtree shown again
/// ([`super::retext::show`]) from its top.
pub(super) struct Placer<'p> {
    pub(super) page: &'p Page,
    pub(super) namer: &'p Namer<'p>,
    pub(super) roles: &'p [&'static str],
    pub(super) ex: &'p Exclusion,
    /// The last text node placed: a rendered space between inline boxes joins it
    /// to the next text (`<b>2192</b> <i>Shares</i>` reads "2192 Shares").
    pub(super) last_text: Option<u32>,
    /// A rendered white-space text came before any text of this walk: after
    /// a text placed before the walk began, it would have joined that one.
    pub(super) joined_before: bool,
}

impl Placer<'_> {
    /// Place `start` (and its subtree) under the tree node `parent` (`NONE`: as the root).
    pub(super) fn place(&mut self, tree: &mut AxTree, ax_of: &mut [u32], spaced: &mut FxHashSet<u32>, start: u32, parent: u32) {
        let page = self.page;
        // (page node, its tree node's parent in the tree)
        let mut stack: Vec<(u32, u32)> = vec![(start, parent)];
        while let Some((i, parent)) = stack.pop() {
            let Some(n) = page.get(i) else { continue };
            if self.ex.gone.get(i as usize).copied().unwrap_or(true) {
                continue;
            }
            let node = match n.kind {
                Some(Kind::Document) => Some(AxNode {
                    role: Cow::Borrowed("RootWebArea"),
                    // Untitled, a frame's document is called by its URL (as Chrome does: `about:srcdoc`).
                    name: Some(document_title(page, i))
                        .filter(|t| !t.is_empty())
                        .or_else(|| n.url.clone().filter(|u| n.parent != NONE && u != "about:blank"))
                        .unwrap_or_default(),
                    backend_node_id: n.backend,
                    frame_id: n.frame_id.clone(),
                    focusable: true,
                    ..AxNode::default()
                }),
                // Text under `visibility: hidden` is not shown, so not in the tree.
                Some(Kind::Text) if self.ex.invisible[i as usize] => None,
                Some(Kind::Text) => {
                    let text = collapse_keep_edges(&n.transform.apply(&n.text));
                    if text.trim().is_empty() && n.laid_out {
                        match self.last_text.and_then(|k| Some(k).zip(tree.nodes.get_mut(k as usize))) {
                            Some((k, t)) => {
                                spaced.insert(k);
                                if !t.name.ends_with(' ') {
                                    t.name.push(' ');
                                }
                            }
                            None => self.joined_before = true,
                        }
                    }
                    (!text.trim().is_empty()).then(|| AxNode { role: Cow::Borrowed("StaticText"), name: text, backend_node_id: n.backend, ..AxNode::default() })
                }
                Some(Kind::Element) => match n.pseudo {
                    Some(Pseudo::Before | Pseudo::After) => {
                        let text = generated_text(&n.content);
                        (!text.trim().is_empty()).then(|| AxNode { role: Cow::Borrowed("StaticText"), name: text, ..AxNode::default() })
                    }
                    Some(Pseudo::Other) => None,
                    None => Some(element_node(page, self.namer, i, self.roles[i as usize], self.ex)),
                },
                _ => None,
            };
            let Some(node) = node else { continue };
            let idx = tree.nodes.len() as u32;
            if node.role == "StaticText" {
                self.last_text = Some(idx);
            }
            tree.nodes.push(node);
            ax_of[i as usize] = idx;
            match tree.nodes.get_mut(parent as usize) {
                Some(p) => p.children.push(idx),
                None if tree.root.is_none() => tree.root = Some(idx),
                None => {}
            }
            let role = self.roles[i as usize];
            if n.is_element() && shows_user_agent_content(n) {
                tree.chrome_subtrees.push(idx);
                continue;
            }
            // A button-like input shows its label as text inside it (Chrome's
            // tree has that text as its child, which says it when a label
            // element names the button otherwise).
            if n.is("input") {
                if let Some(text) = input_button_text(n) {
                    let t = tree.nodes.len() as u32;
                    tree.nodes.push(AxNode { role: Cow::Borrowed("StaticText"), name: text, ..AxNode::default() });
                    tree.nodes[idx as usize].children.push(t);
                }
            }
            // A text field's own text is its value, not children; a select's options sit in a popup.
            if n.is_element() && (matches!(n.tag.as_str(), "textarea" | "input") || role == "none" && n.tag == "img") {
                continue;
            }
            if n.is("select") && role == "combobox" {
                let popup = tree.nodes.len() as u32;
                tree.nodes.push(AxNode { role: Cow::Borrowed("MenuListPopup"), ..AxNode::default() });
                tree.nodes[idx as usize].children.push(popup);
                for &c in n.children.iter().rev() {
                    stack.push((c, popup));
                }
                continue;
            }
            if n.content_doc != NONE {
                stack.push((n.content_doc, idx));
                continue;
            }
            for &c in n.children.iter().rev() {
                stack.push((c, idx));
            }
        }
    }
}

/// What script found and a DOM snapshot cannot show: the focused element
/// (its `focused` state), and a `<dialog>` shown with `showModal()`, which
/// makes everything but itself and its ancestors inert (HTML #blocked-by-a-modal-dialog),
/// so, as in Chrome's tree, left out; the dialog is modal.
pub fn apply_marks(tree: &mut AxTree, focused: Option<i64>, modal: Option<i64>) {
    let find = |tree: &AxTree, backend: i64| tree.nodes.iter().position(|n| n.backend_node_id == Some(backend) && !n.ignored);
    if let Some(i) = focused.and_then(|b| find(tree, b)) {
        tree.nodes[i].states.focused = true;
    }
    let Some(dialog) = modal.and_then(|b| find(tree, b)) else { return };
    tree.nodes[dialog].states.modal = true;
    let mut keep = vec![false; tree.nodes.len()];
    let mut stack = vec![dialog as u32];
    while let Some(i) = stack.pop() {
        if let Some(slot) = keep.get_mut(i as usize) {
            if !std::mem::replace(slot, true) {
                stack.extend(tree.nodes[i as usize].children.iter().copied());
            }
        }
    }
    for a in tree.ancestors(dialog as u32) {
        keep[a as usize] = true;
    }
    for (n, kept) in tree.nodes.iter_mut().zip(keep) {
        if !kept {
            n.ignored = true;
        }
    }
}

/// Elements whose accessible content is in a user-agent shadow root, which
/// DOMSnapshot leaves out, and depends on state no attribute shows, so
/// Chrome gives their subtrees: media elements (their controls, HTML
/// #attr-media-controls, are buttons and sliders Chrome names and disables
/// by the media's state, as it names the element itself, controls or not:
/// "Unable to play media."), the date and time
/// fields' spin buttons and picker button (their values and names are
/// Chrome's, by locale), and a file input's value (the chosen files,
/// "No file chosen").
fn shows_user_agent_content(n: &crate::engine::page::Node) -> bool {
    match n.tag.as_str() {
        "video" | "audio" => true,
        "input" => n.attr("type").is_some_and(|t| ["date", "time", "datetime-local", "month", "week", "file"].iter().any(|k| t.eq_ignore_ascii_case(k))),
        _ => false,
    }
}

fn has_author_name(page: &Page, i: u32) -> bool {
    let n = page.node(i);
    n.attr("aria-label").is_some_and(|s| !s.trim().is_empty())
        || n.attr("aria-labelledby").is_some_and(|ids| ids.split_ascii_whitespace().any(|id| page.by_id(i, id).is_some()))
        || n.attr("title").is_some_and(|s| !s.trim().is_empty())
}

/// Whitespace runs become one space; the edges keep one, as Chrome's text nodes do.
pub(super) fn collapse_keep_edges(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_ascii_whitespace() {
            space = true;
        } else {
            if space {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// The document's `title` element's text (HTML #the-title-element), for the root's name.
fn document_title(page: &Page, doc: u32) -> String {
    let mut stack: Vec<u32> = page.node(doc).children.clone();
    let mut budget = 64usize;
    while let Some(c) = stack.pop() {
        let n = page.node(c);
        if n.is("title") {
            let text: String = n.children.iter().map(|&t| page.node(t)).filter(|t| t.kind == Some(Kind::Text)).map(|t| t.text.as_str()).collect();
            return collapse(&text);
        }
        // The title is in the head, near the top: do not walk the body.
        if n.is("html") || n.is("head") {
            stack.extend(n.children.iter().rev().copied());
        }
        budget -= 1;
        if budget == 0 {
            break;
        }
    }
    String::new()
}

pub(super) fn element_node(page: &Page, namer: &Namer<'_>, i: u32, role: &'static str, ex: &Exclusion) -> AxNode {
    let invisible = ex.invisible[i as usize];
    let n = page.node(i);
    // Rows are named by their cells only in grids (as Chrome does; a data table's rows are not).
    let plain_row = role == "row" && !matches!(crate::engine::role::table_role(page, i), Some("grid" | "treegrid"));
    let name = if author_only(role) || plain_row { author_name(page, namer, i, role) } else { namer.name(i) };
    let focusable = is_focusable(page, i);
    let mut node = AxNode {
        role: Cow::Borrowed(match role {
            "option" if page.ancestors(i).take(2).any(|a| page.node(a).is("select")) => "MenuListOption",
            r => r,
        }),
        name,
        backend_node_id: n.backend,
        focusable,
        // `role="none"`, invisible and uninteresting elements leave their children to their parent.
        ignored: invisible || role == "none" || uninteresting(page, i, role, focusable),
        ..AxNode::default()
    };
    node.value = value_of(page, namer, i, role);
    states(page, i, role, &mut node);
    node.states.disabled |= ex.aria_disabled[i as usize];
    if role == "link" {
        node.url = n.attr("href").and_then(|h| resolve_url(page, i, h));
    }
    node
}

/// Elements Chrome keeps out of the tree as "uninteresting": an inline
/// generic element with nothing of its own (no name, focus, listener or
/// ARIA attribute), and a `label` that labels a control (its text is that control's name).
fn uninteresting(page: &Page, i: u32, role: &str, focusable: bool) -> bool {
    let n = page.node(i);
    let plain = || !n.clickable && !focusable && !n.attrs.iter().any(|(k, _)| k.starts_with("aria-") || k == "role");
    match role {
        // Where `cursor: pointer` begins, the DOM pass marks a control: kept, as in
        // Chrome's tree, unless it is a piece of a button or link (its text is their name).
        "generic" => {
            let control = || !n.pointer_root || page.ancestors(i).any(|a| page.node(a).is("button") || (page.node(a).is("a") && page.node(a).has_attr("href")));
            n.display.starts_with("inline") && n.display != "inline-block" && control() && plain()
        }
        "LabelText" => match toggle_labelled(page, i) {
            // DOMSnapshot calls a checkbox's or radio's label clickable for its
            // control's sake, listener or not. Chrome leaves the label out
            // ("labelFor") when it names the control and holds only text
            // besides it; one with other elements in it stays, as does one
            // whose control is named otherwise (so are all 50 such labels of
            // the 114 real pages; four of them aria-hidden, left out for that).
            Some(control) => {
                let c = page.node(control);
                let quiet = !focusable && !n.has_attr("onclick") && !n.attrs.iter().any(|(k, _)| k.starts_with("aria-") || k == "role");
                quiet && !c.has_attr("aria-label") && !c.has_attr("aria-labelledby") && !holds_other_elements(page, i, control)
            }
            None => {
                plain()
                    && (n.attr("for").is_some_and(|id| page.by_id(i, id).is_some())
                        || n.children.iter().any(|&c| matches!(page.node(c).tag.as_str(), "input" | "select" | "textarea" | "button")))
            }
        },
        _ => false,
    }
}

/// The checkbox or radio a `label` labels (HTML's labeled control: the
/// element its `for` names, else its first labelable descendant), if it is one.
fn toggle_labelled(page: &Page, label: u32) -> Option<u32> {
    let n = page.node(label);
    let control = match n.attr("for") {
        Some(id) => page.by_id(label, id),
        None => page.labelables_in(label, 1, page.nodes.len()).and_then(|found| found.first().copied()),
    }?;
    let c = page.node(control);
    let toggle = c.is("input") && c.attr("type").is_some_and(|t| t.eq_ignore_ascii_case("checkbox") || t.eq_ignore_ascii_case("radio"));
    toggle.then_some(control)
}

/// Whether an element other than `control` (and what is inside it) is below `label`.
fn holds_other_elements(page: &Page, label: u32, control: u32) -> bool {
    let mut stack: Vec<u32> = page.node(label).children.clone();
    let mut steps = 0usize;
    while let Some(c) = stack.pop() {
        steps += 1;
        if steps > page.nodes.len() {
            break;
        }
        if c == control {
            continue;
        }
        let Some(cn) = page.get(c) else { continue };
        if cn.is_element() {
            return true;
        }
        stack.extend(cn.children.iter().copied());
    }
    false
}

/// `aria-labelledby`, `aria-label`, `title`: what an element with no native or
/// content name can be called. A generic element is not named by its `title` (Chrome).
fn author_name(page: &Page, namer: &Namer<'_>, i: u32, role: &str) -> String {
    let n = page.node(i);
    if n.has_attr("aria-labelledby") || n.has_attr("aria-label") {
        return namer.name(i);
    }
    if role == "generic" {
        return String::new();
    }
    namer.title_name(i).unwrap_or_default()
}

fn value_of(page: &Page, namer: &Namer<'_>, i: u32, role: &str) -> Option<String> {
    let n = page.node(i);
    match role {
        "textbox" | "searchbox" | "spinbutton" | "slider" | "combobox" if n.is("input") || n.is("textarea") => {
            let input_type = n.attr("type").map(str::to_ascii_lowercase).unwrap_or_default();
            if input_type == "password" {
                // Chrome reports a password field's value as bullets; the text never shows it.
                return n.value.as_ref().filter(|v| !v.is_empty()).map(|v| "•".repeat(v.chars().count()));
            }
            n.value.clone().filter(|v| !v.is_empty())
        }
        // The sanitized value, a lower-case `#rrggbb` (HTML #color-state-(type=color)).
        "ColorWell" if n.is("input") => n.value.clone().filter(|v| !v.is_empty()),
        "combobox" if n.is("select") => namer
            .selected_option(i)
            .map(|o| {
                let on = page.node(o);
                on.attr("label").map(str::to_string).unwrap_or_else(|| {
                    on.children.iter().map(|&t| page.node(t)).filter(|t| t.kind == Some(Kind::Text)).map(|t| t.text.as_str()).collect::<String>()
                })
            })
            .map(|s| collapse(&s))
            .filter(|s| !s.is_empty()),
        // A custom combobox (a button or div with the role) shows its choice as its text.
        "combobox" => {
            let text = namer.text_of(i);
            (!text.is_empty()).then_some(text)
        }
        // A range's value in Chrome's tree is the number `aria-valuenow` says
        // (`aria-valuetext` is for names and speech): "100.00" is 100. A
        // slider or scrollbar without one sits halfway between its bounds.
        "slider" | "spinbutton" | "progressbar" | "meter" | "scrollbar" => {
            let number = |name: &str| n.attr(name).and_then(|v| v.trim().parse::<f64>().ok()).filter(|v| v.is_finite());
            match n.attr("aria-valuenow") {
                Some(_) => Some(number("aria-valuenow").unwrap_or(0.0)),
                None if matches!(role, "slider" | "scrollbar") => {
                    let (min, max) = (number("aria-valuemin").unwrap_or(0.0), number("aria-valuemax").unwrap_or(100.0));
                    Some(if max < min { min } else { min + (max - min) / 2.0 })
                }
                None => None,
            }
            .map(|v| v.to_string())
        }
        _ => None,
    }
}

fn aria_bool(n: &crate::engine::page::Node, name: &str) -> Option<bool> {
    match n.attr(name).map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("true") => Some(true),
        Some("false") => Some(false),
        _ => None,
    }
}

fn aria_tristate(n: &crate::engine::page::Node, name: &str) -> Option<Tristate> {
    match n.attr(name).map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("true") => Some(Tristate::True),
        Some("false") => Some(Tristate::False),
        Some("mixed") => Some(Tristate::Mixed),
        _ => None,
    }
}

/// The text a button-like input shows: its value, the default label of a
/// submit or reset button, an image button's `alt`.
fn input_button_text(n: &crate::engine::page::Node) -> Option<String> {
    let kind = n.attr("type").map(|t| t.trim().to_ascii_lowercase()).unwrap_or_default();
    let text = match kind.as_str() {
        "submit" | "reset" | "button" => n.attr("value").or(crate::engine::name::default_button_label(&kind))?,
        "image" => n.attr("alt")?,
        _ => return None,
    };
    let text = crate::engine::name::collapse(text);
    (!text.is_empty()).then_some(text)
}

/// Roles whose `aria-expanded` Chrome exposes (checked against Chrome 156
/// role by role: a listitem does, a listbox, tree, group or region does not).
fn supports_expanded(role: &str) -> bool {
    matches!(
        role,
        "button"
            | "checkbox"
            | "combobox"
            | "gridcell"
            | "link"
            | "listitem"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "row"
            | "rowheader"
            | "columnheader"
            | "switch"
            | "tab"
            | "treeitem"
            | "application"
            | "DisclosureTriangle"
    )
}

/// The states the serializer prints (WAI-ARIA 1.2 #state_prop_def and the
/// native equivalents of HTML-AAM #html-element-role-mappings: `checked`, `selected`, `disabled`, `open`, heading levels).
fn states(page: &Page, i: u32, role: &str, node: &mut AxNode) {
    let n = page.node(i);
    let s = &mut node.states;
    let input_type = n.attr("type").map(|t| t.trim().to_ascii_lowercase()).unwrap_or_default();
    // Only roles that can be checked show it: a native checkbox given
    // `role="button"` or `role="tab"` is not checked in Chrome's tree.
    let checkable = matches!(role, "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio");
    s.checked = if checkable && n.is("input") && matches!(input_type.as_str(), "checkbox" | "radio") {
        Some(if n.checked { Tristate::True } else { Tristate::False })
    } else if checkable {
        Some(aria_tristate(n, "aria-checked").unwrap_or(Tristate::False))
    } else {
        None
    };
    if role == "button" {
        s.pressed = aria_tristate(n, "aria-pressed");
    }
    // `aria-expanded` shows only on roles that support it (WAI-ARIA 1.2's
    // list, as Chrome reads it: not on a generic, a group, a region or a heading).
    s.expanded = aria_bool(n, "aria-expanded").filter(|_| supports_expanded(role));
    if role == "DisclosureTriangle" {
        s.expanded = page.parent_element(i).map(|d| page.node(d).has_attr("open"));
    }
    if n.is("select") && role == "combobox" {
        s.expanded = Some(false);
    }
    // Chrome reports plugin content it does not run as unavailable.
    s.disabled = matches!(role, "PluginObject" | "EmbeddedObject") || is_disabled_control(page, i);
    s.selected = if n.is("option") {
        n.selected
    } else if matches!(role, "option" | "tab" | "row" | "gridcell" | "treeitem" | "cell" | "columnheader" | "rowheader") {
        aria_bool(n, "aria-selected") == Some(true)
    } else {
        false
    };
    s.level = match role {
        "heading" => n
            .attr("aria-level")
            .and_then(|l| l.trim().parse::<u32>().ok())
            .filter(|&l| l > 0)
            .or_else(|| n.tag.strip_prefix('h').and_then(|d| d.parse::<u32>().ok()).filter(|l| (1..=6).contains(l)))
            .or(Some(2)),
        // A tree item's level is its depth among tree items (WAI-ARIA 1.2 #aria-level), unless set.
        "treeitem" => n.attr("aria-level").and_then(|l| l.trim().parse::<u32>().ok()).filter(|&l| l > 0).or_else(|| {
            let mut level = 1;
            for a in page.ancestors(i) {
                match crate::engine::role::explicit_role(page, a) {
                    Some("treeitem") => level += 1,
                    Some("tree" | "treegrid") => break,
                    _ => {}
                }
            }
            Some(level)
        }),
        "listitem" | "row" => n.attr("aria-level").and_then(|l| l.trim().parse::<u32>().ok()).filter(|&l| l > 0),
        _ => None,
    };
    s.readonly = (matches!(n.tag.as_str(), "input" | "textarea") && n.has_attr("readonly")) || aria_bool(n, "aria-readonly") == Some(true);
    s.busy = aria_bool(n, "aria-busy") == Some(true);
    s.modal = matches!(role, "dialog" | "alertdialog") && aria_bool(n, "aria-modal") == Some(true);
}

fn resolve_url(page: &Page, i: u32, href: &str) -> Option<String> {
    // The element's scope is its document node, which carries the base URL.
    let base = page.scope.get(i as usize).and_then(|&d| page.get(d)).and_then(|d| d.base_url.as_ref());
    match base {
        Some(b) => b.join(href.trim()).ok().map(|u| u.to_string()),
        None => url::Url::parse(href.trim()).ok().map(|u| u.to_string()),
    }
}

/// `aria-owns` (WAI-ARIA 1.2 #aria-owns): owned elements move under their owner,
/// after its own children. An element is owned once, and never by its own descendant.
fn apply_owns(page: &Page, tree: &mut AxTree, ax_of: &[u32], gone: &[bool]) {
    let owners: Vec<u32> = (0..page.nodes.len() as u32).filter(|&i| page.node(i).is_element() && page.node(i).has_attr("aria-owns")).collect();
    if owners.is_empty() {
        return;
    }
    let mut parent = tree.parents();
    let mut owned = rustc_hash::FxHashSet::default();
    for o in owners {
        let Some(&owner_ax) = ax_of.get(o as usize).filter(|&&a| a != NONE) else { continue };
        let ids = page.node(o).attr("aria-owns").unwrap_or_default().to_string();
        for id in ids.split_ascii_whitespace() {
            let Some(target) = page.by_id(o, id) else { continue };
            if gone.get(target as usize).copied().unwrap_or(true) {
                continue;
            }
            let Some(&t) = ax_of.get(target as usize).filter(|&&a| a != NONE) else { continue };
            // Not the owner itself, not an ancestor of it, and not twice.
            let mut up = owner_ax;
            let mut cycle = t == owner_ax;
            let mut steps = 0;
            while !cycle && up != u32::MAX && steps <= tree.nodes.len() {
                up = parent.get(up as usize).copied().unwrap_or(u32::MAX);
                cycle = up == t;
                steps += 1;
            }
            if cycle || !owned.insert(t) {
                continue;
            }
            if let Some(&old) = parent.get(t as usize).filter(|&&p| p != u32::MAX) {
                tree.nodes[old as usize].children.retain(|&c| c != t);
            }
            tree.nodes[owner_ax as usize].children.push(t);
            parent[t as usize] = owner_ax;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One node of a test page: parent, node type, name, text or `None`,
    /// attributes, laid out, display, visibility.
    type N<'a> = (i64, i64, &'a str, Option<&'a str>, &'a [(&'a str, &'a str)], bool, &'a str, &'a str);

    /// A DOMSnapshot reply in Chrome's shape (strings table, rare data, layout
    /// with the engine's styles from index 0), built from a node list.
    fn snapshot(nodes: &[N<'_>], extra: serde_json::Value) -> String {
        let mut strings: Vec<String> = Vec::new();
        let mut s = |v: &str| -> i64 {
            if let Some(i) = strings.iter().position(|x| x == v) {
                return i as i64;
            }
            strings.push(v.to_string());
            (strings.len() - 1) as i64
        };
        let mut doc = json!({ "frameId": s("F1"), "baseURL": s("https://example.test/dir/"), "nodes": {
            "parentIndex": [], "nodeType": [], "nodeName": [], "nodeValue": [], "backendNodeId": [], "attributes": [] },
            "layout": { "nodeIndex": [], "styles": [] } });
        for (i, (parent, kind, name, value, attrs, laid, display, visibility)) in nodes.iter().enumerate() {
            let n = &mut doc["nodes"];
            n["parentIndex"].as_array_mut().unwrap().push(json!(parent));
            n["nodeType"].as_array_mut().unwrap().push(json!(kind));
            n["nodeName"].as_array_mut().unwrap().push(json!(s(name)));
            n["nodeValue"].as_array_mut().unwrap().push(json!(value.map_or(-1, &mut s)));
            n["backendNodeId"].as_array_mut().unwrap().push(json!(i + 1));
            // Chrome sends an empty attribute value as no string (-1).
            let a: Vec<i64> = attrs.iter().flat_map(|(k, v)| [s(k), if v.is_empty() { -1 } else { s(v) }]).collect();
            n["attributes"].as_array_mut().unwrap().push(json!(a));
            if *laid {
                doc["layout"]["nodeIndex"].as_array_mut().unwrap().push(json!(i));
                doc["layout"]["styles"].as_array_mut().unwrap().push(json!([s(display), s(visibility), s("normal"), s("none")]));
            }
        }
        if let serde_json::Value::Object(m) = extra {
            for (k, v) in m {
                doc["nodes"][k] = v;
            }
        }
        json!({ "documents": [doc], "strings": strings }).to_string()
    }

    fn tree_of(nodes: &[N<'_>], extra: serde_json::Value) -> AxTree {
        crate::engine::tree_from_snapshot(&snapshot(nodes, extra), 0).unwrap()
    }

    fn find(t: &AxTree, backend: i64) -> Option<&AxNode> {
        t.nodes.iter().find(|n| n.backend_node_id == Some(backend))
    }

    const B: &str = "block";
    const V: &str = "visible";

    #[test]
    fn roles_names_and_states_of_controls() {
        let t = tree_of(
            &[
                (-1, 9, "#document", None, &[], false, "", ""),
                (0, 1, "HTML", None, &[], true, B, V),
                (1, 1, "BODY", None, &[], true, B, V),
                (2, 1, "BUTTON", None, &[("disabled", "")], true, "inline-block", V), // 4
                (3, 3, "#text", Some("  Send \n now "), &[], true, "inline-block", V),
                (2, 1, "A", None, &[("href", "../next?q=1")], true, "inline", V), // 6
                (5, 1, "IMG", None, &[("alt", "Logo")], true, "inline", V),
                (5, 3, "#text", Some("Home"), &[], true, "inline", V),
                (2, 1, "LABEL", None, &[("for", "q")], true, "inline", V), // 9
                (8, 3, "#text", Some("Query"), &[], true, "inline", V),
                (2, 1, "INPUT", None, &[("id", "q"), ("placeholder", "Type here")], true, "inline-block", V), // 11
                (2, 1, "H3", None, &[], true, B, V),                                                          // 12
                (11, 3, "#text", Some("Title"), &[], true, B, V),
                (2, 1, "INPUT", None, &[("type", "checkbox"), ("aria-labelledby", "gone")], true, "inline-block", V), // 14
                (2, 1, "SPAN", None, &[("id", "gone"), ("hidden", "")], false, "", ""),                               // 15
                (14, 3, "#text", Some("Hidden label"), &[], false, "", ""),
            ],
            json!({ "inputChecked": { "index": [13] }, "inputValue": { "index": [10], "value": [] } }),
        );
        let button = find(&t, 4).unwrap();
        assert_eq!((button.role.as_ref(), button.name.as_str(), button.states.disabled), ("button", "Send now", true));
        let link = find(&t, 6).unwrap();
        assert_eq!((link.role.as_ref(), link.name.as_str()), ("link", "Logo Home"), "an image's alt counts in its link's name");
        assert_eq!(link.url.as_deref(), Some("https://example.test/next?q=1"), "resolved against the base URL");
        assert_eq!(find(&t, 11).unwrap().name, "Query", "the label, not the placeholder");
        let h = find(&t, 12).unwrap();
        assert_eq!((h.role.as_ref(), h.name.as_str(), h.states.level), ("heading", "Title", Some(3)));
        let check = find(&t, 14).unwrap();
        assert_eq!(check.states.checked, Some(Tristate::True));
        assert_eq!(check.name, "Hidden label", "aria-labelledby reads hidden text (accname 2B)");
        assert!(find(&t, 15).is_none(), "a hidden element is not in the tree");
        assert_eq!(t.nodes[t.root.unwrap() as usize].role, "RootWebArea");
    }

    #[test]
    fn exclusion_rules() {
        let t = tree_of(
            &[
                (-1, 9, "#document", None, &[], false, "", ""),
                (0, 1, "BODY", None, &[], true, B, V),
                (1, 1, "DIV", None, &[("aria-hidden", "true")], true, B, V),              // 3
                (2, 1, "BUTTON", None, &[], true, B, V),                                  // 4
                (1, 1, "DIV", None, &[("inert", "")], true, B, V),                        // 5
                (4, 1, "BUTTON", None, &[], true, B, V),                                  // 6
                (1, 1, "DIV", None, &[], true, B, "hidden"),                              // 7
                (6, 1, "BUTTON", None, &[("aria-label", "Back")], true, B, V),            // 8: visible again
                (6, 3, "#text", Some("secret"), &[], true, B, "hidden"),                  // 9
                (1, 1, "DIV", None, &[("style", "display:contents")], false, "", ""),     // 10
                (9, 1, "BUTTON", None, &[("aria-label", "Inside contents")], true, B, V), // 11
            ],
            json!({}),
        );
        assert!(find(&t, 4).is_none() && find(&t, 6).is_none(), "aria-hidden and inert take the subtree");
        assert!(find(&t, 7).is_some_and(|n| n.ignored), "visibility: hidden hides the element only");
        assert_eq!(find(&t, 8).unwrap().name, "Back");
        assert!(find(&t, 9).is_none(), "hidden text is not in the tree");
        assert_eq!(find(&t, 11).unwrap().name, "Inside contents", "display: contents keeps its children");
    }

    #[test]
    fn owns_moves_children_and_survives_cycles() {
        let t = tree_of(
            &[
                (-1, 9, "#document", None, &[], false, "", ""),
                (0, 1, "BODY", None, &[], true, B, V),
                (1, 1, "DIV", None, &[("id", "a"), ("role", "listbox"), ("aria-owns", "b x")], true, B, V), // 3
                (1, 1, "DIV", None, &[("id", "b"), ("role", "option"), ("aria-owns", "a")], true, B, V),    // 4
                (3, 3, "#text", Some("Opt"), &[], true, B, V),
            ],
            json!({}),
        );
        let list = t.find_by_backend_id(3).unwrap();
        let option = t.find_by_backend_id(4).unwrap();
        assert!(t.nodes[list as usize].children.contains(&option), "the owned option moved under its owner");
        assert!(!t.nodes[option as usize].children.contains(&list), "an owner cannot be owned by its own descendant");
        assert_eq!(t.nodes[option as usize].name, "Opt");
    }

    #[test]
    fn deep_pages_and_malformed_input() {
        // 100,000 nested spans inside a button: no recursion; the name's traversal stops at its bound.
        let deep = |depth: i64| {
            let mut nodes: Vec<N<'_>> = vec![(-1, 9, "#document", None, &[], false, "", ""), (0, 1, "BUTTON", None, &[], true, B, V)];
            for i in 0..depth {
                nodes.push((i + 1, 1, "SPAN", None, &[], true, "inline", V));
            }
            nodes.push((depth + 1, 3, "#text", Some("deep"), &[], true, "inline", V));
            tree_of(&nodes, json!({}))
        };
        assert_eq!(find(&deep(1_000), 2).unwrap().name, "deep");
        let t = deep(100_000);
        assert_eq!(find(&t, 2).unwrap().name, "", "past MAX_NAME_NODES the name is cut");
        assert_eq!(find(&t, 100_003).unwrap().name, "deep", "the text itself is in the tree");
        assert!(crate::engine::tree_from_snapshot("{\"documents\": 3}", 0).is_err());
        assert!(crate::engine::tree_from_snapshot("[", 0).is_err());
        // Parents after their children, and indexes out of range: detached, never a panic.
        let odd = r##"{"strings":["#document","DIV"],"documents":[{"nodes":{"parentIndex":[-1,5,0,-7],"nodeType":[9,1,1,1],"nodeName":[0,1,1,9],"backendNodeId":[1,2,3],"inputChecked":{"index":[99]},"contentDocumentIndex":{"index":[2],"value":[0]}},"layout":{"nodeIndex":[2,40],"styles":[[1]]}}]}"##;
        let t = crate::engine::tree_from_snapshot(odd, 0).unwrap();
        assert!(t.find_by_backend_id(2).is_none());
        assert!(t.find_by_backend_id(3).is_some());
    }

    #[test]
    fn nested_native_names_do_not_recurse_with_the_page() {
        // fieldset > legend > fieldset > legend … 5,000 deep: each fieldset is named by
        // its legend, whose content holds the next fieldset. Cut, not a stack overflow.
        let mut nodes: Vec<N<'_>> = vec![(-1, 9, "#document", None, &[], false, "", "")];
        let mut parent = 0i64;
        for _ in 0..5_000 {
            nodes.push((parent, 1, "FIELDSET", None, &[], true, B, V));
            nodes.push((nodes.len() as i64 - 1, 1, "LEGEND", None, &[], true, B, V));
            parent = nodes.len() as i64 - 1;
        }
        nodes.push((parent, 3, "#text", Some("innermost"), &[], true, B, V));
        let t = tree_of(&nodes, json!({}));
        assert_eq!(find(&t, 2).unwrap().role, "group");
        assert!(find(&t, 10_000).unwrap().name.contains("innermost"), "the innermost fieldset is named by its legend");
    }

    #[test]
    fn generated_content_and_text_transform() {
        assert_eq!(crate::engine::name::generated_text(r#""Go " "now""#), "Go now");
        assert_eq!(crate::engine::name::generated_text("counter(x) \"\\\"q\\\"\""), "\"q\"");
        assert_eq!(crate::engine::page::Transform::Capitalize.apply("hello big world"), "Hello Big World");
    }

    #[test]
    fn media_controls_and_date_fields_are_left_to_chrome() {
        let t = tree_of(
            &[
                (-1, 9, "#document", None, &[], false, "", ""),
                (0, 1, "HTML", None, &[], true, B, V),
                (1, 1, "BODY", None, &[], true, B, V),
                (2, 1, "VIDEO", None, &[("controls", "")], true, "inline", V), // 4
                (3, 3, "#text", Some("Your browser cannot play this"), &[], false, "", ""),
                (2, 1, "VIDEO", None, &[], true, "inline", V), // 6: no controls, still named by its state
                (2, 1, "INPUT", None, &[("type", "Date")], true, "inline-block", V), // 7
                (2, 1, "INPUT", None, &[("type", "text")], true, "inline-block", V),
                (2, 1, "DIV", None, &[("hidden", "")], false, "", ""),
                (8, 1, "AUDIO", None, &[("controls", "")], false, "", ""), // 10: not rendered
            ],
            json!({}),
        );
        let asked: Vec<i64> = t.chrome_subtrees.iter().filter_map(|&i| t.node(i).and_then(|n| n.backend_node_id)).collect();
        assert_eq!(asked, [4, 6, 7]);
        assert!(find(&t, 4).is_some_and(|n| n.children.is_empty()), "the fallback content is not the element's subtree");
    }

    #[test]
    fn chrome_subtree_grafts_in_place_of_the_engine_node() {
        let mut t = tree_of(
            &[
                (-1, 9, "#document", None, &[], false, "", ""),
                (0, 1, "HTML", None, &[], true, B, V),
                (1, 1, "BODY", None, &[], true, B, V),
                (2, 1, "VIDEO", None, &[("controls", "")], true, "inline", V), // 4
                (2, 1, "BUTTON", None, &[], true, "inline-block", V),          // 5
                (4, 3, "#text", Some("After"), &[], true, "inline-block", V),
            ],
            json!({}),
        );
        let at = t.chrome_subtrees[0];
        let before = t.nodes.len();
        // As Accessibility.queryAXTree answers: the node first, its descendants after, in any order.
        let reply = json!({ "nodes": [
            { "nodeId": "4", "role": { "value": "Video" }, "name": { "value": "Unable to play media." }, "backendDOMNodeId": 4,
              "properties": [{ "name": "disabled", "value": { "value": true } }], "childIds": ["20"] },
            { "nodeId": "21", "role": { "value": "button" }, "name": { "value": "play" }, "backendDOMNodeId": 21, "childIds": [] },
            { "nodeId": "20", "ignored": true, "role": { "value": "generic" }, "backendDOMNodeId": 20, "childIds": ["21", "99"] },
        ] });
        let sub = crate::tree::cdp_reader::parse_full_ax_tree(&reply.to_string()).unwrap();
        t.graft(at, sub);
        let video = t.node(at).unwrap();
        assert_eq!((video.role.as_ref(), video.name.as_str(), video.states.disabled), ("Video", "Unable to play media.", true));
        assert_eq!(t.nodes.len(), before + 2);
        let generic = t.node(video.children[0]).unwrap();
        assert!(generic.ignored);
        let play = t.node(generic.children[0]).unwrap();
        assert_eq!((play.role.as_ref(), play.name.as_str(), play.backend_node_id), ("button", "play", Some(21)));
        let body = t.nodes.iter().find(|n| n.children.contains(&at)).unwrap();
        assert!(body.children.iter().any(|&c| t.node(c).is_some_and(|n| n.name == "After")), "the siblings stay");
    }

    #[test]
    fn a_modal_dialog_leaves_the_rest_of_the_page_out_and_focus_is_marked() {
        let mut t = tree_of(
            &[
                (-1, 9, "#document", None, &[], false, "", ""),
                (0, 1, "HTML", None, &[], true, B, V),
                (1, 1, "BODY", None, &[], true, B, V),
                (2, 1, "MAIN", None, &[], true, B, V),                // 4
                (3, 1, "BUTTON", None, &[], true, "inline-block", V), // 5
                (4, 3, "#text", Some("Buy"), &[], true, "inline-block", V),
                (2, 1, "DIALOG", None, &[("open", "")], true, B, V),  // 7
                (6, 1, "BUTTON", None, &[], true, "inline-block", V), // 8
                (7, 3, "#text", Some("Close"), &[], true, "inline-block", V),
            ],
            json!({}),
        );
        apply_marks(&mut t, Some(8), Some(7));
        assert!(find(&t, 7).is_some_and(|n| n.states.modal && !n.ignored));
        assert!(find(&t, 8).is_some_and(|n| n.states.focused && !n.ignored));
        assert!(find(&t, 5).is_some_and(|n| n.ignored), "behind the dialog: inert");
        assert!(find(&t, 1).is_some_and(|n| !n.ignored), "the dialog's ancestors hold it");
        let mut plain = t.clone();
        apply_marks(&mut plain, None, None);
        assert_eq!(plain.nodes.iter().filter(|n| n.ignored).count(), t.nodes.iter().filter(|n| n.ignored).count());
    }
}
