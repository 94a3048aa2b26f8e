//! Parsing JSON text that JavaScript wrote. `JSON.stringify` writes a lone
//! surrogate as a `\udXXX` escape, which serde rejects; such text is read
//! again with those escapes replaced by U+FFFD, the same character Node
//! substitutes when it encodes the string.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repairs_only_lone_surrogates() {
        let v: serde_json::Value = from_str_lossy(r#"["a\ud800b", "\ud83d\ude00", "\udc00", "\\ud800"]"#).unwrap();
        assert_eq!(v, serde_json::json!(["a\u{FFFD}b", "😀", "\u{FFFD}", "\\ud800"]));
        assert!(from_str_lossy::<serde_json::Value>("{").is_err());
    }
}
