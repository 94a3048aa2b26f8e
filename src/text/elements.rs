//! Seed 001 §1.3's structured elements: each ref as `{ ref, role, name,
//! state, bbox, value?, level?, children? }`, ranked and cut to
//! `maxElements` by §1.3.3 (fully in view > partly > offscreen, then role
//! priority, then document order), plus `focused` and `timestamp`.

use serde::Serialize;

use crate::dom::viewport::Shown;
use crate::text::serialize::ElementRef;
use crate::tree::Tristate;

/// Names longer than this are cut, with "..." (§1.3.3).
pub const MAX_ELEMENT_NAME_CHARS: usize = 200;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoundingBox {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Element {
    #[serde(rename = "ref")]
    pub ref_id: String,
    pub role: String,
    pub name: String,
    pub state: Vec<&'static str>,
    /// Viewport coordinates: its own box, or (an option of a closed select,
    /// a `display: contents` wrapper) its nearest ancestor's that has one.
    pub bbox: BoundingBox,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
}

/// §1.3.3's role priority: lower first.
pub(crate) fn role_rank(role: &str) -> u8 {
    match role {
        "button" | "link" => 0,
        "checkbox" | "radio" | "textbox" | "searchbox" => 1,
        "combobox" | "listbox" => 2,
        "heading" => 3,
        "region" | "dialog" | "alertdialog" => 4,
        _ => 5,
    }
}

/// §1.3.3's ranking key of a ref at document position `k`: lower is kept first.
pub fn rank_key(r: &ElementRef, k: usize) -> (u8, u8, usize) {
    (shown_rank(r), role_rank(&r.role), k)
}

fn shown_rank(r: &ElementRef) -> u8 {
    shown_rank_of(r.facts.placed)
}

/// §1.3.4's state values that apply to `r`, shown as `shown` (its own placement or its ancestor's).
fn states_placed(r: &ElementRef, shown: Option<Shown>) -> Vec<&'static str> {
    let s = &r.facts.states;
    let mut out = vec![match shown {
        Some(Shown::Fully | Shown::Partly) => "visible",
        Some(Shown::Offscreen) => "offscreen",
        None => "hidden",
    }];
    out.push(if s.disabled { "disabled" } else { "enabled" });
    if s.readonly {
        out.push("readonly");
    }
    match s.checked {
        Some(Tristate::True) => out.push("checked"),
        Some(Tristate::False) => out.push("unchecked"),
        Some(Tristate::Mixed) => out.push("mixed"),
        None => {}
    }
    match s.expanded {
        Some(true) => out.push("expanded"),
        Some(false) => out.push("collapsed"),
        None => {}
    }
    if s.focused {
        out.push("focused");
    }
    if s.busy {
        out.push("busy");
    }
    out
}

fn cut_name(name: &str) -> String {
    match name.char_indices().nth(MAX_ELEMENT_NAME_CHARS) {
        Some((at, _)) => format!("{}...", &name[..at]),
        None => name.to_string(),
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// Each ref's placement: its own, else its nearest ancestor ref's (by the
/// refs' `children`), else none: an element with no box anywhere above it
/// is hidden, which §1.3.2 leaves out.
fn placements(refs: &[ElementRef]) -> Vec<Option<(crate::dom::viewport::Rect, Shown)>> {
    let mut parent: Vec<Option<usize>> = vec![None; refs.len()];
    for (k, r) in refs.iter().enumerate() {
        for &c in &r.facts.children {
            if let Some(p) = parent.get_mut(c as usize) {
                p.get_or_insert(k);
            }
        }
    }
    (0..refs.len())
        .map(|k| {
            // Bounded walk: `children` comes from the page's tree, so no cycle is trusted away.
            let mut at = Some(k);
            for _ in 0..=refs.len() {
                let i = at?;
                if let Some(p) = refs[i].facts.placed {
                    return Some(p);
                }
                at = parent[i];
            }
            None
        })
        .collect()
}

/// The elements to report (document order), how many `maxElements` left
/// out, and how many were hidden (no box of their own or above them).
pub fn elements(refs: &[ElementRef], max: Option<u32>) -> (Vec<Element>, usize, usize) {
    let placed = placements(refs);
    // Refs behind an open modal are not on the active layer; hidden ones are not reported.
    let mut keep: Vec<bool> = refs.iter().zip(&placed).map(|(r, p)| r.blocked_by.is_none() && p.is_some()).collect();
    let hidden = refs.iter().zip(&placed).filter(|(r, p)| r.blocked_by.is_none() && p.is_none()).count();
    let mut left_out = 0;
    let mut order: Vec<usize> = (0..refs.len()).filter(|&k| keep[k]).collect();
    if let Some(max) = max.map(|m| m as usize).filter(|&m| m < order.len()) {
        order.sort_by_key(|&k| (shown_rank_of(placed[k]), role_rank(&refs[k].role), k));
        for &k in &order[max..] {
            keep[k] = false;
        }
        left_out = order.len() - max;
    }
    let out = refs
        .iter()
        .enumerate()
        .filter(|(k, _)| keep[*k])
        .filter_map(|(k, r)| {
            let (b, shown) = placed[k]?;
            Some(Element {
                ref_id: r.ref_id.clone(),
                role: r.role.clone(),
                name: cut_name(&r.name),
                state: states_placed(r, Some(shown)),
                bbox: BoundingBox { x: round1(b.x), y: round1(b.y), width: round1(b.w), height: round1(b.h) },
                value: r.facts.value.clone().filter(|v| !v.is_empty()),
                level: r.facts.states.level.filter(|_| r.role == "heading"),
                children: r.facts.children.iter().filter(|&&c| keep.get(c as usize) == Some(&true)).map(|&c| refs[c as usize].ref_id.clone()).collect(),
            })
        })
        .collect();
    (out, left_out, hidden)
}

fn shown_rank_of(placed: Option<(crate::dom::viewport::Rect, Shown)>) -> u8 {
    match placed.map(|(_, s)| s) {
        Some(Shown::Fully) => 0,
        Some(Shown::Partly) => 1,
        Some(Shown::Offscreen) => 2,
        None => 3,
    }
}

/// The ref of the focused element, if it has one.
pub fn focused(refs: &[ElementRef]) -> Option<&str> {
    refs.iter().find(|r| r.facts.states.focused).map(|r| r.ref_id.as_str())
}

/// Now as ISO 8601 UTC with milliseconds (§1.3.1's `timestamp`).
pub fn timestamp_now() -> String {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    iso8601(since.as_millis() as i64)
}

/// Milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ` (civil-from-days, proleptic Gregorian).
/// Written here rather than taken from `chrono`/`time`: this one UTC format
/// is all the crate needs, and a date crate (with its time-zone tables) would
/// be a dependency for twenty lines; the test pins it against known dates.
pub fn iso8601(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::viewport::Rect;
    use crate::text::serialize::RefFacts;
    use crate::tree::States;

    fn r(n: u32, role: &str, shown: Option<Shown>, states: States) -> ElementRef {
        ElementRef {
            ref_id: format!("@e{n}"),
            role: role.into(),
            name: format!("{role} {n}"),
            occurrence_index: 0,
            signature_hash: String::new(),
            backend_node_id: Some(n as i64),
            frame_id: None,
            clickable: false,
            located: Default::default(),
            facts: RefFacts { placed: shown.map(|s| (Rect { x: 1.04, y: 2.0, w: 3.0, h: 4.0 }, s)), states, value: None, children: Vec::new() },
            blocked_by: None,
        }
    }

    #[test]
    fn ranking_keeps_in_view_then_role_then_document_order() {
        let refs = vec![
            r(1, "heading", Some(Shown::Fully), States::default()),
            r(2, "link", Some(Shown::Offscreen), States::default()),
            r(3, "button", Some(Shown::Partly), States::default()),
            r(4, "checkbox", Some(Shown::Fully), States::default()),
            r(5, "button", Some(Shown::Fully), States::default()),
            r(6, "generic", None, States::default()),
        ];
        let (kept, left_out, hidden) = elements(&refs, Some(3));
        assert_eq!((left_out, hidden), (2, 1));
        // Fully in view: button 5, checkbox 4, heading 1 — reported in document order.
        assert_eq!(kept.iter().map(|e| e.ref_id.as_str()).collect::<Vec<_>>(), ["@e1", "@e4", "@e5"]);
        let (all, none, hidden) = elements(&refs, None);
        // The generic with no box anywhere above it is hidden: left out (§1.3.2).
        assert_eq!((all.len(), none, hidden), (5, 0, 1));
        assert_eq!(all[0].bbox, BoundingBox { x: 1.0, y: 2.0, width: 3.0, height: 4.0 });
    }

    #[test]
    fn an_element_without_a_box_takes_its_nearest_ancestors() {
        // A closed select (a combobox with a box) and its options (none).
        let mut select = r(1, "combobox", Some(Shown::Fully), States::default());
        select.facts.children = vec![1, 2];
        let refs = vec![select, r(2, "option", None, States::default()), r(3, "option", None, States::default())];
        let (all, _, hidden) = elements(&refs, None);
        assert_eq!(hidden, 0);
        assert_eq!(all.len(), 3);
        assert!(all.iter().all(|e| e.bbox == all[0].bbox), "{all:?}");
        assert_eq!(all[1].state, ["visible", "enabled"]);
    }

    fn states(r: &ElementRef) -> Vec<&'static str> {
        states_placed(r, r.facts.placed.map(|(_, s)| s))
    }

    #[test]
    fn states_are_seed_001s_values() {
        let s = States { checked: Some(Tristate::True), disabled: true, readonly: true, expanded: Some(false), focused: true, busy: true, ..States::default() };
        assert_eq!(states(&r(1, "checkbox", Some(Shown::Partly), s)), ["visible", "disabled", "readonly", "checked", "collapsed", "focused", "busy"]);
        let s = States { checked: Some(Tristate::False), ..States::default() };
        assert_eq!(states(&r(2, "checkbox", Some(Shown::Offscreen), s)), ["offscreen", "enabled", "unchecked"]);
        assert_eq!(states(&r(3, "option", None, States::default())), ["hidden", "enabled"]);
    }

    #[test]
    fn names_are_cut_at_200_chars_and_timestamps_are_iso() {
        let mut long = r(1, "link", Some(Shown::Fully), States::default());
        long.name = "é".repeat(250);
        let (e, _, _) = elements(&[r(0, "main", Some(Shown::Fully), States::default()), long], None);
        let e = &e[1..];
        assert_eq!(e[0].name.chars().count(), 203);
        assert!(e[0].name.ends_with("..."));
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_795_430_400_123), "2026-11-23T10:40:00.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }
}
