//! Counting tokens as a model sees them: o200k, the encoding the benchmark
//! counts with (`gpt-tokenizer`'s `o200k_base` in JS), here from tiktoken-rs.
//!
//! The table is parsed on first use (about 0.4 s in a release build) and
//! shared by every snapshot of the process after that; only `maxTokens`
//! needs it.

use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use rustc_hash::{FxHashMap, FxHasher};
use tiktoken_rs::CoreBPE;

/// Line costs already counted, by line. An agent's snapshots of a page
/// repeat most lines, and counting is the budget's main cost (about a
/// microsecond a token); a lookup is a few dozen nanoseconds.
static LINE_COSTS: Mutex<Option<FxHashMap<u64, u32>>> = Mutex::new(None);
/// Past this many lines the cache starts over (a few MB at most).
const LINE_COSTS_MAX: usize = 1 << 18;

/// The key of the line `prefix + text` at `depth` (the same for any split of it).
fn line_key(depth: usize, prefix: &str, text: &str) -> u64 {
    let mut h = FxHasher::default();
    depth.hash(&mut h);
    h.write(prefix.as_bytes());
    h.write(text.as_bytes());
    h.finish()
}

/// A counted line's cost, if it was counted before.
pub fn cached_line(depth: usize, prefix: &str, text: &str) -> Option<usize> {
    let guard = LINE_COSTS.lock().ok()?;
    guard.as_ref()?.get(&line_key(depth, prefix, text)).map(|&c| c as usize)
}

/// Remember a line's cost.
pub fn remember_line(depth: usize, prefix: &str, text: &str, cost: usize) {
    if let Ok(mut guard) = LINE_COSTS.lock() {
        let map = guard.get_or_insert_with(FxHashMap::default);
        if map.len() >= LINE_COSTS_MAX {
            map.clear();
        }
        map.insert(line_key(depth, prefix, text), cost.min(u32::MAX as usize) as u32);
    }
}

/// The o200k count of one line as it sits in a snapshot: its indentation
/// (two spaces a level), `prefix`, `text` and the newline after it.
pub fn line_cost(depth: usize, prefix: &str, text: &str) -> Option<usize> {
    if let Some(c) = cached_line(depth, prefix, text) {
        return Some(c);
    }
    let mut s = String::with_capacity(2 * depth + prefix.len() + text.len() + 1);
    for _ in 0..depth {
        s.push_str("  ");
    }
    s.push_str(prefix);
    s.push_str(text);
    s.push('\n');
    let c = count(&s)?;
    remember_line(depth, prefix, text, c);
    Some(c)
}

fn encoder() -> Option<&'static CoreBPE> {
    use std::sync::OnceLock;
    // tiktoken-rs's own singleton panics if its bundled table fails to load;
    // here that is a `None` the caller turns into a note.
    static BPE: OnceLock<Option<CoreBPE>> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().ok()).as_ref()
}

/// Parse the table now (a server that will count tokens pays it while it waits for something else).
pub fn warm() -> bool {
    encoder().is_some()
}

/// The o200k token count of `text`, or `None` when the table could not load.
pub fn count(text: &str) -> Option<usize> {
    if text.is_empty() {
        return Some(0);
    }
    Some(encoder()?.encode_ordinary(text).len())
}

/// The o200k count of a snapshot's text, line by line so that lines counted
/// before are not counted again: o200k never joins a newline to what
/// follows it, so a text's count is its lines' counts (each with its
/// newline) and its last line's.
pub fn text_count(text: &str) -> Option<usize> {
    let mut total = 0usize;
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        if lines.peek().is_none() {
            total += count(line)?;
            break;
        }
        let body = line.trim_start_matches(' ');
        let indent = line.len() - body.len();
        let (depth, body) = if indent % 2 == 0 { (indent / 2, body) } else { (0, line) };
        total += line_cost(depth, "", body)?;
    }
    Some(total)
}

/// The o200k count of each line of `text` (its newline included; the last
/// line has none): one
/// encoding of the whole text, each token given to the line it starts in.
/// o200k never joins a newline to what follows it, so these add up to
/// `count(text)`.
pub fn line_counts(text: &str) -> Option<Vec<usize>> {
    let bpe = encoder()?;
    let newlines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
    let mut counts = vec![0usize; newlines.len() + 1];
    let (mut offset, mut line) = (0usize, 0usize);
    for token in bpe.encode_ordinary(text) {
        while line < newlines.len() && offset > newlines[line] {
            line += 1;
        }
        counts[line] += 1;
        offset += bpe.decode_bytes(&[token]).map_or(1, |b| b.len());
    }
    Some(counts)
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

    #[test]
    fn a_text_counted_by_lines_is_counted_exactly() {
        let text = "=== BEGIN x ===\n- document \"Shop\":\n  - list:\n    - link \"東京\" [ref=@e1]:\n  - text: done.";
        assert_eq!(text_count(text), count(text));
        assert_eq!(text_count(text), count(text), "again, from the cache");
        assert_eq!(line_cost(2, "- more: ", "3 links"), count("    - more: 3 links\n"));
    }

    #[test]
    fn line_counts_add_up_to_the_whole() {
        let text = "- document \"Shop\":\n  - navigation:\n    - link \"東京\" [ref=@e1]\n  - text: done";
        let lines = line_counts(text).unwrap();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines.iter().sum::<usize>(), count(text).unwrap());
        assert_eq!(lines[2], count("    - link \"東京\" [ref=@e1]\n").unwrap());
    }
}
