//! Replays the CDP answers recorded from real Chromium (`npm run
//! record-fixtures`) through a Rust transport. The JS driver sends the tree
//! as projected rows; this transport sends the browser's raw JSON, so equal
//! output also proves the two readers agree.

use std::path::PathBuf;

use serde_json::Value;
use web_ai_snapshot::SnapshotOptions;
use web_ai_snapshot::WebAiError;
use web_ai_snapshot::WebAiSnapshot;
use web_ai_snapshot::{capture_with, CdpCall, CdpReply, CdpTransport, ReplyFuture};

struct Replay {
    replies: Vec<(String, Value, Value)>,
}

impl Replay {
    fn reply(&self, c: &CdpCall<'_>) -> CdpReply {
        match self.replies.iter().find(|(m, p, _)| m == c.method && p == c.params) {
            Some((_, _, result)) => CdpReply::Ok(result.to_string()),
            None => CdpReply::Err(format!("no recorded reply for {} {}", c.method, c.params)),
        }
    }
}

impl CdpTransport for Replay {
    fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a> {
        let reply = self.reply(&call);
        Box::pin(async move { reply })
    }
}

/// A transport answering each call with `answer(call)`.
struct Answer<F>(F);

impl<F: Fn(&CdpCall<'_>) -> CdpReply + Send + Sync> CdpTransport for Answer<F> {
    fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a> {
        let reply = (self.0)(&call);
        Box::pin(async move { reply })
    }
}

async fn capture(t: &dyn CdpTransport, opts: SnapshotOptions) -> Result<WebAiSnapshot, WebAiError> {
    capture_with(t, opts).await.map(|c| c.snapshot)
}

fn recordings() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/recorded");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .expect("fixtures/recorded exists")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable recording");
            (p.file_name().unwrap_or_default().to_string_lossy().into_owned(), serde_json::from_str(&text).expect("valid JSON"))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A recording's replies as (method, params, result).
fn replies_of(rec: &Value) -> Vec<(String, Value, Value)> {
    rec["replies"]
        .as_array()
        .expect("replies")
        .iter()
        .map(|r| (r["method"].as_str().unwrap_or_default().to_string(), r["params"].clone(), r["result"].clone()))
        .collect()
}

#[tokio::test]
async fn every_recording_replays_to_its_recorded_snapshot() {
    let all = recordings();
    assert!(all.len() >= 10, "expected the recorded fixtures, found {}", all.len());
    for (name, rec) in all {
        let replies = replies_of(&rec);
        let opts = SnapshotOptions::from_value(&rec["options"]).expect("recorded options are valid");
        let snap = capture(&Replay { replies }, opts).await.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(snap.text, rec["expected"]["text"].as_str().unwrap_or_default(), "{name}: text differs");
        let refs: Vec<Value> = snap
            .refs
            .iter()
            .map(|r| {
                let l = &r.located;
                serde_json::json!([
                    r.ref_id,
                    r.role,
                    r.name,
                    r.occurrence_index,
                    r.backend_node_id,
                    l.selector,
                    l.frame_path,
                    l.shadow_path,
                    l.shadow_closed,
                    r.clickable
                ])
            })
            .collect();
        assert_eq!(Value::Array(refs), rec["expected"]["refs"], "{name}: refs differ");
        assert_eq!(serde_json::json!(snap.notes), rec["expected"]["notes"], "{name}: notes differ");
    }
}

#[tokio::test]
async fn a_failed_tree_call_is_capture_failed_with_evidence() {
    let failing = Answer(|_: &CdpCall<'_>| CdpReply::Err("Target closed".into()));
    // The engine not chosen, the DOM snapshot's failure sends the capture to Chrome's tree, which fails too.
    let err = capture(&failing, SnapshotOptions::default()).await.unwrap_err();
    assert_eq!(err.code.code(), "snapshot.capture-failed");
    assert_eq!(err.evidence["method"], "Accessibility.getFullAXTree");
    assert_eq!(err.evidence["message"], "Target closed");
    // Chosen, the DOM engine's failure is its own.
    let dom = SnapshotOptions::from_value(&serde_json::json!({ "engine": "dom" })).unwrap();
    let err = capture(&failing, dom).await.unwrap_err();
    assert_eq!(err.code.code(), "snapshot.capture-failed");
    assert_eq!(err.evidence["method"], "DOMSnapshot.captureSnapshot");
}

#[tokio::test]
async fn a_browser_without_dom_snapshots_gets_chromes_tree_unless_the_engine_was_chosen() {
    // Chrome's tree and page facts recorded; the DOM engine's snapshot (its styles differ) is not.
    let rec = recordings().into_iter().find(|(n, _)| n == "forms.json").expect("forms recording").1;
    let replies: Vec<(String, Value, Value)> = rec["replies"]
        .as_array()
        .expect("replies")
        .iter()
        .filter(|r| r["method"] != "DOMSnapshot.captureSnapshot")
        .map(|r| (r["method"].as_str().unwrap_or_default().to_string(), r["params"].clone(), r["result"].clone()))
        .collect();
    let snap = capture(&Replay { replies: replies.clone() }, SnapshotOptions::default()).await.expect("Chrome's tree");
    assert!(snap.notes.iter().any(|n| n.contains("so this snapshot is Chrome's accessibility tree")), "{:?}", snap.notes);
    let names: Vec<&str> = snap.refs.iter().map(|r| r.name.as_str()).collect();
    let recorded: Vec<&str> = rec["expected"]["refs"].as_array().unwrap().iter().filter_map(|r| r[2].as_str()).collect();
    assert_eq!(names, recorded);
    let dom = SnapshotOptions::from_value(&serde_json::json!({ "engine": "dom" })).unwrap();
    assert!(capture(&Replay { replies }, dom).await.is_err());
}

#[tokio::test]
async fn a_root_selector_without_a_match_is_root_not_found() {
    let no_match = Answer(|c: &CdpCall<'_>| {
        let r = match (c.method, c.params.get("returnByValue").and_then(Value::as_bool)) {
            ("Accessibility.getFullAXTree", _) => r#"{"nodes":[]}"#.to_string(),
            ("Runtime.evaluate", Some(false)) => r#"{"result":{"type":"object","subtype":"null","value":null}}"#.to_string(),
            _ => r#"{"result":{"type":"object","value":{"url":"about:blank","title":"","html":null}}}"#.to_string(),
        };
        CdpReply::Ok(r)
    });
    let opts = SnapshotOptions { root_selector: Some("#nope".into()), ..SnapshotOptions::default() };
    let err = capture(&no_match, opts).await.unwrap_err();
    assert_eq!(err.code.code(), "snapshot.root-not-found");
    assert_eq!(err.evidence["rootSelector"], "#nope");
}

#[tokio::test]
async fn a_snapshot_out_of_time_is_a_note_and_no_dom_get_document_follows() {
    // The recorded shadow page, whose DOMSnapshot would call for DOM.getDocument,
    // but its snapshot never answers.
    struct Late {
        inner: Replay,
        methods: std::sync::Mutex<Vec<String>>,
    }
    impl CdpTransport for Late {
        fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a> {
            self.methods.lock().unwrap_or_else(|p| p.into_inner()).push(call.method.to_string());
            let reply = if call.method == "DOMSnapshot.captureSnapshot" { CdpReply::TimedOut } else { self.inner.reply(&call) };
            Box::pin(async move { reply })
        }
    }
    let rec = recordings().into_iter().find(|(n, _)| n == "shadow.json").expect("shadow recording").1;
    let replies = replies_of(&rec);
    let late = Late { inner: Replay { replies }, methods: Default::default() };
    // Chrome's tree: the DOM snapshot is only the DOM pass (the DOM engine's tree would be out of time).
    let ax = SnapshotOptions::from_value(&serde_json::json!({ "engine": "ax" })).unwrap();
    let snap = capture(&late, ax).await.expect("a snapshot, not a failure");
    let methods = late.methods.lock().unwrap_or_else(|p| p.into_inner()).clone();
    assert!(!methods.iter().any(|m| m == "DOM.getDocument"), "{methods:?}");
    assert!(snap.notes.iter().any(|n| n.contains("the DOM was not read") && n.contains("no answer within timeoutMs")), "{:?}", snap.notes);
    assert!(!snap.refs.is_empty());
}

#[tokio::test]
async fn chromes_subtrees_are_asked_by_object_and_a_node_of_a_gone_document_is_a_note() {
    // The recorded media page, with each call's parameters kept, and the resolving of its media
    // elements answered as Chrome answers it after the page navigated away from them.
    struct Gone {
        inner: Replay,
        gone: bool,
        calls: std::sync::Mutex<Vec<(String, Value)>>,
    }
    impl CdpTransport for Gone {
        fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a> {
            self.calls.lock().unwrap_or_else(|p| p.into_inner()).push((call.method.to_string(), call.params.clone()));
            let reply = if self.gone && call.method == "DOM.resolveNode" {
                CdpReply::Err("Node with given id does not belong to the document".into())
            } else {
                self.inner.reply(&call)
            };
            Box::pin(async move { reply })
        }
    }
    let rec = recordings().into_iter().find(|(n, _)| n == "media-dom.json").expect("media recording").1;
    let replies = replies_of(&rec);
    let opts = SnapshotOptions::from_value(&rec["options"]).expect("recorded options are valid");
    // Chromium 156's renderer crashes on `queryAXTree` by the backend id of a node of the
    // document before a navigation: the question is never asked that way.
    let live = Gone { inner: Replay { replies: replies.clone() }, gone: false, calls: Default::default() };
    let snap = capture(&live, opts.clone()).await.expect("the media page");
    assert_eq!(snap.text, rec["expected"]["text"].as_str().unwrap_or_default());
    let calls = live.calls.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let queries: Vec<&Value> = calls.iter().filter(|(m, _)| m == "Accessibility.queryAXTree").map(|(_, p)| p).collect();
    assert!(queries.len() >= 2, "{calls:?}");
    assert!(queries.iter().all(|p| p.get("objectId").is_some() && p.get("backendNodeId").is_none()), "{queries:?}");
    // Each object is let go after its question.
    let released = calls.iter().filter(|(m, _)| m == "Runtime.releaseObject").count();
    assert_eq!(released, queries.len());
    // Gone: nothing is asked of those nodes, the controls are a note, and the rest of the page is there.
    let gone = Gone { inner: Replay { replies }, gone: true, calls: Default::default() };
    let snap = capture(&gone, opts).await.expect("a snapshot, not a failure");
    let calls = gone.calls.lock().unwrap_or_else(|p| p.into_inner()).clone();
    assert!(!calls.iter().any(|(m, _)| m == "Accessibility.queryAXTree"), "{calls:?}");
    assert!(
        snap.notes.iter().any(|n| n.contains("element(s) Chrome draws itself (media controls; date, time and file fields) were not read (DOM.resolveNode: Node with given id does not belong to the document)")),
        "{:?}",
        snap.notes
    );
    assert!(!snap.refs.is_empty());
}
