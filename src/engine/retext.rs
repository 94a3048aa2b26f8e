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

use rustc_hash::FxHashSet;

use super::build::{collapse_keep_edges, element_node, role_of_node, Exclusion};
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
            if an.attr("id").is_some_and(|id| sideways.is_some_and(|s| s.contains(id))) {
                return false;
            }
            if a != c.node {
                ancestors.push(a);
            }
        }
    }
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
