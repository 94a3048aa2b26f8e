//! A way back to each ref'd element: a CSS selector unique where it is
//! evaluated, the frames above it and the shadow hosts it sits in.
//!
//! Selectors are checked against the semantics of Playwright's `locator()`,
//! which pierces open shadow roots by running the selector in every tree
//! scope under its query root. So a selector counts as unique when exactly one
//! element matches among all elements reachable from the query root (the
//! document, or the previous shadow host) through children and open shadow
//! roots. Unique there means unique in the element's own scope too, so
//! `querySelector` on the shadow root finds the same element.
//!
//! Preference: `#id`, test ids, stable attributes, a unique tag, then a short
//! `>` chain of `tag:nth-of-type(k)` steps up to the nearest ancestor that
//! has one of those.

use std::collections::HashMap;

use crate::dom::{tree_for, DKind, DomTree, ShadowKind, NONE};
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Located {
    pub selector: Option<String>,
    pub frame_path: Vec<String>,
    pub shadow_path: Vec<String>,
    /// The element is inside a closed (or user-agent) shadow root: no
    /// selector reaches it; `backendNodeId` still does.
    pub shadow_closed: bool,
}

const TEST_ATTRS: &[&str] = &["data-testid", "data-test-id", "data-test", "data-qa", "data-cy"];
const STABLE_ATTRS: &[&str] = &["name", "aria-label", "placeholder", "title", "alt", "href"];
const MAX_ATTR_VALUE: usize = 120;
/// Longest `>` chain a selector may have below its anchor.
const MAX_CHAIN_STEPS: usize = 48;

/// Counts of every selector key among the elements of one query region.
#[derive(Debug)]
pub(crate) struct RegionIndex {
    counts: FxHashMap<String, u32>,
    elements: Vec<u32>,
    /// The region's elements by tag and position among their siblings of
    /// that tag, built on first need (selectors with no anchor).
    by_step: std::sync::OnceLock<FxHashMap<(String, u32), Vec<u32>>>,
}

fn id_key(id: &str) -> String {
    // Quirks-mode documents match ids case-insensitively: count that way so
    // a selector is unique in either mode.
    format!("#{}", id.to_ascii_lowercase())
}

fn attr_key(name: &str, value: &str) -> String {
    format!("[{name}]{value}")
}

fn tag_key(tag: &str) -> String {
    format!("<{tag}")
}

fn usable_value(v: &str) -> bool {
    !v.is_empty() && v.len() <= MAX_ATTR_VALUE && !v.contains(['\n', '\r'])
}

impl RegionIndex {
    /// All elements reachable from `root` (not `root` itself) through element
    /// children and open shadow roots; frame documents are other regions.
    pub(crate) fn build(tree: &DomTree, root: u32) -> RegionIndex {
        let mut counts: FxHashMap<String, u32> = FxHashMap::default();
        let mut elements = Vec::new();
        let mut stack: Vec<u32> = Vec::new();
        let push_inner = |stack: &mut Vec<u32>, idx: u32| {
            if let Some(n) = tree.node(idx) {
                for &c in n.children.iter().rev() {
                    stack.push(c);
                }
                for &s in n.shadow_roots.iter() {
                    if tree.node(s).is_some_and(|r| r.kind == DKind::ShadowRoot(ShadowKind::Open)) {
                        for &c in tree.element_children(s).iter().rev() {
                            stack.push(c);
                        }
                    }
                }
            }
        };
        push_inner(&mut stack, root);
        while let Some(i) = stack.pop() {
            let Some(n) = tree.node(i) else { continue };
            elements.push(i);
            *counts.entry(tag_key(&n.tag)).or_insert(0) += 1;
            for (k, v) in &n.attrs {
                if k == "id" {
                    *counts.entry(id_key(v)).or_insert(0) += 1;
                } else if (TEST_ATTRS.contains(&k.as_str()) || STABLE_ATTRS.contains(&k.as_str())) && usable_value(v) {
                    *counts.entry(attr_key(k, v)).or_insert(0) += 1;
                }
            }
            push_inner(&mut stack, i);
        }
        RegionIndex { counts, elements, by_step: std::sync::OnceLock::new() }
    }

    /// The elements a chain's last step can match: by tag and position when
    /// the step names one, else every element of that tag.
    fn candidates<'r>(&'r self, tree: &'r DomTree, step: &Step) -> Box<dyn Iterator<Item = u32> + 'r> {
        let Some(tag) = &step.tag else { return Box::new(self.elements.iter().copied()) };
        let index = self.by_step.get_or_init(|| {
            let mut m: FxHashMap<(String, u32), Vec<u32>> = FxHashMap::default();
            for &e in &self.elements {
                if let Some(n) = tree.node(e) {
                    m.entry((n.tag.clone(), n.type_pos)).or_default().push(e);
                }
            }
            m
        });
        match step.nth_of_type {
            Some(k) => Box::new(index.get(&(tag.clone(), k as u32)).into_iter().flatten().copied()),
            None => {
                let tag = tag.clone();
                Box::new(self.elements.iter().copied().filter(move |&e| tree.node(e).is_some_and(|n| n.tag == tag)))
            }
        }
    }

    fn unique(&self, key: &str) -> bool {
        self.counts.get(key) == Some(&1)
    }

    /// The element's own unique selector, if it has one in this region.
    fn own_selector(&self, tree: &DomTree, idx: u32) -> Option<String> {
        let n = tree.node(idx)?;
        if let Some(id) = n.attr("id").filter(|v| !v.is_empty() && !v.contains(char::is_whitespace)) {
            if self.unique(&id_key(id)) {
                return Some(format!("#{}", css_ident(id)));
            }
        }
        for attr in TEST_ATTRS {
            if let Some(v) = n.attr(attr).filter(|v| usable_value(v)) {
                if self.unique(&attr_key(attr, v)) {
                    return Some(format!("[{attr}={}]", css_string(v)));
                }
            }
        }
        let tag = css_tag(&n.tag);
        for attr in STABLE_ATTRS {
            if let Some(v) = n.attr(attr).filter(|v| usable_value(v)) {
                if self.unique(&attr_key(attr, v)) {
                    return Some(format!("{tag}[{attr}={}]", css_string(v)));
                }
            }
        }
        (!n.tag.is_empty() && self.unique(&tag_key(&n.tag))).then_some(tag)
    }
}

/// One structural step: `tag`, `tag:nth-of-type(k)`, or `:nth-child(k)` for
/// an element without a tag name CSS can spell.
#[derive(Debug, Clone, PartialEq)]
struct Step {
    tag: Option<String>,
    nth_of_type: Option<usize>,
    nth_child: Option<usize>,
}

impl Step {
    fn of(tree: &DomTree, idx: u32) -> Step {
        let Some(n) = tree.node(idx) else { return Step { tag: None, nth_of_type: None, nth_child: Some(1) } };
        if n.tag.is_empty() {
            return Step { tag: None, nth_of_type: None, nth_child: Some(n.child_pos as usize) };
        }
        let nth = (n.type_count > 1).then_some(n.type_pos as usize);
        Step { tag: Some(n.tag.clone()), nth_of_type: nth, nth_child: None }
    }

    fn text(&self) -> String {
        match (&self.tag, self.nth_of_type, self.nth_child) {
            (Some(t), Some(k), _) => format!("{}:nth-of-type({k})", css_tag(t)),
            (Some(t), None, _) => css_tag(t),
            (None, _, Some(k)) => format!(":nth-child({k})"),
            (None, _, None) => "*".into(),
        }
    }

    fn matches(&self, tree: &DomTree, idx: u32) -> bool {
        match (&self.tag, self.nth_child) {
            (None, Some(k)) => tree.node(idx).is_some_and(|n| n.child_pos as usize == k),
            _ => tree.node(idx).is_some_and(|n| self.tag.as_deref() == Some(n.tag.as_str()) && self.nth_of_type.is_none_or(|k| n.type_pos as usize == k)),
        }
    }
}

/// Selectors for the elements of one capture (several DOM trees: the page's
/// process and each out-of-process frame).
pub struct Locator<'t> {
    trees: &'t [DomTree],
    regions: HashMap<(usize, u32), RegionIndex>,
    /// Chain checks left for selectors without an anchor.
    unanchored_budget: usize,
}

/// Elements' locations by tree index, with the unanchored budget each search spent.
pub(crate) type Remembered = FxHashMap<u32, (Located, usize)>;

/// Chain checks all unanchored selectors of one capture may make together.
const UNANCHORED_BUDGET: usize = 2_000_000;

impl<'t> Locator<'t> {
    pub fn new(trees: &'t [DomTree]) -> Locator<'t> {
        Locator { trees, regions: HashMap::new(), unanchored_budget: UNANCHORED_BUDGET }
    }

    pub fn locate(&mut self, frame: Option<&str>, backend: i64) -> Option<Located> {
        let t = tree_for(self.trees, frame, backend)?;
        let idx = self.trees[t].by_backend(backend)?;
        if !self.trees[t].node(idx)?.is_element() {
            return None;
        }
        let memo = self.trees[t].located.as_ref().and_then(|m| m.lock().ok());
        // What this locator would find again, and the budget it would spend: only while
        // more than that is left (a search that ran out of budget is not remembered).
        if let Some((found, spent)) = memo.as_ref().and_then(|m| m.get(&idx)).filter(|(_, spent)| *spent < self.unanchored_budget) {
            self.unanchored_budget -= spent;
            return Some(found.clone());
        }
        drop(memo);
        let before = self.unanchored_budget;
        let mut out = Located::default();
        let (selector, hosts, closed, doc) = self.in_document(t, idx);
        out.selector = if closed { None } else { selector };
        out.shadow_path = hosts;
        out.shadow_closed = closed;
        out.frame_path = self.frame_path(t, doc);
        if self.unanchored_budget > 0 {
            if let Some(mut memo) = self.trees[t].located.as_ref().and_then(|m| m.lock().ok()) {
                memo.insert(idx, (out.clone(), before - self.unanchored_budget));
            }
        }
        Some(out)
    }

    /// Where a node missing from a tree built without user-agent shadow
    /// roots sits, when `host` (its nearest accessibility ancestor in the
    /// tree) can hold such a root: inside it, where no selector reaches.
    pub fn locate_inside_host(&mut self, frame: Option<&str>, host: i64) -> Option<Located> {
        let t = tree_for(self.trees, frame, host)?;
        if !self.trees[t].without_user_agent_roots {
            return None;
        }
        let mut out = self.locate(frame, host)?;
        out.shadow_path.push(out.selector.take().unwrap_or_else(|| "*".into()));
        out.shadow_closed = true;
        Some(out)
    }

    /// The element's selector (relative to its innermost host), the host
    /// selectors from the document down, whether a closed root is crossed,
    /// and its document node.
    fn in_document(&mut self, t: usize, idx: u32) -> (Option<String>, Vec<String>, bool, u32) {
        let tree = &self.trees[t];
        // Elements from the target up to the document: each scope's host.
        let mut chain = vec![idx];
        let mut closed = false;
        let mut cur = idx;
        let doc = loop {
            let root = tree.scope_root(cur);
            match tree.node(root).map(|n| n.kind) {
                Some(DKind::ShadowRoot(kind)) => {
                    closed |= kind != ShadowKind::Open;
                    let host = tree.node(root).map_or(NONE, |n| n.parent);
                    chain.push(host);
                    cur = host;
                }
                _ => break root,
            }
        };
        chain.reverse();
        // chain = [outermost host, ..., innermost host, element]
        let mut region_root = doc;
        let mut hosts = Vec::new();
        let mut selector = None;
        for (k, &el) in chain.iter().enumerate() {
            let sel = self.selector_in(t, region_root, el);
            if k + 1 == chain.len() {
                selector = sel;
            } else {
                hosts.push(sel.unwrap_or_else(|| "*".into()));
            }
            region_root = el;
        }
        (selector, hosts, closed, doc)
    }

    /// Owner iframe selectors from the top document down to `doc`.
    fn frame_path(&mut self, t: usize, doc: u32) -> Vec<String> {
        let mut path = Vec::new();
        let (mut t, mut doc) = (t, doc);
        for _ in 0..64 {
            let tree = &self.trees[t];
            // The iframe element owning this document: in this tree, or (the
            // root of an out-of-process frame) in another.
            let owner = match tree.node(doc).map(|n| n.parent) {
                Some(p) if p != NONE => Some((t, p)),
                _ => tree
                    .root_frame
                    .as_deref()
                    .and_then(|f| self.trees.iter().enumerate().find_map(|(k, other)| (k != t).then(|| other.owners.get(f).map(|&o| (k, o))).flatten())),
            };
            let Some((ot, owner)) = owner else { break };
            let (sel, hosts, _, odoc) = self.in_document(ot, owner);
            let mut parts = hosts;
            parts.push(sel.unwrap_or_else(|| "iframe".into()));
            path.push(parts.join(" >> "));
            t = ot;
            doc = odoc;
        }
        path.reverse();
        path
    }

    fn region(&mut self, t: usize, root: u32) -> &RegionIndex {
        let trees = self.trees;
        if let Some((r, index)) = &trees[t].root_region {
            if *r == root {
                return index;
            }
        }
        self.regions.entry((t, root)).or_insert_with(|| RegionIndex::build(&trees[t], root))
    }

    /// A selector for `el` unique among the elements reachable from `root`.
    fn selector_in(&mut self, t: usize, root: u32, el: u32) -> Option<String> {
        let mut budget = self.unanchored_budget;
        let tree = &self.trees[t];
        let region = self.region(t, root);
        if let Some(own) = region.own_selector(tree, el) {
            return Some(own);
        }
        let mut steps = vec![Step::of(tree, el)];
        let mut anchor = None;
        let mut cur = el;
        while let Some(p) = tree.scope_parent(cur) {
            if let Some(a) = region.own_selector(tree, p) {
                anchor = Some(a);
                break;
            }
            if steps.len() >= MAX_CHAIN_STEPS {
                // A page nested this deep without anchors would make each
                // selector as long as the page is deep; the ref resolves by
                // backendNodeId instead (a note lists it).
                return None;
            }
            steps.push(Step::of(tree, p));
            cur = p;
        }
        steps.reverse();
        let body = steps.iter().map(Step::text).collect::<Vec<_>>().join(" > ");
        if let Some(a) = anchor {
            // Unique anchor, then one `nth-of-type` step per level: one element.
            return Some(format!("{a} > {body}"));
        }
        // No anchor up to the top of a shadow root: count the matches, within
        // a budget for the whole capture, so that thousands of such refs in
        // one large shadow root cannot turn this quadratic.
        let mut hits = 0;
        let last = steps.last()?;
        for e in region.candidates(tree, last) {
            if budget == 0 {
                hits = 0;
                break;
            }
            budget -= 1;
            if chain_matches(tree, &steps, e) {
                hits += 1;
                if hits > 1 {
                    break;
                }
            }
        }
        self.unanchored_budget = budget;
        (hits == 1).then_some(body)
    }
}

fn chain_matches(tree: &DomTree, steps: &[Step], el: u32) -> bool {
    let mut cur = Some(el);
    for step in steps.iter().rev() {
        match cur {
            Some(c) if step.matches(tree, c) => cur = tree.scope_parent(c),
            _ => return false,
        }
    }
    true
}

fn css_tag(tag: &str) -> String {
    if tag.is_empty() {
        "*".into()
    } else {
        css_ident(tag)
    }
}

/// `CSS.escape` of an identifier.
pub fn css_ident(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let cp = c as u32;
        if c == '\0' {
            out.push('\u{FFFD}');
        } else if (1..=0x1f).contains(&cp) || cp == 0x7f || (i == 0 && c.is_ascii_digit()) || (i == 1 && c.is_ascii_digit() && chars[0] == '-') {
            out.push_str(&format!("\\{cp:x} "));
        } else if i == 0 && c == '-' && chars.len() == 1 {
            out.push_str("\\-");
        } else if cp >= 0x80 || c == '-' || c == '_' || c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            out.push('\\');
            out.push(c);
        }
    }
    out
}

/// A double-quoted CSS string.
pub fn css_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push('\u{FFFD}'),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\{:x} ", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(tag: &str, backend: i64, attrs: &[(&str, &str)], children: &str) -> String {
        let a: Vec<String> = attrs.iter().flat_map(|(k, v)| [format!("{k:?}"), format!("{v:?}")]).collect();
        format!(r#"{{"nodeType":1,"localName":"{tag}","backendNodeId":{backend},"attributes":[{}],"children":[{children}]}}"#, a.join(","))
    }

    fn page(body: &str) -> DomTree {
        let text = format!(r#"{{"root":{{"nodeType":9,"backendNodeId":1,"children":[{}]}}}}"#, el("html", 2, &[], &el("body", 3, &[], body)));
        DomTree::from_get_document(&text, Some("F".into())).unwrap()
    }

    fn sel(tree: &DomTree, backend: i64) -> Located {
        let trees = std::slice::from_ref(tree);
        Locator::new(trees).locate(Some("F"), backend).unwrap()
    }

    #[test]
    fn an_index_built_ahead_gives_the_same_selectors() {
        // Ids shared and unique, test ids, a shadow root, and elements found by position only.
        let mut items = Vec::new();
        for k in 0..40i64 {
            let attrs: Vec<(&str, String)> = match k % 4 {
                0 => vec![("id", format!("item{}", k % 12))],
                1 => vec![("data-testid", format!("t{k}"))],
                2 => vec![("name", "q".to_string())],
                _ => vec![],
            };
            let attrs: Vec<(&str, &str)> = attrs.iter().map(|(a, v)| (*a, v.as_str())).collect();
            items.push(el("li", 100 + k, &attrs, &el("button", 200 + k, &[], "")));
        }
        let body = el("ul", 10, &[], &items.join(","));
        let ahead = {
            let mut t = page(&body);
            t.index_root_document();
            assert!(t.root_region.is_some());
            t
        };
        let lazy = page(&body);
        for backend in (2..=3).chain(10..=10).chain(100..140).chain(200..240) {
            assert_eq!(sel(&ahead, backend), sel(&lazy, backend), "backend {backend}");
        }
    }

    #[test]
    fn prefers_ids_then_test_ids_then_attributes() {
        let t = page(
            &[
                el("button", 10, &[("id", "go")], ""),
                el("button", 11, &[("data-testid", "send"), ("name", "x")], ""),
                el("input", 12, &[("name", "email")], ""),
                el("input", 13, &[("id", "dup")], ""),
                el("input", 14, &[("id", "DUP")], ""),
            ]
            .join(","),
        );
        assert_eq!(sel(&t, 10).selector.as_deref(), Some("#go"));
        assert_eq!(sel(&t, 11).selector.as_deref(), Some("[data-testid=\"send\"]"));
        assert_eq!(sel(&t, 12).selector.as_deref(), Some("input[name=\"email\"]"));
        // Ids that differ only by case are not unique in a quirks-mode document.
        assert_eq!(sel(&t, 13).selector.as_deref(), Some("body > input:nth-of-type(2)"));
    }

    #[test]
    fn structural_path_from_nearest_anchor() {
        let t =
            page(&el("form", 20, &[("id", "f")], &[el("div", 21, &[], &el("button", 22, &[], "")), el("div", 23, &[], &el("button", 24, &[], ""))].join(",")));
        assert_eq!(sel(&t, 24).selector.as_deref(), Some("#f > div:nth-of-type(2) > button"));
    }

    #[test]
    fn chains_are_capped_on_pages_nested_without_anchors() {
        let mut deep = el("button", 999, &[], "");
        for k in 0..200 {
            deep = el("div", 1000 + k, &[], &deep);
        }
        let t = page(&[deep, el("button", 50, &[], "")].join(","));
        let located = sel(&t, 999);
        assert_eq!(located.selector, None, "no 200-step selector");
        assert!(!located.shadow_closed);
        assert_eq!(sel(&t, 50).selector.as_deref(), Some("body > button"));
    }

    #[test]
    fn a_remembered_location_is_what_locating_again_finds_within_the_budget_left() {
        let items: Vec<String> = (0..3).map(|k| el("li", 60 + k, &[], &el("button", 70 + k, &[], ""))).collect();
        let root = format!(r#"{{"nodeType":11,"shadowRootType":"open","backendNodeId":59,"children":[{}]}}"#, items.join(","));
        let body = format!(
            r#"{{"nodeType":1,"localName":"x-list","backendNodeId":58,"attributes":[],"shadowRoots":[{root}]}},{}"#,
            el("button", 50, &[("id", "go")], "")
        );
        let mut t = page(&body);
        let fresh: Vec<Option<Located>> = [71, 50, 72].iter().map(|&b| Locator::new(std::slice::from_ref(&t)).locate(Some("F"), b)).collect();
        t.remember_locations();
        let trees = std::slice::from_ref(&t);
        let mut first = Locator::new(trees);
        let found: Vec<Option<Located>> = [71, 50, 72].iter().map(|&b| first.locate(Some("F"), b)).collect();
        let spent = UNANCHORED_BUDGET - first.unanchored_budget;
        assert!(spent > 0, "the shadow root's buttons have no anchor");
        assert_eq!(t.located.as_ref().unwrap().lock().unwrap().len(), 3);
        // A later build's locator finds the same from memory, and spends the same budget.
        let mut again = Locator::new(trees);
        assert_eq!([71, 50, 72].map(|b| again.locate(Some("F"), b)).to_vec(), found);
        assert_eq!(found, fresh);
        assert_eq!(UNANCHORED_BUDGET - again.unanchored_budget, spent);
        // With less budget left than a remembered search spent, the search runs out as it would have.
        let mut short = Locator::new(trees);
        short.unanchored_budget = 1;
        assert_eq!(short.locate(Some("F"), 71).unwrap().selector, None);
        assert_eq!(short.locate(Some("F"), 50).unwrap().selector.as_deref(), Some("#go"));
    }

    #[test]
    fn unanchored_chains_in_a_shadow_root_are_counted_within_a_budget() {
        let items: Vec<String> = (0..3).map(|k| el("li", 60 + k, &[], &el("button", 70 + k, &[], ""))).collect();
        let root = format!(r#"{{"nodeType":11,"shadowRootType":"open","backendNodeId":59,"children":[{}]}}"#, items.join(","));
        let t = page(&format!(r#"{{"nodeType":1,"localName":"x-list","backendNodeId":58,"attributes":[],"shadowRoots":[{root}]}}"#));
        let trees = std::slice::from_ref(&t);
        let mut locator = Locator::new(trees);
        let second = locator.locate(Some("F"), 71).unwrap();
        assert_eq!(second.shadow_path, vec!["x-list"]);
        assert_eq!(second.selector.as_deref(), Some("li:nth-of-type(2) > button"));
        // With the budget spent, such a ref resolves by backendNodeId alone.
        locator.unanchored_budget = 0;
        assert_eq!(locator.locate(Some("F"), 72).unwrap().selector, None);
    }

    #[test]
    fn escapes_identifiers_and_strings() {
        assert_eq!(css_ident("1a"), "\\31 a");
        assert_eq!(css_ident("a.b:c"), "a\\.b\\:c");
        assert_eq!(css_ident("-"), "\\-");
        assert_eq!(css_ident("-1"), "-\\31 ");
        assert_eq!(css_string("say \"hi\"\\"), "\"say \\\"hi\\\"\\\\\"");
    }

    #[test]
    fn shadow_hosts_and_closed_roots() {
        let shadow =
            |kind: &str, backend: i64, inner: &str| format!(r#"{{"nodeType":11,"shadowRootType":"{kind}","backendNodeId":{backend},"children":[{inner}]}}"#);
        let host = |tag: &str, backend: i64, root: String| {
            format!(r#"{{"nodeType":1,"localName":"{tag}","backendNodeId":{backend},"attributes":[],"shadowRoots":[{root}]}}"#)
        };
        let body = [
            host("x-card", 30, shadow("open", 31, &el("section", 32, &[], &el("button", 33, &[], "")))),
            host("x-card", 34, shadow("open", 35, &el("section", 36, &[], &el("button", 37, &[], "")))),
            host("x-lock", 38, shadow("closed", 39, &el("button", 40, &[], ""))),
        ]
        .join(",");
        let t = page(&body);
        let second = sel(&t, 37);
        assert_eq!(second.shadow_path, vec!["body > x-card:nth-of-type(2)"]);
        assert_eq!(second.selector.as_deref(), Some("button"));
        let closed = sel(&t, 40);
        assert!(closed.shadow_closed);
        assert_eq!(closed.selector, None);
        assert_eq!(closed.shadow_path, vec!["x-lock"]);
    }
}
