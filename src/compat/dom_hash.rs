//! `normalizeDomForHash` and the DOM hash, byte-identical to `dom-hash.mjs`.
//!
//! The JavaScript is four regex replacements; each is reproduced with the
//! regex crate using explicit JavaScript character classes (`\w` is ASCII
//! only, `\s` is JavaScript's whitespace set) so that the same input yields the
//! same bytes.

use std::sync::OnceLock;

use regex::Regex;

use crate::compat::js_string::{collapse_whitespace, utf16_slice_for_hash};

const JS_WS: &str = r"\t\n\x0B\x0C\r \u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}";

struct Patterns {
    comment: Regex,
    open_tag: Regex,
    text: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        // /<!--[\s\S]*?-->/g
        comment: Regex::new(r"(?s)<!--.*?-->").expect("static regex"),
        // /<(\w+)\s[^>]*>/g
        open_tag: Regex::new(&format!(r"<([0-9A-Za-z_]+)[{JS_WS}][^>]*>")).expect("static regex"),
        // />([^<]+)</g
        text: Regex::new(r">[^<]+<").expect("static regex"),
    })
}

/// `normalizeDomForHash(html)`.
pub fn normalize_dom_for_hash(html: &str) -> String {
    let p = patterns();
    let s = p.comment.replace_all(html, "");
    let s = p.open_tag.replace_all(&s, "<${1}>");
    let s = p.text.replace_all(&s, "><");
    collapse_whitespace(&s)
}

/// The hash `domHashAround` gives for an element's outerHTML.
pub fn dom_hash_of_html(html: &str, max_chars: usize) -> String {
    let normalized = normalize_dom_for_hash(html);
    crate::compat::hash::hash16(utf16_slice_for_hash(&normalized, max_chars).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_like_the_javascript_module() {
        assert_eq!(normalize_dom_for_hash(r#"<div class="foo">hello <span>world</span></div>"#), "<div><span></span></div>");
        assert_eq!(normalize_dom_for_hash("<!-- x --><p\tid=a>t</p>  <!--\n-->"), "<p></p>");
        // `\w` is ASCII: a non-ASCII tag name is left alone.
        assert_eq!(normalize_dom_for_hash("<é a>x</é>"), "<é a></é>");
        // U+0085 is not JavaScript whitespace, so it does not introduce attributes.
        assert_eq!(normalize_dom_for_hash("<b\u{85}x>"), "<b\u{85}x>");
        assert_eq!(normalize_dom_for_hash("<b\u{FEFF}x>"), "<b>");
    }

    #[test]
    fn hash_truncates_by_utf16_units() {
        assert_eq!(dom_hash_of_html("<p>a</p>", 3), crate::compat::hash::hash16(b"<p>"));
    }
}
