//! The difference between two snapshots of one session: whether it is a
//! change at all (the revision rule of `revision.rs`), which refs came,
//! went and changed, and a compact text an agent can read instead of the
//! whole snapshot: the changed lines, each under the ancestor lines that
//! place it, refs kept.
//!
//! Lines are aligned with Myers' diff (the `similar` crate) over their
//! comparable forms, so churn never shows up as a difference and an element
//! that merely moved is one removal and one addition.

use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use similar::{capture_diff_deadline, Algorithm, DiffOp};

use crate::text::lines::{read_lines, Line};
use crate::text::revision::{churn_free_key, comparable, line_change, Kinds};

/// A diff that takes longer than this falls back to a coarser (still
/// correct) alignment: a whole-page rewrite should not stall a session.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// Up to this many line pairs a hunk is searched whole for lines that differ
/// only in churn; a bigger hunk (a rewritten page) is matched by place.
const CHURN_MATCH_LIMIT: usize = 250_000;

/// A snapshot as compared: its text and URL.
pub struct Side<'a> {
    pub text: &'a str,
    pub url: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RefChange {
    #[serde(rename = "ref")]
    pub ref_id: String,
    /// The ref's line before and now, without indentation.
    pub was: String,
    pub now: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Delta {
    /// Refs whose line is the same (churn aside) in both.
    pub unchanged: usize,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<RefChange>,
    /// A header, then the changed lines with their ancestors.
    pub text: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    pub kinds: Kinds,
    pub navigated: bool,
    pub delta: Delta,
}

impl Comparison {
    /// A new revision is due.
    pub fn is_change(&self) -> bool {
        self.kinds.any()
    }
}

/// A run of changed lines: old lines removed and new lines put in their place
/// (indices into the comparable keys, in order).
struct Hunk {
    old: Vec<usize>,
    new: Vec<usize>,
}

/// The diff as equal pairs and hunks (indices into the comparable keys),
/// with each changed run slid up where that makes it whole subtrees.
///
/// Myers' diff is free to pick any of several equally short alignments. When
/// the second of three identical `- listitem:` lines is removed, it tends to
/// keep the first container line and remove the *next* one, so the delta
/// reads "children of item 1 removed, and item 2's container": true, but not
/// what a reader sees. A run that starts deeper than it ends, and whose line
/// before equals its last line, is moved up by one line (the same edit) until
/// it starts at the subtree's own line.
fn aligned(ops: &[DiffOp], a: &[&str], b: &[&str], old_lines: &[Line<'_>], new_lines: &[Line<'_>], old_keys: &[(usize, String)], new_keys: &[(usize, String)]) -> (Vec<(usize, usize)>, Vec<Hunk>) {
    let mut old_changed = vec![true; a.len()];
    let mut new_changed = vec![true; b.len()];
    for op in ops {
        if let DiffOp::Equal { old_index, new_index, len } = *op {
            old_changed[old_index..old_index + len].fill(false);
            new_changed[new_index..new_index + len].fill(false);
        }
    }
    slide_up(&mut old_changed, a, |k| old_lines[old_keys[k].0].depth);
    slide_up(&mut new_changed, b, |k| new_lines[new_keys[k].0].depth);
    let mut pairs = Vec::new();
    let mut hunks = Vec::new();
    let (mut i, mut j) = (0usize, 0usize);
    loop {
        let (si, sj) = (i, j);
        while i < a.len() && old_changed[i] {
            i += 1;
        }
        while j < b.len() && new_changed[j] {
            j += 1;
        }
        if si < i || sj < j {
            // Lines that differ only in churn (a clock, a date) are the same
            // line: matched in order, they leave the hunk. Past a size the
            // search is by place only, so a rewrite stays linear.
            let (mut old, mut new) = (Vec::new(), Vec::new());
            let exhaustive = (i - si).saturating_mul(j - sj) <= CHURN_MATCH_LIMIT;
            // Each line's churn-free key once (the patterns cost more than a compare).
            let old_norm: Vec<String> = if si < i && sj < j { (si..i).map(|k| churn_free_key(&old_lines[old_keys[k].0])).collect() } else { Vec::new() };
            let new_norm: Vec<String> = if si < i && sj < j { (sj..j).map(|k| churn_free_key(&new_lines[new_keys[k].0])).collect() } else { Vec::new() };
            let mut from = sj;
            for oi in si..i {
                let end = if exhaustive { j } else { (from + 1).min(j) };
                match (from..end).find(|&nj| old_norm.get(oi - si).is_some_and(|o| Some(o) == new_norm.get(nj - sj))) {
                    Some(nj) => {
                        new.extend(from..nj);
                        pairs.push((oi, nj));
                        from = nj + 1;
                    }
                    None => {
                        old.push(oi);
                        if !exhaustive && from < j {
                            new.push(from);
                            from += 1;
                        }
                    }
                }
            }
            new.extend(from..j);
            if !old.is_empty() || !new.is_empty() {
                hunks.push(Hunk { old, new });
            }
        }
        if i >= a.len() || j >= b.len() {
            // Both sides end together: the unchanged lines pair one for one.
            break;
        }
        pairs.push((i, j));
        i += 1;
        j += 1;
    }
    (pairs, hunks)
}

/// Slide each run of changed lines up while the line before it equals the
/// run's last line and the run starts deeper than it ends.
fn slide_up(changed: &mut [bool], keys: &[&str], depth: impl Fn(usize) -> usize) {
    let mut k = 0;
    while k < changed.len() {
        if !changed[k] {
            k += 1;
            continue;
        }
        let (mut s, mut e) = (k, k);
        while e < changed.len() && changed[e] {
            e += 1;
        }
        let end = e;
        while s > 0 && !changed[s - 1] && keys[s - 1] == keys[e - 1] && depth(s) > depth(e - 1) {
            changed[s - 1] = true;
            changed[e - 1] = false;
            s -= 1;
            e -= 1;
        }
        k = end.max(k + 1);
    }
}

/// Each line's parent line (by indentation), `usize::MAX` for top-level lines.
fn parents(lines: &[Line<'_>]) -> Vec<usize> {
    let mut out = Vec::with_capacity(lines.len());
    let mut open: Vec<usize> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        while open.last().is_some_and(|&p| lines[p].depth >= l.depth) {
            open.pop();
        }
        out.push(open.last().copied().unwrap_or(usize::MAX));
        open.push(i);
    }
    out
}

/// One printed line of the delta text.
enum Mark {
    Context,
    Added,
    Removed,
    Changed(String),
}

struct Printer<'a, 'b> {
    old: &'b [Line<'a>],
    new: &'b [Line<'a>],
    old_parents: Vec<usize>,
    new_parents: Vec<usize>,
    /// Old line → the new line it is equal to (from the diff's equal runs).
    old_to_new: FxHashMap<usize, usize>,
    shown_new: FxHashSet<usize>,
    shown_old: FxHashSet<usize>,
    out: String,
}

impl Printer<'_, '_> {
    fn line(&mut self, mark: Mark, depth: usize, body: &str) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        self.out.push_str(match mark {
            Mark::Context => "  ",
            Mark::Added => "+ ",
            Mark::Removed => "- ",
            Mark::Changed(_) => "~ ",
        });
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(body);
        if let Mark::Changed(was) = mark {
            self.out.push_str("  (was: ");
            self.out.push_str(&was);
            self.out.push(')');
        }
    }

    /// The ancestors of new line `j` not printed yet, outermost first.
    fn new_context(&mut self, j: usize) {
        let mut chain = Vec::new();
        let mut p = self.new_parents[j];
        while p != usize::MAX && !self.shown_new.contains(&p) {
            chain.push(p);
            p = self.new_parents[p];
        }
        for &a in chain.iter().rev() {
            self.shown_new.insert(a);
            let l = &self.new[a];
            self.line(Mark::Context, l.depth, l.body);
        }
    }

    /// The ancestors of old line `i`: as the new snapshot has them when they
    /// are still there, else as they were.
    fn old_context(&mut self, i: usize) {
        let mut chain = Vec::new();
        let mut p = self.old_parents[i];
        while p != usize::MAX {
            match self.old_to_new.get(&p) {
                Some(&j) if self.shown_new.contains(&j) => break,
                None if self.shown_old.contains(&p) => break,
                _ => {}
            }
            chain.push(p);
            p = self.old_parents[p];
        }
        for &a in chain.iter().rev() {
            match self.old_to_new.get(&a).copied() {
                Some(j) => {
                    self.new_context(j);
                    self.shown_new.insert(j);
                    let l = &self.new[j];
                    self.line(Mark::Context, l.depth, l.body);
                }
                None => {
                    self.shown_old.insert(a);
                    let l = &self.old[a];
                    self.line(Mark::Context, l.depth, l.body);
                }
            }
        }
    }
}

/// Compare two snapshots of one session. `from`/`to` are the revisions the
/// header names.
pub fn compare(old: &Side<'_>, new: &Side<'_>, from: u32, to: u32) -> Comparison {
    let old_lines = read_lines(old.text);
    let new_lines = read_lines(new.text);
    let old_keys = comparable(&old_lines, false);
    let new_keys = comparable(&new_lines, false);
    let a: Vec<&str> = old_keys.iter().map(|(_, k)| k.as_str()).collect();
    let b: Vec<&str> = new_keys.iter().map(|(_, k)| k.as_str()).collect();
    let navigated = old.url != new.url;
    let mut kinds = Kinds { hierarchy: navigated, ..Kinds::default() };
    let ops = capture_diff_deadline(Algorithm::Myers, &a, 0..a.len(), &b, 0..b.len(), Some(Instant::now() + DIFF_DEADLINE));
    let (pairs, hunks) = aligned(&ops, &a, &b, &old_lines, &new_lines, &old_keys, &new_keys);

    let mut printer = Printer {
        old: &old_lines,
        new: &new_lines,
        old_parents: parents(&old_lines),
        new_parents: parents(&new_lines),
        old_to_new: FxHashMap::default(),
        shown_new: FxHashSet::default(),
        shown_old: FxHashSet::default(),
        out: String::new(),
    };
    for &(i, j) in &pairs {
        printer.old_to_new.insert(old_keys[i].0, new_keys[j].0);
    }
    // Refs on changed lines, to pair a ref that was removed and added back as "changed".
    let mut removed_refs: FxHashMap<&str, usize> = FxHashMap::default();
    let mut added_refs: FxHashMap<&str, usize> = FxHashMap::default();
    for h in &hunks {
        for &k in &h.old {
            if let Some(r) = old_lines[old_keys[k].0].ref_id {
                removed_refs.insert(r, old_keys[k].0);
            }
        }
        for &k in &h.new {
            if let Some(r) = new_lines[new_keys[k].0].ref_id {
                added_refs.insert(r, new_keys[k].0);
            }
        }
        // Lines replaced one for one at the same place: a change in place
        // when role, depth and ref agree; otherwise structure.
        let paired = h.old.len().min(h.new.len());
        for k in 0..paired {
            let (w, n) = (&old_lines[old_keys[h.old[k]].0], &new_lines[new_keys[h.new[k]].0]);
            let c = line_change(w, n);
            kinds.hierarchy |= c.hierarchy;
            kinds.text |= c.text;
            kinds.state |= c.state;
        }
        if h.old.len() != h.new.len() {
            kinds.hierarchy = true;
        }
    }

    let mut delta = Delta::default();
    let both: FxHashSet<&str> = removed_refs.keys().filter(|r| added_refs.contains_key(*r)).copied().collect();
    // Print in the new snapshot's order, each removal where it stood.
    for h in &hunks {
        for &k in &h.old {
            removed_line(&mut printer, &old_lines, old_keys[k].0, &both, &mut delta);
        }
        for &k in &h.new {
            added_line(&mut printer, &old_lines, &new_lines, new_keys[k].0, &removed_refs, &both, &mut delta);
        }
    }
    let old_refs: FxHashSet<&str> = old_lines.iter().filter_map(|l| l.ref_id).collect();
    delta.unchanged = new_lines.iter().filter_map(|l| l.ref_id).filter(|r| old_refs.contains(r) && !both.contains(r) && !added_refs.contains_key(r)).count();
    let mut header = format!(
        "# changes from revision {from} to {to}: {} added, {} removed, {} changed, {} refs unchanged",
        delta.added.len(),
        delta.removed.len(),
        delta.changed.len(),
        delta.unchanged
    );
    if navigated {
        header.push_str(&format!("\n# navigated from {} to {}", old.url.unwrap_or("(none)"), new.url.unwrap_or("(none)")));
    }
    delta.text = if printer.out.is_empty() && !navigated {
        format!("# no changes since revision {from}: {} refs unchanged", delta.unchanged)
    } else if printer.out.is_empty() {
        header
    } else {
        format!("{header}\n{}", printer.out)
    };
    Comparison { kinds, navigated, delta }
}

fn removed_line(printer: &mut Printer<'_, '_>, old_lines: &[Line<'_>], i: usize, both: &FxHashSet<&str>, delta: &mut Delta) {
    let l = &old_lines[i];
    if l.ref_id.is_some_and(|r| both.contains(r)) {
        // Shown with its new line, as changed.
        return;
    }
    if let Some(r) = l.ref_id {
        delta.removed.push(r.to_string());
    }
    printer.old_context(i);
    printer.shown_old.insert(i);
    printer.line(Mark::Removed, l.depth, l.body);
}

fn added_line(
    printer: &mut Printer<'_, '_>,
    old_lines: &[Line<'_>],
    new_lines: &[Line<'_>],
    j: usize,
    removed_refs: &FxHashMap<&str, usize>,
    both: &FxHashSet<&str>,
    delta: &mut Delta,
) {
    let l = &new_lines[j];
    printer.new_context(j);
    printer.shown_new.insert(j);
    match l.ref_id {
        Some(r) if both.contains(r) => {
            let was = old_lines[removed_refs[r]].body;
            delta.changed.push(RefChange { ref_id: r.to_string(), was: was.to_string(), now: l.body.to_string() });
            printer.line(Mark::Changed(was.to_string()), l.depth, l.body);
        }
        Some(r) => {
            delta.added.push(r.to_string());
            printer.line(Mark::Added, l.depth, l.body);
        }
        None => printer.line(Mark::Added, l.depth, l.body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(a: &str, b: &str) -> Comparison {
        compare(&Side { text: a, url: Some("u") }, &Side { text: b, url: Some("u") }, 1, 2)
    }

    const PAGE: &str = "- document \"Todo\"\n  - main:\n    - heading \"Todo\" [level=1]\n    - list:\n      - listitem:\n        - checkbox \"Milk\" [ref=@e1]\n        - button \"Remove\" [ref=@e2]\n      - listitem:\n        - checkbox \"Eggs\" [ref=@e3]\n        - button \"Remove\" [ref=@e4]\n    - button \"Add\" [ref=@e5]\n    - timer: 00:01";

    #[test]
    fn no_change_and_churn_give_an_empty_delta() {
        let c = cmp(PAGE, &PAGE.replace("00:01", "00:02"));
        assert!(!c.is_change());
        assert_eq!(c.delta.text, "# no changes since revision 1: 5 refs unchanged");
        assert_eq!(c.delta.unchanged, 5);
    }

    #[test]
    fn a_state_change_names_its_ref_with_its_ancestors() {
        let now = PAGE.replace("- checkbox \"Eggs\" [ref=@e3]", "- checkbox \"Eggs\" [ref=@e3 checked=true]");
        let c = cmp(PAGE, &now);
        assert_eq!(c.kinds.main(), Some("state_change"));
        assert_eq!(c.delta.changed.len(), 1);
        assert_eq!(c.delta.changed[0].ref_id, "@e3");
        assert_eq!(c.delta.changed[0].now, "- checkbox \"Eggs\" [ref=@e3 checked=true]");
        assert!(c.delta.added.is_empty() && c.delta.removed.is_empty());
        assert_eq!(c.delta.unchanged, 4);
        let expected = "# changes from revision 1 to 2: 0 added, 0 removed, 1 changed, 4 refs unchanged\n  - document \"Todo\"\n    - main:\n      - list:\n        - listitem:\n~         - checkbox \"Eggs\" [ref=@e3 checked=true]  (was: - checkbox \"Eggs\" [ref=@e3])";
        assert_eq!(c.delta.text, expected);
    }

    #[test]
    fn added_and_removed_items_are_structure() {
        let now = PAGE.replace("    - button \"Add\" [ref=@e5]", "      - listitem:\n        - checkbox \"Jam\" [ref=@e6]\n        - button \"Remove\" [ref=@e7]\n    - button \"Add\" [ref=@e5]");
        let c = cmp(PAGE, &now);
        assert_eq!(c.kinds.main(), Some("hierarchy_diff"));
        assert_eq!(c.delta.added, vec!["@e6", "@e7"]);
        assert!(c.delta.text.contains("+       - listitem:\n+         - checkbox \"Jam\" [ref=@e6]"), "{}", c.delta.text);
        let back = cmp(&now, PAGE);
        assert_eq!(back.delta.removed, vec!["@e6", "@e7"]);
        assert!(back.delta.text.contains("-         - checkbox \"Jam\" [ref=@e6]"), "{}", back.delta.text);
    }

    #[test]
    fn a_clock_beside_a_real_change_stays_out_of_the_delta() {
        let c = cmp("- main:\n  - text: Updated 10:00\n  - button \"a\" [ref=@e1]", "- main:\n  - button \"b\" [ref=@e2]\n  - text: Updated 10:01\n  - button \"a\" [ref=@e1]");
        assert_eq!(c.delta.added, vec!["@e2"]);
        assert!(!c.delta.text.contains("Updated"), "{}", c.delta.text);
        assert_eq!(c.kinds.main(), Some("hierarchy_diff"));
    }

    #[test]
    fn a_removed_item_is_removed_whole() {
        let page = "- list:\n  - listitem:\n    - text: Milk\n    - button \"Remove Milk\" [ref=@e1]\n  - listitem:\n    - text: Eggs\n    - button \"Remove Eggs\" [ref=@e2]";
        let now = "- list:\n  - listitem:\n    - text: Eggs\n    - button \"Remove Eggs\" [ref=@e2]";
        let c = cmp(page, now);
        assert_eq!(c.delta.removed, vec!["@e1"]);
        assert!(c.delta.text.ends_with("  - list:\n-   - listitem:\n-     - text: Milk\n-     - button \"Remove Milk\" [ref=@e1]"), "{}", c.delta.text);
    }

    #[test]
    fn renamed_and_navigated() {
        let c = cmp(PAGE, &PAGE.replace("\"Add\"", "\"Add item\""));
        assert_eq!(c.kinds.main(), Some("text_change"));
        assert_eq!(c.delta.changed[0].ref_id, "@e5");
        let nav = compare(&Side { text: PAGE, url: Some("a") }, &Side { text: PAGE, url: Some("b") }, 3, 4);
        assert!(nav.is_change() && nav.navigated);
        assert!(nav.delta.text.contains("# navigated from a to b"));
    }
}
