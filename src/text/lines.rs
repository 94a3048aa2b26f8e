//! Reading the snapshot text back into lines: depth, role, name, the ref and
//! the state attributes, the inline text. The text is ours (SPEC §5), so
//! this is a reader of one known format, not a guess: names and `value=`
//! are JSON strings, so a `]` or `[ref=` inside page text is never taken
//! for an attribute.

/// One line of the snapshot (with any continuation lines of multi-line text).
#[derive(Debug, Clone, PartialEq)]
pub struct Line<'a> {
    /// Nesting level (two spaces each).
    pub depth: usize,
    /// The line without its indentation.
    pub body: &'a str,
    /// `button`, `text`, `document`…; empty for a line that is not `- role…`.
    pub role: &'a str,
    /// The quoted name as written (still JSON-escaped), without quotes.
    pub name: &'a str,
    pub ref_id: Option<&'a str>,
    /// Attributes other than the ref, as written (`checked=true`, `clickable`, `value="x"`).
    pub attrs: Vec<&'a str>,
    /// Text after `: ` (inline text of a nameless element, or a text line's text).
    pub inline: &'a str,
}

/// The lines of a snapshot text. A line that does not start with `- ` after
/// its indentation continues the line before (multi-line text with `compact: false`).
pub fn read_lines(text: &str) -> Vec<Line<'_>> {
    let mut out: Vec<Line<'_>> = Vec::new();
    let mut offset = 0usize;
    let mut starts: Vec<(usize, usize)> = Vec::new();
    for raw in text.split('\n') {
        let trimmed = raw.trim_start_matches(' ');
        let indent = raw.len() - trimmed.len();
        if is_line_start(trimmed) || starts.is_empty() {
            starts.push((offset, indent));
        }
        offset += raw.len() + 1;
    }
    for (k, &(start, indent)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(text.len(), |&(s, _)| s.saturating_sub(1));
        let whole = &text[start..end.max(start)];
        out.push(parse(&whole[indent.min(whole.len())..], indent / 2));
    }
    out
}

/// Whether a physical line of the text begins a line (`- …` after its
/// indentation); any other continues the line before.
pub fn is_line_start(physical: &str) -> bool {
    let trimmed = physical.trim_start_matches(' ');
    trimmed.starts_with("- ") || trimmed == "-"
}

/// The ref of one line's body (as `Line::ref_id`), read without building the line.
pub fn ref_of(body: &str) -> Option<&str> {
    let h = head(body)?;
    let mut found = None;
    each_attr(h.rest, h.at, |attr| {
        if let Some(r) = attr.strip_prefix("ref=") {
            found = Some(r);
        }
    });
    found
}

/// A `- role "name"` line up to its attributes.
struct Head<'a> {
    /// The body after `- `.
    rest: &'a str,
    role: &'a str,
    /// The quoted name as written (still JSON-escaped), without quotes.
    name: &'a str,
    /// Where the attributes may begin in `rest`.
    at: usize,
}

/// `None` for a line that is not `- role…`, and for a text line.
fn head(body: &str) -> Option<Head<'_>> {
    let rest = body.strip_prefix("- ")?;
    if rest.starts_with("text: ") {
        return None;
    }
    let role_end = rest.find([' ', ':']).unwrap_or(rest.len());
    let mut h = Head { rest, role: &rest[..role_end], name: "", at: role_end };
    if rest[role_end..].starts_with(" \"") {
        let open = role_end + 1;
        let close = json_string_end(rest, open);
        let closed = close > open + 1 && rest.as_bytes().get(close - 1) == Some(&b'"');
        h.name = if closed { &rest[open + 1..close - 1] } else { &rest[open + 1..] };
        h.at = close;
    }
    Some(h)
}

/// Each attribute of the `[…]` that opens at `at` (if one does), in order;
/// returns where the text after it begins.
fn each_attr<'a>(rest: &'a str, at: usize, mut f: impl FnMut(&'a str)) -> usize {
    if !rest[at..].starts_with(" [") {
        return at;
    }
    let b = rest.as_bytes();
    let mut i = at + 2;
    let mut attr_start = i;
    while i < b.len() && b[i] != b']' {
        match b[i] {
            b'"' => i = json_string_end(rest, i),
            b' ' => {
                if attr_start < i {
                    f(&rest[attr_start..i]);
                }
                i += 1;
                attr_start = i;
            }
            _ => i += 1,
        }
    }
    let last = &rest[attr_start..i.min(b.len())];
    if !last.is_empty() {
        f(last);
    }
    (i + 1).min(b.len())
}

fn parse(body: &str, depth: usize) -> Line<'_> {
    let mut line = Line { depth, body, role: "", name: "", ref_id: None, attrs: Vec::new(), inline: "" };
    if let Some(t) = body.strip_prefix("- text: ") {
        line.role = "text";
        line.inline = t;
        return line;
    }
    let Some(h) = head(body) else { return line };
    line.role = h.role;
    line.name = h.name;
    let at = each_attr(h.rest, h.at, |attr| push_attr(&mut line, attr));
    if let Some(t) = h.rest[at..].strip_prefix(": ") {
        line.inline = t;
    } else if h.rest[at..].starts_with(':') {
        line.inline = "";
    }
    line
}

fn push_attr<'a>(line: &mut Line<'a>, attr: &'a str) {
    match attr.strip_prefix("ref=") {
        Some(r) => line.ref_id = Some(r),
        None => line.attrs.push(attr),
    }
}

/// The index just past the JSON string that opens at `open` (a `"`); the
/// end of `s` when it never closes.
fn json_string_end(s: &str, open: usize) -> usize {
    let b = s.as_bytes();
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_role_name_ref_attrs_and_inline_text() {
        let text = "- document \"Shop\"\n  - button \"Buy [ref=@e9]\" [ref=@e4 clickable checked=true value=\"a ] b\"]\n  - listitem: 2 × Blue mug\n  - text: hello [ref=@e1]\n  - list:";
        let lines = read_lines(text);
        assert_eq!(lines.len(), 5);
        assert_eq!((lines[0].depth, lines[0].role, lines[0].name), (0, "document", "Shop"));
        let b = &lines[1];
        assert_eq!((b.depth, b.role, b.name, b.ref_id), (1, "button", "Buy [ref=@e9]", Some("@e4")));
        assert_eq!(b.attrs, vec!["clickable", "checked=true", "value=\"a ] b\""]);
        assert_eq!((lines[2].role, lines[2].inline), ("listitem", "2 × Blue mug"));
        // Page text that imitates a ref is text, not a ref.
        assert_eq!((lines[3].role, lines[3].ref_id, lines[3].inline), ("text", None, "hello [ref=@e1]"));
        assert_eq!((lines[4].role, lines[4].inline), ("list", ""));
    }

    #[test]
    fn continuation_lines_stay_with_their_line_and_odd_input_does_not_panic() {
        let lines = read_lines("- document\n  - text: one\ntwo\n  - button \"x");
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1].inline, "one\ntwo");
        assert_eq!(lines[2].role, "button");
        for odd in ["", "-", "- ", "   ", "- button \"\\", "- a [", "- a [\"", "\n\n- x"] {
            let _ = read_lines(odd);
        }
    }
}
