//! JSON text between Rust and JavaScript.
//!
//! Reading what JavaScript wrote: `JSON.stringify` writes a lone surrogate
//! as a `\udXXX` escape, which serde rejects; such text is read again with
//! those escapes replaced by U+FFFD, the same character Node substitutes
//! when it encodes the string.
//!
//! Writing what JavaScript parses ([`for_v8`]): V8 keeps a string whose
//! characters all fit in Latin-1 one byte a character, and any other as two.
//! A capture's outcome is JSON that JS parses at once; a single `’` or `…`
//! in a page's names made all of it a two-byte string, which `JSON.parse`
//! reads at about half the speed.

use serde::de::DeserializeOwned;

pub fn from_str_lossy<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(e) if has_surrogate_escape(text) => serde_json::from_str(&replace_lone_surrogate_escapes(text)).map_err(|_| e),
        Err(e) => Err(e),
    }
}

/// Like [`from_str_lossy`] for types that borrow from the text: the caller
/// keeps the repaired text alive when one was needed.
pub fn repaired(text: &str) -> Option<String> {
    has_surrogate_escape(text).then(|| replace_lone_surrogate_escapes(text))
}

fn has_surrogate_escape(text: &str) -> bool {
    text.contains("\\ud") || text.contains("\\uD")
}

/// Replace `\uD800`–`\uDFFF` escapes that do not form a pair with `\uFFFD`.
pub fn replace_lone_surrogate_escapes(json: &str) -> String {
    fn hex_at(b: &[u8], i: usize) -> Option<u32> {
        let s = std::str::from_utf8(b.get(i..i + 4)?).ok()?;
        u32::from_str_radix(s, 16).ok()
    }
    let b = json.as_bytes();
    let mut out = String::with_capacity(json.len());
    let mut i = 0;
    let mut last = 0;
    while i + 1 < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b[i + 1] == b'u' {
            if let Some(cp) = hex_at(b, i + 2) {
                if (0xD800..0xDC00).contains(&cp) {
                    let paired =
                        b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u') && hex_at(b, i + 8).is_some_and(|lo| (0xDC00..0xE000).contains(&lo));
                    if paired {
                        i += 12;
                        continue;
                    }
                }
                if (0xD800..0xE000).contains(&cp) {
                    out.push_str(&json[last..i]);
                    out.push_str("\\uFFFD");
                    i += 6;
                    last = i;
                    continue;
                }
            }
        }
        i += 2;
    }
    out.push_str(&json[last..]);
    out
}

/// At most one character in this many outside ASCII, and [`for_v8`] escapes them.
/// Each escape makes V8 build that one string value the slow way: on a page
/// mostly of other scripts the escaped text parsed slower than the text as it was.
/// (`JSON.parse` of a capture's outcome, median of 100, scratch timings:
/// lemonde-1, 1.2% of characters outside ASCII: 0.61 ms as it was, 0.14 ms
/// escaped; guardian-1, 0.2%: 1.27 against 0.14; mozilla-1, 0.3%: 0.94
/// against 0.69; hukumusume, in Japanese, 9%: 0.18 against 0.64.)
const RARE: usize = 40;

/// `json` with every character outside ASCII written as a `\uXXXX` escape
/// (two for one beyond the BMP), when there are few of them; as it is
/// otherwise. Either way `JSON.parse` gives the same value: outside ASCII,
/// JSON text has characters only inside its strings, where an escape stands
/// for the character.
pub fn for_v8(json: String) -> String {
    if json.is_ascii() {
        return json;
    }
    // A character outside ASCII begins with a byte of 0xC0 or more.
    let wide = json.bytes().filter(|&b| b >= 0xC0).count();
    if wide.saturating_mul(RARE) > json.len() {
        return json;
    }
    let mut out = String::with_capacity(json.len() + wide * 12);
    let mut rest = json.as_str();
    while let Some(at) = rest.bytes().position(|b| b >= 0x80) {
        out.push_str(&rest[..at]);
        let Some(c) = rest[at..].chars().next() else { break };
        let mut units = [0u16; 2];
        for u in c.encode_utf16(&mut units) {
            let _ = std::fmt::Write::write_fmt(&mut out, format_args!("\\u{u:04x}"));
        }
        rest = &rest[at + c.len_utf8()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_rare_characters_outside_ascii_and_keeps_the_value() {
        let value = serde_json::json!({ "text": "- link \"Don’t miss… 😀\"\n", "n": 1, "list": ["é", "plain"] });
        let written = serde_json::to_string(&value).unwrap();
        // Few characters outside ASCII among many: escaped, the same value.
        let long = format!("[{written}, \"{}\"]", "x".repeat(400));
        let escaped = for_v8(long.clone());
        assert!(escaped.is_ascii(), "{escaped}");
        assert!(escaped.contains("\\u2019") && escaped.contains("\\ud83d\\ude00"), "{escaped}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&escaped).unwrap(), serde_json::from_str::<serde_json::Value>(&long).unwrap());
        // Mostly other scripts: left as it is.
        let japanese = serde_json::to_string(&serde_json::json!({ "text": "むかしむかし、あるところに" })).unwrap();
        assert_eq!(for_v8(japanese.clone()), japanese);
        // ASCII: untouched.
        assert_eq!(for_v8("{\"a\":\"b\"}".into()), "{\"a\":\"b\"}");
    }

    #[test]
    fn repairs_only_lone_surrogates() {
        let v: serde_json::Value = from_str_lossy(r#"["a\ud800b", "\ud83d\ude00", "\udc00", "\\ud800"]"#).unwrap();
        assert_eq!(v, serde_json::json!(["a\u{FFFD}b", "😀", "\u{FFFD}", "\\ud800"]));
        assert!(from_str_lossy::<serde_json::Value>("{").is_err());
    }
}
