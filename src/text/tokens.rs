//! Counting tokens as a model sees them: o200k, the encoding the benchmark
//! counts with (`gpt-tokenizer`'s `o200k_base` in JS), here from tiktoken-rs.
//!
//! The table is parsed on first use (about 0.4 s in a release build) and
//! shared by every snapshot of the process after that; only `maxTokens`
//! needs it.

use tiktoken_rs::CoreBPE;

fn encoder() -> Option<&'static CoreBPE> {
    use std::sync::OnceLock;
    // tiktoken-rs's own singleton panics if its bundled table fails to load;
    // here that is a `None` the caller turns into a note.
    static BPE: OnceLock<Option<CoreBPE>> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().ok()).as_ref()
}

/// The o200k token count of `text`, or `None` when the table could not load.
pub fn count(text: &str) -> Option<usize> {
    if text.is_empty() {
        return Some(0);
    }
    Some(encoder()?.encode_ordinary(text).len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_as_gpt_tokenizer_does() {
        // Expected values from gpt-tokenizer 4.0.0's o200k_base `encode(...).length`.
        assert_eq!(count(""), Some(0));
        assert_eq!(count("- button \"Send\" [ref=@e4]"), Some(11));
        assert_eq!(count("- document \"Checkout\":\n  - link \"Home\" [ref=@e1]"), Some(17));
        assert_eq!(count("東京都の天気 — 晴れ"), Some(8));
    }
}
