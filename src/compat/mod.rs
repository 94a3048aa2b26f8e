//! What must match the JavaScript modules byte for byte: hashes, JS string
//! semantics (UTF-16 lengths, whitespace classes) and JSON that JS wrote.

pub mod dom_hash;
pub mod hash;
pub mod js_string;
pub mod json_text;
