//! A page session's snapshots share most of their refs with the one before:
//! on the 40k-node page a repeat snapshot's refs are 1.1 MB of its 1.6 MB of
//! JSON, all parsed again by JS on every look. So a session's slot remembers the refs it last sent
//! (`crate::incremental::store`), and a capture whose JS side still holds
//! that snapshot (it names it: `base`) writes each ref whose JSON is
//! unchanged as `0`; JS takes that ref from the snapshot it holds.
//!
//! The comparison is of the whole JSON text of a ref, not of a hash of it:
//! the page writes the names, and a collision would show an agent a stale one.

use rustc_hash::FxHashMap;
use serde_json::value::RawValue;

use crate::text::snapshot::WebAiSnapshot;

/// The refs of the last snapshot a slot sent: its id, and each ref's JSON.
#[derive(Debug, Default, Clone)]
pub struct SentRefs {
    pub snapshot_id: String,
    pub refs: FxHashMap<String, Box<RawValue>>,
}

/// The snapshot's JSON, unchanged refs written as `0` when `last` is the
/// snapshot JS holds (`base`); the refs sent now, to remember; whether any
/// ref was written as `0`.
pub fn render(snapshot: &WebAiSnapshot, last: Option<SentRefs>, base: Option<&str>) -> (String, SentRefs, bool) {
    let jsons = snapshot.ref_jsons();
    if jsons.iter().any(Option::is_none) {
        return (snapshot.to_json(), SentRefs::default(), false);
    }
    let jsons: Vec<Box<RawValue>> = jsons.into_iter().flatten().collect();
    let last = last.filter(|l| base.is_some_and(|b| b == l.snapshot_id));
    let zero = serde_json::value::to_raw_value(&0u8).ok();
    let mut reused = false;
    let rendered: Vec<(&str, &RawValue)> = snapshot
        .refs
        .iter()
        .zip(&jsons)
        .map(|(r, json)| {
            let same = last.as_ref().and_then(|l| l.refs.get(&r.ref_id)).is_some_and(|was| was.get() == json.get());
            match (&zero, same) {
                (Some(zero), true) => {
                    reused = true;
                    (r.ref_id.as_str(), &**zero)
                }
                _ => (r.ref_id.as_str(), &**json),
            }
        })
        .collect();
    let text = snapshot.to_json_with_refs(&rendered);
    let sent = SentRefs {
        snapshot_id: snapshot.snapshot_id.clone(),
        refs: snapshot.refs.iter().map(|r| r.ref_id.clone()).zip(jsons).collect(),
    };
    (text, sent, reused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::snapshot::PageFacts;
    use crate::options::SnapshotOptions;
    use serde_json::{json, Value};

    fn snapshot(names: &[&str]) -> WebAiSnapshot {
        let children: Vec<usize> = (1..=names.len()).collect();
        let mut nodes = vec![json!({ "role": "WebArea", "name": "T", "children": children })];
        nodes.extend(names.iter().map(|n| json!({ "role": "button", "name": n, "children": [] })));
        let tree = crate::tree::legacy_reader::from_value(json!({ "legacyNodes": nodes })).unwrap();
        crate::text::snapshot::build_snapshot(&tree, None, PageFacts::default(), &SnapshotOptions::default(), 0.0, &[])
    }

    fn refs(json: &str) -> serde_json::Map<String, Value> {
        serde_json::from_str::<Value>(json).unwrap()["refs"].as_object().unwrap().clone()
    }

    #[test]
    fn only_refs_unchanged_since_the_snapshot_js_holds_are_written_as_zero() {
        let first = snapshot(&["Send", "Open"]);
        let (json, sent, reused) = render(&first, None, None);
        assert!(!reused);
        assert_eq!(refs(&json).values().filter(|v| v.is_object()).count(), 2, "the first snapshot sends every ref");
        assert_eq!(json, first.to_json(), "with nothing to reuse it is the plain JSON");

        let second = snapshot(&["Send", "Close"]);
        let (json, _, reused) = render(&second, Some(sent.clone()), Some(&first.snapshot_id));
        assert!(reused);
        let r = refs(&json);
        assert_eq!(r["@e1"], json!(0), "the same ref, the same JSON: JS takes it from the snapshot it holds");
        assert_eq!(r["@e2"]["name"], "Close", "a changed ref is sent whole");
        assert_eq!(r.keys().collect::<Vec<_>>(), ["@e1", "@e2"], "in document order");

        // JS holds another snapshot (or none): everything is sent.
        let (json, _, reused) = render(&second, Some(sent.clone()), Some("another"));
        assert!(!reused);
        assert!(refs(&json).values().all(Value::is_object));
        let (_, _, reused) = render(&second, Some(sent), None);
        assert!(!reused);
    }
}
