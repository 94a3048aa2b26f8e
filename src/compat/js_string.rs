//! JavaScript string semantics the hash functions must reproduce exactly.
//!
//! The modules we replace hash strings after `replace(/\s+/g, ' ').trim()` and
//! slice them by UTF-16 code units. Rust's `char::is_whitespace` and byte/char
//! lengths differ from both, so registries written by old and new code would
//! disagree without these helpers.

/// JavaScript's `\s` (WhiteSpace + LineTerminator): U+FEFF is in, U+0085 is out.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'..='\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// `String(s).replace(/\s+/g, ' ').trim()`.
pub fn collapse_whitespace(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    let mut i = 0;
    // ASCII runs are copied a slice at a time; only multi-byte characters are decoded.
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ') {
                pending_space = true;
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && bytes[i] < 0x80 && !matches!(bytes[i], b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ') {
                i += 1;
            }
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push_str(&s[start..i]);
            continue;
        }
        let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
        i += c.len_utf8();
        if is_js_whitespace(c) {
            pending_space = true;
        } else {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        }
    }
    out
}

/// True when `collapse_whitespace` would return nothing (every character is
/// white space), without making the string: asked of every node's name.
pub fn is_blank(s: &str) -> bool {
    s.chars().all(is_js_whitespace)
}

/// True when `collapse_whitespace` would return its input unchanged; lets hot
/// paths skip an allocation for the common already-clean name.
pub fn is_collapsed(s: &str) -> bool {
    let mut prev_space = true;
    for c in s.chars() {
        if is_js_whitespace(c) {
            if c != ' ' || prev_space {
                return false;
            }
            prev_space = true;
        } else {
            prev_space = false;
        }
    }
    !s.ends_with(' ')
}

/// `s.length` in JavaScript.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// `s.slice(0, max)` in JavaScript, returned as the byte index to cut at and
/// whether the cut split a surrogate pair. Node's hash/`Buffer` encode the
/// resulting lone high surrogate as U+FFFD, so callers that hash must append it.
pub fn utf16_cut(s: &str, max: usize) -> (usize, bool) {
    let mut units = 0usize;
    for (i, c) in s.char_indices() {
        let w = c.len_utf16();
        if units + w > max {
            return (i, units < max);
        }
        units += w;
    }
    (s.len(), false)
}

/// `s.slice(0, max)` as Node would encode it to UTF-8 (a split pair becomes U+FFFD).
pub fn utf16_slice_for_hash(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let (cut, split) = utf16_cut(s, max);
    if split {
        let mut owned = s[..cut].to_string();
        owned.push('\u{FFFD}');
        std::borrow::Cow::Owned(owned)
    } else {
        std::borrow::Cow::Borrowed(&s[..cut])
    }
}

/// Truncate for display: at most `max` UTF-16 units, never splitting a pair,
/// with `…` appended when anything was cut.
pub fn truncate_display(s: &str, max: usize) -> String {
    let (cut, _) = utf16_cut(s, max);
    if cut == s.len() {
        return s.to_string();
    }
    let mut out = String::with_capacity(cut + 3);
    out.push_str(&s[..cut]);
    out.push('…');
    out
}

/// `collapse_whitespace` then `truncate_display`: how every name is normalised.
pub fn normalize_name(s: &str, max: usize) -> String {
    normalize_name_cow(s, max).into_owned()
}

/// [`normalize_name`] without allocating when the name is already clean.
pub fn normalize_name_cow(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if is_collapsed(s) {
        if s.len() <= max {
            // UTF-16 length never exceeds the UTF-8 byte length.
            return std::borrow::Cow::Borrowed(s);
        }
        std::borrow::Cow::Owned(truncate_display(s, max))
    } else {
        std::borrow::Cow::Owned(truncate_display(&collapse_whitespace(s), max))
    }
}

/// `JSON.stringify(s)` for a string (serde_json escapes exactly the same set).
pub fn json_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_quoted(&mut out, s);
    out
}

/// [`json_quote`] appended to `out`. Most names need no escape and are
/// copied as they are; the rest go through serde_json, whose escapes are
/// `JSON.stringify`'s for any Rust string.
pub fn push_json_quoted(out: &mut String, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_set_matches_javascript() {
        assert!(is_js_whitespace('\u{FEFF}'));
        assert!(!is_js_whitespace('\u{0085}'));
        assert!(is_js_whitespace('\u{3000}'));
        assert!(!is_js_whitespace('\u{200B}'));
        assert_eq!(collapse_whitespace("  a \u{FEFF}\t b\u{0085} "), "a b\u{0085}");
        assert_eq!(collapse_whitespace("\n\n"), "");
    }

    #[test]
    fn quoting_without_escapes_matches_json_stringify() {
        for s in ["", "Send", "a \"b\"", "back\\slash", "tab\there", "\u{1}", "\u{7f}\u{2028}é😀", "line\nbreak"] {
            let mut out = String::from("x");
            push_json_quoted(&mut out, s);
            assert_eq!(out, format!("x{}", serde_json::to_string(s).unwrap()), "{s:?}");
        }
    }

    #[test]
    fn is_blank_agrees_with_collapse() {
        for s in ["", " ", "\u{FEFF}\t\n\u{3000}", "a", " a ", "\u{0085}", "\u{200B}", "\u{00A0}\u{2028}"] {
            assert_eq!(is_blank(s), collapse_whitespace(s).is_empty(), "{s:?}");
        }
    }

    #[test]
    fn is_collapsed_agrees_with_collapse() {
        for s in ["", "a", "a b", " a", "a ", "a  b", "a\tb", "a\u{00A0}b", "ab c d"] {
            assert_eq!(is_collapsed(s), collapse_whitespace(s) == s, "{s:?}");
        }
    }

    #[test]
    fn utf16_slicing_matches_javascript() {
        assert_eq!(utf16_len("a😀b"), 4);
        assert_eq!(utf16_slice_for_hash("a😀b", 2), "a\u{FFFD}");
        assert_eq!(utf16_slice_for_hash("a😀b", 3), "a😀");
        assert_eq!(truncate_display("a😀b", 2), "a…");
        assert_eq!(truncate_display("abc", 3), "abc");
        assert_eq!(normalize_name("  x   y ", 900), "x y");
    }

    #[test]
    fn json_quote_matches_json_stringify() {
        assert_eq!(json_quote("a\"b\\c\n\u{1}\u{2028}"), "\"a\\\"b\\\\c\\n\\u0001\u{2028}\"");
    }
}
