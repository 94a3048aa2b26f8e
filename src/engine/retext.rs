//! A built tree told of changed text, instead of built again.
//!
//! The most common repeat snapshot follows text changing in place: a row's
//! cell, a counter, a price, a status line. The page's elements, attributes
//! and styles are as they were, so every role, every exclusion and every
//! node's place in the tree is too; only the changed text's own node and the
//! names and values computed from it can differ. Those are the text's
//! ancestors (name from content, a select's value, a custom combobox's text)
//! and elements that reach it through an id (`aria-labelledby`, a
//! `<label for>`) or a wrapping `label`. Ancestors are computed again with the
//! build's own functions; a text that other elements may reach sideways, or a
//! change the rules below cannot bound, makes the caller build the tree whole.
//! On the 40k-node benchmark page the whole build is about 5 ms of a repeat
//! snapshot's 35; this is a few microseconds per changed text.
//!
//! Subtrees that go out of layout or come into it (a row hidden or shown)
//! are taken out of the tree ([`hide`]) or built into it ([`show`]) the same
//! way: the rest of the page keeps its roles, exclusion and places.

use rustc_hash::FxHashSet;

use super::build::{collapse_keep_edges, element_node, exclude_again, role_of_node, Exclusion, Placer};
use super::name::Namer;
use super::page::{Kind, Page, NONE};
use crate::tree::AxTree;

/// What a build knew that a patch needs: where each page node went, and the
/// per-node facts text cannot change.
#[derive(Debug, Default)]
pub struct Index {
    /// Each page node's tree node (`NONE`: not in the tree), by page index.
    pub(super) ax_of: Vec<u32>,
    /// Tree nodes a rendered white-space-only text followed (it joined them to the next text with a space).
    pub(super) spaced: FxHashSet<u32>,
    pub(super) ex: Exclusion,
    pub(super) roles: Vec<&'static str>,
    /// Ids some element is named by (`aria-labelledby`), found at the first patch.
    sideways: Option<Sideways>,
}

#[derive(Debug)]
struct Sideways {
    ids: FxHashSet<String>,
    /// `aria-owns` moves nodes in the tree away from their DOM ancestors.
    owns: bool,
}

impl Index {
    pub(super) fn new(ax_of: Vec<u32>, spaced: FxHashSet<u32>, ex: Exclusion, roles: Vec<&'static str>) -> Index {
        Index { ax_of, spaced, ex, roles, sideways: None }
    }

    fn sideways(&mut self, page: &Page) -> &Sideways {
        self.sideways.get_or_insert_with(|| {
            let mut ids = FxHashSet::default();
            let mut owns = false;
            for n in page.nodes.iter().filter(|n| n.is_element()) {
                for (k, v) in &n.attrs {
                    match k.as_str() {
                        "aria-labelledby" => ids.extend(v.split_ascii_whitespace().map(str::to_string)),
                        "aria-owns" => owns = true,
                        _ => {}
                    }
                }
            }
            Sideways { ids, owns }
        })
    }
}

impl Index {
    /// Each page node's tree node (`NONE`: not in the tree), by page index.
    pub fn ax_of(&self) -> &[u32] {
        &self.ax_of
    }

    /// This index over the page laid out again: `moved_to` holds each node of
    /// the page the tree was built from at its place in the new one (`NONE`:
    /// left), `count` is the new page's size. A node new to the page is out
    /// of the tree, as the build leaves what it did not place, for [`show`]
    /// to place.
    pub fn relaid(self, moved_to: &[u32], count: usize) -> Option<Index> {
        let old = self.ax_of.len();
        if moved_to.len() != old || self.roles.len() != old || self.ex.gone.len() != old || self.ex.invisible.len() != old || self.ex.aria_disabled.len() != old
        {
            return None;
        }
        let mut ax_of = vec![NONE; count];
        let mut roles = vec!["generic"; count];
        let mut ex = Exclusion { gone: vec![true; count], invisible: vec![false; count], aria_disabled: vec![false; count] };
        for (p, &q) in moved_to.iter().enumerate() {
            let q = q as usize;
            if q >= count {
                continue;
            }
            ax_of[q] = self.ax_of[p];
            roles[q] = self.roles[p];
            ex.gone[q] = self.ex.gone[p];
            ex.invisible[q] = self.ex.invisible[p];
            ex.aria_disabled[q] = self.ex.aria_disabled[p];
        }
        // What names what sideways stays a superset: what left named nothing more, and what
        // comes adds its own ([`show`]).
        Some(Index { ax_of, spaced: self.spaced, ex, roles, sideways: self.sideways })
    }
}

/// A page node that changed: a text node (with its text before), or an
/// element whose value, checked or selected state did (its attributes and
/// styles did not).
pub struct Retext {
    pub node: u32,
    pub was: Option<String>,
}

/// Whether `label` names only the control `changed` is or is inside: then
/// that control's name leaves it out (accname 2E is for other controls).
fn labels_only(page: &Page, label: u32, changed: u32) -> bool {
    if page.get(label).is_none_or(|l| l.has_attr("for")) {
        return false;
    }
    // Two are enough to know it is not one; a label over 2,000 nodes is not looked through.
    match page.labelables_in(label, 2, 2_000).as_deref() {
        Some([control]) => *control == changed || page.ancestors(changed).any(|a| a == *control),
        _ => false,
    }
}

/// Write `changed` nodes of `page` (already patched) into `tree`, built from
/// the page before with `index`. False when a change reaches further than
/// the node and its ancestors (the tree is then half written and must be built again).
pub fn patch(page: &Page, tree: &mut AxTree, index: &mut Index, changed: &[Retext]) -> bool {
    if index.ax_of.len() != page.nodes.len() || index.roles.len() != page.nodes.len() {
        return false;
    }
    if index.sideways(page).owns {
        return false;
    }
    let mut ancestors: Vec<u32> = Vec::new();
    for c in changed {
        let Some(n) = page.get(c.node) else { return false };
        match (&c.was, n.kind) {
            (Some(was), Some(Kind::Text)) => {
                // Not in the tree before (gone, hidden): whether it is now is the build's question.
                let Some(ax) = index.ax_of.get(c.node as usize).copied().filter(|&a| a != NONE) else { return false };
                let text = collapse_keep_edges(&n.transform.apply(&n.text));
                // A text that empties (or was empty) joins or parts its neighbours: a change of structure.
                if text.trim().is_empty() || was.trim().is_empty() {
                    return false;
                }
                let Some(node) = tree.nodes.get_mut(ax as usize).filter(|t| t.role == "StaticText") else { return false };
                node.name = text;
                if index.spaced.contains(&ax) && !node.name.ends_with(' ') {
                    node.name.push(' ');
                }
            }
            (None, Some(Kind::Element)) if n.pseudo.is_none() => ancestors.push(c.node),
            _ => return false,
        }
        let sideways = index.sideways.as_ref().map(|s| &s.ids);
        for a in std::iter::once(c.node).chain(page.ancestors(c.node)) {
            let Some(an) = page.get(a) else { return false };
            if an.kind == Some(Kind::Text) {
                continue;
            }
            // A label's or the title's text names something that is not its ancestor.
            if an.is("title") || !an.is_element() || (an.is("label") && !(c.was.is_none() && labels_only(page, a, c.node))) {
                return false;
            }
            if named_sideways(an, sideways) {
                return false;
            }
            if a != c.node {
                ancestors.push(a);
            }
        }
    }
    rename(page, tree, index, ancestors)
}

/// Compute the names, values and states of `ancestors` (elements of the page
/// in the tree) again with the build's own functions. False when one's role,
/// or its being ignored or focusable, would now differ: the rules here did
/// not bound the change.
fn rename(page: &Page, tree: &mut AxTree, index: &Index, mut ancestors: Vec<u32>) -> bool {
    ancestors.sort_unstable();
    ancestors.dedup();
    let namer =
        Namer { page, gone: &index.ex.gone, invisible: &index.ex.invisible, roles: &index.roles, nesting: Default::default(), visits: Default::default() };
    for a in ancestors {
        let Some(&ax) = index.ax_of.get(a as usize).filter(|&&x| x != NONE) else { continue };
        if page.get(a).is_none_or(|n| n.pseudo.is_some()) {
            continue;
        }
        let role = index.roles[a as usize];
        // Roles do not read text; a role that would now differ means the rules here are wrong.
        if role_of_node(page, a) != role {
            return false;
        }
        let fresh = element_node(page, &namer, a, role, &index.ex);
        let Some(old) = tree.nodes.get_mut(ax as usize) else { return false };
        if fresh.role != old.role || fresh.ignored != old.ignored || fresh.focusable != old.focusable || fresh.backend_node_id != old.backend_node_id {
            return false;
        }
        old.name = fresh.name;
        old.value = fresh.value;
        old.states = fresh.states;
        old.url = fresh.url;
    }
    true
}

/// Compute again the names of `nodes` and their ancestors (elements of the
/// page in the tree): something below them left. False as for [`rename`].
pub fn rename_above(page: &Page, tree: &mut AxTree, index: &Index, nodes: &[u32]) -> bool {
    let mut all: Vec<u32> = Vec::new();
    for &n in nodes {
        all.push(n);
        all.extend(page.ancestors(n));
    }
    rename(page, tree, index, all)
}

/// What subtrees hold that reaches outside them: their ids, the ids their
/// labels name by `for`, and their nodes in page order.
#[derive(Default)]
struct Reach<'p> {
    ids: FxHashSet<&'p str>,
    label_for: Vec<&'p str>,
    inside: Vec<u32>,
}

impl<'p> Reach<'p> {
    /// Walk the subtree of `r` in page order, each node shown to `fits`
    /// first. False when one does not fit, is named by id sideways, or is met
    /// again (a node listed under two parents: the walk is bounded by the page).
    fn walk(&mut self, page: &'p Page, r: u32, sideways: Option<&FxHashSet<String>>, mut fits: impl FnMut(u32, &'p super::page::Node) -> bool) -> bool {
        let mut stack = vec![r];
        while let Some(i) = stack.pop() {
            let Some(m) = page.get(i) else { return false };
            if named_sideways(m, sideways) || !fits(i, m) {
                return false;
            }
            self.ids.extend(m.attr("id"));
            if m.is("label") {
                self.label_for.extend(m.attr("for"));
            }
            self.inside.push(i);
            if self.inside.len() > page.nodes.len() {
                return false;
            }
            stack.extend(m.children.iter().rev().copied());
        }
        true
    }

    /// Whether each label in them names a control in them.
    fn labels_inside(&self) -> bool {
        self.label_for.iter().all(|f| self.ids.contains(f))
    }
}

/// Whether element `n`'s id names it to another element (`aria-labelledby`): its text reaches sideways.
fn named_sideways(n: &crate::engine::page::Node, sideways: Option<&FxHashSet<String>>) -> bool {
    n.attr("id").is_some_and(|id| sideways.is_some_and(|s| s.contains(id)))
}

/// How far past a subtree taken out [`hide`] looks for the text that follows it.
const FOLLOWING_STEPS: usize = 512;

/// Take out of `tree` the subtrees of `went`: the page's nodes that were laid
/// out in the build and are no more (a row hidden, by `display: none` or the
/// `hidden` attribute), each with its whole subtree. As the build would, the
/// subtrees are then out of the tree (`Exclusion::gone`), and their
/// ancestors' names from content are computed again. On the 40k-node page the
/// whole build is 5-6 ms of the 43 of a look after a row is hidden.
///
/// False when the change may reach further than the subtrees and their
/// ancestors (the tree is then half written and must be built again): a
/// subtree that still renders something, or is in a `select` or a
/// `canvas`, holds a frame, a `label` or an id another element is named by
/// (`aria-labelledby`), a laid-out white-space text (which joined the texts
/// beside it), or is followed by one; an ancestor that is a `label` or the
/// `title`, or is named by id; `aria-owns` anywhere.
pub fn hide(page: &Page, tree: &mut AxTree, index: &mut Index, went: &[u32]) -> bool {
    let count = page.nodes.len();
    if went.is_empty() || index.ax_of.len() != count || index.roles.len() != count || index.ex.gone.len() != count {
        return false;
    }
    if index.sideways(page).owns {
        return false;
    }
    let went_set: FxHashSet<u32> = went.iter().copied().collect();
    // The topmost of each subtree that went.
    let roots: Vec<u32> = went.iter().copied().filter(|&r| page.get(r).is_some_and(|n| !went_set.contains(&n.parent))).collect();
    let mut ancestors: Vec<u32> = Vec::new();
    for r in roots {
        // Only a subtree that was in the tree went from it.
        if index.ax_of.get(r as usize).is_none_or(|&a| a == NONE) {
            return false;
        }
        // The page is patched: what was laid out in the build is what went.
        if page.get(r).is_none_or(|n| !n.is_element()) || !cut(page, tree, index, &[r], |i, _| went_set.contains(&i), true) {
            return false;
        }
        ancestors.extend(page.ancestors(r));
    }
    rename(page, tree, index, ancestors)
}

/// Take out of `tree` the subtrees of `run`, siblings one after another in
/// the page the tree was built from, that leave it (rows removed, a row's
/// children replaced) or are to be placed again where they now are (a row
/// moved: [`show`] places it). The page is as it was built: the ancestors
/// are renamed later, in the page that follows. False as for [`hide`]; a
/// text at the top of the run may leave when it was not in the tree, and,
/// laid out (white space that joined the text before it to the next), only
/// after a text of the run.
pub fn take_out(page: &Page, tree: &mut AxTree, index: &mut Index, run: &[u32]) -> bool {
    let count = page.nodes.len();
    if index.ax_of.len() != count || index.roles.len() != count || index.ex.gone.len() != count || index.sideways(page).owns {
        return false;
    }
    cut(page, tree, index, run, |_, m| m.laid_out, false)
}

/// What [`hide`] and [`take_out`] do to the subtrees of `run` (siblings, one
/// after another): whether they can go without reaching past them and their
/// ancestors, and their nodes out of the tree and the index when they can.
/// `was_laid_out` says of a page node whether the build saw it laid out;
/// with `unrendered`, everything in them must not be now.
fn cut(page: &Page, tree: &mut AxTree, index: &mut Index, run: &[u32], was_laid_out: impl Fn(u32, &super::page::Node) -> bool, unrendered: bool) -> bool {
    let (Some(&first), Some(&last)) = (run.first(), run.last()) else { return false };
    let Some(parent) = page.get(first).map(|n| n.parent) else { return false };
    let parent_ax = index.ax_of.get(parent as usize).copied().unwrap_or(NONE);
    // A parent laid out renders, and so do all above it, whatever went below (`exclusion`'s `renders`).
    if page.get(parent).is_none_or(|p| !p.laid_out) {
        return false;
    }
    let sideways = index.sideways.as_ref().map(|s| &s.ids);
    for a in std::iter::once(parent).chain(page.ancestors(parent)) {
        let an = page.node(a);
        if an.is("select") || an.is("canvas") || an.is("title") || an.is("label") || !an.is_element() {
            return false;
        }
        if named_sideways(an, sideways) {
            return false;
        }
    }
    // The page subtrees: what they held that reaches outside them.
    let mut reach = Reach::default();
    let mut text_before = false;
    let mut tops_ax: Vec<u32> = Vec::new();
    for &r in run {
        let Some(n) = page.get(r) else { return false };
        if n.parent != parent || n.pseudo.is_some() || n.is("option") || n.is("optgroup") || !matches!(n.kind, Some(Kind::Element | Kind::Text)) {
            return false;
        }
        let ax = index.ax_of.get(r as usize).copied().unwrap_or(NONE);
        if ax != NONE {
            if parent_ax == NONE {
                return false;
            }
            tops_ax.push(ax);
        }
        let walked = reach.walk(page, r, sideways, |i, m| {
            if (unrendered && m.laid_out) || m.content_doc != NONE || m.is("select") || m.is("canvas") {
                return false;
            }
            // A laid-out white-space text joined the text before it to the next: harmless when that
            // text is in the run too (page order: a text in the tree came before it here).
            let in_tree = index.ax_of.get(i as usize).is_some_and(|&a| a != NONE);
            let white = || collapse_keep_edges(&m.transform.apply(&m.text)).trim().is_empty();
            if m.kind == Some(Kind::Text) && !in_tree && was_laid_out(i, m) && !text_before && white() {
                return false;
            }
            text_before |= in_tree && (m.kind == Some(Kind::Text) || m.pseudo.is_some());
            true
        });
        if !walked {
            return false;
        }
    }
    if !reach.labels_inside() {
        return false;
    }
    let inside = reach.inside;
    if !tops_ax.is_empty() {
        // Their nodes in the tree, taken out of it.
        let mut gone_ax: Vec<u32> = Vec::new();
        let mut stack = tops_ax.clone();
        while let Some(a) = stack.pop() {
            let Some(t) = tree.nodes.get(a as usize) else { return false };
            stack.extend(t.children.iter().copied());
            gone_ax.push(a);
            if gone_ax.len() > tree.nodes.len() {
                return false;
            }
        }
        let held_text = gone_ax.iter().any(|&a| tree.nodes.get(a as usize).is_some_and(|t| t.role == "StaticText"));
        if held_text && !followed_by_text(page, index, last) {
            return false;
        }
        let Some(p) = tree.nodes.get_mut(parent_ax as usize) else { return false };
        let before = p.children.len();
        p.children.retain(|c| !tops_ax.contains(c));
        if p.children.len() + tops_ax.len() != before {
            return false;
        }
        let gone_set: FxHashSet<u32> = gone_ax.iter().copied().collect();
        tree.chrome_subtrees.retain(|c| !gone_set.contains(c));
        // Left in the arena, reached from nowhere: emptied, so that no scan of the arena finds them.
        for a in gone_ax {
            if let Some(t) = tree.nodes.get_mut(a as usize) {
                *t = crate::tree::AxNode::default();
            }
        }
    }
    for i in inside {
        index.ax_of[i as usize] = NONE;
        index.ex.gone[i as usize] = true;
    }
    true
}

/// Put into `tree` the subtrees of `came`: the page's nodes that were not
/// laid out in the build and are now (a row shown again), each with its
/// whole subtree, where the build would have placed them. As the build
/// would, what in them renders is in the tree again (`Exclusion`), their
/// roles, names and states are the build's, and their ancestors' names from
/// content are computed again. The page may have grown since the build by
/// the generated boxes that came with them (`Kept::regenerate`).
///
/// False when the change may reach further than the subtrees and their
/// ancestors, as for [`hide`]; also a subtree whose top was in the tree, or
/// holds a `select`, `canvas`, media element or a shadow of user-agent
/// content, or a rendered white-space text before any of its text (it
/// joins the text before the subtree).
pub fn show(page: &Page, tree: &mut AxTree, index: &mut Index, came: &[u32]) -> bool {
    let count = page.nodes.len();
    let was = index.ax_of.len();
    if came.is_empty()
        || was > count
        || index.roles.len() != was
        || index.ex.gone.len() != was
        || index.ex.invisible.len() != was
        || index.ex.aria_disabled.len() != was
    {
        return false;
    }
    if index.sideways(page).owns {
        return false;
    }
    // Nodes made since the build (generated boxes): out of the tree, as the build leaves what does not render.
    index.ax_of.resize(count, NONE);
    index.roles.resize(count, "generic");
    index.ex.gone.resize(count, true);
    index.ex.invisible.resize(count, false);
    index.ex.aria_disabled.resize(count, false);
    let came_set: FxHashSet<u32> = came.iter().copied().collect();
    let roots: Vec<u32> = came.iter().copied().filter(|&r| page.get(r).is_some_and(|n| !came_set.contains(&n.parent))).collect();
    let mut ancestors: Vec<u32> = Vec::new();
    let mut placed: FxHashSet<u32> = FxHashSet::default();
    for r in roots {
        let Some(n) = page.get(r) else { return false };
        // A text that does not render (white space between blocks) stays out, as the build leaves it.
        let fallback_or_option = || page.ancestors(r).any(|a| page.node(a).is("canvas") || page.node(a).is("select"));
        if n.kind == Some(Kind::Text) && !n.laid_out && index.ax_of.get(r as usize).is_some_and(|&a| a == NONE) && !fallback_or_option() {
            placed.insert(r);
            continue;
        }
        if !n.is_element() || n.pseudo.is_some() || n.is("option") || n.is("optgroup") {
            return false;
        }
        // Out of the tree before, with its parent in it and laid out: it is the subtree's top.
        if index.ax_of.get(r as usize).is_none_or(|&a| a != NONE) || !index.ex.gone.get(r as usize).copied().unwrap_or(false) {
            return false;
        }
        let Some(parent_ax) = index.ax_of.get(n.parent as usize).copied().filter(|&a| a != NONE) else { return false };
        if page.get(n.parent).is_none_or(|p| !p.laid_out) || index.ex.gone.get(n.parent as usize).copied().unwrap_or(true) {
            return false;
        }
        let sideways = index.sideways.as_ref().map(|s| &s.ids);
        for a in page.ancestors(r) {
            let an = page.node(a);
            if an.is("select") || an.is("canvas") || an.is("title") || an.is("label") || !an.is_element() {
                return false;
            }
            if named_sideways(an, sideways) {
                return false;
            }
            ancestors.push(a);
        }
        // The page subtree, in page order; what it holds that the build treats apart, or that reaches outside it.
        let mut reach = Reach::default();
        let mut named: Vec<&str> = Vec::new();
        let walked = reach.walk(page, r, sideways, |i, m| {
            let apart = m.content_doc != NONE || matches!(m.tag.as_str(), "select" | "canvas" | "video" | "audio" | "object" | "embed" | "iframe" | "frame");
            // What it names sideways joins what the page names (`aria-owns` anywhere bails).
            named.extend(m.attr("aria-labelledby").into_iter().flat_map(str::split_ascii_whitespace));
            !apart && !m.has_attr("aria-owns") && index.ax_of.get(i as usize).is_some_and(|&a| a == NONE)
        });
        if !walked || !reach.labels_inside() {
            return false;
        }
        let inside = reach.inside;
        // (A name it takes from elsewhere is the walk's to find: its namer reads the page.)
        if let Some(s) = index.sideways.as_mut() {
            s.ids.extend(named.iter().map(|id| id.to_string()));
        }
        exclude_again(page, &mut index.ex, &inside);
        for &i in &inside {
            if page.get(i).is_some_and(|m| m.is_element()) {
                index.roles[i as usize] = role_of_node(page, i);
            }
        }
        let namer =
            Namer { page, gone: &index.ex.gone, invisible: &index.ex.invisible, roles: &index.roles, nesting: Default::default(), visits: Default::default() };
        let first_new = tree.nodes.len();
        let mut placer = Placer { page, namer: &namer, roles: &index.roles, ex: &index.ex, last_text: None, joined_before: false };
        placer.place(tree, &mut index.ax_of, &mut index.spaced, r, parent_ax);
        if placer.joined_before {
            return false;
        }
        let held_text = tree.nodes[first_new..].iter().any(|t| t.role == "StaticText");
        if held_text && !followed_by_text(page, index, r) {
            return false;
        }
        // Chrome's own subtree of a control (a date field's) is read by the capture that builds whole.
        if tree.chrome_subtrees.iter().any(|&c| c as usize >= first_new) {
            return false;
        }
        // The top was placed last among its parent's children: moved to where the build puts it,
        // after the tree nodes of the page nodes before it.
        let Some(&top) = index.ax_of.get(r as usize) else { return false };
        if top == NONE {
            // Nothing of it renders after all (its parent's children are as they were).
            placed.extend(inside);
            continue;
        }
        let Some(parent) = page.get(n.parent) else { return false };
        let in_tree = |c: &&u32| index.ax_of.get(**c as usize).is_some_and(|&a| a != NONE);
        let at = parent.children.iter().take_while(|&&c| c != r).filter(in_tree).count();
        let Some(p) = tree.nodes.get_mut(parent_ax as usize) else { return false };
        // The parent's tree children are its page children's, one each, in order: nothing else to place around.
        if p.children.last() != Some(&top) || p.children.len() != parent.children.iter().filter(in_tree).count() {
            return false;
        }
        p.children.pop();
        p.children.insert(at, top);
        placed.extend(inside);
    }
    // A node made since the build outside every subtree shown: the build's question, not this one's.
    if (was..count).any(|i| !placed.contains(&(i as u32))) {
        return false;
    }
    rename(page, tree, index, ancestors)
}

/// Whether the first thing after the subtree of `r` that a build meets
/// among texts (page order, not into frames) is a text in the tree, or
/// nothing: not a laid-out white-space text, which joined the subtree's last
/// text to the next and now joins the text before the subtree.
fn followed_by_text(page: &Page, index: &Index, r: u32) -> bool {
    let mut cur = after(page, r);
    for _ in 0..FOLLOWING_STEPS {
        let Some(j) = cur else { return true };
        let Some(n) = page.get(j) else { return false };
        if index.ex.gone.get(j as usize).copied().unwrap_or(true) {
            cur = after(page, j);
            continue;
        }
        let in_tree = index.ax_of.get(j as usize).is_some_and(|&a| a != NONE);
        match n.kind {
            Some(Kind::Text) if in_tree => return true,
            Some(Kind::Text) => {
                if n.laid_out && collapse_keep_edges(&n.transform.apply(&n.text)).trim().is_empty() {
                    return false;
                }
                cur = after(page, j);
            }
            Some(Kind::Element) if n.pseudo.is_some() => {
                if in_tree {
                    return true;
                }
                cur = after(page, j);
            }
            Some(Kind::Element) => {
                if n.content_doc != NONE || matches!(n.tag.as_str(), "video" | "audio" | "input" | "textarea" | "select") {
                    return false;
                }
                cur = n.children.first().copied().or_else(|| after(page, j));
            }
            _ => return false,
        }
    }
    false
}

/// The node after the subtree of `i` in page order, within its document.
fn after(page: &Page, i: u32) -> Option<u32> {
    let mut cur = i;
    for _ in 0..page.nodes.len() {
        let n = page.get(cur)?;
        let parent = page.get(n.parent)?;
        let at = parent.children.iter().position(|&c| c == cur)?;
        if let Some(&next) = parent.children.get(at + 1) {
            return Some(next);
        }
        if parent.kind == Some(Kind::Document) {
            return None;
        }
        cur = n.parent;
    }
    None
}
