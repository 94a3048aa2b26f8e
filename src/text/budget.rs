//! `maxTokens`: when the printed lines cost more o200k tokens than the
//! budget, keep the lines that matter most and say what the rest were.
//!
//! Lines are kept in priority order: the main content's outline first (the
//! `main` landmark and its top-level headings, so a small budget still says
//! what the page is about), then in the viewport first, then seed 001's role
//! order, then landmarks and headings, then text, document order breaking
//! ties; a line that repeats an earlier one (a header widget printed twice
//! for two screen sizes) comes last. A kept line brings the lines above it,
//! so the text stays a tree. What is left out is counted on one `- more:` line under its
//! nearest kept ancestor, with the `rootSelector` that shows it. Refs are not
//! touched: a left-out element's ref still resolves.

use crate::compat::js_string::json_quote;
use crate::text::tokens;

/// The parent of a line with none: the document line, and every line of `refsOnly`.
pub const NO_PARENT: u32 = u32::MAX;

/// One printed line as the budget sees it.
#[derive(Debug, Clone)]
pub struct Printed<'a> {
    /// The line without its indentation.
    pub text: String,
    pub depth: u32,
    /// Index of the line it sits under, or [`NO_PARENT`].
    pub parent: u32,
    /// Lower is kept first: (viewport, role, kind).
    pub rank: (u8, u8, u8),
    /// What a `more` line counts it as (`link`, `text line`); `None` for
    /// structure that says nothing by itself (`- list:`).
    pub counted_as: Option<&'a str>,
    /// The view node it prints, for the `expand` hint.
    pub node: u32,
}

/// The text of `lines`, or of those `keep` marks, with `stubs[i]` (a `more`
/// line's text) as the last child of line `i` and `root_stub` at the end.
pub fn emit(lines: &[Printed<'_>], keep: Option<&[bool]>, stubs: &[(u32, String)], root_stub: Option<&str>) -> String {
    let mut text = String::with_capacity(lines.iter().map(|l| l.text.len() + 2 * l.depth as usize + 1).sum());
    let mut stub_of = stubs.iter().peekable();
    // Kept lines whose subtree is still being written, with their stub.
    let mut open: Vec<(u32, Option<&str>)> = Vec::new();
    let close = |text: &mut String, open: &mut Vec<(u32, Option<&str>)>, depth: u32| {
        while open.last().is_some_and(|&(d, _)| d >= depth) {
            if let Some((d, Some(stub))) = open.pop() {
                push_indented(text, d as usize + 1, "- more: ", stub);
            }
        }
    };
    for (i, line) in lines.iter().enumerate() {
        if keep.is_some_and(|k| !k[i]) {
            continue;
        }
        close(&mut text, &mut open, line.depth);
        push_indented(&mut text, line.depth as usize, "", &line.text);
        let stub = match stub_of.peek() {
            Some((at, s)) if *at as usize == i => {
                stub_of.next();
                Some(s.as_str())
            }
            _ => None,
        };
        open.push((line.depth, stub));
    }
    close(&mut text, &mut open, 0);
    if let Some(stub) = root_stub {
        push_indented(&mut text, 0, "- more: ", stub);
    }
    text
}

fn push_indented(text: &mut String, depth: usize, prefix: &str, line: &str) {
    if !text.is_empty() {
        text.push('\n');
    }
    for _ in 0..depth {
        text.push_str("  ");
    }
    text.push_str(prefix);
    text.push_str(line);
}

/// What `fit` made of the lines.
pub struct Fitted {
    pub text: String,
    pub note: Option<String>,
    /// How many lines the budget left out.
    pub left_out: usize,
}

/// Fit `lines` into `max` tokens. `expand(node)` is the selector that shows
/// a line's subtree on its own (`rootSelector`), when there is one.
pub fn fit(lines: &[Printed<'_>], max: usize, expand: &dyn Fn(u32) -> Option<String>) -> Fitted {
    // The whole text is written only when it may be the answer: on a large
    // page it is hundreds of kilobytes the budget throws away.
    let whole = || emit(lines, None, &[], None);
    let len = lines.iter().map(|l| l.text.len() + 2 * l.depth as usize + 1).sum::<usize>().saturating_sub(1);
    // A token is at least one byte, and our lines average about four bytes
    // a token: counting a text far above the budget is wasted work.
    if len <= max {
        return Fitted { text: whole(), note: None, left_out: 0 };
    }
    let mut cost: Vec<Option<usize>> = lines.iter().map(|l| tokens::cached_line(l.depth as usize, "", &l.text)).collect();
    let all_known = cost.iter().all(Option::is_some);
    // Each cost has its newline and the last line has none in the text, so the sum is an upper bound.
    if all_known && cost.iter().map(|c| c.unwrap_or(0)).sum::<usize>() <= max {
        return Fitted { text: whole(), note: None, left_out: 0 };
    }
    if !all_known && len <= max.saturating_mul(8) {
        let full = whole();
        // One encoding of the whole text says whether it fits and, if not,
        // what each line costs (when each line is one line of text).
        let Some(counts) = tokens::line_counts(&full) else { return unfitted(full) };
        if counts.iter().sum::<usize>() <= max {
            return Fitted { text: full, note: None, left_out: 0 };
        }
        if counts.len() == lines.len() {
            let last = counts.len() - 1;
            for (i, c) in counts.into_iter().enumerate() {
                // The last line was counted without its newline.
                if i < last {
                    tokens::remember_line(lines[i].depth as usize, "", &lines[i].text, c);
                    cost[i] = Some(c);
                }
            }
        }
    }
    let tiers = tiers(lines);
    let mut order: Vec<u32> = (0..lines.len() as u32).collect();
    order.sort_by_key(|&i| (tiers[i as usize], lines[i as usize].rank, i));
    // A line's cost is the count of its indentation, text and newline: o200k
    // never joins a newline to what follows it, so these costs add up to the
    // whole text's count (one more for the last line's missing newline).
    let mut line_cost = |i: u32| -> usize {
        *cost[i as usize].get_or_insert_with(|| {
            let l = &lines[i as usize];
            tokens::line_cost(l.depth as usize, "", &l.text).unwrap_or(l.text.len() + 2 * l.depth as usize + 1)
        })
    };
    let mut hints: rustc_hash::FxHashMap<u32, Option<String>> = rustc_hash::FxHashMap::default();
    let mut expand_once = |node: u32| hints.entry(node).or_insert_with(|| expand(node)).clone();
    // The `more` lines cost tokens too, and which are needed depends on what
    // is kept: search for the largest line budget whose whole text fits.
    let mut attempt = |target: usize| {
        let keep = choose(lines, &order, target, &mut line_cost);
        let (stubs, root_stub, left_out) = stubs_for(lines, &keep, &mut expand_once);
        let mut total: usize = (0..lines.len() as u32).filter(|&i| keep[i as usize]).map(&mut line_cost).sum();
        let stub_lines = stubs.iter().map(|(at, t)| (lines[*at as usize].depth as usize + 1, t)).chain(root_stub.iter().map(|t| (0, t)));
        for (depth, t) in stub_lines {
            total += tokens::line_cost(depth, "- more: ", t).unwrap_or(t.len() + 2 * depth + 9);
        }
        Attempt { keep, stubs, root_stub, left_out, total }
    };
    let first = attempt(max);
    let overshoot = first.total.saturating_sub(max);
    let mut best = (overshoot == 0).then_some(first);
    let (mut lo, mut hi) = (0usize, max);
    let mut guess = max.saturating_sub(overshoot);
    for _ in 0..10 {
        if overshoot == 0 || (best.is_some() && hi <= lo + 4) {
            break;
        }
        let r = attempt(guess);
        if r.total <= max {
            lo = guess;
            best = Some(r);
        } else {
            hi = guess;
        }
        guess = lo + (hi - lo) / 2;
    }
    let Some(best) = best else { return bare_fit(lines, expand, max) };
    let shown = best.keep.iter().filter(|&&k| k).count();
    let text = emit(lines, Some(&best.keep), &best.stubs, best.root_stub.as_deref());
    let note = format!(
        "maxTokens {max}: {shown} of {} lines shown (at most {} tokens, o200k); {} left out are counted on `more` lines, and their refs stay resolvable in refs",
        lines.len(),
        best.total,
        best.left_out
    );
    Fitted { text, note: Some(note), left_out: best.left_out }
}

struct Attempt {
    keep: Vec<bool>,
    stubs: Vec<(u32, String)>,
    root_stub: Option<String>,
    left_out: usize,
    /// The text's token count (an upper bound by at most one).
    total: usize,
}

/// Before rank: 0 for the main content's outline (the `main` line and its
/// headings of level 1 and 2), 2 for a line that says what an earlier line
/// said (refs aside), 1 for the rest.
fn tiers(lines: &[Printed<'_>]) -> Vec<u8> {
    let mut in_main = vec![false; lines.len()];
    let mut said: rustc_hash::FxHashSet<String> = rustc_hash::FxHashSet::default();
    let mut tiers = vec![1u8; lines.len()];
    for (i, l) in lines.iter().enumerate() {
        let t = l.text.as_str();
        let is_main = t == "- main" || t.starts_with("- main:") || t.starts_with("- main \"") || t.starts_with("- main [");
        // Parents come before their children.
        let parent_in_main = lines.get(l.parent as usize).is_some() && in_main.get(l.parent as usize).copied().unwrap_or(false);
        in_main[i] = is_main || parent_in_main;
        let top_heading = t.starts_with("- heading ") && (t.contains("[level=1") || t.contains("[level=2"));
        if is_main || (parent_in_main && top_heading) {
            tiers[i] = 0;
        } else if l.counted_as.is_some() && !said.insert(without_refs(t)) {
            tiers[i] = 2;
        }
    }
    tiers
}

/// A line's text with its `ref=…` attribute taken out.
fn without_refs(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("ref=") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let end = after.find([' ', ']']).unwrap_or(after.len());
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The text with no budget, when the o200k table did not load.
fn unfitted(full: String) -> Fitted {
    Fitted { text: full, note: Some("maxTokens: the o200k token table could not be loaded, so the text is not cut".into()), left_out: 0 }
}

/// After every attempt overshot (pathological joins): the lines that must
/// stay and nothing else.
fn bare_fit(lines: &[Printed<'_>], expand: &dyn Fn(u32) -> Option<String>, max: usize) -> Fitted {
    let keep: Vec<bool> = lines.iter().map(is_document).collect();
    let (stubs, root_stub, left_out) = stubs_for(lines, &keep, &mut |node| expand(node));
    let text = emit(lines, Some(&keep), &stubs, root_stub.as_deref());
    Fitted { text, note: Some(format!("maxTokens {max}: only the document line and `more` lines fit")), left_out }
}

fn is_document(line: &Printed<'_>) -> bool {
    line.parent == NO_PARENT && line.depth == 0 && line.counted_as.is_none()
}

/// Keep lines in `order` while their cost, with any ancestors not yet
/// kept, fits in `budget`.
fn choose(lines: &[Printed<'_>], order: &[u32], budget: usize, line_cost: &mut dyn FnMut(u32) -> usize) -> Vec<bool> {
    let mut keep = vec![false; lines.len()];
    let mut used = 0usize;
    // The document line opens every snapshot, whatever it costs.
    if lines.first().is_some_and(is_document) {
        keep[0] = true;
        used = line_cost(0);
    }
    let mut misses = 0usize;
    let mut chain: Vec<u32> = Vec::new();
    for &i in order {
        if keep[i as usize] {
            continue;
        }
        chain.clear();
        let mut at = i;
        let mut cost = 0usize;
        loop {
            chain.push(at);
            cost += line_cost(at);
            let p = lines[at as usize].parent;
            if p == NO_PARENT || keep[p as usize] {
                break;
            }
            at = p;
        }
        if used + cost <= budget {
            used += cost;
            for &c in &chain {
                keep[c as usize] = true;
            }
            misses = 0;
        } else {
            misses += 1;
            // Past this many lines that do not fit, the budget is full: stop
            // tokenizing the rest of a large page.
            if misses >= 64 || budget.saturating_sub(used) < 4 {
                break;
            }
        }
    }
    keep
}

/// Per kept line, the `more` line for what was left out under it:
/// `(line, "212 links, 3 headings [expand: rootSelector=\"nav#main\"]")`, in
/// line order; the stub of what has no kept ancestor; and how many lines
/// were counted.
fn stubs_for(lines: &[Printed<'_>], keep: &[bool], expand: &mut dyn FnMut(u32) -> Option<String>) -> (Vec<(u32, String)>, Option<String>, usize) {
    // The nearest kept ancestor of each line; parents come before children.
    let mut holder: Vec<u32> = vec![NO_PARENT; lines.len()];
    let mut counts: Vec<Vec<(&str, usize)>> = vec![Vec::new(); lines.len()];
    let mut root_counts: Vec<(&str, usize)> = Vec::new();
    let mut left_out = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let p = line.parent;
        holder[i] = match p {
            NO_PARENT => NO_PARENT,
            p if keep[p as usize] => p,
            p => holder[p as usize],
        };
        if keep[i] {
            continue;
        }
        let Some(what) = line.counted_as else { continue };
        left_out += 1;
        let bucket = match holder[i] {
            NO_PARENT => &mut root_counts,
            h => &mut counts[h as usize],
        };
        match bucket.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += 1,
            None => bucket.push((what, 1)),
        }
    }
    let describe = |counts: &[(&str, usize)], hint: Option<String>| {
        let what = counts.iter().map(|(w, n)| format!("{n} {}", plural(w, *n))).collect::<Vec<_>>().join(", ");
        let expand = hint.map_or_else(|| "raise maxTokens".to_string(), |s| format!("rootSelector={}", json_quote(&s)));
        format!("{what} [expand: {expand}]")
    };
    let stubs = counts
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.is_empty())
        .map(|(i, c)| {
            let hint = if lines[i].parent == NO_PARENT { None } else { expand(lines[i].node) };
            (i as u32, describe(c, hint))
        })
        .collect();
    let root = (!root_counts.is_empty()).then(|| describe(&root_counts, None));
    (stubs, root, left_out)
}

/// `3 links`, `2 listboxes`: what a `more` or `inert` line counts.
pub fn plural(what: &str, n: usize) -> String {
    match (n, what) {
        (1, _) => what.to_string(),
        (_, w) if w.ends_with('x') || w.ends_with('s') => format!("{w}es"),
        (_, w) => format!("{w}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, depth: u32, parent: u32, rank: (u8, u8, u8), counted_as: Option<&'static str>) -> Printed<'static> {
        Printed { text: text.into(), depth, parent, rank, counted_as, node: 0 }
    }

    fn page(links: usize) -> Vec<Printed<'static>> {
        let mut lines = vec![
            line("- document \"Shop\":", 0, NO_PARENT, (0, 5, 1), None),
            line("- button \"Buy now\" [ref=@e1]", 1, 0, (0, 0, 1), Some("button")),
            line("- navigation \"Main\":", 1, 0, (1, 5, 0), None),
        ];
        for k in 0..links {
            lines.push(line(&format!("- link \"Category number {k}\" [ref=@e{}]", k + 2), 2, 2, (2, 0, 1), Some("link")));
        }
        lines.push(line("- text: Free shipping on orders over $50", 1, 0, (0, 5, 2), Some("text line")));
        lines
    }

    #[test]
    fn a_text_within_the_budget_is_untouched() {
        let lines = page(3);
        let f = fit(&lines, 500, &|_| None);
        assert_eq!(f.text, emit(&lines, None, &[], None));
        assert!(f.note.is_none());
    }

    #[test]
    fn a_binding_budget_keeps_priorities_and_counts_the_rest() {
        let lines = page(300);
        let f = fit(&lines, 120, &|_| Some("nav#main".into()));
        let n = tokens::count(&f.text).unwrap();
        assert!(n <= 120, "{n} tokens:\n{}", f.text);
        assert!(f.text.starts_with("- document \"Shop\":\n  - button \"Buy now\" [ref=@e1]\n  - navigation \"Main\":"), "{}", f.text);
        assert!(f.text.contains("- text: Free shipping"), "in-view text outranks offscreen links:\n{}", f.text);
        let shown = f.text.matches("- link ").count();
        assert!(shown > 0 && shown < 300);
        // The links left out are counted under the navigation, with the selector that shows them.
        let more = format!("    - more: {} links [expand: rootSelector=\"nav#main\"]", 300 - shown);
        assert!(f.text.contains(&more), "{more} missing in:\n{}", f.text);
        assert!(f.note.unwrap().starts_with("maxTokens 120:"));
    }

    #[test]
    fn the_text_is_a_tree_the_stub_closes_its_subtree() {
        let lines = page(2);
        let keep = vec![true, true, true, true, false, true];
        let stubs = vec![(2u32, "1 link [expand: raise maxTokens]".to_string())];
        assert_eq!(
            emit(&lines, Some(&keep), &stubs, None),
            "- document \"Shop\":\n  - button \"Buy now\" [ref=@e1]\n  - navigation \"Main\":\n    - link \"Category number 0\" [ref=@e2]\n    - more: 1 link [expand: raise maxTokens]\n  - text: Free shipping on orders over $50"
        );
    }

    #[test]
    fn a_small_budget_keeps_the_main_outline_before_header_widgets_and_a_repeat_last() {
        let mut lines = vec![line("- document \"Repo\":", 0, NO_PARENT, (0, 5, 1), None), line("- banner:", 1, 0, (0, 5, 0), None)];
        // The header's search widget, printed twice (a desktop and a mobile copy), and its menu.
        for copy in 0..2 {
            lines.push(line(&format!("- combobox \"Search or jump to\" [ref=@e{}]", copy + 1), 2, 1, (0, 0, 1), Some("combobox")));
        }
        for k in 0..30 {
            lines.push(line(&format!("- link \"Menu entry {k}\" [ref=@e{}]", k + 3), 2, 1, (0, 0, 1), Some("link")));
        }
        let main = lines.len() as u32;
        lines.push(line("- main:", 1, 0, (2, 5, 0), None));
        lines.push(line("- heading \"acme/widgets\" [level=1]", 2, main, (2, 4, 0), Some("heading")));
        lines.push(line("- heading \"README.md\" [level=2]", 2, main, (2, 4, 0), Some("heading")));
        lines.push(line("- heading \"Fine print\" [level=4]", 2, main, (2, 4, 0), Some("heading")));
        lines.push(line("- button \"Star\" [ref=@e40]", 2, main, (2, 0, 1), Some("button")));
        let f = fit(&lines, 110, &|_| None);
        assert!(f.text.contains("- heading \"acme/widgets\" [level=1]") && f.text.contains("- heading \"README.md\" [level=2]"), "{}", f.text);
        assert!(!f.text.contains("Fine print"), "only the top of the outline is promoted:\n{}", f.text);
        assert_eq!(f.text.matches("Search or jump to").count(), 1, "a repeated line is said once:\n{}", f.text);
        assert!(f.text.contains("Menu entry 0"), "the rest keeps its order:\n{}", f.text);
        assert_eq!(without_refs("- button \"Go\" [ref=@e4 clickable]"), "- button \"Go\" [ clickable]");
    }

    #[test]
    fn a_budget_smaller_than_the_document_line_still_ends() {
        let mut lines = page(50);
        lines[0].text = format!("- document \"{}\":", "very long title ".repeat(40));
        let f = fit(&lines, 50, &|_| None);
        assert!(f.note.is_some());
        assert!(f.text.starts_with("- document"));
    }
}
