//! A page session's snapshots share most of their refs with the one before:
//! on the 40k-node page a repeat snapshot's refs are 1.1 MB of its 1.6 MB of
//! JSON, all parsed again by JS on every look. So a session's slot remembers the refs it last sent
//! (`crate::incremental::store`), and a capture whose JS side still holds
//! that snapshot (it names it: `base`) writes each ref whose JSON is
//! unchanged as `0`; JS takes that ref from the snapshot it holds.
//!
//! A ref whose only change is its `signatureHash` is written as that hash, a
//! string: the hash hashes the ref's path of sibling indices, so a row added
//! or removed changes it for every ref after the row and nothing else of
//! theirs (on the 40k-node page, 3,680 of 3,763 refs after a card was added:
//! 1.07 MB of JSON written by Rust and parsed by JS on that look).
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

/// Where the last snapshot's refs are found from the new one's: by place,
/// shifted by the rows that came or went before it, else by a lookup.
struct Finder<'s> {
    last: &'s SentRefs,
    /// The last one found's place in `last` less its place in the new snapshot.
    shift: isize,
    by_id: Option<FxHashMap<&'s str, usize>>,
}

impl<'s> Finder<'s> {
    fn new(last: &'s SentRefs) -> Finder<'s> {
        Finder { last, shift: 0, by_id: None }
    }

    /// The ref with this id, the `at`-th of the new snapshot: where the refs
    /// before it put it (a row hidden or added shifts every ref after it, and
    /// only the first after it then needs the lookup: building it for the
    /// 40k-node page's 3,751 refs was a third of writing them).
    fn find(&mut self, at: usize, id: &str) -> Option<&'s ElementRef> {
        let last = self.last;
        let placed = at.checked_add_signed(self.shift).and_then(|k| last.refs.get(k)).filter(|r| r.ref_id == id);
        if placed.is_some() {
            return placed;
        }
        let map = self.by_id.get_or_insert_with(|| last.refs.iter().enumerate().map(|(k, r)| (r.ref_id.as_str(), k)).collect());
        let k = *map.get(id)?;
        self.shift = k as isize - at as isize;
        last.refs.get(k)
    }
}

/// How a snapshot's refs were written for the JS side that holds `base`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Written {
    /// Every ref whole.
    #[default]
    Whole,
    /// Every ref in order, an unchanged one as `0`, one changed in its `signatureHash` alone as that hash.
    Zeroed,
    /// The same refs as `base`, in its order: only the changed ones are
    /// written (on the 40k-node page one changed row leaves 3,750 of
    /// 3,751; JS then neither parses nor walks an object of 3,751 keys twice).
    Changed,
}

/// The snapshot's JSON without its text (`WebAiSnapshot::to_json_without_text`),
/// and how its refs are written ([`Written`]) when `last` is the snapshot JS holds (`base`).
pub fn render(snapshot: &WebAiSnapshot, last: Option<&SentRefs>, base: Option<&str>) -> (String, Written) {
    let whole = || (snapshot.to_json_without_text(None), Written::Whole);
    let Some(last) = last.filter(|l| base.is_some_and(|b| b == l.snapshot_id)) else { return whole() };
    let Ok(zero) = serde_json::value::to_raw_value(&0u8) else { return whole() };
    let mut finder = Finder::new(last);
    let mut reused = false;
    let mut jsons: Vec<Option<Box<RawValue>>> = Vec::with_capacity(snapshot.refs.len());
    for (k, r) in snapshot.refs.iter().enumerate() {
        let was = finder.find(k, &r.ref_id);
        // One comparison of all but the signature, then the signature: a row added or hidden
        // changes the signature of every ref after it, which two whole comparisons read twice.
        let json = match was {
            Some(was) if WebAiSnapshot::same_ref_json_but_signature(was, r) => {
                reused = true;
                if was.signature_hash == r.signature_hash {
                    jsons.push(None);
                    continue;
                }
                serde_json::value::to_raw_value(&r.signature_hash).ok()
            }
            _ => WebAiSnapshot::ref_json(r),
        };
        match json {
            Some(json) => jsons.push(Some(json)),
            None => return whole(),
        }
    }
    let same_refs = last.refs.len() == snapshot.refs.len() && last.refs.iter().zip(&snapshot.refs).all(|(a, b)| a.ref_id == b.ref_id);
    if same_refs {
        let rendered: Vec<(&str, &RawValue)> = snapshot.refs.iter().zip(&jsons).filter_map(|(r, json)| Some((r.ref_id.as_str(), json.as_deref()?))).collect();
        return (snapshot.to_json_without_text(Some(&rendered)), Written::Changed);
    }
    if !reused {
        return whole();
    }
    let rendered: Vec<(&str, &RawValue)> = snapshot.refs.iter().zip(&jsons).map(|(r, json)| (r.ref_id.as_str(), json.as_deref().unwrap_or(&zero))).collect();
    (snapshot.to_json_without_text(Some(&rendered)), Written::Zeroed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::SnapshotOptions;
    use crate::text::snapshot::PageFacts;
    use serde_json::{json, Value};

    fn snapshot(names: &[&str]) -> WebAiSnapshot {
        let children: Vec<usize> = (1..=names.len()).collect();
        let mut nodes = vec![json!({ "role": "WebArea", "name": "T", "children": children })];
        nodes.extend(names.iter().map(|n| json!({ "role": "button", "name": n, "children": [] })));
        let tree = crate::tree::legacy_reader::from_value(json!({ "legacyNodes": nodes })).unwrap();
        crate::text::snapshot::build_snapshot(&tree, None, PageFacts::default(), &SnapshotOptions::default(), None, 0.0, &[])
    }

    fn refs(json: &str) -> serde_json::Map<String, Value> {
        serde_json::from_str::<Value>(json).unwrap()["refs"].as_object().unwrap().clone()
    }

    #[test]
    fn only_refs_changed_since_the_snapshot_js_holds_are_written_whole() {
        let first = snapshot(&["Send", "Open"]);
        let (json, written) = render(&first, None, None);
        let sent = SentRefs { snapshot_id: first.snapshot_id.clone(), refs: first.refs.clone() };
        assert_eq!(written, Written::Whole);
        assert_eq!(refs(&json).values().filter(|v| v.is_object()).count(), 2, "the first snapshot sends every ref");
        let plain: Value = serde_json::from_str(&first.to_json()).unwrap();
        let mut sent_json: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(sent_json["text"], "", "the text goes as a string of its own");
        sent_json["text"] = Value::String(first.text.clone());
        assert_eq!(sent_json, plain, "with nothing to reuse it is the plain JSON");

        // The same refs in the same order: only the changed one is written.
        let second = snapshot(&["Send", "Close"]);
        let (json, written) = render(&second, Some(&sent), Some(&first.snapshot_id));
        assert_eq!(written, Written::Changed);
        let r = refs(&json);
        assert_eq!(r.keys().collect::<Vec<_>>(), ["@e2"], "JS takes the others from the snapshot it holds");
        assert_eq!(r["@e2"]["name"], "Close", "a changed ref is sent whole");

        // Another set of refs: every one in order, the unchanged as `0`.
        let third = snapshot(&["Send", "Open", "New"]);
        let (json, written) = render(&third, Some(&sent), Some(&first.snapshot_id));
        assert_eq!(written, Written::Zeroed);
        let r = refs(&json);
        assert_eq!(r.keys().collect::<Vec<_>>(), ["@e1", "@e2", "@e3"], "in document order");
        assert_eq!((&r["@e1"], &r["@e2"]), (&json!(0), &json!(0)), "the same ref, the same JSON");
        assert_eq!(r["@e3"]["name"], "New");

        // Moved among its siblings, a ref keeps all but its signature: that alone is written.
        let mut moved = second.clone();
        moved.snapshot_id = "moved".into();
        moved.refs[0].signature_hash = "sha256:0123456789abcdef".into();
        let (json, written) = render(&moved, Some(&sent), Some(&first.snapshot_id));
        assert_eq!(written, Written::Changed);
        let r = refs(&json);
        assert_eq!(r["@e1"], json!("sha256:0123456789abcdef"), "the new signature, as a string");
        assert!(r["@e2"].is_object(), "a ref changed otherwise is written whole");
        let (json, written) =
            render(&WebAiSnapshot { refs: [moved.refs.clone(), third.refs[2..].to_vec()].concat(), ..moved.clone() }, Some(&sent), Some(&first.snapshot_id));
        assert_eq!(written, Written::Zeroed);
        assert_eq!(refs(&json)["@e1"], json!("sha256:0123456789abcdef"));

        // JS holds another snapshot (or none): everything is sent.
        let (json, written) = render(&second, Some(&sent), Some("another"));
        assert_eq!(written, Written::Whole);
        assert!(refs(&json).values().all(Value::is_object));
        assert_eq!(render(&second, Some(&sent), None).1, Written::Whole);
    }
}
