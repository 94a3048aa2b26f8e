//! A page session's snapshots share most of their refs with the one before:
//! on the 40k-node page a repeat snapshot's refs are 1.1 MB of its 1.6 MB of
//! JSON, all parsed again by JS on every look. So a session's slot remembers the refs it last sent
//! (`crate::incremental::store`), and a capture whose JS side still holds
//! that snapshot (it names it: `base`) writes each ref whose JSON is
//! unchanged as `0`; JS takes that ref from the snapshot it holds.
//!
//! The comparison is of everything a ref's JSON is written from (the refs
//! themselves, kept from the last snapshot), not of a hash of it: the page
//! writes the names, and a collision would show an agent a stale one. Only
//! the refs that changed are written as JSON (writing all 3,751 of the
//! 40k-node page's refs to compare their text was about 2 ms of a look).

use rustc_hash::FxHashMap;
use serde_json::value::RawValue;

use crate::text::serialize::ElementRef;
use crate::text::snapshot::WebAiSnapshot;

/// The refs of the last snapshot a slot sent, and its id.
#[derive(Debug, Default, Clone)]
pub struct SentRefs {
    pub snapshot_id: String,
    pub refs: Vec<ElementRef>,
}

impl SentRefs {
    /// The ref with this id: at `at` when the order held (most refs keep their place), else by a lookup.
    fn find<'s>(&'s self, at: usize, id: &str, by_id: &mut Option<FxHashMap<&'s str, usize>>) -> Option<&'s ElementRef> {
        if let Some(r) = self.refs.get(at).filter(|r| r.ref_id == id) {
            return Some(r);
        }
        let map = by_id.get_or_insert_with(|| self.refs.iter().enumerate().map(|(k, r)| (r.ref_id.as_str(), k)).collect());
        map.get(id).and_then(|&k| self.refs.get(k))
    }
}

/// The snapshot's JSON without its text (`WebAiSnapshot::to_json_without_text`),
/// unchanged refs written as `0` when `last` is the snapshot JS holds
/// (`base`); whether any ref was written as `0`.
pub fn render(snapshot: &WebAiSnapshot, last: Option<&SentRefs>, base: Option<&str>) -> (String, bool) {
    let whole = || (snapshot.to_json_without_text(None), false);
    let Some(last) = last.filter(|l| base.is_some_and(|b| b == l.snapshot_id)) else { return whole() };
    let Ok(zero) = serde_json::value::to_raw_value(&0u8) else { return whole() };
    let mut by_id = None;
    let mut reused = false;
    let mut jsons: Vec<Option<Box<RawValue>>> = Vec::with_capacity(snapshot.refs.len());
    for (k, r) in snapshot.refs.iter().enumerate() {
        let same = last.find(k, &r.ref_id, &mut by_id).is_some_and(|was| WebAiSnapshot::same_ref_json(was, r));
        if same {
            reused = true;
            jsons.push(None);
        } else {
            match WebAiSnapshot::ref_json(r) {
                Some(json) => jsons.push(Some(json)),
                None => return whole(),
            }
        }
    }
    let rendered: Vec<(&str, &RawValue)> = snapshot.refs.iter().zip(&jsons).map(|(r, json)| (r.ref_id.as_str(), json.as_deref().unwrap_or(&zero))).collect();
    (snapshot.to_json_without_text(Some(&rendered)), reused)
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
        let (json, reused) = render(&first, None, None);
        let sent = SentRefs { snapshot_id: first.snapshot_id.clone(), refs: first.refs.clone() };
        assert!(!reused);
        assert_eq!(refs(&json).values().filter(|v| v.is_object()).count(), 2, "the first snapshot sends every ref");
        let plain: Value = serde_json::from_str(&first.to_json()).unwrap();
        let mut sent_json: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(sent_json["text"], "", "the text goes as a string of its own");
        sent_json["text"] = Value::String(first.text.clone());
        assert_eq!(sent_json, plain, "with nothing to reuse it is the plain JSON");

        let second = snapshot(&["Send", "Close"]);
        let (json, reused) = render(&second, Some(&sent), Some(&first.snapshot_id));
        assert!(reused);
        let r = refs(&json);
        assert_eq!(r["@e1"], json!(0), "the same ref, the same JSON: JS takes it from the snapshot it holds");
        assert_eq!(r["@e2"]["name"], "Close", "a changed ref is sent whole");
        assert_eq!(r.keys().collect::<Vec<_>>(), ["@e1", "@e2"], "in document order");

        // JS holds another snapshot (or none): everything is sent.
        let (json, reused) = render(&second, Some(&sent), Some("another"));
        assert!(!reused);
        assert!(refs(&json).values().all(Value::is_object));
        let (_, reused) = render(&second, Some(&sent), None);
        assert!(!reused);
    }
}
