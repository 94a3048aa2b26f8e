//! A page session's repeat capture over its mirror (`crate::incremental`):
//! ask the watcher what changed, read those subtrees again, patch the
//! mirror, and build the snapshot from it as a capture builds it from
//! Chrome's reply. Four round trips whatever the page's size; what is read
//! grows with the change. Anything it cannot bound becomes a full capture
//! (which keeps a new mirror), and the snapshot's notes say why.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde_json::{json, Value};

use super::calls::{Call, RepeatCall};
use super::driver::{capture_with, Captured};
use super::session::{CaptureSession, CdpCommand};
use super::transport::{call_before, CdpReply, CdpTransport};
use crate::error::{ErrorCode, Result, WebAiError};
use crate::incremental::{fresh, store, Mirror};
use crate::options::{Incremental, SnapshotOptions, World};
use crate::text::snapshot::CaptureMode;

const TAKE_JS: &str = include_str!("scripts/take_changes.js");
const FACTS_JS: &str = include_str!("scripts/subtree_facts.js");

/// The remote objects a repeat capture makes, released together.
const OBJECT_GROUP: &str = "__web_ai_snapshot_repeat__";

/// More separate changed subtrees than this and a full capture is simpler.
const MAX_ROOTS: usize = 200;

/// Why a repeat capture became a full one.
struct Fallback(String);

impl From<crate::incremental::Unpatchable> for Fallback {
    fn from(u: crate::incremental::Unpatchable) -> Fallback {
        Fallback(u.0)
    }
}

/// A capture for a page session with a mirror slot (`opts.incremental`):
/// incremental when the slot holds this document's mirror, else full (and
/// the mirror is kept for the next one).
pub async fn capture_incremental(transport: &dyn CdpTransport, opts: SnapshotOptions) -> Result<Captured> {
    let Some(inc) = opts.incremental.clone() else { return capture_with(transport, opts).await };
    let started = Instant::now();
    let mirror = store::take(inc.slot, &inc.token);
    let why = match (mirror, opts.world.clone()) {
        (Some(mirror), Some(world)) => match repeat(transport, &opts, &inc, world.clone(), mirror, started).await? {
            Ok((snapshot, mirror, processing_ms)) => {
                store::put(inc.slot, &inc.token, mirror);
                return Ok(Captured { snapshot, processing_ms, world: Some(world), mirror: None });
            }
            Err(Fallback(why)) => Some(why),
        },
        // The session's first capture of this document: nothing to patch yet, nothing to say.
        _ => None,
    };
    let mut captured = capture_with(transport, opts).await?;
    if let Some(why) = why {
        captured.snapshot.notes.push(format!("a full capture, not an incremental one: {why}"));
    }
    if let Some(mirror) = captured.mirror.take() {
        store::put(inc.slot, &inc.token, mirror);
    }
    Ok(captured)
}

/// The error of a call that must answer, or the fallback its refusal means.
fn answered(call: Call, reply: &CdpReply, opts: &SnapshotOptions) -> Result<std::result::Result<Value, Fallback>> {
    match reply {
        CdpReply::Ok(text) => Ok(crate::compat::json_text::from_str_lossy::<Value>(text)
            .map_err(|e| Fallback(format!("{} gave no JSON: {e}", call.method())))),
        CdpReply::Err(m) => Ok(Err(Fallback(format!("{} failed: {m}", call.method())))),
        CdpReply::TimedOut => Err(WebAiError::new(
            ErrorCode::Timeout,
            format!("snapshot capture exceeded timeoutMs ({} ms) waiting for {}", opts.timeout_ms, call.method()),
        )
        .with_evidence(json!({ "method": call.method(), "timeoutMs": opts.timeout_ms }))),
        CdpReply::Broken(e) => Err(e.clone()),
    }
}

/// Send `cmds` at once; their replies in the same order.
async fn batch(transport: &dyn CdpTransport, cmds: &[CdpCommand], deadline: Instant) -> Vec<CdpReply> {
    join_all(cmds.iter().map(|c| call_before(transport, c.as_call(), deadline))).await
}

fn command(call: RepeatCall, params: Value) -> CdpCommand {
    CdpCommand::new(Call::Repeat(call), params)
}

/// The repeat capture proper: `Ok(Err(…))` when only a full capture will do.
async fn repeat(
    transport: &dyn CdpTransport,
    opts: &SnapshotOptions,
    inc: &Incremental,
    world: World,
    mut mirror: Mirror,
    started: Instant,
) -> Result<std::result::Result<(crate::text::snapshot::WebAiSnapshot, Mirror, f64), Fallback>> {
    let deadline = started + Duration::from_millis(opts.timeout_ms as u64);
    let helper = CaptureSession::new(opts.clone());
    let mut processing = Duration::ZERO;

    // 1. What changed, the page facts, the frame tree; and DOM.enable for describeNode's white space.
    let take = command(
        RepeatCall::Take,
        json!({ "expression": format!("({TAKE_JS})({MAX_ROOTS})"), "contextId": world.context_id, "objectGroup": OBJECT_GROUP, "returnByValue": false }),
    );
    let mut first = vec![take, command(RepeatCall::DomEnable, json!({ "includeWhitespace": "all" })), CdpCommand::new(Call::FrameTree, json!({}))];
    first.extend(helper.scripts_in(Some(world.context_id), Call::PageFacts, Call::FindRoot));
    let replies = batch(transport, &first, deadline).await;
    let release = [command(RepeatCall::Release, json!({ "objectGroup": OBJECT_GROUP })), command(RepeatCall::DomDisable, json!({}))];
    let result = async {
        let taken = match answered(first[0].call, &replies[0], opts)? {
            Ok(v) => v,
            Err(f) => return Ok(Err(f)),
        };
        if let Some(ex) = taken.get("exceptionDetails") {
            let text = ex.pointer("/exception/description").or_else(|| ex.get("text")).and_then(Value::as_str).unwrap_or("an exception");
            return Ok(Err(Fallback(format!("the watcher could not be asked: {}", text.lines().next().unwrap_or_default()))));
        }
        if let Err(f) = answered(first[1].call, &replies[1], opts)? {
            return Ok(Err(f));
        }
        let frame_tree = match answered(first[2].call, &replies[2], opts)? {
            Ok(v) => v,
            Err(f) => return Ok(Err(f)),
        };
        let mut documents = rustc_hash::FxHashMap::default();
        crate::capture::frames::documents(&frame_tree, &mut documents);
        if documents != mirror.documents {
            return Ok(Err(Fallback("a frame shows another document".into())));
        }
        let mut facts = helper.read_page_facts(&replies[3]);
        facts.documents = documents;
        let Some(array) = taken.pointer("/result/objectId").and_then(Value::as_str) else {
            return Ok(Err(Fallback("the watcher gave no answer".into())));
        };

        // 2. The summary and the roots.
        let props = [command(RepeatCall::Roots, json!({ "objectId": array, "ownProperties": true }))];
        let replies = batch(transport, &props, deadline).await;
        let props = match answered(props[0].call, &replies[0], opts)? {
            Ok(v) => v,
            Err(f) => return Ok(Err(f)),
        };
        let mut items: Vec<(usize, &Value)> = props
            .get("result")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| Some((p.get("name")?.as_str()?.parse::<usize>().ok()?, p.get("value")?)))
            .collect();
        items.sort_by_key(|(i, _)| *i);
        // The summary travels as JSON text: a string comes back by value.
        let summary: Value = items
            .first()
            .filter(|(i, _)| *i == 0)
            .and_then(|(_, v)| v.get("value"))
            .and_then(Value::as_str)
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or(Value::Null);
        if summary.get("token").and_then(Value::as_str) != Some(inc.token.as_str()) {
            return Ok(Err(Fallback("the page shows another document".into())));
        }
        let reasons: Vec<&str> = summary.get("reasons").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        if !reasons.is_empty() {
            return Ok(Err(Fallback(reasons.join("; "))));
        }
        if summary.get("frames").and_then(Value::as_u64).is_some_and(|seen| (seen as usize) < mirror.document_count()) {
            return Ok(Err(Fallback("a frame in this process is one the watcher cannot see into".into())));
        }
        let reach: u64 = summary.get("sizes").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_u64).sum();
        let total = summary.get("total").and_then(Value::as_u64).unwrap_or(0);
        if reach > 500 && reach * 3 > total {
            return Ok(Err(Fallback(format!("the changes reach {reach} of the page's {total} elements"))));
        }
        let roots: Vec<&str> = items
            .iter()
            .filter(|(i, _)| *i > 0)
            .filter_map(|(_, v)| v.get("objectId").and_then(Value::as_str))
            .collect();

        // 3. Each root's subtree: its DOM, its styles and layout, its listeners.
        let styles = helper.snapshot_style_names();
        let mut reads = Vec::with_capacity(roots.len() * 3);
        for (k, id) in roots.iter().enumerate() {
            let k = k as u32;
            reads.push(command(RepeatCall::Describe(k), json!({ "objectId": id, "depth": -1, "pierce": true })));
            reads.push(command(
                RepeatCall::Facts(k),
                json!({ "objectId": id, "functionDeclaration": FACTS_JS, "arguments": [{ "value": styles }], "returnByValue": true }),
            ));
            reads.push(command(RepeatCall::Listeners(k), json!({ "objectId": id, "depth": -1, "pierce": true })));
        }
        let replies = batch(transport, &reads, deadline).await;
        let t = Instant::now();
        for k in 0..roots.len() {
            let mut parts = Vec::with_capacity(3);
            for j in 0..3 {
                match answered(reads[k * 3 + j].call, &replies[k * 3 + j], opts)? {
                    Ok(v) => parts.push(v),
                    Err(f) => return Ok(Err(f)),
                }
            }
            if let Some(ex) = parts[1].get("exceptionDetails") {
                let text = ex.pointer("/exception/description").and_then(Value::as_str).unwrap_or("an exception");
                return Ok(Err(Fallback(format!("a changed subtree could not be read: {}", text.lines().next().unwrap_or_default()))));
            }
            let facts = parts[1].pointer("/result/value").cloned().unwrap_or(Value::Null);
            let fresh = match fresh::read(&parts[0], &facts, Some(&parts[2])) {
                Ok(f) => f,
                Err(u) => return Ok(Err(u.into())),
            };
            if let Err(u) = mirror.replace(fresh) {
                return Ok(Err(u.into()));
            }
        }

        // 4. The snapshot, from the patched mirror.
        let snap = mirror.to_snapshot();
        let mut snapshot = CaptureSession::finish_from(opts.clone(), started, &snap, facts)?;
        snapshot.capture_mode = CaptureMode::Incremental;
        snapshot.subtrees_reread = roots.len() as u32;
        processing += t.elapsed();
        Ok(Ok((snapshot, processing.as_secs_f64() * 1000.0)))
    }
    .await;
    // The roots' remote objects and the DOM agent are released whatever happened.
    let _ = batch(transport, &release, Instant::now() + Duration::from_millis(500)).await;
    Ok(match result? {
        Ok((snapshot, ms)) => Ok((snapshot, mirror, ms)),
        Err(f) => Err(f),
    })
}
