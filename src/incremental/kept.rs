//! What the last build from a mirror made that the next one can use again.
//!
//! Most repeat snapshots follow a change of values, not of structure: a
//! counter's or a row's text, a field's value, a box checked. Then the
//! element tree, its attributes and its styles are as they were, and so are
//! the DOM pass's tree (selectors, click hints) and all of the engine's page
//! but those values. A build after such changes patches the values into the
//! kept page and reuses the kept DOM tree, instead of writing the mirror out
//! as a snapshot, reading the engine's page from it again and the DOM pass's
//! tree beside it. On the 40k-node page that was about a third of a repeat
//! capture's rebuild (the mirror written out: 4–5 ms; the engine's page read:
//! about 4 ms; dropping the old: 1–2 ms; the DOM pass and its selector index
//! on the second core), measured with a scratch probe outside the repository.
//!
//! When text, values and checked or selected states alone changed, the
//! engine's tree is kept too and told of them ([`crate::engine::retext`]):
//! the build then skips the engine (about 5 ms on that page). So it is when
//! subtrees went out of layout and nothing else changed (a row hidden):
//! they are taken out of it (`retext::hide`); and when subtrees came into
//! layout and nothing else changed (a row shown): they are built into it
//! (`retext::show`).
//!
//! After a change to the tree (rows added, removed, moved or replaced), the
//! page is laid out again from the mirror ([`super::to_page`]): the kept
//! nodes are moved into the mirror's order and only those read again are made
//! anew; after a change to what the DOM pass reads (an `id`, a link's `href`,
//! a node added), its tree is made again from the mirror ([`super::to_dom`]).
//! Neither writes the mirror out as a DOMSnapshot reply and reads it back.
//! The engine's tree stays through such a change too: before the page is laid
//! out again, the subtrees that left it (rows removed, a row's children
//! replaced) and those read again where they now are (a row moved) are taken
//! out of the tree, in runs of siblings ([`Kept::take_out`], with the checks
//! of `retext::hide`); after, its index is moved to the new page's order, and
//! what is new to the page is built into it (`retext::show`), the names above
//! what left computed again ([`Kept::put_in`]). A node read again that stayed
//! in place must be, for the engine, what it was (else the tree is built
//! again); a node not read again must be where it was.

use crate::dom::DomTree;
use crate::engine::page::{Atom, Kind, Node, Page, Transform, NONE};
use crate::engine::retext::{self, Index, Retext};
use crate::tree::AxTree;
use rustc_hash::FxHashSet;

use super::mirror::{MNode, Tree};
use super::{to_dom, to_page};

/// What a build leaves for the next: the engine's page, the DOM pass's trees,
/// where the engine's computed styles begin among a node's, and the tree it
/// built (when the snapshot shows it as built: no marks, nothing grafted in).
pub struct Built {
    pub page: Page,
    pub dom: Vec<DomTree>,
    pub style_at: usize,
    pub tree: Option<(AxTree, Index)>,
}

impl Built {
    /// Kept with a mirror whose nodes are `page_of` in the page, built with options of `shape`.
    pub fn kept(self, page_of: Vec<u32>, shape: &str) -> Kept {
        Kept { page: self.page, page_of, dom: self.dom, shape: shape.to_string(), style_at: self.style_at, tree: self.tree }
    }
}

/// The engine's page and the DOM pass's trees of the mirror's last build.
pub struct Kept {
    pub page: Page,
    /// Each mirror node's index in `page` (`NONE`: not in it), by mirror index.
    pub page_of: Vec<u32>,
    pub dom: Vec<DomTree>,
    /// The options' shape it was built with (`super::mirror::shape_of`): the DOM pass may be off.
    pub shape: String,
    /// Where the engine's computed styles begin among a node's (the DOM pass's come first).
    pub style_at: usize,
    /// The engine's tree of `page`, while only text and values changed since ([`retext`]).
    pub tree: Option<(AxTree, Index)>,
}

impl Kept {
    /// Write the facts of the mirror's nodes `changed` into the page, as the
    /// engine reads them from a reply (`crate::engine::page::from_snapshot`):
    /// values, attributes, and the engine's styles. False when one is not where the map says (the page then
    /// cannot be used). The tree stays only when text, values and checked or
    /// selected states alone changed, and it could be told of them
    /// ([`retext::patch`]), or when subtrees went out of layout and nothing
    /// else changed, and they could be taken out of it ([`retext::hide`]),
    /// or subtrees came into layout (with the styles that came with them) and
    /// nothing else changed, and they could be built into it ([`retext::show`]).
    pub fn patch(&mut self, changed: &[u32], nodes: &[MNode]) -> bool {
        let style_at = self.style_at;
        let mut texts: Vec<Retext> = Vec::new();
        let mut only_text = true;
        // Nodes laid out no more; and whether that, the `hidden` attribute and text are all that changed.
        let mut went: Vec<u32> = Vec::new();
        let mut only_went = true;
        // Nodes laid out again, and whether that (with their new styles), `hidden` and text are all.
        let mut came: Vec<u32> = Vec::new();
        let mut only_came = true;
        // An `id` or a label's `for` changed: the page's id and label indexes are made again.
        let mut ids_moved = false;
        for &k in changed {
            // A generated box that went after it changed (`Kept::regenerate` took it out).
            if nodes.get(k as usize).is_some_and(|m| !m.alive) {
                continue;
            }
            let (Some(&p), Some(m)) = (self.page_of.get(k as usize), nodes.get(k as usize)) else { return false };
            let Some(n) = self.page.nodes.get_mut(p as usize).filter(|_| p != NONE) else { return false };
            // Hidden or shown: laid out no longer, or now (its styles, below).
            let came_now = !n.laid_out && m.styles.is_some();
            if n.laid_out != m.styles.is_some() {
                if n.laid_out {
                    went.push(p);
                    only_came = false;
                } else {
                    came.push(p);
                    only_went = false;
                }
                n.laid_out = m.styles.is_some();
                only_text = false;
                if !n.laid_out {
                    (n.display, n.visibility, n.transform) = (Atom::default(), Atom::default(), Transform::default());
                    if n.pseudo.is_some() {
                        n.content.clear();
                    }
                }
            }
            match n.kind {
                Some(Kind::Text) => {
                    // A text put in another's place (`Mirror::swap_texts`) is known by its new id.
                    n.backend = Some(m.backend);
                    let text = m.value.clone().unwrap_or_default();
                    if text != n.text {
                        texts.push(Retext { node: p, was: Some(std::mem::replace(&mut n.text, text)) });
                    }
                }
                Some(Kind::Element) => {
                    // An input's value first; a textarea's text when there is none.
                    let value = m.input_value.clone().or_else(|| m.text_value.clone());
                    let attrs: Vec<(Atom, String)> =
                        m.attrs.iter().map(|(k, v)| (Atom::from(k.to_ascii_lowercase().as_str()), v.clone().unwrap_or_default())).collect();
                    only_text &= engine_attrs(&n.attrs).eq(engine_attrs(&attrs));
                    let but_hidden = engine_attrs(&n.attrs).filter(|(k, _)| k != "hidden").eq(engine_attrs(&attrs).filter(|(k, _)| k != "hidden"));
                    only_went &= but_hidden;
                    only_came &= but_hidden;
                    let indexed = |a: &[(Atom, String)]| ["id", "for"].map(|k| a.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()));
                    ids_moved |= indexed(&n.attrs) != indexed(&attrs);
                    if (&n.value, n.checked, n.selected) != (&value, m.checked, m.selected) {
                        texts.push(Retext { node: p, was: None });
                    }
                    n.value = value;
                    n.checked = m.checked;
                    n.selected = m.selected;
                    n.attrs = attrs;
                }
                _ => {}
            }
            if let Some(styles) = &m.styles {
                let style = |j: usize| styles.get(style_at + j).map_or("", String::as_str);
                let display = Atom::from(style(0));
                let visibility = Atom::from(style(1));
                let transform = Transform::of(style(3));
                let same_style =
                    n.display == display && n.visibility == visibility && n.transform == transform && (n.pseudo.is_none() || n.content == style(2));
                only_text &= same_style;
                only_went &= same_style;
                only_came &= same_style || came_now;
                n.display = display;
                n.visibility = visibility;
                if n.pseudo.is_some() {
                    n.content = style(2).to_string();
                }
                n.transform = transform;
            }
        }
        if ids_moved {
            self.page.index_ids();
        }
        match self.patch_click_facts(changed, nodes) {
            None => return false,
            Some(moved) => {
                only_text &= moved.is_empty();
                // A node laid out no more loses its pointer root: it is out of the tree.
                only_went &= moved.iter().all(|&p| self.page.nodes.get(p as usize).is_some_and(|n| !n.laid_out));
                // One laid out again gains it: it is in the subtree built.
                only_came &= moved.iter().all(|p| came.contains(p));
            }
        }
        let told = match &mut self.tree {
            Some((tree, index)) if only_text => retext::patch(&self.page, tree, index, &texts),
            // Rows hidden, and nothing else: their subtrees taken out of the kept tree. (A field in
            // a row hidden reports its value anew: it goes with the row.)
            Some((tree, index)) if only_went && texts.iter().all(|t| went.contains(&t.node)) => {
                crate::trace::timed("kept.hide", || retext::hide(&self.page, tree, index, &went))
            }
            // Rows shown again, and nothing else: their subtrees built into the kept tree.
            Some((tree, index)) if only_came && texts.iter().all(|t| came.contains(&t.node)) => {
                crate::trace::timed("kept.show", || retext::show(&self.page, tree, index, &came))
            }
            _ => false,
        };
        if !told {
            self.tree = None;
        }
        true
    }
}

impl Kept {
    /// Bring what is kept up to the mirror after a change to the tree
    /// (`restructured`: Some(the nodes whose children were listed anew)) or
    /// to what the DOM pass reads: the page laid out again from the mirror,
    /// its nodes moved over but for those `changed` since (made anew), and the
    /// engine's tree told of the subtrees that left, moved or came
    /// ([`Kept::take_out`], [`Kept::put_in`]); or patched for `changed` as
    /// [`Kept::patch`] does; the DOM pass's tree made again from the mirror,
    /// on a second thread on a large page. False when it cannot be (the page
    /// then is read from the mirror whole).
    pub(crate) fn rebuild(&mut self, mirror: Tree<'_>, changed: &[u32], restructured: Option<&[u32]>) -> bool {
        if self.dom.len() > 1 {
            return false;
        }
        // Taken out: `patch` then leaves the old tree's click hints alone.
        let old_dom = std::mem::take(&mut self.dom);
        let root_frame = old_dom.first().map(|t| t.root_frame.clone());
        let cursor = self.style_at > 0;
        let wants_dom = !old_dom.is_empty();
        let make_dom = move || {
            let frame = root_frame?;
            let mut t = crate::trace::timed("kept.dom", || {
                // With shadow roots, the old tree patched from the mirror (see `to_dom`).
                to_dom::dom_tree_of_mirror(mirror, cursor).or_else(|| to_dom::dom_tree_over_shadows(old_dom.first()?, mirror, cursor))
            })?;
            t.root_frame = frame;
            t.index_root_document();
            Some(t)
        };
        let page = || {
            let Some(relisted) = restructured else {
                return self.patch(changed, mirror.nodes);
            };
            let mut stale = vec![false; mirror.nodes.len()];
            for &k in changed {
                if let Some(s) = stale.get_mut(k as usize) {
                    *s = true;
                }
            }
            // The subtrees that left the page, or are placed again where they now are, taken out of
            // the engine's tree first: what they reached is read in the page the tree was built from.
            let reshaped = self.tree.take().and_then(|(mut tree, mut index)| {
                let moving = crate::trace::timed("kept.take_out", || self.take_out(&mut tree, &mut index, mirror.nodes, &stale, relisted))?;
                Some((tree, index, moving))
            });
            let reuse = to_page::Reuse { page: &mut self.page, page_of: &self.page_of, stale: &stale };
            let (page, page_of) = crate::trace::timed("kept.relayout", || to_page::page_of_mirror(mirror, self.style_at, Some(reuse)));
            let tree = reshaped
                .and_then(|(tree, index, moving)| crate::trace::timed("kept.put_in", || self.put_in(&page, &page_of, mirror.nodes, tree, index, moving)));
            (self.page, self.page_of, self.tree) = (page, page_of, tree);
            true
        };
        let split = wants_dom && mirror.live >= crate::capture::PARALLEL_READ_NODES;
        let (fits, dom) = crate::parallel::beside(split, page, move || wants_dom.then(make_dom));
        match dom {
            Some(Some(tree)) => self.dom = vec![tree],
            Some(None) => return false,
            None => {}
        }
        fits
    }

    /// Before the page is laid out again after a change to the tree: the
    /// subtrees of the kept page that leave it (no live mirror node stands
    /// for them), and, under a node read again or whose children were listed
    /// anew (`relisted`), those read again or out of the order they had (they
    /// may have moved), taken out of the engine's tree, each run of siblings
    /// at once ([`retext::take_out`]). None when one cannot be.
    fn take_out(&self, tree: &mut AxTree, index: &mut Index, nodes: &[MNode], stale: &[bool], relisted: &[u32]) -> Option<Moving> {
        let count = self.page.nodes.len();
        // Per page node: a live mirror node stands for it; it was read again.
        let mut stays = vec![false; count];
        let mut again = vec![false; count];
        // The mirror node of each that stays.
        let mut mirror_of = vec![NONE; count];
        for (k, &p) in self.page_of.iter().enumerate() {
            if p == NONE || !nodes.get(k).is_some_and(|m| m.alive) {
                continue;
            }
            *stays.get_mut(p as usize)? = true;
            *again.get_mut(p as usize)? = stale.get(k).copied().unwrap_or(true);
            mirror_of[p as usize] = k as u32;
        }
        // The parents and click facts as the build read them: a node moved over keeps its other facts, not these.
        let was = self.page.nodes.iter().map(|n| (n.parent, n.clickable, n.pointer_root)).collect();
        let mut moving = Moving { again_placed: Vec::new(), parents: Vec::new(), again, was };
        if !stays.get(self.page.root as usize).copied().unwrap_or(false) {
            return None;
        }
        // The nodes whose children were listed anew, as kept page nodes.
        let relisted_here: FxHashSet<u32> = relisted.iter().filter_map(|&k| self.page_of.get(k as usize).copied()).filter(|&p| p != NONE).collect();
        // The nodes whose children may have changed: those listed anew or read again, and the
        // parents of those that leave (found in one pass over the parents, not a walk of the
        // page: on the 40k-node page the walk was 4 ms of a look after a row was added).
        // `put_in` checks that nothing in the tree left unseen.
        let mut affected: Vec<u32> = relisted_here.iter().copied().collect();
        for (i, &(p, _, _)) in moving.was.iter().enumerate() {
            if p != NONE && stays.get(p as usize).copied().unwrap_or(false) && (!stays[i] || moving.again[i]) {
                affected.push(p);
            }
        }
        affected.sort_unstable();
        affected.dedup();
        // The tops taken out so far: a node below one of them is taken out with it.
        let mut taken: FxHashSet<u32> = FxHashSet::default();
        let mut run: Vec<u32> = Vec::new();
        for i in affected {
            let n = self.page.get(i)?;
            let mut up = i;
            let mut inside_taken = false;
            for _ in 0..count {
                if taken.contains(&up) {
                    inside_taken = true;
                    break;
                }
                up = moving.was.get(up as usize).map_or(NONE, |w| w.0);
                if up == NONE {
                    break;
                }
            }
            if inside_taken || !stays[i as usize] {
                continue;
            }
            let read_again = moving.again[i as usize] || relisted_here.contains(&i);
            // Under a node read again or listed anew, children that stay but are no longer in
            // the order they were in: those out of its longest run in order move.
            let out_of_order = if read_again { self.out_of_order(nodes, &mirror_of, i)? } else { FxHashSet::default() };
            for &c in &n.children {
                let leaves = !stays.get(c as usize).copied()?;
                let moves = !leaves && read_again && (moving.again[c as usize] || out_of_order.contains(&c));
                if !(leaves || moves) {
                    if !run.is_empty() {
                        self.cut_run(tree, index, &mut run, &mut moving, i)?;
                    }
                    continue;
                }
                run.push(c);
                taken.insert(c);
                if moves {
                    // Its nodes, new to the tree where they now are.
                    let mut below = vec![c];
                    while let Some(j) = below.pop() {
                        moving.again_placed.push(j);
                        below.extend(self.page.get(j).filter(|_| moving.again_placed.len() <= count)?.children.iter().copied());
                    }
                }
            }
            if !run.is_empty() {
                self.cut_run(tree, index, &mut run, &mut moving, i)?;
            }
        }
        Some(moving)
    }

    /// The children of kept page node `i` that stay under it in the mirror
    /// but not in the order they had: those out of the longest sequence of
    /// them still in order (as few as can be). None when `i` has no mirror node.
    fn out_of_order(&self, nodes: &[MNode], mirror_of: &[u32], i: u32) -> Option<FxHashSet<u32>> {
        let m = nodes.get(*mirror_of.get(i as usize)? as usize)?;
        // The kept page's children of `i` that are still its children, in the mirror's order.
        let olds: FxHashSet<u32> = self.page.get(i)?.children.iter().copied().collect();
        let seq: Vec<u32> = m.children.iter().filter_map(|&c| self.page_of.get(c as usize).copied()).filter(|p| *p != NONE && olds.contains(p)).collect();
        // Longest increasing subsequence (page order is index order): patience sorting, written
        // here rather than taken from a crate: twenty lines over one list's children (with the
        // rest of this function, 0.17 ms for the 40k-node page's 1,251 cards in a trace probe).
        let mut tails: Vec<usize> = Vec::new();
        let mut before = vec![usize::MAX; seq.len()];
        for (k, &p) in seq.iter().enumerate() {
            let at = tails.partition_point(|&t| seq[t] < p);
            if at > 0 {
                before[k] = tails[at - 1];
            }
            if at == tails.len() {
                tails.push(k);
            } else {
                tails[at] = k;
            }
        }
        let mut in_order = FxHashSet::default();
        let mut k = tails.last().copied().unwrap_or(usize::MAX);
        while k != usize::MAX {
            in_order.insert(seq[k]);
            k = before[k];
        }
        Some(seq.into_iter().filter(|p| !in_order.contains(p)).collect())
    }

    /// One run of `take_out`: siblings under `parent`, taken out of the tree together.
    fn cut_run(&self, tree: &mut AxTree, index: &mut Index, run: &mut Vec<u32>, moving: &mut Moving, parent: u32) -> Option<()> {
        retext::take_out(&self.page, tree, index, run).then_some(())?;
        moving.parents.push(parent);
        run.clear();
        Some(())
    }

    /// After the page is laid out again (`page`, each mirror node's place in
    /// it `page_of`): the tree `take_out` left, its index moved to the new
    /// page, and the nodes new to it (or placed again) built into it
    /// ([`retext::show`]); the names above what left computed again. None when
    /// a node read again that stayed in place is not as the build read it, or
    /// one that was not read again is not where it was.
    fn put_in(&self, page: &Page, page_of: &[u32], nodes: &[MNode], mut tree: AxTree, index: Index, moving: Moving) -> Option<(AxTree, Index)> {
        let old = &self.page;
        let mut moved_to = vec![NONE; old.nodes.len()];
        for (k, &p) in self.page_of.iter().enumerate() {
            if p == NONE || !nodes.get(k).is_some_and(|m| m.alive) {
                continue;
            }
            *moved_to.get_mut(p as usize)? = page_of.get(k).copied().unwrap_or(NONE);
        }
        // What is placed again is new to the tree: its old nodes stand for nothing in it.
        for &i in &moving.again_placed {
            *moved_to.get_mut(i as usize)? = NONE;
        }
        // Nothing of the tree left the page unseen (a frame's document, say: not listed anew).
        if index.ax_of().iter().zip(&moved_to).any(|(&a, &q)| a != NONE && q == NONE) {
            return None;
        }
        // What stays in place: a node read again is as the build read it, the click facts of every
        // other (moved over as it was) are what they were, and each is under its parent, after the
        // siblings it followed (old indices are in page order).
        let mut position = vec![0u32; page.nodes.len()];
        for n in &page.nodes {
            for (k, &c) in n.children.iter().enumerate() {
                *position.get_mut(c as usize)? = k as u32;
            }
        }
        let mut last_under = vec![NONE; page.nodes.len()];
        for (p, &q) in moved_to.iter().enumerate() {
            if q == NONE {
                continue;
            }
            let (a, b) = (old.get(p as u32)?, page.get(q)?);
            let &(was_under, clickable, pointer_root) = moving.was.get(p)?;
            let parent = if was_under == NONE { NONE } else { *moved_to.get(was_under as usize)? };
            if b.parent != parent {
                return None;
            }
            if b.parent != NONE {
                let last = last_under.get_mut(b.parent as usize)?;
                let at = *position.get(q as usize)?;
                if *last != NONE && at <= *last {
                    return None;
                }
                *last = at;
            }
            let fits = if *moving.again.get(p)? { same_for_engine(a, b) } else { (clickable, pointer_root) == (b.clickable, b.pointer_root) };
            if !fits {
                return None;
            }
        }
        let count = page.nodes.len();
        let mut index = index.relaid(&moved_to, count)?;
        let mut stays = vec![false; count];
        for &q in &moved_to {
            if let Some(s) = stays.get_mut(q as usize) {
                *s = true;
            }
        }
        let came: Vec<u32> = (0..count as u32).filter(|&q| !stays[q as usize]).collect();
        if !came.is_empty() && !retext::show(page, &mut tree, &mut index, &came) {
            return None;
        }
        let parents: Vec<u32> = moving.parents.iter().filter_map(|&p| moved_to.get(p as usize).copied()).filter(|&q| q != NONE).collect();
        retext::rename_above(page, &mut tree, &index, &parents).then_some((tree, index))
    }

    /// Generated boxes (`::marker`, `::before`, `::after`) that went with
    /// being laid out, and new ones that came (`Mirror::replace_generated`):
    /// each gone is taken out of its parent's children in the page, each new
    /// one added as `engine::page::from_snapshot` reads one, and `parents`
    /// list their children as the mirror now does. False when a node is not
    /// where the map says. The engine's tree is built again, unless boxes
    /// only went, each with its element going out of layout, or only came,
    /// each with its element coming into it.
    pub fn regenerate(&mut self, parents: &[u32], nodes: &[MNode], removed: &[u32], added: &[u32]) -> bool {
        if self.page_of.len() < nodes.len() {
            self.page_of.resize(nodes.len(), NONE);
        }
        // Boxes that went only with their element going out of layout (a row hidden): the kept
        // tree can stay, for `retext::hide` to take the element's subtree out, boxes and all.
        let with_their_element = added.is_empty()
            && removed.iter().all(|&k| {
                let q = nodes.get(k as usize).map_or(NONE, |m| m.parent);
                let was_laid_out = self.page_of.get(q as usize).and_then(|&p| self.page.nodes.get(p as usize)).is_some_and(|n| n.laid_out);
                was_laid_out && nodes.get(q as usize).is_some_and(|m| m.styles.is_none())
            });
        for &k in removed {
            let Some(was) = self.page_of.get_mut(k as usize).map(|p| std::mem::replace(p, NONE)) else { return false };
            let Some(n) = self.page.nodes.get_mut(was as usize) else { continue };
            let parent = std::mem::replace(&mut n.parent, NONE);
            n.laid_out = false;
            if let Some(q) = self.page.nodes.get_mut(parent as usize) {
                q.children.retain(|&c| c != was);
            }
        }
        let cursor = self.style_at > 0;
        let pointer = |m: &MNode| cursor && m.styles.as_ref().and_then(|s| s.first()).is_some_and(|c| c == "pointer");
        let mut atoms = to_page::Atoms::default();
        for &k in added {
            let Some(m) = nodes.get(k as usize) else { return false };
            let Some(&q) = self.page_of.get(m.parent as usize).filter(|&&q| q != NONE) else { return false };
            let Some(&scope) = self.page.scope.get(q as usize) else { return false };
            let parent_pointer = nodes.get(m.parent as usize).is_some_and(pointer);
            // A generated box, made as the page's builder makes any node.
            let mut n = to_page::made(m, None, self.style_at, &mut atoms);
            n.parent = q;
            n.clickable = m.clickable;
            n.pointer_root = pointer(m) && !parent_pointer;
            self.page_of[k as usize] = self.page.nodes.len() as u32;
            self.page.nodes.push(n);
            self.page.scope.push(scope);
        }
        for &q in parents {
            let (Some(m), Some(&p)) = (nodes.get(q as usize), self.page_of.get(q as usize)) else { return false };
            let kids: Vec<u32> = m.children.iter().filter_map(|&c| self.page_of.get(c as usize).copied()).filter(|&c| c != NONE).collect();
            let Some(n) = self.page.nodes.get_mut(p as usize).filter(|_| p != NONE) else { return false };
            n.children = kids;
        }
        // Boxes that came only with their element laid out again (a list item shown): `retext::show`
        // builds them with its subtree.
        let came_with_their_element = removed.is_empty()
            && added.iter().all(|&k| {
                let q = nodes.get(k as usize).map_or(NONE, |m| m.parent);
                let was_out = self.page_of.get(q as usize).and_then(|&p| self.page.nodes.get(p as usize)).is_some_and(|n| !n.laid_out);
                was_out && nodes.get(q as usize).is_some_and(|m| m.styles.is_some())
            });
        if !with_their_element && !came_with_their_element {
            self.tree = None;
        }
        true
    }

    /// The click facts of the changed nodes and of their children, as a DOM
    /// snapshot would give them now: a listener (`clickable`), and where
    /// `cursor: pointer` begins (it is pointer, its parent is not), in the
    /// engine's page and in the DOM pass's click hints. Some(the page nodes whose
    /// facts changed); None when a node is not where the map says.
    fn patch_click_facts(&mut self, changed: &[u32], nodes: &[MNode]) -> Option<Vec<u32>> {
        // The capture's first style is `cursor` when it asked for any (`engine::page::from_snapshot`).
        let cursor = self.style_at > 0;
        let pointer = |k: u32| cursor && nodes.get(k as usize).and_then(|m| m.styles.as_ref()).and_then(|s| s.first()).is_some_and(|c| c == "pointer");
        let mut seen = rustc_hash::FxHashSet::default();
        let mut moved = Vec::new();
        for &k in changed {
            let children = nodes.get(k as usize).map_or(&[][..], |m| m.children.as_slice());
            for &j in std::iter::once(&k).chain(children) {
                if !seen.insert(j) {
                    continue;
                }
                let m = nodes.get(j as usize)?;
                let Some(&p) = self.page_of.get(j as usize).filter(|&&p| p != NONE) else {
                    // A child the engine's page does not have (the map leaves nothing out that it read).
                    continue;
                };
                let element = m.node_type == 1;
                let root = element && pointer(j) && !pointer(m.parent);
                let n = self.page.nodes.get_mut(p as usize)?;
                if (n.clickable, n.pointer_root) == (m.clickable, root) {
                    continue;
                }
                let was = n.clickable && element || n.pointer_root;
                n.clickable = m.clickable;
                n.pointer_root = root;
                moved.push(p);
                let now = m.clickable && element || root;
                if was != now {
                    if let Some(tree) = self.dom.first_mut() {
                        if !tree.set_click_hint(m.backend, now) {
                            return None;
                        }
                    }
                }
            }
        }
        Some(moved)
    }
}

/// What [`Kept::take_out`] took out (the nodes placed again, and the parents
/// of all it took), and what it read of the kept page that laying it out
/// again leaves behind: per node, whether it was read again, and its parent and click facts.
struct Moving {
    again_placed: Vec<u32>,
    parents: Vec<u32>,
    again: Vec<bool>,
    was: Vec<(u32, bool, bool)>,
}

/// Whether page node `b` is, for the engine, what `a` was: the facts the
/// build reads of a node itself (its place is checked apart).
fn same_for_engine(a: &Node, b: &Node) -> bool {
    a.kind == b.kind
        && a.tag == b.tag
        && engine_attrs(&a.attrs).eq(engine_attrs(&b.attrs))
        && a.text == b.text
        && a.laid_out == b.laid_out
        && (&a.display, &a.visibility, &a.transform, &a.content) == (&b.display, &b.visibility, &b.transform, &b.content)
        && (a.clickable, a.pointer_root, a.checked, a.selected) == (b.clickable, b.pointer_root, b.checked, b.selected)
        && (a.pseudo, a.backend, &a.value) == (b.pseudo, b.backend, &b.value)
        && (&a.frame_id, &a.url) == (&b.frame_id, &b.url)
        && (a.content_doc == NONE) == (b.content_doc == NONE)
}

/// The attributes the engine reads: all but `class`, `style` and `data-*`,
/// which it never reads (what they do to the page reaches it as computed
/// styles, compared on their own). A class toggled for state with no style
/// of its own then keeps the engine's tree (on the 40k-node page the tree is
/// about 9 ms of a look to build again).
fn engine_attrs(attrs: &[(Atom, String)]) -> impl Iterator<Item = &(Atom, String)> {
    attrs.iter().filter(|(k, _)| !(k == "class" || k == "style" || k.starts_with("data-")))
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept").field("page_nodes", &self.page.nodes.len()).field("dom_trees", &self.dom.len()).field("tree", &self.tree.is_some()).finish()
    }
}
