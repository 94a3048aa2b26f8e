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

use crate::text::lines::{is_line_start, read_lines, ref_of, Line};
use crate::text::revision::{churn_free_key, comparable, line_change, Kinds};

/// A diff that takes longer than this falls back to a coarser (still
/// correct) alignment: a whole-page rewrite should not stall a session.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// Texts shorter than this are compared whole; longer ones leave out the
/// lines they share at both ends (see [`compare_trimmed`]).
const TRIM_MIN_BYTES: usize = 16 * 1024;

/// Lines kept before the first difference when the shared ends are left out,
/// so that a run of changes can slide up as [`aligned`] slides it.
const TRIM_WINDOW: usize = 32;

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
fn aligned(
    ops: &[DiffOp],
    a: &[&str],
    b: &[&str],
    old_lines: &[Line<'_>],
    new_lines: &[Line<'_>],
    old_keys: &[(usize, String)],
    new_keys: &[(usize, String)],
) -> (Vec<(usize, usize)>, Vec<Hunk>) {
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
    if old.text.len().min(new.text.len()) >= TRIM_MIN_BYTES {
        if let Some(c) = compare_trimmed(old, new, from, to) {
            return c;
        }
    }
    compare_lines(old, new, from, to, 0, 0).0
}

/// [`compare`] over what differs between two long texts, with the same outcome.
///
/// A repeat snapshot after a small change shares all but a few lines with the
/// last one, and reading, keying and diffing every line of both (about 4 ms on
/// the 40k-node page) would cost more than the rest of the comparison. The
/// lines both texts share at the start and at the end are left out, except
/// what the comparison reads of them: the ancestors of the lines kept (context
/// and churn elements) and [`TRIM_WINDOW`] lines before the first difference.
/// Lines left out are equal in both texts, so the diff of what is kept is the
/// diff of the whole (Myers leaves out equal ends the same way); their refs
/// count as unchanged. When the changes slide up to the lines kept before the
/// difference, or a ref of a changed line is also on a line left out, the
/// texts are compared whole.
fn compare_trimmed(old: &Side<'_>, new: &Side<'_>, from: u32, to: u32) -> Option<Comparison> {
    let (a, b) = (old.text.as_bytes(), new.text.as_bytes());
    let cp = common_prefix(a, b);
    // The line holding the first difference, a line start in both texts.
    let mut first = physical_start(a, cp);
    while first > 0 && !(is_line_start(physical(old.text, first)) && is_line_start(physical(new.text, first))) {
        first = physical_start(a, first - 1);
    }
    let mut start = first;
    let mut kept = 0;
    while start > 0 && kept < TRIM_WINDOW {
        start = physical_start(a, start - 1);
        if start == 0 || is_line_start(physical(old.text, start)) {
            kept += 1;
        }
    }
    // The ancestors of the first line kept, innermost first.
    let mut chain: Vec<&str> = Vec::new();
    let mut depth = indent(physical(old.text, start)) / 2;
    let (mut at, mut next) = (start, start);
    while depth > 0 && at > 0 {
        at = physical_start(a, at - 1);
        let line = physical(old.text, at);
        if at > 0 && !is_line_start(line) {
            continue;
        }
        let d = indent(line) / 2;
        if d < depth {
            chain.push(&old.text[at..next - 1]);
            depth = d;
        }
        next = at;
    }
    // The shared end: from the first line start inside it (a line start in both).
    let shared = common_suffix(a, b).min(a.len().min(b.len()) - cp);
    let (sa, sb) = (a.len() - shared, b.len() - shared);
    // Past TRIM_WINDOW + 1 line starts inside it: the diff may move a change down as well as up.
    let mut end = None;
    let mut from_at = sa;
    let mut starts = 0;
    while let Some(i) = memchr::memchr(b'\n', &a[from_at..]) {
        let q = from_at + i + 1;
        if is_line_start(physical(old.text, q)) {
            starts += 1;
            if starts > TRIM_WINDOW {
                end = Some(q);
                break;
            }
        }
        from_at = q;
    }
    let (end_a, end_b) = match end {
        Some(q) => (q - 1, q - 1 - sa + sb),
        None => (a.len(), b.len()),
    };
    if start == 0 && end.is_none() {
        return None;
    }
    let mut prefix = String::new();
    for line in chain.iter().rev() {
        prefix.push_str(line);
        prefix.push('\n');
    }
    let old_kept = format!("{prefix}{}", &old.text[start..end_a]);
    let new_kept = format!("{prefix}{}", &new.text[start..end_b]);
    // The refs of the lines left out (the same in both texts).
    let mut left_out: Vec<&str> = Vec::new();
    each_ref(&new.text[..start], &mut left_out);
    let chain_refs = chain.iter().filter(|l| ref_of(l.trim_start_matches(' ')).is_some()).count();
    if let Some(q) = end {
        each_ref(&new.text[q - sa + sb..], &mut left_out);
    }
    let left_out_count = left_out.len().checked_sub(chain_refs)?;
    let (c, touched) = compare_lines(&Side { text: &old_kept, url: old.url }, &Side { text: &new_kept, url: new.url }, from, to, left_out_count, chain.len());
    // The first line compared at or after the first line kept (the chain's lines are all compared).
    let first_kept = touched.first_kept.unwrap_or(usize::MAX);
    if touched.first_line <= first_kept || (end.is_some() && touched.reaches_end) || left_out.iter().any(|r| touched.refs.contains(*r)) {
        return None;
    }
    Some(c)
}

/// How many bytes two texts share at their start. Compared in blocks (a
/// `memcmp` each; `memchr` has no search for where two slices first differ):
/// byte by byte, comparing the 40k-node page's text with itself took 1.15 ms
/// in all, in blocks 0.72 ms (release, medians of 30, one-off probe).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 256;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    i + a[i..n].iter().zip(&b[i..n]).position(|(x, y)| x != y).unwrap_or(n - i)
}

/// How many bytes two texts share at their end.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 256;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + BLOCK <= n && a[n - i - BLOCK..n - i] == b[n - i - BLOCK..n - i] {
        i += BLOCK;
    }
    i + a[..n - i].iter().rev().zip(b[..n - i].iter().rev()).position(|(x, y)| x != y).unwrap_or(n - i)
}

/// Where the physical line holding byte `at` begins.
fn physical_start(text: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &text[..at.min(text.len())]).map_or(0, |i| i + 1)
}

/// The physical line that begins at `at` (a line start).
fn physical(text: &str, at: usize) -> &str {
    let rest = &text[at..];
    &rest[..memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len())]
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The refs of the lines of `text` (which begins with a line).
///
/// Only lines holding `ref=` are read (a ref is such an attribute): found
/// with `memmem`, most lines of a page (text, headings, containers) are
/// never parsed. The 40k-node page's text, 3,751 refs: 513 µs reading
/// every line, 259 µs reading those (release, a one-off timing loop over
/// `cargo test`, 50 runs each).
fn each_ref<'t>(text: &'t str, out: &mut Vec<&'t str>) {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memmem::find(&bytes[from..], b"ref=") {
        let at = from + i;
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |k| k + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |k| at + k);
        if let Some(r) = ref_of(text[start..end].trim_start_matches(' ')) {
            out.push(r);
        }
        from = end;
    }
}

/// What a comparison's changes reached: the first line (old or new) in a
/// change, whether the last line of either text is in one, and the refs of
/// changed lines.
struct Touched<'t> {
    first_line: usize,
    /// The first line compared from `kept_from` on.
    first_kept: Option<usize>,
    reaches_end: bool,
    refs: FxHashSet<&'t str>,
}

/// The comparison, with `left_out_refs` more refs unchanged; what it touched
/// is told relative to line `kept_from`.
fn compare_lines<'t>(old: &Side<'t>, new: &Side<'t>, from: u32, to: u32, left_out_refs: usize, kept_from: usize) -> (Comparison, Touched<'t>) {
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
    delta.unchanged =
        left_out_refs + new_lines.iter().filter_map(|l| l.ref_id).filter(|r| old_refs.contains(r) && !both.contains(r) && !added_refs.contains_key(r)).count();
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
    // In the diff's terms (lines inside churn elements take no part): the
    // first line of a change, and whether a change is the last line compared.
    let first_line = hunks.iter().flat_map(|h| h.old.iter().map(|&k| old_keys[k].0).chain(h.new.iter().map(|&k| new_keys[k].0))).min().unwrap_or(usize::MAX);
    let reaches_end = hunks.iter().any(|h| h.old.last().is_some_and(|&k| k + 1 == old_keys.len()) || h.new.last().is_some_and(|&k| k + 1 == new_keys.len()));
    let refs = removed_refs.keys().chain(added_refs.keys()).copied().collect();
    let first_kept = old_keys.iter().map(|&(i, _)| i).find(|&i| i >= kept_from);
    (Comparison { kinds, navigated, delta }, Touched { first_line, first_kept, reaches_end, refs })
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
    fn refs_are_found_as_every_line_read_would_find_them() {
        // Names that say `ref=` are not refs; a line with several `ref=` is read once.
        let text = format!("{PAGE}\n    - button \"see ref=@e9\" [ref=@e6]\n    - text: ref=@e7\n    - link \"[ref=@e8]\"\n    - textbox \"a\" [value=\"ref=\" ref=@e10]\nref=");
        let mut found = Vec::new();
        each_ref(&text, &mut found);
        let every: Vec<&str> = text.split('\n').filter_map(|l| ref_of(l.trim_start_matches(' '))).collect();
        assert_eq!(found, every);
        assert_eq!(found, ["@e1", "@e2", "@e3", "@e4", "@e5", "@e6", "@e10"]);
    }

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
        let now = PAGE.replace(
            "    - button \"Add\" [ref=@e5]",
            "      - listitem:\n        - checkbox \"Jam\" [ref=@e6]\n        - button \"Remove\" [ref=@e7]\n    - button \"Add\" [ref=@e5]",
        );
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
        let c = cmp(
            "- main:\n  - text: Updated 10:00\n  - button \"a\" [ref=@e1]",
            "- main:\n  - button \"b\" [ref=@e2]\n  - text: Updated 10:01\n  - button \"a\" [ref=@e1]",
        );
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

    /// A long snapshot text: nested lists of items alike enough for a diff to
    /// have choices, refs, a timer, multi-line text, and repeated subtrees.
    fn long_text(rng: &mut u64, items: usize) -> Vec<String> {
        let mut lines = vec!["- document \"Shop\"".to_string(), "  - main:".to_string()];
        let mut r = 1;
        for i in 0..items {
            let kind = next(rng) % 6;
            lines.push("    - listitem:".into());
            match kind {
                0 if i % 3 == 0 => {
                    lines.push("      - timer:".into());
                    lines.push("        - text: 00:0".to_string() + &(i % 10).to_string());
                }
                0 => lines.push("      - timer: 00:0".to_string() + &(i % 10).to_string()),
                1 => {
                    lines.push("      - text: first".into());
                    lines.push("second line".into());
                }
                2 => lines.push("      - listitem:".into()),
                _ => {}
            }
            lines.push(format!("      - button \"Remove {}\" [ref=@e{r}]", i % 7));
            r += 1;
            if kind == 3 {
                lines.push(format!("        - checkbox \"x\" [ref=@e{r} checked=true]"));
                r += 1;
            }
        }
        lines.push("  - button \"Add [ref=@e1]\" [ref=@e999999]".into());
        lines
    }

    fn next(rng: &mut u64) -> usize {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        (*rng >> 11) as usize
    }

    /// One random edit of a text's lines (by line: the edits a page makes).
    fn edit(rng: &mut u64, lines: &mut Vec<String>) {
        let n = lines.len();
        let at = 2 + next(rng) % (n - 3);
        match next(rng) % 8 {
            0 => lines[at] = lines[at].replace("Remove", "Delete"),
            1 => lines[at].push_str(" [checked=true]"),
            2 => {
                lines.remove(at);
            }
            3 => {
                let copy = lines[at].clone();
                lines.insert(at, copy);
            }
            4 => lines.insert(at, "    - listitem:".into()),
            5 => lines.insert(at, "more text".into()),
            6 => {
                let take = (next(rng) % 4).min(n - at - 1);
                let moved: Vec<String> = lines.drain(at..at + take).collect();
                let to = 2 + next(rng) % (lines.len() - 2);
                for (k, l) in moved.into_iter().enumerate() {
                    lines.insert(to + k, l);
                }
            }
            _ => lines[at] = lines[at].replace("00:0", "00:1"),
        }
    }

    #[test]
    fn leaving_out_the_shared_ends_gives_the_whole_comparison() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut trimmed = 0;
        for case in 0..400 {
            let items = 40 + next(&mut rng) % 300;
            let old = long_text(&mut rng, items);
            let mut new = old.clone();
            for _ in 0..1 + next(&mut rng) % 3 {
                edit(&mut rng, &mut new);
            }
            let (a, b) = (old.join("\n"), new.join("\n"));
            let (sa, sb) = (Side { text: &a, url: Some("u") }, Side { text: &b, url: Some(if case % 50 == 0 { "v" } else { "u" }) });
            let whole = compare_lines(&sa, &sb, 1, 2, 0, 0).0;
            if let Some(t) = compare_trimmed(&sa, &sb, 1, 2) {
                trimmed += 1;
                assert_eq!(t, whole, "case {case}\n--- old\n{a}\n--- new\n{b}");
            }
            // Equal texts too.
            if let Some(t) = compare_trimmed(&sa, &Side { text: &a, url: Some("u") }, 1, 2) {
                assert_eq!(t, compare_lines(&sa, &sa, 1, 2, 0, 0).0, "case {case} (equal)");
            }
        }
        assert!(trimmed > 300, "the shared ends were left out in {trimmed} of 400 cases");
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
