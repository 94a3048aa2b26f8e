//! What counts as a change of the page (seed 004 §4.2): the rule a session's
//! revision follows. Two snapshots are the same revision when their lines
//! are equal after churn is taken out:
//!
//! - the content of `timer` and `marquee` elements (their name, inline text
//!   and every line below them) is churn by definition (WAI-ARIA: "a live
//!   region whose content changes without being important");
//! - text that differs only in a clock time, a date, an elapsed time or a
//!   running counter ("3 min ago", "00:27", "in 12s", "2026-11-23") is the
//!   same text;
//! - focus, caret and CSS animation never reach the text (the serializer
//!   prints no `focused`), and neither does `clickable`, which only says a
//!   listener or cursor invites a click.
//!
//! Anything else that changes a line — a node added or removed, a name or
//! text, a state (`checked`, `expanded`, `selected`, `disabled`, `pressed`,
//! `value=`, `level=`), a list's content — is a change, and so is a new URL.

use std::sync::OnceLock;

use regex::Regex;

use crate::text::lines::Line;

/// What kind of change a difference is (seed 004's `observedChange`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Kinds {
    /// A node added or removed, a role changed, a navigation.
    pub hierarchy: bool,
    /// A name or text changed in a node that is otherwise the same.
    pub text: bool,
    /// A state attribute changed in a node that is otherwise the same.
    pub state: bool,
}

impl Kinds {
    pub fn any(&self) -> bool {
        self.hierarchy || self.text || self.state
    }

    /// The one kind reported: structure first, then state, then text.
    pub fn main(&self) -> Option<&'static str> {
        if self.hierarchy {
            Some("hierarchy_diff")
        } else if self.state {
            Some("state_change")
        } else if self.text {
            Some("text_change")
        } else {
            None
        }
    }

    pub fn has(&self, kind: &str) -> bool {
        match kind {
            "hierarchy_diff" => self.hierarchy,
            "text_change" => self.text,
            "state_change" => self.state,
            _ => false,
        }
    }
}

/// Roles whose content is churn.
fn is_churn_role(role: &str) -> bool {
    matches!(role, "timer" | "marquee")
}

/// Attributes that never make a change.
fn is_cosmetic_attr(attr: &str) -> bool {
    attr == "clickable"
}

const TIME: &str = "\u{27e8}t\u{27e9}";

fn churn_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let month = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?";
        let unit = r"(?:ms|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?|mo|months?|y|yrs?|years?)";
        let alternatives = [
            // ISO dates and date-times
            r"\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:z|[+-]\d{2}:?\d{2})?)?".to_string(),
            // clock times and mm:ss durations, with am/pm
            r"\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:\s?[ap]\.?m\.?)?".to_string(),
            // numeric dates
            r"\d{1,2}[/.]\d{1,2}[/.]\d{2,4}".to_string(),
            // month-name dates: "Nov 23", "November 23rd, 2026", "23 Nov 2026"
            format!(r"{month}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"),
            format!(r"\d{{1,2}}\s+{month}(?:\s+\d{{4}})?"),
            // elapsed times and counters: "12s", "3 min ago", "in 5 minutes", "1h 2m"
            format!(r"(?:in\s+)?\d+(?:\.\d+)?\s?{unit}(?:\s+\d+\s?{unit})*(?:\s+ago)?"),
            r"just now|a few seconds ago|an? (?:second|minute|hour|day|week|month|year) ago".to_string(),
        ];
        let joined = alternatives.iter().map(|a| format!("(?:{a})")).collect::<Vec<_>>().join("|");
        // Whole words only, so "v2.10" or "H2O" stay text. Built from literals: cannot fail.
        Regex::new(&format!(r"(?i)\b(?:{joined})\b")).unwrap_or_else(|_| Regex::new("$^").expect("an empty regex compiles"))
    })
}

/// `text` with every clock, date, elapsed-time and counter pattern replaced
/// by one placeholder.
pub fn without_churn(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    // Most lines hold no digit and no "ago"/"now": skip the regex for them.
    if !b.iter().any(u8::is_ascii_digit) && !text.contains(" ago") && !text.contains("just now") {
        return std::borrow::Cow::Borrowed(text);
    }
    churn_pattern().replace_all(text, TIME)
}

/// The comparable form of each line that takes part in comparison, with the
/// index of its line: lines inside a churn element do not take part. With
/// `normalize`, churn text is taken out too (see [`same_after_churn`] for the
/// cheaper way a diff uses it).
pub fn comparable(lines: &[Line<'_>], normalize: bool) -> Vec<(usize, String)> {
    let mut out = Vec::with_capacity(lines.len());
    // Depth of the churn element whose content is being skipped.
    let mut churn_depth: Option<usize> = None;
    for (i, l) in lines.iter().enumerate() {
        if let Some(d) = churn_depth {
            if l.depth > d {
                continue;
            }
            churn_depth = None;
        }
        let churn = is_churn_role(l.role);
        if churn {
            churn_depth = Some(l.depth);
        }
        out.push((i, key(l, churn, normalize)));
    }
    out
}

/// A line's key with churn text taken out: two lines with equal such keys
/// are one line. A diff over the plain keys finds the lines that differ at
/// all; only those pay for the churn patterns (on a 40k-node page most lines
/// hold a digit).
pub fn churn_free_key(l: &Line<'_>) -> String {
    key(l, is_churn_role(l.role), true)
}

fn key(l: &Line<'_>, churn: bool, normalize: bool) -> String {
    let without_churn = |t: &'_ str| if normalize { without_churn(t).into_owned() } else { t.to_string() };
    if l.role.is_empty() {
        return format!("{}|{}", l.depth, without_churn(l.body));
    }
    let mut k = String::with_capacity(l.body.len() + 8);
    k.push_str(&l.depth.to_string());
    k.push('|');
    k.push_str(l.role);
    k.push('|');
    if !churn {
        k.push_str(&without_churn(l.name));
    }
    k.push('|');
    k.push_str(l.ref_id.unwrap_or_default());
    for a in l.attrs.iter().filter(|a| !is_cosmetic_attr(a)) {
        k.push('|');
        match a.strip_prefix("value=") {
            Some(v) => {
                k.push_str("value=");
                k.push_str(&without_churn(v));
            }
            None => k.push_str(a),
        }
    }
    k.push('|');
    if !churn {
        k.push_str(&without_churn(l.inline));
    }
    k
}

/// The kind of difference between two lines at the same place (`was` → `now`).
pub fn line_change(was: &Line<'_>, now: &Line<'_>) -> Kinds {
    let mut k = Kinds::default();
    if was.role != now.role || was.depth != now.depth || was.ref_id != now.ref_id {
        k.hierarchy = true;
        return k;
    }
    if without_churn(was.name) != without_churn(now.name) || without_churn(was.inline) != without_churn(now.inline) {
        k.text = true;
    }
    let attrs = |l: &Line<'_>| l.attrs.iter().filter(|a| !is_cosmetic_attr(a)).map(|a| without_churn(a).into_owned()).collect::<Vec<_>>();
    if attrs(was) != attrs(now) {
        k.state = true;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::lines::read_lines;

    fn same(a: &str, b: &str) -> bool {
        let (la, lb) = (read_lines(a), read_lines(b));
        let ka: Vec<String> = comparable(&la, true).into_iter().map(|(_, k)| k).collect();
        let kb: Vec<String> = comparable(&lb, true).into_iter().map(|(_, k)| k).collect();
        ka == kb
    }

    #[test]
    fn churn_is_the_same_revision_and_changes_are_not() {
        // (case, before, after, is a change)
        let cases: &[(&str, &str, &str, bool)] = &[
            ("identical", "- button \"Send\" [ref=@e1]", "- button \"Send\" [ref=@e1]", false),
            ("clock in text", "- paragraph: Updated 10:41:07", "- paragraph: Updated 10:41:08", false),
            ("clock with am/pm", "- text: 9:59 PM", "- text: 10:00 PM", false),
            ("elapsed time", "- link \"Posted 3 min ago\" [ref=@e2]", "- link \"Posted 4 min ago\" [ref=@e2]", false),
            ("countdown", "- button \"Resend code in 27s\" [ref=@e3 disabled=true]", "- button \"Resend code in 26s\" [ref=@e3 disabled=true]", false),
            ("iso date", "- text: as of 2026-11-23T10:00:00Z", "- text: as of 2026-11-23T10:00:05Z", false),
            ("month-name date", "- text: Nov 23, 2026", "- text: Nov 24, 2026", false),
            ("just now", "- text: edited just now", "- text: edited 1 minute ago", false),
            ("timer content", "- timer \"Elapsed\":\n  - text: 00:01", "- timer \"Elapsed\":\n  - text: 00:02", false),
            ("timer any text", "- timer: one", "- timer: two", false),
            (
                "marquee content",
                "- marquee:\n  - text: BREAKING: a\n- button \"b\" [ref=@e1]",
                "- marquee:\n  - text: BREAKING: b\n  - text: more\n- button \"b\" [ref=@e1]",
                false,
            ),
            ("clickable only", "- generic \"x\" [ref=@e1]", "- generic \"x\" [ref=@e1 clickable]", false),
            ("node added", "- list:\n  - listitem: a", "- list:\n  - listitem: a\n  - listitem: b", true),
            ("node removed", "- list:\n  - listitem: a\n  - listitem: b", "- list:\n  - listitem: a", true),
            ("text changed", "- paragraph: Hello", "- paragraph: Goodbye", true),
            ("number that is not a time", "- text: Total: 10 items", "- text: Total: 11 items", true),
            ("price", "- text: $10.00", "- text: $12.00", true),
            ("button renamed", "- button \"Save\" [ref=@e1]", "- button \"Saved\" [ref=@e1]", true),
            ("checked", "- checkbox \"Done\" [ref=@e1]", "- checkbox \"Done\" [ref=@e1 checked=true]", true),
            ("expanded", "- button \"Menu\" [ref=@e1 expanded=false]", "- button \"Menu\" [ref=@e1 expanded=true]", true),
            ("selected", "- tab \"A\" [ref=@e1]", "- tab \"A\" [ref=@e1 selected=true]", true),
            ("disabled", "- button \"Go\" [ref=@e1]", "- button \"Go\" [ref=@e1 disabled=true]", true),
            ("pressed", "- button \"Bold\" [ref=@e1 pressed=false]", "- button \"Bold\" [ref=@e1 pressed=true]", true),
            ("value", "- textbox \"Q\" [ref=@e1]", "- textbox \"Q\" [ref=@e1 value=\"milk\"]", true),
            ("timer added", "- main", "- main:\n  - timer: 00:01", true),
            ("moved deeper", "- button \"x\" [ref=@e1]", "- group:\n  - button \"x\" [ref=@e1]", true),
        ];
        for (case, before, after, change) in cases {
            assert_eq!(!same(before, after), *change, "{case}");
        }
    }

    #[test]
    fn kinds_of_a_line_change() {
        let l = |s: &'static str| read_lines(s).remove(0);
        assert_eq!(line_change(&l("- checkbox \"A\" [ref=@e1]"), &l("- checkbox \"A\" [ref=@e1 checked=true]")).main(), Some("state_change"));
        assert_eq!(line_change(&l("- button \"A\" [ref=@e1]"), &l("- button \"B\" [ref=@e1]")).main(), Some("text_change"));
        assert_eq!(line_change(&l("- button \"A\" [ref=@e1]"), &l("- link \"A\" [ref=@e1]")).main(), Some("hierarchy_diff"));
        assert_eq!(line_change(&l("- text: 10:00"), &l("- text: 10:01")).main(), None);
    }
}
