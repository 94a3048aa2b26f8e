//! `summarizeSnapshotForDoctor`: a content-safe view of a snapshot. It carries
//! hashes and counts only — never snapshot text or a raw accessible name.

use serde_json::{json, Value};

use crate::compat::hash::hash_doctor_field;
use crate::compat::js_string::utf16_len;

fn truthy(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        _ => true,
    })
}

/// `snapshot` is the snapshot's JSON with `refs` given as an array in order.
pub fn summarize(snapshot: &Value, max_refs: usize) -> Value {
    let field = |k: &str| truthy(snapshot.get(k)).cloned().unwrap_or(Value::Null);
    let stat = |k: &str| truthy(snapshot.pointer(&format!("/stats/{k}"))).cloned().unwrap_or(json!(0));
    let top: Vec<Value> = snapshot
        .get("refs")
        .and_then(Value::as_array)
        .map(|refs| {
            refs.iter()
                .take(max_refs)
                .map(|r| {
                    let name = truthy(r.get("name")).map(|n| match n {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    });
                    json!({
                        "ref": r.get("ref").cloned().unwrap_or(Value::Null),
                        "role": r.get("role").cloned().unwrap_or(Value::Null),
                        "nameHash": name.as_deref().map(hash_doctor_field),
                        "nameChars": name.as_deref().map_or(0, utf16_len),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    json!({
        "enabled": true,
        "contentSafe": true,
        "snapshotId": field("snapshotId"),
        "axHash": field("axHash"),
        "domHash": field("domHash"),
        "interactiveCount": stat("interactiveCount"),
        "tokenEstimate": stat("tokenEstimate"),
        "topRefs": top,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_carries_names() {
        let s = json!({"snapshotId":"id","axHash":"a","text":"- button \"Secret\"","stats":{"interactiveCount":1},
            "refs":[{"ref":"@e1","role":"button","name":"Secret"},{"ref":"@e2","role":"link","name":""}]});
        let out = summarize(&s, 8);
        let text = out.to_string();
        assert!(!text.contains("Secret"));
        assert_eq!(out["topRefs"][0]["nameChars"], 6);
        assert_eq!(out["topRefs"][1]["nameHash"], Value::Null);
        assert_eq!(out["domHash"], Value::Null);
        assert_eq!(summarize(&s, 1)["topRefs"].as_array().unwrap().len(), 1);
    }
}
