//! The hash formats shared with the JavaScript modules (`sha256:` + hex prefix).

use sha2::{Digest, Sha256};

use crate::compat::js_string::collapse_whitespace;

fn sha256_hex_prefix(data: &[u8], hex_chars: usize) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(data);
    let mut out = String::with_capacity(7 + hex_chars);
    out.push_str("sha256:");
    for byte in digest.iter().take(hex_chars.div_ceil(2)) {
        out.push(HEX[(byte >> 4) as usize] as char);
        out.push(HEX[(byte & 0xf) as usize] as char);
    }
    out.truncate(7 + hex_chars);
    out
}

/// `hashAccessibilitySnapshot`: whitespace runs become one space, trimmed, 16 hex.
pub fn hash_accessibility_snapshot(text: &str) -> String {
    sha256_hex_prefix(collapse_whitespace(text).as_bytes(), 16)
}

/// `hashDoctorField`: 12 hex of the string as given.
pub fn hash_doctor_field(value: &str) -> String {
    sha256_hex_prefix(value.as_bytes(), 12)
}

/// 16 hex of arbitrary bytes (signature and DOM hashes).
pub fn hash16(data: &[u8]) -> String {
    sha256_hex_prefix(data, 16)
}

/// `signatureHash`: 16 hex of `JSON.stringify({ role, name, depth, path })`.
pub fn element_signature_hash(role: &str, name: &str, depth: usize, path: &[u32]) -> String {
    use crate::compat::js_string::push_json_quoted;
    // Written into one buffer: a string a number cost an allocation a path step,
    // about twenty a ref on the 40k-node page, on every look.
    let mut json = String::with_capacity(role.len() + name.len() + 48 + path.len() * 4);
    let mut digits = itoa::Buffer::new();
    json.push_str("{\"role\":");
    push_json_quoted(&mut json, role);
    json.push_str(",\"name\":");
    push_json_quoted(&mut json, name);
    json.push_str(",\"depth\":");
    json.push_str(digits.format(depth));
    json.push_str(",\"path\":[");
    for (i, p) in path.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(digits.format(*p));
    }
    json.push_str("]}");
    hash16(json.as_bytes())
}

/// `estimateSnapshotTokens`: `ceil(length / 4)` with JavaScript's length.
pub fn estimate_tokens(text: &str) -> u64 {
    (crate::compat::js_string::utf16_len(text) as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values computed with Node's crypto on the same inputs.
    #[test]
    fn accessibility_hash_matches_node() {
        assert_eq!(hash_accessibility_snapshot(""), "sha256:e3b0c44298fc1c14");
        assert_eq!(hash_accessibility_snapshot("  - a\n\n  - b  "), hash_accessibility_snapshot("- a - b"));
        assert_eq!(hash_doctor_field("null"), "sha256:74234e98afe7");
    }

    #[test]
    fn token_estimate_uses_utf16_length() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("😀😀"), 1);
    }

    #[test]
    fn signature_hash_hashes_json_stringify_form() {
        let expected = hash16(br#"{"role":"button","name":"Send","depth":2,"path":[0,3]}"#);
        assert_eq!(element_signature_hash("button", "Send", 2, &[0, 3]), expected);
    }
}
