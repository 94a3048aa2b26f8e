//! A page session's repeat capture over its mirror (`crate::incremental`):
//! ask the watcher what changed, read those subtrees again, patch the
//! mirror, and build the snapshot from it as a capture builds it from
//! Chrome's reply. Five round trips when subtrees changed (four when the
//! session's look saw the change coming and few subtrees changed), one when
//! nothing did, whatever the page's size; what is read grows with the change.
//! Frames the page's watcher cannot enter (other origins, in this process or
//! another) are watched from our world in each (`page/capture/frame_watch.js`) and
//! read again only when they may have changed.
//! Anything it cannot bound becomes a full capture (which keeps a new
//! mirror), and the snapshot's notes say why.

use std::time::{Duration, Instant};

use futures::future::join_all;
use rustc_hash::FxHashMap;
use serde_json::{json, Value};

use super::calls::{Call, RepeatCall};
use super::context::{CaptureContext, Incremental, World};
use super::driver::{capture_in, drive_from, Captured};
use super::session::{CaptureSession, CdpCommand, FramesGiven, Step};
use super::transport::{call_before, CdpReply, CdpTransport};
use crate::dom::json_arena::{self, JArena};
use crate::dom::viewport::Boxes;
use crate::error::{ErrorCode, Result, WebAiError};
use crate::incremental::fresh::{Described, InArena};
use crate::incremental::{fresh, layout, Mirror};
use crate::options::SnapshotOptions;
use crate::text::snapshot::{CaptureMode, PageFacts, WebAiSnapshot};

const TAKE_JS: &str = crate::page::TAKE_CHANGES;
const FACTS_JS: &str = crate::page::SUBTREE_FACTS;

/// The subtree reader called by name on a changed subtree's root, in the page's world of ours
/// where the take compiled it (frames' worlds of other origins are sent [`FACTS_JS`] itself).
fn subtree_facts_call() -> String {
    format!("function (styles) {{ return globalThis.{}.call(this, styles); }}", crate::page::SUBTREE_FACTS_FN)
}
const FRAME_WATCH_JS: &str = crate::page::FRAME_WATCH;

/// The remote objects a repeat capture makes, released together (the session's key follows).
const OBJECT_GROUP: &str = "__web_ai_snapshot_repeat__";

/// A page (the mirror's nodes, every document) smaller than this is captured in full
/// after a change: one DOM snapshot costs less there than the round trips that read the
/// changed subtrees again. `npm run bench:incremental` shows both ("one change" and
/// "one change, always"): on pages of 31–57 nodes the full capture is the cheaper; from a
/// few hundred nodes on, reading what changed is. An unchanged page is still answered by
/// the watcher alone.
pub const REPEAT_MIN_NODES: usize = 200;
/// Changed subtrees a capture asks for with its first question when the
/// session's look saw the page change (`Incremental::changed`): one round trip
/// fewer for most changes. As many as the look said the session's record held
/// (`Incremental::held`), at least MIN_EXPECTED (a field's value set by a script
/// is found only by the take) and at most MAX_EXPECTED; more are asked for after
/// it, as always. A row moved marks the white space around both its places: with 4
/// asked for, its subtrees were read in a second round; with as many as the look
/// held, the reading after the first question took 13.6 and 13.7 ms against 16.6
/// and 15.7, the first question 0.3–0.5 ms longer (`WEB_AI_TRACE=1 node
/// bench/repeat-calls.mjs --kind move --runs 21` on the 40k-node page, two runs each).
const MIN_EXPECTED: usize = 4;
const MAX_EXPECTED: usize = 16;
/// More separate changed subtrees than this and a full capture is simpler.
const MAX_ROOTS: usize = 200;
/// Changed elements up to which a change is read where it is, however small the page; beyond,
/// a change reaching over a third of the page's elements is a full capture.
const MAX_REACH: u64 = 500;
/// Frames of other origins (each read again whole) beyond which a full capture is simpler.
const MAX_BLIND_FRAMES: usize = 50;

/// How the note on a repeat capture that had to read the whole page begins
/// (the session leaves it out when it answers an unchanged page with that snapshot).
pub const FULL_CAPTURE_NOTE: &str = "a full capture, not an incremental one: ";
/// How the note on a capture whose page cannot be mirrored begins.
pub const NOT_MIRRORED_NOTE: &str = "repeat snapshots of this page are full captures: ";

/// Why a repeat capture became a full one.
struct Fallback(String);

impl From<crate::incremental::Unpatchable> for Fallback {
    fn from(u: crate::incremental::Unpatchable) -> Fallback {
        Fallback(u.0)
    }
}

/// What a repeat capture found.
enum Repeated {
    /// Nothing changed since the last snapshot built from the mirror (with these options).
    Unchanged,
    /// The snapshot, the time spent building it, and `Incremental::after`'s answer (JSON).
    Built(Box<WebAiSnapshot>, f64, Option<String>),
    /// Something changed on a page under `REPEAT_MIN_NODES`: a full capture costs less
    /// (a choice, not a fallback: no note).
    Small,
}

/// A page session's capture.
pub enum SessionCapture {
    Snapshot(Box<Captured>),
    /// The page is as the session's last snapshot with these options showed it.
    Unchanged {
        capture_ms: f64,
        world: World,
    },
}

/// A capture for a page session with a mirror slot (`ctx.incremental`):
/// incremental when the slot holds this document's mirror, else full (and
/// the mirror is kept for the next one).
pub async fn capture_incremental(transport: &dyn CdpTransport, opts: SnapshotOptions, ctx: CaptureContext) -> Result<SessionCapture> {
    let Some(inc) = ctx.incremental.clone() else { return capture_in(transport, opts, ctx).await.map(|c| SessionCapture::Snapshot(Box::new(c))) };
    let started = Instant::now();
    let mirror = inc.state.take_mirror(&inc.token);
    let why = match (mirror, ctx.world.clone()) {
        (Some(mut mirror), Some(world)) => match repeat(transport, &opts, &ctx, &inc, &world, &mut mirror, started).await {
            // The full capture below keeps a new mirror.
            Ok(Ok(Repeated::Small)) => None,
            Ok(Ok(Repeated::Unchanged)) => {
                inc.state.put_mirror(&inc.token, mirror);
                return Ok(SessionCapture::Unchanged { capture_ms: started.elapsed().as_secs_f64() * 1000.0, world });
            }
            Ok(Ok(Repeated::Built(s, processing_ms, after))) => {
                inc.state.put_mirror(&inc.token, mirror);
                return Ok(SessionCapture::Snapshot(Box::new(Captured {
                    snapshot: *s,
                    processing_ms,
                    world: Some(world),
                    mirror: None,
                    after,
                    frame_replies: Default::default(),
                    built: None,
                })));
            }
            Ok(Err(Fallback(why))) => Some(why),
            // The watcher's record was taken and the mirror may be half patched:
            // it goes, and the next capture reads the whole page.
            Err(e) => return Err(e),
        },
        // The session's first capture of this document: nothing to patch yet, nothing to say.
        _ => None,
    };
    let mut captured = capture_in(transport, opts, ctx).await?;
    if let Some(why) = why {
        captured.snapshot.notes.push(format!("{FULL_CAPTURE_NOTE}{why}"));
    }
    if let Some(mut mirror) = captured.mirror.take() {
        mirror.oopif_replies = std::mem::take(&mut captured.frame_replies);
        inc.state.put_mirror(&inc.token, mirror);
    }
    Ok(SessionCapture::Snapshot(Box::new(captured)))
}

/// What the reading of changed subtrees shares: where to send, until when,
/// and the session's own group of remote objects (sessions on one page share
/// a CDP session: one's release must not take the other's objects).
struct Reader<'a> {
    transport: &'a dyn CdpTransport,
    opts: &'a SnapshotOptions,
    deadline: Instant,
    group: String,
}

impl Reader<'_> {
    /// Send `cmds` at once; their replies in the same order.
    async fn batch(&self, cmds: &[CdpCommand]) -> Vec<CdpReply> {
        join_all(cmds.iter().map(|c| call_before(self.transport, c.as_call(), self.deadline))).await
    }

    /// [`Reader::batch`], where each command `roots` names (its place in
    /// `cmds`, and the subtree's index) is a subtree's `DOM.describeNode`:
    /// as soon as it answers, that subtree's listeners are asked
    /// ([`early_listeners`]), while the rest of the batch is still read.
    async fn batch_with_listeners(&self, cmds: &[CdpCommand], roots: &FxHashMap<usize, u32>) -> (Vec<CdpReply>, Vec<Option<Asked>>) {
        let calls = cmds.iter().enumerate().map(|(i, c)| async move {
            let reply = call_before(self.transport, c.as_call(), self.deadline).await;
            let asked = match roots.get(&i) {
                Some(&k) => early_listeners(self, k, &reply).await,
                None => None,
            };
            (reply, asked)
        });
        join_all(calls).await.into_iter().unzip()
    }
}

/// A subtree's root resolved in the page's main world, and, if that gave an
/// object, its listeners: each command with its reply.
struct Asked {
    resolve: (CdpCommand, CdpReply),
    listeners: Option<(CdpCommand, CdpReply)>,
}

/// What `DOM.describeNode` says of a subtree's root, read without the subtree.
#[derive(serde::Deserialize)]
struct DescribedRoot {
    node: RootFacts,
}

#[derive(serde::Deserialize)]
struct RootFacts {
    #[serde(rename = "backendNodeId")]
    backend: Option<i64>,
    #[serde(rename = "nodeType")]
    node_type: Option<i64>,
    #[serde(rename = "childNodeCount")]
    child_count: Option<i64>,
}

/// The listeners of subtree `k`, asked on its `DOM.describeNode` reply
/// instead of after the whole batch that reply came in: the two questions
/// (the root in the page's world, then its listeners) queue behind the
/// batch's other reads in the renderer, not after them. A row hidden on the
/// 40k-node page: the look's last reply came a round trip sooner
/// (`bench/repeat-calls.mjs`; see `page_listeners` for why two questions).
/// None where [`page_listeners`] decides as before: a text by itself (which
/// the mirror may answer for), or a reply this cannot read (an error, or a
/// subtree nested past serde_json's depth limit).
async fn early_listeners(r: &Reader<'_>, k: u32, described: &CdpReply) -> Option<Asked> {
    let CdpReply::Ok(text) = described else { return None };
    let root = crate::compat::json_text::from_str_lossy::<DescribedRoot>(text).ok()?.node;
    let backend = root.backend?;
    if lone_text(root.node_type, root.child_count) {
        return None;
    }
    let resolve = command(RepeatCall::PageRoot(k), json!({ "backendNodeId": backend, "objectGroup": r.group }));
    let reply = call_before(r.transport, resolve.as_call(), r.deadline).await;
    let id = match &reply {
        CdpReply::Ok(t) => serde_json::from_str::<Value>(t).ok().and_then(|v| v.pointer("/object/objectId").and_then(Value::as_str).map(str::to_string)),
        _ => None,
    };
    let listeners = match id {
        Some(id) => {
            let ask = command(RepeatCall::Listeners(k), json!({ "objectId": id, "depth": -1, "pierce": true }));
            let reply = call_before(r.transport, ask.as_call(), r.deadline).await;
            Some((ask, reply))
        }
        None => None,
    };
    Some(Asked { resolve: (resolve, reply), listeners })
}

/// A text node read again by itself (its data changed): see [`page_listeners`].
fn lone_text(node_type: Option<i64>, child_count: Option<i64>) -> bool {
    node_type == Some(3) && child_count.unwrap_or(0) == 0
}

/// The error of a call that must answer, or the fallback its refusal means.
fn answered(call: Call, reply: &CdpReply, opts: &SnapshotOptions) -> Result<std::result::Result<Value, Fallback>> {
    match reply {
        CdpReply::Ok(text) => Ok(crate::compat::json_text::from_str_lossy::<Value>(text).map_err(|e| Fallback(format!("{} gave no JSON: {e}", call.method())))),
        CdpReply::Err(m) => Ok(Err(Fallback(format!("{} failed: {m}", call.method())))),
        CdpReply::TimedOut => {
            Err(WebAiError::new(ErrorCode::Timeout, format!("snapshot capture exceeded timeoutMs ({} ms) waiting for {}", opts.timeout_ms, call.method()))
                .with_evidence(json!({ "method": call.method(), "timeoutMs": opts.timeout_ms })))
        }
        CdpReply::Broken(e) => Err(e.clone()),
    }
}

fn command(call: RepeatCall, params: Value) -> CdpCommand {
    CdpCommand::new(Call::Repeat(call), params)
}

/// `frame_watch.js` in our world `context` of a frame, for the session whose key is `key` (a JS string literal).
fn frame_watch(call: RepeatCall, context: i64, mode: &str, key: &str) -> CdpCommand {
    command(call, json!({ "expression": format!("({FRAME_WATCH_JS})({mode:?}, {key})"), "contextId": context, "returnByValue": true }))
}

/// A reply read into the JSON arena (no limit on its depth), or (`?`) the error or fallback it means.
fn arena_of<'t>(call: Call, reply: &'t CdpReply, opts: &SnapshotOptions) -> Result<std::result::Result<JArena<'t>, Fallback>> {
    match reply {
        CdpReply::Ok(text) => Ok(json_arena::parse(text).map_err(|e| Fallback(format!("{} gave no JSON: {e}", call.method())))),
        // Any other reply is an error or a fallback (`answered` never gives a value for one).
        _ => answered(call, reply, opts).map(|r| r.map(|_| JArena::default())),
    }
}

/// [`arena_of`] as `json_of!` is to JSON: the arena, or the function returns the error or fallback.
macro_rules! arena_of {
    ($cmd:expr, $reply:expr, $opts:expr) => {
        match arena_of($cmd.call, $reply, $opts)? {
            Ok(a) => a,
            Err(f) => return Ok(Err(f)),
        }
    };
}

/// A reply's JSON, or (`?`) the error or fallback it means.
macro_rules! json_of {
    ($cmd:expr, $reply:expr, $opts:expr) => {
        match answered($cmd.call, $reply, $opts)? {
            Ok(v) => v,
            Err(f) => return Ok(Err(f)),
        }
    };
}

/// A step's value, or the function returns the fallback the step gave.
macro_rules! or_fallback {
    ($step:expr) => {
        match $step {
            Ok(v) => v,
            Err(f) => return Ok(Err(f)),
        }
    };
}

/// An evaluation's exception, as a fallback.
fn thrown(v: &Value, what: &str) -> Option<Fallback> {
    let ex = v.get("exceptionDetails")?;
    let text = ex.pointer("/exception/description").or_else(|| ex.get("text")).and_then(Value::as_str).unwrap_or("an exception");
    Some(Fallback(format!("{what}: {}", text.lines().next().unwrap_or_default())))
}

/// What one of our scripts' evaluations (`returnByValue`) returned; None when it
/// did not answer or threw.
fn evaluated(reply: &CdpReply) -> Option<Value> {
    let CdpReply::Ok(text) = reply else { return None };
    let mut v = crate::compat::json_text::from_str_lossy::<Value>(text).ok()?;
    if v.get("exceptionDetails").is_some() {
        return None;
    }
    v.pointer_mut("/result/value").map(Value::take)
}

/// The repeat capture proper: `Ok(Err(…))` when only a full capture will do.
async fn repeat(
    transport: &dyn CdpTransport,
    opts: &SnapshotOptions,
    ctx: &CaptureContext,
    inc: &Incremental,
    world: &World,
    mirror: &mut Mirror,
    started: Instant,
) -> Result<std::result::Result<Repeated, Fallback>> {
    let deadline = started + Duration::from_millis(opts.timeout_ms as u64);
    let helper = CaptureSession::new(opts.clone(), ctx.clone());
    let shape = crate::incremental::mirror::shape_of(opts);
    // The session's key as a JS string literal (JSON's escaping is JS's).
    let key = Value::String(inc.session.clone()).to_string();
    let reader = Reader { transport, opts, deadline, group: format!("{OBJECT_GROUP}{}", inc.session) };
    // Layout boxes are read again by one script in our world (`incremental::layout`): of the
    // documents it can enter, not those of frames of other origins in this process (frames in
    // other processes are read again by their own captures, boxes and all).
    let wants_boxes = opts.wants_boxes();
    let overflow_at = helper.snapshot_style_names().iter().position(|s| s == "overflow-y");

    let root = |k: usize| {
        command(
            RepeatCall::Root(k as u32),
            json!({ "expression": format!("globalThis.__webAiSnapshotWatch.pending({key})[{k}]"), "contextId": world.context_id, "objectGroup": reader.group, "returnByValue": false }),
        )
    };

    // 1. What changed (and the page's URL and title), and which documents the frames show.
    // The last repeat's remote objects and DOM agent are let go here, in parallel, not after it.
    // When the session's look saw a change, the changed subtrees (those the take holds, in order:
    // a session's commands run in turn) are asked for here too.
    // A small page that changed is captured in full (`Repeated::Small`): nothing to ask for early.
    let expected = if inc.changed && (inc.always || mirror.len() >= REPEAT_MIN_NODES) { inc.held.clamp(MIN_EXPECTED, MAX_EXPECTED) } else { 0 };
    // Where the writing of the page that this session's DOM hash came from stopped
    // (`page_facts.js`): the default root only (another selector's first match may move).
    let cut_key = match (&opts.root_selector, mirror.facts.as_ref().and_then(|f| f.hash_cut)) {
        (None, Some(_)) if opts.include_dom_hash => Value::String(format!("{}|body", opts.dom_hash_max_chars)).to_string(),
        _ => "null".to_string(),
    };
    let cut_seq = mirror.facts.as_ref().and_then(|f| f.hash_cut).map_or("null".to_string(), |s| s.to_string());
    // The first capture in a world compiles the take and the subtree reader there, and keeps
    // them; the ones after it call them by name (`crate::page::TAKE_FN`).
    let (take_fn, facts_fn, boxes_fn) = (crate::page::TAKE_FN, crate::page::SUBTREE_FACTS_FN, crate::page::LAYOUT_BOXES_FN);
    let take = if mirror.scripts_in == Some(world.context_id) {
        format!("globalThis.{take_fn}")
    } else {
        let boxes = crate::page::LAYOUT_BOXES;
        format!("(globalThis.{facts_fn} = ({FACTS_JS}), globalThis.{boxes_fn} = ({boxes}), globalThis.{take_fn} = ({TAKE_JS}))")
    };
    let mut first = vec![
        command(
            RepeatCall::Take,
            json!({ "expression": format!("{take}({MAX_ROOTS}, {MAX_BLIND_FRAMES}, {key}, {MAX_REACH}, {cut_key}, {cut_seq})"), "contextId": world.context_id, "returnByValue": true }),
        ),
        CdpCommand::new(Call::FrameTree, json!({})),
    ];
    // Only after a capture that read subtrees: `DOM.disable` costs the renderer about half
    // a millisecond on the 40k-node page even when the agent is off (one-off trace).
    if mirror.left_open {
        first.push(command(RepeatCall::Release, json!({ "objectGroup": reader.group })));
        first.push(command(RepeatCall::DomDisable, json!({})));
    }
    // The frames of other origins in this process the mirror keeps our world in: is each as the
    // session last read it (`frame_watch.js`), marked again now, before anything of this look is read?
    let mut watched: Vec<(String, i64)> =
        mirror.frame_worlds.iter().filter(|(f, _)| !mirror.unwatched_frames.contains(*f)).map(|(f, &c)| (f.clone(), c)).collect();
    watched.sort();
    let checks_from = first.len();
    first.extend(watched.iter().enumerate().map(|(k, (_, context))| frame_watch(RepeatCall::FrameSwap(k as u32), *context, "swap", &key)));
    // Frames in other processes: each is read by its own capture whenever the snapshot is built,
    // so each is asked and marked again at once; all as they were, with nothing else changed,
    // and the look is answered as unchanged.
    let mut elsewhere: Vec<(String, i64)> =
        if mirror.frames_elsewhere { mirror.oopif_worlds.iter().map(|(f, &c)| (f.clone(), c)).collect() } else { Vec::new() };
    elsewhere.sort();
    let swaps_from = first.len();
    first.extend(
        elsewhere
            .iter()
            .enumerate()
            .map(|(k, (frame, context))| CdpCommand { session: Some(frame.clone()), ..frame_watch(RepeatCall::OopifSwap(k as u32), *context, "swap", &key) }),
    );
    // With frames in other processes, the targets as they are now: the build then finds those
    // frames without a round trip of its own (`FramesGiven::named`), whether or not each is as it
    // was, and our world is made in a new one without asking again (`watch_elsewhere`). (On cnn
    // of ../shared/pages, whose nine such frames cannot all be watched, the build's round trip for
    // the frame tree and targets was 1.4 ms of each look after a text changed.)
    let targets_at = mirror.frames_elsewhere.then(|| {
        first.push(command(RepeatCall::OopifTargets, json!({})));
        first.len() - 1
    });
    let asked_from = first.len();
    first.extend((0..expected).map(root));
    mirror.left_open = expected > 0;
    let replies = crate::trace::timed_async("repeat.take", reader.batch(&first)).await;
    let taken = json_of!(first[0], &replies[0], opts);
    if let Some(f) = thrown(&taken, "the watcher could not be asked") {
        // (Were the kept scripts gone, the next capture compiles them again.)
        mirror.scripts_in = None;
        return Ok(Err(f));
    }
    mirror.scripts_in = Some(world.context_id);
    let summary = taken.pointer("/result/value").cloned().unwrap_or(Value::Null);
    let frame_tree = json_of!(first[1], &replies[1], opts);
    let targets: Option<String> = targets_at.and_then(|k| match replies.get(k) {
        Some(CdpReply::Ok(text)) => Some(text.clone()),
        _ => None,
    });
    if summary.get("token").and_then(Value::as_str) != Some(inc.token.as_str()) {
        return Ok(Err(Fallback("the page shows another document".into())));
    }
    let reasons: Vec<&str> = summary.get("reasons").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    if !reasons.is_empty() {
        return Ok(Err(Fallback(reasons.join("; "))));
    }
    let mut documents = rustc_hash::FxHashMap::default();
    crate::capture::frames::documents(&frame_tree, &mut documents);
    if !mirror.same_documents(&documents) {
        return Ok(Err(Fallback("a frame shows another document".into())));
    }
    let reach = summary.get("sizes").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_u64).fold(0u64, u64::saturating_add);
    // (The watcher counts the page only for a reach over MAX_REACH: `page/capture/take_changes.js`.)
    let total = summary.get("total").and_then(Value::as_u64).unwrap_or(0);
    if reach > MAX_REACH && reach.saturating_mul(3) > total {
        return Ok(Err(Fallback(format!("the changes reach {reach} of the page's {total} elements"))));
    }
    let root_count = summary.get("roots").and_then(Value::as_u64).unwrap_or(0) as usize;
    let list_count = summary.get("lists").and_then(Value::as_u64).unwrap_or(0) as usize;
    let lists = Lists {
        plans: summary
            .get("plans")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|p| p.as_array().into_iter().flatten().filter_map(Value::as_i64).collect())
            .collect(),
        gone: summary.get("gone").and_then(Value::as_array).into_iter().flatten().map(|g| g.as_u64().unwrap_or(0) as usize).collect(),
    };
    if lists.plans.len() != list_count || lists.gone.len() != list_count {
        return Ok(Err(Fallback("the watcher's lists are not as it counted them".into())));
    }
    let gone_count = lists.gone.iter().sum::<usize>();
    let mut blind = summary.get("blind").and_then(Value::as_u64).unwrap_or(0) as usize;
    // Every frame the watcher cannot enter is one the mirror watches or one in another process
    // (read by its own capture when the snapshot is built), and each watched one is as it was:
    // none is read again here (the watcher holds them after the roots, which are all that is fetched).
    let as_it_was = |reply: &CdpReply| evaluated(reply).and_then(|v| v.as_bool()) == Some(true);
    if blind > 0 && blind == watched.len() + mirror.blind_elsewhere && replies[checks_from..checks_from + watched.len()].iter().all(as_it_was) {
        blind = 0;
    }
    let swaps = &replies[swaps_from..swaps_from + elsewhere.len()];
    // A world that did not answer (its frame navigated or went) is made again before the next build.
    for ((frame, _), reply) in elsewhere.iter().zip(swaps) {
        if evaluated(reply).is_none() {
            mirror.oopif_worlds.remove(frame);
        }
    }
    // (A frame that gave no world is not watched: the page is rebuilt on every look, as before.)
    let elsewhere_as_they_were = !mirror.frames_elsewhere
        || (!elsewhere.is_empty() && mirror.oopif_unreachable.is_empty() && elsewhere.len() == mirror.blind_elsewhere && swaps.iter().all(as_it_was));
    // Those as they were: the build replays what they answered last time instead of asking again
    // (and, when all are, the frame tree read now and the targets that named them then).
    let unchanged_elsewhere: Vec<String> = elsewhere.iter().zip(swaps).filter(|(_, r)| as_it_was(r)).map(|((f, _), _)| f.clone()).collect();
    let all_as_they_were = mirror.frames_elsewhere && elsewhere_as_they_were;
    // The frames' names for the build: this look's frame tree with its targets; else, when every
    // frame is as it was, with the targets the last capture recorded.
    let named = match &targets {
        Some(t) => Some((frame_tree.clone(), t.clone())),
        None => all_as_they_were.then(|| frame_tree.clone()).zip(mirror.oopif_replies.targets.clone()),
    };
    if root_count + list_count + blind > 0 && mirror.len() < REPEAT_MIN_NODES && !inc.always {
        return Ok(Ok(Repeated::Small));
    }
    let Some(last) = mirror.facts.clone() else { return Ok(Err(Fallback("the mirror has no page facts".into()))) };
    let viewport = match summary.get("viewport").and_then(Value::as_array).map(Vec::as_slice) {
        Some([w, h]) => w.as_f64().zip(h.as_f64()).filter(|(w, h)| *w > 0.0 && *h > 0.0),
        _ => None,
    };
    let mut facts = PageFacts {
        url: summary.get("url").and_then(Value::as_str).map(str::to_string),
        title: summary.get("title").and_then(Value::as_str).map(str::to_string),
        viewport,
        dom_hash: last.dom_hash.clone(),
        hash_cut: last.hash_cut,
        notes: Vec::new(),
        documents: Default::default(),
        // Focus shows only in elements (layout boxes: never mirrored); a modal dialog is a fallback.
        focused: None,
        modal: None,
        unread_frames: last.unread_frames,
    };
    if root_count + list_count == 0 && blind == 0 {
        let same = facts.url == last.url && facts.title == last.title && facts.viewport == last.viewport;
        // With boxes, a page whose DOM stayed may still have moved (a scroll, an image that
        // loaded): unchanged only when every box is where the last build had it.
        let boxes = or_fallback!(read_boxes(&reader, wants_boxes.then_some(overflow_at), world, mirror).await?);
        let boxes_stayed = boxes.as_ref().is_none_or(|(_, seen)| mirror.boxes_seen == Some(*seen));
        if same && boxes_stayed && inc.reuse && shape == mirror.shape && elsewhere_as_they_were {
            return Ok(Ok(Repeated::Unchanged));
        }
        // Nothing in the DOM changed: the DOM hash stands; the rest is rebuilt with the new facts.
        if let Err(f) = watch_elsewhere(&reader, mirror, &documents, &key, targets.as_deref()).await? {
            return Ok(Err(f));
        }
        let t = Instant::now();
        let snapshot = or_fallback!(rebuild(transport, opts, ctx, started, mirror, facts, documents, &shape, 0, &unchanged_elsewhere, named, boxes).await?);
        return Ok(Ok(Repeated::Built(Box::new(snapshot), t.elapsed().as_secs_f64() * 1000.0, None)));
    }

    // 2. The roots as remote objects (one evaluation each: no round trip to list them), and the DOM hash of the changed page.
    // The hash is of the tags alone: when only text nodes' data and attributes its normalising
    // drops changed (the watcher says which: `sameTags`), it is the last one (the page's
    // outerHTML, megabytes on large pages, is not read and normalised again).
    let same_tags = summary.get("sameTags").and_then(Value::as_bool) == Some(true);
    // No marks: the watcher said whether a modal dialog is open, and focus is not mirrored. (Asked
    // between DOM.enable and the roots' describeNode, the page's `:modal` query left Chromium 156's
    // renderer hung on the describeNode that followed, on clickable.html after a script set a hidden field's value.)
    // DOM.enable (with white space: `describeNode` then lists every text node) and the page facts
    // go before the subtrees' reading; `before_replies` holds their answers.
    let mut before = vec![command(RepeatCall::DomEnable, json!({ "includeWhitespace": "all" }))];
    if !same_tags {
        before.extend(helper.scripts_in(Some(world.context_id), Call::PageFacts, Call::FindRoot, false));
    }
    let wanted = root_count + list_count + gone_count + blind;
    mirror.left_open = true;
    // The caller's look, with the subtrees' reading: the page as the snapshot shows it.
    let look = inc.after.as_ref().map(|e| command(RepeatCall::After, json!({ "expression": e, "contextId": world.context_id, "returnByValue": true })));
    let reading = Instant::now();
    // The frames marked by the first question; any other is marked when its world is made.
    let marked: Vec<String> = watched.iter().map(|(f, _)| f.clone()).collect();
    let frames = Frames { marked: &marked, key: &key };
    let styles = helper.snapshot_style_names();
    let mut before_replies = Vec::new();
    let read = if wanted <= expected {
        // Asked for with the take: what goes before goes with the subtrees' reading. (Sent with
        // the take, DOM.enable slowed the take's answer on small pages: 6–8 ms instead of 3–4
        // on hidden-nodes, one-off runs.)
        let asked = asked_from..asked_from + wanted;
        read_roots(&reader, &first[asked.clone()], &replies[asked], (root_count, &lists), &styles, mirror, &before, &mut before_replies, &frames, look.as_ref())
            .await?
    } else {
        let mut second = before.clone();
        second.extend((0..wanted).map(root));
        let replies = reader.batch(&second).await;
        before_replies = replies[..before.len()].to_vec();
        read_roots(&reader, &second, &replies, (root_count, &lists), &styles, mirror, &[], &mut Vec::new(), &frames, look.as_ref()).await?
    };
    let read = match read {
        Ok(r) => r,
        Err(f) => return Ok(Err(f)),
    };
    let (roots, t) = (read.roots, read.ended);
    crate::trace::phase("repeat.read", reading);
    if let Some(k) = before.iter().position(|c| c.call == Call::PageFacts) {
        let page = helper.read_page_facts(&before_replies[k]);
        facts.dom_hash = page.dom_hash;
        facts.hash_cut = page.hash_cut;
        facts.notes = page.notes;
    }
    if let Err(f) = watch_elsewhere(&reader, mirror, &documents, &key, targets.as_deref()).await? {
        return Ok(Err(f));
    }
    // The boxes of the patched page: a round trip after the reading, since the script
    // measures what the patched mirror says is laid out.
    let boxes = or_fallback!(read_boxes(&reader, wants_boxes.then_some(overflow_at), world, mirror).await?);
    let snapshot = or_fallback!(
        crate::trace::timed_async(
            "repeat.rebuild",
            rebuild(transport, opts, ctx, started, mirror, facts, documents, &shape, roots, &unchanged_elsewhere, named, boxes),
        )
        .await?
    );
    Ok(Ok(Repeated::Built(Box::new(snapshot), t.elapsed().as_secs_f64() * 1000.0, read.after)))
}

/// The layout boxes of the mirror's page as the page has them now
/// (`incremental::layout`), with a hash of the script's answer (the same
/// answer twice is the same boxes), for a look that needs them: `wanted`
/// holds where `overflow-y` is among the mirror's styles (None: it has none);
/// None asks nothing.
async fn read_boxes(
    reader: &Reader<'_>,
    wanted: Option<Option<usize>>,
    world: &World,
    // `&mut`: a shared borrow held across the await would need the mirror to be `Sync`.
    mirror: &mut Mirror,
) -> Result<std::result::Result<Option<(Boxes, u64)>, Fallback>> {
    let Some(overflow_at) = wanted else { return Ok(Ok(None)) };
    let order = layout::order(mirror);
    let cmd = command(RepeatCall::Boxes, json!({ "expression": layout::expression(&order), "contextId": world.context_id, "returnByValue": true }));
    let replies = crate::trace::timed_async("repeat.boxes", reader.batch(std::slice::from_ref(&cmd))).await;
    let Some(reply) = replies.first() else { return Ok(Err(Fallback("the layout boxes were not asked for".into()))) };
    let v = json_of!(cmd, reply, reader.opts);
    if let Some(f) = thrown(&v, "the layout boxes could not be read") {
        return Ok(Err(f));
    }
    let Some(text) = v.pointer("/result/value").and_then(Value::as_str) else { return Ok(Err(Fallback("the layout boxes' script gave no answer".into()))) };
    let Some(overflow_at) = overflow_at else {
        return Ok(Err(Fallback("the mirror holds no overflow style to clip boxes by".into())));
    };
    let seen = {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        text.hash(&mut h);
        h.finish()
    };
    Ok(layout::boxes(mirror, &order, text, overflow_at).map(|b| Some((b, seen))).map_err(Fallback))
}

/// The session's watch over frames of other origins in this process (`frame_watch.js`):
/// those its first question marked, and its key (a JS string literal).
struct Frames<'a> {
    marked: &'a [String],
    key: &'a str,
}

/// What reading the changed subtrees gave besides the patched mirror.
struct Read {
    /// Subtrees read (roots and frame documents).
    roots: u32,
    /// When reading ended (what follows is the build).
    ended: Instant,
    /// The answer to the caller's look (`Incremental::after`) as JSON, if it gave one.
    after: Option<String>,
}

/// Read each root's subtree and patch it into the mirror (the first
/// `root_count` of `second`'s remote objects; the rest are frames of other
/// origins, whose documents are read again whole). `look`, if any, goes
/// after the reads in their batch.
#[allow(clippy::too_many_arguments)]
async fn read_roots(
    r: &Reader<'_>,
    second: &[CdpCommand],
    replies: &[CdpReply],
    (root_count, list_plan): (usize, &Lists),
    styles: &[String],
    mirror: &mut Mirror,
    extra: &[CdpCommand],
    extra_replies: &mut Vec<CdpReply>,
    watch: &Frames<'_>,
    look: Option<&CdpCommand>,
) -> Result<std::result::Result<Read, Fallback>> {
    // DOM.enable, here or first among `extra`, must have answered before anything is patched.
    if second.first().is_some_and(|c| c.call == Call::Repeat(RepeatCall::DomEnable)) {
        json_of!(second[0], &replies[0], r.opts);
    }
    // One remote object per root, then per frame.
    let mut items: Vec<(usize, String)> = Vec::new();
    for (k, (cmd, reply)) in second.iter().zip(replies).enumerate().filter(|(_, (c, _))| matches!(c.call, Call::Repeat(RepeatCall::Root(_)))) {
        let v = json_of!(cmd, reply, r.opts);
        if let Some(f) = thrown(&v, "a changed node could not be fetched") {
            return Ok(Err(f));
        }
        let Some(id) = v.pointer("/result/objectId").and_then(Value::as_str) else {
            return Ok(Err(Fallback("the watcher kept fewer changed nodes than it counted".into())));
        };
        items.push((k, id.to_string()));
    }

    // 3. Each root's subtree: its DOM, and its styles and layout. `reads` lays out root k's
    // describeNode and facts at `describe_at(k)` and `facts_at(k)`, then the lists' and lost
    // children's identities, then the frames' owners; `sent` puts `extra` before all of them.
    let describe_at = |k: usize| 2 * k;
    let facts_at = |k: usize| 2 * k + 1;
    let mut reads = Vec::with_capacity(items.len() * 2);
    let (roots, rest) = items.split_at(root_count.min(items.len()));
    let (lists, rest) = rest.split_at(list_plan.plans.len().min(rest.len()));
    let (gone, frames) = rest.split_at(list_plan.gone.iter().sum::<usize>().min(rest.len()));
    let facts_call = subtree_facts_call();
    for (k, (_, id)) in roots.iter().enumerate() {
        let k = k as u32;
        reads.push(command(RepeatCall::Describe(k), json!({ "objectId": id, "depth": -1, "pierce": true })));
        // Compiled by this look's take at the latest: the session's commands run in turn.
        reads.push(command(
            RepeatCall::Facts(k),
            json!({ "objectId": id, "functionDeclaration": facts_call, "arguments": [{ "value": styles }], "returnByValue": true }),
        ));
    }
    // Each list, and each child it lost, by itself: their backend ids (the children it has now
    // come from the watcher's plan; describing them, 2,500 of a feed's, took 12–17 ms).
    reads.extend(lists.iter().chain(gone).enumerate().map(|(k, (_, id))| command(RepeatCall::Identify(k as u32), json!({ "objectId": id, "depth": 0 }))));
    let owners: Vec<CdpCommand> = frames
        .iter()
        .enumerate()
        .map(|(k, (_, id))| command(RepeatCall::Describe((roots.len() + k) as u32), json!({ "objectId": id, "depth": -1, "pierce": true })))
        .collect();
    reads.extend(owners.iter().cloned());
    // `extra` (the page facts, when not asked before) goes first, as it would have in its own batch.
    let mut sent: Vec<CdpCommand> = extra.to_vec();
    sent.extend(reads.iter().cloned());
    sent.extend(look.cloned());
    // Each root's describeNode, by its place in `sent`: its listeners are asked on its reply.
    let describes: FxHashMap<usize, u32> = (0..roots.len()).map(|k| (extra.len() + describe_at(k), k as u32)).collect();
    let (mut replies, mut early) = r.batch_with_listeners(&sent, &describes).await;
    let early: Vec<Option<Asked>> = (0..roots.len()).map(|k| early.get_mut(extra.len() + describe_at(k)).and_then(Option::take)).collect();
    // A look that did not answer is only a look: the caller asks again itself.
    let after = look.and_then(|_| replies.pop()).and_then(|reply| evaluated(&reply)).map(|v| v.to_string());
    let rest = replies.split_off(extra.len().min(replies.len()));
    *extra_replies = std::mem::replace(&mut replies, rest);
    for (cmd, reply) in extra.iter().zip(extra_replies.iter()).filter(|(c, _)| c.call == Call::Repeat(RepeatCall::DomEnable)) {
        json_of!(cmd, reply, r.opts);
    }
    // The subtrees as deep as the page nests them (serde_json stops at 128 JSON levels, about 60 of the page's).
    let mut arenas = Vec::with_capacity(roots.len());
    let mut facts = Vec::with_capacity(roots.len());
    for k in 0..roots.len() {
        arenas.push(arena_of!(reads[describe_at(k)], &replies[describe_at(k)], r.opts));
        facts.push(json_of!(reads[facts_at(k)], &replies[facts_at(k)], r.opts));
    }
    let mut subtrees = Vec::with_capacity(roots.len());
    for (arena, facts) in arenas.iter().zip(facts) {
        let Some(at) = arena.field(0, "node") else { return Ok(Err(Fallback("a changed subtree's describeNode reply has no node".into()))) };
        subtrees.push((InArena { arena, at }, facts));
    }
    // 4. Their listeners (clickable nodes), asked of the page's own world.
    // What the mirror knew of each root's listeners (see `page_listeners`), asked before any wait.
    let known: Vec<Option<bool>> = subtrees.iter().map(|(d, _)| d.int("backendNodeId").and_then(|b| mirror.node_of(b)).map(|n| n.clickable)).collect();
    let listeners = match page_listeners(r, &subtrees, &known, early).await? {
        Ok(l) => l,
        Err(f) => return Ok(Err(f)),
    };
    let mut t = Instant::now();
    let mut backends = Vec::with_capacity(lists.len() + gone.len());
    for k in 0..lists.len() + gone.len() {
        let at = describe_at(roots.len()) + k;
        let described = json_of!(reads[at], &replies[at], r.opts);
        let Some(b) = described.pointer("/node/backendNodeId").and_then(Value::as_i64) else {
            return Ok(Err(Fallback("a changed list could not be read".into())));
        };
        backends.push(b);
    }
    // (By root: a root with no backend id failed its listeners' question above.)
    let root_backends: Vec<i64> = subtrees.iter().map(|(d, _)| d.int("backendNodeId").unwrap_or(-1)).collect();
    let children_of = match list_plan.children(mirror, &backends[..lists.len()], &backends[lists.len()..], &root_backends) {
        Ok(c) => c,
        Err(f) => return Ok(Err(f)),
    };
    if let Err(f) = patch(mirror, &subtrees, &listeners, &children_of, "a changed subtree could not be read") {
        return Ok(Err(f));
    }
    // The frames' documents (in this process; another process's frame has none here), as deep as their pages nest.
    let mut owner_arenas = Vec::with_capacity(owners.len());
    for (j, cmd) in owners.iter().enumerate() {
        owner_arenas.push(arena_of!(cmd, &replies[describe_at(roots.len()) + lists.len() + gone.len() + j], r.opts));
    }
    let mut docs = Vec::new();
    let mut elsewhere = 0;
    for arena in &owner_arenas {
        let owner = arena.field(0, "node").map(|at| InArena { arena, at });
        let (Some(doc), Some(frame)) = (owner.and_then(|o| o.member("contentDocument")), owner.and_then(|o| o.text("frameId"))) else {
            elsewhere += 1;
            continue;
        };
        let Some(backend) = doc.int("backendNodeId") else { continue };
        if mirror.node_of(backend).is_none() {
            return Ok(Err(Fallback("a frame shows another document".into())));
        }
        docs.push((doc, frame.to_string(), backend));
    }
    if !owners.is_empty() {
        mirror.blind_elsewhere = elsewhere;
    }
    if !docs.is_empty() {
        match read_frame_documents(r, &docs, styles, mirror, watch).await? {
            Ok(()) => t = Instant::now(),
            Err(f) => return Ok(Err(f)),
        }
    }
    Ok(Ok(Read { roots: (roots.len() + docs.len()) as u32, ended: t, after }))
}

/// Why listeners are never asked through our world's objects: Chrome answers
/// `getEventListeners` with each handler as a remote object in the world of
/// the object asked about, so the page's functions were wrapped in our
/// isolated world. Under the random-mutation test that crashed Chromium
/// 156's renderer (found by its crash reporter, a few dozen captures in, in
/// about two runs of three on a loaded machine; never with the same calls
/// made through the page's world), and every later call then waited out
/// the capture's deadline.
///
/// Each subtree's root (`described`, from `DOM.describeNode`) resolved in
/// its document's main world, then its listeners: one `getEventListeners`
/// reply per subtree, in order.
///
/// A text read again by itself (its data changed) is not asked: adding a
/// listener changes no node, so no look sees one added to any node that did
/// not change otherwise, and a text's data says nothing of its listeners. It
/// keeps what the mirror knew (two round trips saved on most looks after a change of text).
///
/// `early` holds what [`early_listeners`] asked already, by subtree.
async fn page_listeners<'a, D: Described<'a>>(
    r: &Reader<'_>,
    subtrees: &[(D, Value)],
    known_clickable: &[Option<bool>],
    mut early: Vec<Option<Asked>>,
) -> Result<std::result::Result<Vec<Value>, Fallback>> {
    let mut out: Vec<Option<Value>> = vec![None; subtrees.len()];
    let mut resolve = Vec::with_capacity(subtrees.len());
    let mut asked = Vec::with_capacity(subtrees.len());
    for (k, (described, _)) in subtrees.iter().enumerate() {
        let Some(backend) = described.int("backendNodeId") else {
            return Ok(Err(Fallback("a changed subtree's root has no backendNodeId".into())));
        };
        let lone_text = lone_text(described.int("nodeType"), described.int("childNodeCount"));
        if let Some(clickable) = known_clickable.get(k).copied().flatten().filter(|_| lone_text) {
            let listeners: Vec<Value> = if clickable { vec![json!({ "type": "click", "backendNodeId": backend })] } else { Vec::new() };
            out[k] = Some(json!({ "listeners": listeners }));
            continue;
        }
        if let Some(Asked { resolve: (cmd, reply), listeners }) = early.get_mut(k).and_then(Option::take) {
            let resolved = json_of!(cmd, &reply, r.opts);
            if resolved.pointer("/object/objectId").and_then(Value::as_str).is_none() {
                return Ok(Err(Fallback("a changed subtree's root could not be reached in the page's world".into())));
            }
            let Some((cmd, reply)) = listeners else { return Ok(Err(Fallback("a changed subtree's listeners were not asked".into()))) };
            out[k] = Some(json_of!(cmd, &reply, r.opts));
            continue;
        }
        asked.push(k);
        resolve.push(command(RepeatCall::PageRoot(k as u32), json!({ "backendNodeId": backend, "objectGroup": r.group })));
    }
    if resolve.is_empty() {
        return Ok(Ok(out.into_iter().flatten().collect()));
    }
    let replies = r.batch(&resolve).await;
    let mut asks = Vec::with_capacity(resolve.len());
    for (k, cmd) in resolve.iter().enumerate() {
        let resolved = json_of!(cmd, &replies[k], r.opts);
        let Some(id) = resolved.pointer("/object/objectId").and_then(Value::as_str) else {
            return Ok(Err(Fallback("a changed subtree's root could not be reached in the page's world".into())));
        };
        asks.push(command(RepeatCall::Listeners(k as u32), json!({ "objectId": id, "depth": -1, "pierce": true })));
    }
    let replies = r.batch(&asks).await;
    for ((cmd, reply), &k) in asks.iter().zip(&replies).zip(&asked) {
        out[k] = Some(json_of!(cmd, reply, r.opts));
    }
    Ok(Ok(out.into_iter().flatten().collect()))
}

/// Read frame documents of other origins again, whole, each through our world in its frame
/// (the page's world cannot enter them): `(described document, frame id, its backend id)`.
///
/// A frame the look's first question did not mark (its world is new) is
/// marked now, and its document described again after the mark: a change
/// after the mark is the next look's, and none before it is missed.
async fn read_frame_documents<'a, D: Described<'a>>(
    r: &Reader<'_>,
    docs: &[(D, String, i64)],
    styles: &[String],
    mirror: &mut Mirror,
    frames: &Frames<'_>,
) -> Result<std::result::Result<(), Fallback>> {
    // Our world in each frame: the one a repeat capture made there before, else a new one.
    // A world kept from before that no longer answers (its document went) is made again, once.
    for fresh_worlds in [false, true] {
        let unknown: Vec<usize> = (0..docs.len()).filter(|&k| fresh_worlds || !mirror.frame_worlds.contains_key(&docs[k].1)).collect();
        let worlds: Vec<CdpCommand> =
            unknown.iter().map(|&k| command(RepeatCall::FrameWorld(k as u32), json!({ "frameId": docs[k].1, "worldName": super::WORLD_NAME }))).collect();
        let replies = r.batch(&worlds).await;
        for (j, &k) in unknown.iter().enumerate() {
            let made = json_of!(worlds[j], &replies[j], r.opts);
            let Some(context) = made.get("executionContextId").and_then(Value::as_i64) else {
                return Ok(Err(Fallback("a frame gave no world to read it in".into())));
            };
            mirror.frame_worlds.insert(docs[k].1.clone(), context);
        }
        // Worlds made again leave no mark of this look's first question.
        let to_mark: Vec<usize> =
            (0..docs.len()).filter(|&k| (fresh_worlds || !frames.marked.contains(&docs[k].1)) && !mirror.unwatched_frames.contains(&docs[k].1)).collect();
        let mut marks = Vec::with_capacity(to_mark.len() * 2);
        for &k in &to_mark {
            let (_, frame, backend) = &docs[k];
            let context = mirror.frame_worlds.get(frame).copied().unwrap_or_default();
            marks.push(frame_watch(RepeatCall::FrameMark(k as u32), context, "mark", frames.key));
            marks.push(command(RepeatCall::FrameDescribe(k as u32), json!({ "backendNodeId": backend, "depth": -1, "pierce": true })));
        }
        let mut resolve = Vec::with_capacity(docs.len() * 2);
        for (k, (_, frame, backend)) in docs.iter().enumerate() {
            let context = mirror.frame_worlds.get(frame).copied().unwrap_or_default();
            resolve
                .push(command(RepeatCall::FrameDocument(k as u32), json!({ "backendNodeId": backend, "executionContextId": context, "objectGroup": r.group })));
            // The listeners are asked of the frame's own world (see `page_listeners`).
            resolve.push(command(RepeatCall::FramePageDocument(k as u32), json!({ "backendNodeId": backend, "objectGroup": r.group })));
        }
        let mut sent = marks.clone();
        sent.extend(resolve.iter().cloned());
        let mut replies = r.batch(&sent).await;
        let rest = replies.split_off(marks.len().min(replies.len()));
        let mark_replies = std::mem::replace(&mut replies, rest);
        if !fresh_worlds && replies.iter().step_by(2).any(|reply| matches!(reply, CdpReply::Err(_))) {
            continue;
        }
        // The documents as described after their marks (a mark that failed leaves its frame unmarked:
        // the next look reads it again).
        let mut again = Vec::with_capacity(to_mark.len());
        for j in 0..to_mark.len() {
            again.push(arena_of!(marks[j * 2 + 1], &mark_replies[j * 2 + 1], r.opts));
        }
        let mut described: Vec<Option<InArena<'_, '_>>> = vec![None; docs.len()];
        for (arena, &k) in again.iter().zip(&to_mark) {
            described[k] = arena.field(0, "node").map(|at| InArena { arena, at });
        }
        let mut reads = Vec::with_capacity(docs.len() * 2);
        for (k, pair) in resolve.chunks(2).enumerate() {
            let ours = json_of!(pair[0], &replies[k * 2], r.opts);
            let theirs = json_of!(pair[1], &replies[k * 2 + 1], r.opts);
            let (Some(id), Some(page_id)) =
                (ours.pointer("/object/objectId").and_then(Value::as_str), theirs.pointer("/object/objectId").and_then(Value::as_str))
            else {
                return Ok(Err(Fallback("a frame's document could not be reached".into())));
            };
            let k = k as u32;
            reads.push(command(
                RepeatCall::FrameFacts(k),
                json!({ "objectId": id, "functionDeclaration": FACTS_JS, "arguments": [{ "value": styles }], "returnByValue": true }),
            ));
            reads.push(command(RepeatCall::FrameListeners(k), json!({ "objectId": page_id, "depth": -1, "pierce": true })));
        }
        let replies = r.batch(&reads).await;
        for (k, (doc, frame, _)) in docs.iter().enumerate() {
            let facts = json_of!(reads[k * 2], &replies[k * 2], r.opts);
            let listeners = json_of!(reads[k * 2 + 1], &replies[k * 2 + 1], r.opts);
            // Described again after its mark, or as its owner's description gave it.
            let outcome = match described[k] {
                Some(again) => patch_frame(mirror, again, facts, listeners),
                None => patch_frame(mirror, *doc, facts, listeners),
            };
            let shadowed = match outcome {
                Ok(s) => s,
                Err(f) => return Ok(Err(f)),
            };
            // The frame's watcher sees no shadow tree's inside: such a frame is read again on every look.
            if shadowed {
                mirror.unwatched_frames.insert(frame.clone());
            } else {
                mirror.unwatched_frames.remove(frame);
            }
        }
        return Ok(Ok(()));
    }
    Ok(Err(Fallback("a frame's document could not be reached".into())))
}

/// Before a build that reads the page's frames in other processes again: our
/// world (with a first mark) in each such frame the mirror has none in yet, so
/// that the next look can ask it. The marks of the others were made by this
/// look's first question. Only the frames' count is known beforehand (the
/// owners the watcher could not enter whose document was elsewhere): when the
/// mirror has as many worlds, nothing is asked. A frame that gives no world
/// is only not watched (the look after reads it again, as before).
async fn watch_elsewhere(
    r: &Reader<'_>,
    mirror: &mut Mirror,
    documents: &rustc_hash::FxHashMap<String, String>,
    key: &str,
    known: Option<&str>,
) -> Result<std::result::Result<(), Fallback>> {
    if !mirror.frames_elsewhere || mirror.blind_elsewhere == 0 || mirror.oopif_worlds.len() + mirror.oopif_unreachable.len() >= mirror.blind_elsewhere {
        return Ok(Ok(()));
    }
    // The targets this look's first question asked, else asked now.
    let targets = command(RepeatCall::OopifTargets, json!({}));
    let reply = match known {
        Some(text) => CdpReply::Ok(text.to_string()),
        None => r.batch(std::slice::from_ref(&targets)).await.into_iter().next().unwrap_or_else(|| CdpReply::Err("no reply".into())),
    };
    // A transport that cannot list targets leaves those frames unwatched, not the capture undone.
    let Ok(listed) = answered(targets.call, &reply, r.opts)? else { return Ok(Ok(())) };
    // The page's frames in other processes: iframe targets whose parent is one of its frames.
    let mut new: Vec<String> = listed
        .get("targetInfos")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|t| t.get("type").and_then(Value::as_str) == Some("iframe"))
        .filter(|t| t.get("parentFrameId").and_then(Value::as_str).is_some_and(|p| documents.contains_key(p)))
        .filter_map(|t| t.get("targetId").and_then(Value::as_str).map(str::to_string))
        .collect();
    mirror.oopif_worlds.retain(|f, _| new.contains(f));
    mirror.oopif_unreachable.retain(|f| new.contains(f));
    new.retain(|f| !mirror.oopif_worlds.contains_key(f) && !mirror.oopif_unreachable.contains(f));
    let worlds: Vec<CdpCommand> = new
        .iter()
        .enumerate()
        .map(|(k, f)| CdpCommand {
            session: Some(f.clone()),
            ..command(RepeatCall::OopifWorld(k as u32), json!({ "frameId": f, "worldName": super::WORLD_NAME }))
        })
        .collect();
    let replies = r.batch(&worlds).await;
    let mut made = Vec::new();
    for ((frame, cmd), reply) in new.iter().zip(&worlds).zip(&replies) {
        match answered(cmd.call, reply, r.opts)?.ok().and_then(|v| v.get("executionContextId").and_then(Value::as_i64)) {
            Some(context) => made.push((frame.clone(), context)),
            None => {
                mirror.oopif_unreachable.insert(frame.clone());
            }
        }
    }
    let marks: Vec<CdpCommand> = made
        .iter()
        .enumerate()
        .map(|(k, (frame, context))| CdpCommand { session: Some(frame.clone()), ..frame_watch(RepeatCall::OopifMark(k as u32), *context, "mark", key) })
        .collect();
    let replies = r.batch(&marks).await;
    for ((frame, context), reply) in made.into_iter().zip(&replies) {
        if evaluated(reply).is_some() {
            mirror.oopif_worlds.insert(frame, context);
        }
    }
    Ok(Ok(()))
}

/// A frame's document swapped into the mirror; whether it holds an author shadow root.
fn patch_frame<'a, D: Described<'a>>(mirror: &mut Mirror, doc: D, facts: Value, listeners: Value) -> std::result::Result<bool, Fallback> {
    patch(mirror, &[(doc, facts)], &[listeners], &[], "a frame's document could not be read")?;
    Ok(has_author_shadow_root(doc))
}

/// Whether a described document holds an open or closed shadow root (not a
/// user-agent one: every `<input>` has one of those, and the page cannot change it).
fn has_author_shadow_root<'a, D: Described<'a>>(doc: D) -> bool {
    let mut stack = vec![doc];
    while let Some(n) = stack.pop() {
        if matches!(n.text("shadowRootType"), Some("open" | "closed")) {
            return true;
        }
        for key in ["children", "shadowRoots"] {
            stack.extend(n.items(key));
        }
        for key in ["contentDocument", "templateContent"] {
            if let Some(inner) = n.member(key) {
                stack.push(inner);
            }
        }
    }
    false
}

/// Join each subtree's replies (`describeNode`, the facts script's evaluation,
/// the listeners) and swap it into the mirror; then give each list its
/// children as the page has them (`children_of`: a parent's backend id and its
/// children's), a new child taken from the subtrees read.
fn patch<'a, D: Described<'a>>(
    mirror: &mut Mirror,
    subtrees: &[(D, Value)],
    listeners: &[Value],
    children_of: &[(i64, Vec<i64>)],
    what: &str,
) -> std::result::Result<(), Fallback> {
    let listed: rustc_hash::FxHashSet<i64> = children_of.iter().flat_map(|(_, c)| c.iter().copied()).collect();
    let mut placed = rustc_hash::FxHashMap::default();
    for ((described, facts), listeners) in subtrees.iter().zip(listeners) {
        if let Some(f) = thrown(facts, what) {
            return Err(f);
        }
        let facts = fresh::facts_in(facts).unwrap_or(Value::Null);
        let fresh = fresh::read(*described, &facts, Some(listeners))?;
        // A subtree whose element tree is not its flat tree: the DOM pass's tree takes it as the DOM has it.
        if let (Some(parts), Some(root)) = (fresh::dom_parts(*described), fresh.first().map(|n| n.backend)) {
            mirror.keep_dom_read(root, parts);
        }
        // A root a list names is placed by that list (it may be new, or have moved).
        match fresh.first().map(|n| n.backend).filter(|b| listed.contains(b)) {
            Some(backend) => {
                placed.insert(backend, fresh);
            }
            None => mirror.replace(fresh)?,
        }
    }
    for (parent, children) in children_of {
        mirror.set_children(*parent, children, &mut placed)?;
    }
    if !placed.is_empty() {
        return Err(Fallback("a changed node is not among its parent's children".into()));
    }
    mirror.retire_detached();
    Ok(())
}

/// The elements whose child lists changed, as the watcher's take gives them
/// (`take_changes.js`): each one's plan of its children in order (a run of
/// `n` children it had before is `n`; root `k` is `-(k + 1)`), and how many
/// children each lost (fetched after the lists, in order).
struct Lists {
    plans: Vec<Vec<i64>>,
    gone: Vec<usize>,
}

impl Lists {
    /// Each list's backend id and its children's, in order: the children the mirror
    /// has for it, less those that went and those read again, in runs as the plan
    /// says, with the roots between. A plan that does not fit the mirror is a fallback.
    fn children(&self, mirror: &Mirror, lists: &[i64], gone: &[i64], roots: &[i64]) -> std::result::Result<Vec<(i64, Vec<i64>)>, Fallback> {
        let out_of_place: rustc_hash::FxHashSet<i64> = gone.iter().chain(roots).copied().collect();
        let unfit = || Fallback("a changed list's children are not as the last snapshot and the watcher say".into());
        let mut out = Vec::with_capacity(lists.len());
        for (&parent, plan) in lists.iter().zip(&self.plans) {
            let had = mirror.child_backends(parent).ok_or_else(|| Fallback(format!("element {parent} is not in the last snapshot")))?;
            let mut kept = had.into_iter().filter(|b| !out_of_place.contains(b));
            let mut children = Vec::new();
            for &step in plan {
                if step > 0 {
                    for _ in 0..step {
                        children.push(kept.next().ok_or_else(unfit)?);
                    }
                } else {
                    let k = usize::try_from(-(step + 1)).map_err(|_| unfit())?;
                    children.push(*roots.get(k).ok_or_else(unfit)?);
                }
            }
            if kept.next().is_some() {
                return Err(unfit());
            }
            out.push((parent, children));
        }
        Ok(out)
    }
}

/// The snapshot of the (patched) mirror, built as a capture builds it, and
/// remembered with it: from the last build kept with the mirror (patched, or
/// laid out again), else from the mirror's nodes. Frames in other processes,
/// which no watcher sees, are read again (or replayed) by the build.
#[allow(clippy::too_many_arguments)]
async fn rebuild(
    transport: &dyn CdpTransport,
    opts: &SnapshotOptions,
    ctx: &CaptureContext,
    started: Instant,
    mirror: &mut Mirror,
    mut facts: PageFacts,
    documents: rustc_hash::FxHashMap<String, String>,
    shape: &str,
    roots: u32,
    unchanged_elsewhere: &[String],
    named: Option<(Value, String)>,
    boxes: Option<(Boxes, u64)>,
) -> Result<std::result::Result<WebAiSnapshot, Fallback>> {
    mirror.facts = Some(PageFacts { notes: Vec::new(), ..facts.clone() });
    let boxes = boxes.map(|(b, seen)| {
        mirror.boxes_seen = Some(seen);
        b
    });
    mirror.shape = shape.to_string();
    facts.documents = documents;
    // Frames in other processes, which no watcher sees: read again by the build, but those that
    // have not changed, which answer as they did (see `FrameReplies`); `named` says where they are.
    let frames = mirror.frames_elsewhere.then(|| FramesGiven {
        replay: unchanged_elsewhere.iter().filter_map(|f| mirror.oopif_replies.frames.get(f).map(|r| (f.clone(), r.clone()))).collect(),
        named,
    });
    let reads_frames = frames.is_some();
    // The last build, patched or laid out again from the mirror; else the mirror built whole.
    let (finished, page_of) = match mirror.take_kept(shape) {
        Some(kept) => (CaptureSession::finish_built(opts.clone(), ctx.clone(), started, kept.page, kept.dom, kept.tree, facts, boxes, frames)?, kept.page_of),
        // Built whole, a mirror with shadow roots has no DOM tree: its last one is patched (`to_dom`).
        None if opts.dom_pass && mirror.holds_shadow_roots() => {
            return Ok(Err(Fallback("the page has shadow roots, and the last build's DOM tree could not be patched".into())));
        }
        None => {
            let (session, step, page_of) = CaptureSession::finish_mirror(opts.clone(), ctx.clone(), started, mirror, facts, boxes, frames)?;
            ((session, step), page_of)
        }
    };
    let (mut snapshot, built, frame_replies) = match finished {
        (mut session, Step::Done(s)) => (*s, session.built.take(), std::mem::take(&mut session.frame_replies)),
        // What Chrome must still be asked: the frames, the engine's user-agent subtrees.
        (session, Step::Send(batch)) => {
            let captured = drive_from(transport, session, batch).await?;
            (captured.snapshot, captured.built, captured.frame_replies)
        }
    };
    if let Some(built) = built {
        mirror.keep(built.kept(page_of, shape));
    }
    if reads_frames {
        mirror.oopif_replies = frame_replies;
    }
    snapshot.capture_ms = started.elapsed().as_secs_f64() * 1000.0;
    snapshot.capture_mode = Some(CaptureMode::Incremental);
    snapshot.subtrees_reread = roots;
    Ok(Ok(snapshot))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::transport::{CdpCall, ReplyFuture};
    use crate::incremental::mirror::MNode;

    /// Answers each call with `answer(method, params)`.
    struct Answer<F>(F);

    impl<F: Fn(&str, &Value) -> CdpReply + Send + Sync> CdpTransport for Answer<F> {
        fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a> {
            let reply = (self.0)(call.method, call.params);
            Box::pin(async move { reply })
        }
    }

    /// A mirror of a recorded page (real Chromium), with its last facts.
    fn mirror() -> Mirror {
        mirror_of("forms.json")
    }

    /// A mirror of the DOM snapshot in a recording (its computed styles as it asked for them).
    fn mirror_of(recording: &str) -> Mirror {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/recorded").join(recording);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let call = v["replies"].as_array().unwrap().iter().find(|r| r["method"] == "DOMSnapshot.captureSnapshot").unwrap();
        let styles = call["params"]["computedStyles"].as_array().map_or(1, Vec::len);
        let reply = call["result"].to_string();
        let mut m = crate::dom::snapshot_reader::with_snapshot(&reply, |s| Mirror::from_snapshot(s, styles)).unwrap();
        m.facts =
            Some(PageFacts { url: Some("file:///forms.html".into()), title: Some("Checkout".into()), viewport: Some((1280.0, 900.0)), ..PageFacts::default() });
        m.shape = crate::incremental::mirror::shape_of(&opts());
        m
    }

    fn opts() -> SnapshotOptions {
        SnapshotOptions { engine: crate::options::Engine::Dom, ..SnapshotOptions::default() }
    }

    fn summary(token: &str, reasons: &[&str], roots: u32) -> CdpReply {
        let value = json!({ "token": token, "reasons": reasons, "roots": roots, "sizes": [], "total": 0, "frames": 1,
            "url": "file:///forms.html", "title": "Checkout", "viewport": [1280, 900] });
        CdpReply::Ok(json!({ "result": { "type": "object", "value": value } }).to_string())
    }

    async fn run(take: CdpReply, reuse: bool) -> Result<std::result::Result<Repeated, Fallback>> {
        run_with(take, reuse, true).await
    }

    async fn run_with(take: CdpReply, reuse: bool, always: bool) -> Result<std::result::Result<Repeated, Fallback>> {
        let world = World { frame_id: "F".into(), loader_id: "L".into(), context_id: 7, token: None, walk: None, frames: None, walked: false };
        let inc = Incremental {
            state: crate::page_session::PageSessionState::new(),
            token: "doc-1".into(),
            session: "s-1".into(),
            reuse,
            always,
            changed: false,
            held: 0,
            after: None,
        };
        let t = Answer(move |method: &str, _: &Value| match method {
            "Runtime.evaluate" => take.clone(),
            "Page.getFrameTree" => CdpReply::Ok(json!({ "frameTree": { "frame": { "id": "F", "loaderId": "L" } } }).to_string()),
            _ => CdpReply::Err("not expected".into()),
        });
        let mut m = mirror();
        m.documents = [("F".to_string(), "L".to_string())].into_iter().collect();
        repeat(&t, &opts(), &CaptureContext::default(), &inc, &world, &mut m, Instant::now()).await
    }

    fn fallback(r: Result<std::result::Result<Repeated, Fallback>>) -> String {
        match r {
            Ok(Err(Fallback(why))) => why,
            Ok(Ok(_)) => panic!("expected a fallback, got a snapshot"),
            Err(e) => panic!("expected a fallback, got {e:?}"),
        }
    }

    #[tokio::test]
    async fn a_frame_world_kept_from_before_is_used_and_made_again_when_it_no_longer_answers() {
        use std::sync::Mutex;
        let calls = std::sync::Arc::new(Mutex::new(Vec::<String>::new()));
        let seen = calls.clone();
        let t = Answer(move |method: &str, params: &Value| {
            let context = params.get("executionContextId").or_else(|| params.get("contextId"));
            seen.lock().unwrap().push(format!("{method} {}", context.map(Value::to_string).unwrap_or_default()));
            match (method, params.get("executionContextId").and_then(Value::as_i64)) {
                ("Page.createIsolatedWorld", _) => CdpReply::Ok(json!({ "executionContextId": 5 }).to_string()),
                // The kept world (41) is gone; the new one (5) and the page's own world answer.
                ("DOM.resolveNode", Some(41)) => CdpReply::Err("Cannot find context with specified id".into()),
                ("DOM.resolveNode", _) => CdpReply::Ok(json!({ "object": { "objectId": "o-1" } }).to_string()),
                _ => CdpReply::Err("not read in this test".into()),
            }
        });
        let opts = opts();
        let reader = Reader { transport: &t, opts: &opts, deadline: Instant::now() + Duration::from_secs(5), group: "g".into() };
        let doc = json!({ "nodeType": 9, "backendNodeId": 7 });
        let docs = vec![(&doc, "F2".to_string(), 7)];
        let mut m = mirror();
        m.frame_worlds.insert("F2".into(), 41);
        // The look's first question marked F2 in the kept world.
        let marked = ["F2".to_string()];
        let read = read_frame_documents(&reader, &docs, &[], &mut m, &Frames { marked: &marked, key: "\"s-1\"" }).await;
        // The facts are not answered here: what matters is how the world was found.
        assert!(matches!(read, Ok(Err(_))));
        assert_eq!(m.frame_worlds.get("F2"), Some(&5), "the world made again is kept");
        let calls = calls.lock().unwrap().clone();
        assert_eq!(calls[0], "DOM.resolveNode 41", "the kept world is tried first, with no new world: {calls:?}");
        assert!(calls.iter().any(|c| c.starts_with("Page.createIsolatedWorld")), "{calls:?}");
        assert!(calls.iter().any(|c| c == "DOM.resolveNode 5"), "{calls:?}");
        // The world made again has no mark of the first question: the frame is marked there
        // and described again after the mark, in the batch that reaches its document.
        let mark = calls.iter().position(|c| c == "Runtime.evaluate 5").expect("a mark in the new world");
        let described = calls.iter().position(|c| c.starts_with("DOM.describeNode")).expect("the document described again");
        assert!(mark < described, "{calls:?}");
    }

    #[tokio::test]
    async fn an_unchanged_page_is_unchanged_only_when_the_session_holds_its_snapshot() {
        assert!(matches!(run(summary("doc-1", &[], 0), true).await, Ok(Ok(Repeated::Unchanged))));
        // Without the session's last snapshot, the mirror is built again (with the recorded page's tree).
        match run(summary("doc-1", &[], 0), false).await {
            Ok(Ok(Repeated::Built(s, _, _))) => {
                assert_eq!(s.capture_mode, Some(CaptureMode::Incremental));
                assert_eq!(s.subtrees_reread, 0);
                assert!(s.text.contains("Your cart"), "{}", s.text);
            }
            _ => panic!("expected a snapshot"),
        }
    }

    #[tokio::test]
    async fn what_the_watcher_cannot_bound_is_a_fallback_with_its_reason() {
        assert_eq!(fallback(run(summary("doc-2", &[], 0), true).await), "the page shows another document");
        assert_eq!(fallback(run(summary("doc-1", &["a style sheet changed"], 0), true).await), "a style sheet changed");
        let thrown = CdpReply::Ok(json!({ "exceptionDetails": { "text": "Uncaught", "exception": { "description": "TypeError: boom\n at x" } } }).to_string());
        assert_eq!(fallback(run(thrown, true).await), "the watcher could not be asked: TypeError: boom");
        assert!(fallback(run(CdpReply::Err("No such context".into()), true).await).contains("Runtime.evaluate failed"));
    }

    #[tokio::test]
    async fn a_small_page_that_changed_is_captured_in_full_unless_always() {
        assert!(mirror().len() < REPEAT_MIN_NODES);
        assert!(matches!(run_with(summary("doc-1", &[], 1), true, false).await, Ok(Ok(Repeated::Small))));
        // Unchanged, it is still answered by the watcher alone.
        assert!(matches!(run_with(summary("doc-1", &[], 0), true, false).await, Ok(Ok(Repeated::Unchanged))));
        // With `always`, the changed subtree is read (here the transport refuses: a fallback, not `Small`).
        assert!(matches!(run_with(summary("doc-1", &[], 1), true, true).await, Ok(Err(_))));
    }

    /// The snapshot of the mirror built from it whole, as a first repeat capture builds it.
    fn whole(m: &Mirror, facts: &PageFacts) -> WebAiSnapshot {
        match CaptureSession::finish_from(opts(), CaptureContext::default(), Instant::now(), &m.to_snapshot(), facts.clone(), None, None) {
            Ok((_, Step::Done(s))) => *s,
            _ => panic!("the mirror's snapshot did not build"),
        }
    }

    fn same(a: &WebAiSnapshot, b: &WebAiSnapshot) {
        assert_eq!(a.text, b.text);
        assert_eq!(a.refs, b.refs);
        assert_eq!((&a.notes, a.node_count), (&b.notes, b.node_count));
    }

    /// Re-read the subtree of the first node `is` accepts, changed by `edit` (as Chrome would then give it).
    fn change(m: &mut Mirror, is: impl Fn(&MNode) -> bool, edit: impl FnOnce(&mut MNode)) {
        let b = m.find(is).expect("a node to change");
        let mut again = m.read_again(b);
        edit(&mut again[0]);
        m.replace(again).unwrap();
    }

    /// The forms fixture's mirror, its page facts and its options' shape.
    #[test]
    fn a_list_plan_keeps_what_stayed_in_order_and_puts_each_root_in_its_place() {
        let (m, _, _) = forms_mirror();
        let ul = m.find(|n| n.node_type == 1 && n.children.len() >= 3).unwrap();
        let had = m.child_backends(ul).unwrap();
        assert!(had.len() >= 3, "{had:?}");
        let (a, b, c) = (had[0], had[1], had[2]);
        let rest = (had.len() - 3) as i64;
        // b went, c was read again (a changed child stays a root), and a new node came after a.
        let plan = |tail: i64| if tail > 0 { vec![1, -1, -2, tail] } else { vec![1, -1, -2] };
        let lists = Lists { plans: vec![plan(rest)], gone: vec![1] };
        let got = lists.children(&m, &[ul], &[b], &[900_001, c]).map_err(|f| f.0).unwrap();
        let mut want = vec![a, 900_001, c];
        want.extend(&had[3..]);
        assert_eq!(got, vec![(ul, want)]);
        // A plan that does not fit what the mirror has: too many, too few, a root that was not read.
        let short = if rest > 0 { plan(rest - 1) } else { vec![-1, -2] };
        for plan in [plan(rest + 1), short, vec![1, -3, -2]] {
            let lists = Lists { plans: vec![plan.clone()], gone: vec![1] };
            assert!(lists.children(&m, &[ul], &[b], &[900_001, c]).is_err(), "{plan:?}");
        }
        assert!(Lists { plans: vec![vec![]], gone: vec![0] }.children(&m, &[123_456_789], &[], &[]).is_err(), "a list the mirror does not have");
    }

    fn forms_mirror() -> (Mirror, PageFacts, String) {
        let m = mirror_of("forms-dom.json");
        let (facts, shape) = (m.facts.clone().unwrap(), m.shape.clone());
        (m, facts, shape)
    }

    /// A build from the mirror that asks the browser nothing.
    async fn build_offline(m: &mut Mirror, facts: &PageFacts, shape: &str) -> WebAiSnapshot {
        let t = Answer(|_: &str, _: &Value| CdpReply::Err("no call expected".into()));
        rebuild(&t, &opts(), &CaptureContext::default(), Instant::now(), m, facts.clone(), Default::default(), shape, 1, &[], None, None)
            .await
            .unwrap()
            .unwrap_or_else(|f| panic!("a fallback: {}", f.0))
    }

    fn named(n: &MNode, name: &str, value: &str) -> bool {
        n.attrs.iter().any(|(k, v)| k == name && v.as_deref() == Some(value))
    }

    #[tokio::test]
    async fn after_changes_of_values_only_the_kept_build_gives_what_a_whole_build_gives() {
        // Recorded with the DOM engine: the engine's styles follow `cursor`.
        let (mut m, facts, shape) = forms_mirror();
        let build = async |m: &mut Mirror| build_offline(m, &facts, &shape).await;
        let first = build(&mut m).await;
        assert!(m.has_kept(), "the first build is kept");
        // A text, a field's value and a checkbox, each changed as a re-read of its subtree gives it.
        // The engine's tree is told of each (`crate::engine::retext`), not built again.
        change(&mut m, |n| n.node_type == 3 && n.value.as_deref() == Some("Your cart"), |n| n.value = Some("Your basket (3)".into()));
        assert!(m.patches_tree(&shape), "a text's change is written into the kept tree");
        let after_text = build(&mut m).await;
        same(&after_text, &whole(&m, &facts));
        change(&mut m, |n| named(n, "name", "email"), |n| n.input_value = Some("z@y.x".into()));
        assert!(m.patches_tree(&shape), "so is a field's value");
        let after_value = build(&mut m).await;
        change(&mut m, |n| named(n, "type", "checkbox") && !n.checked, |n| n.checked = true);
        assert!(m.patches_tree(&shape), "and a checkbox's state");
        let after_check = build(&mut m).await;
        assert!(m.has_kept(), "each build after values changed is kept too");
        same(&after_check, &whole(&m, &facts));
        // An attribute the DOM pass does not read, and a style only the engine reads.
        change(&mut m, |n| named(n, "name", "email"), |n| n.attrs.push(("aria-disabled".into(), Some("true".into()))));
        // (`cursor`, then `display`, `visibility`, …; the heading's text inherits it)
        let heading = m.find(|n| n.node_type == 1 && n.name == "H1").expect("a heading");
        let mut again = m.read_again(heading);
        again.iter_mut().filter_map(|n| n.styles.as_mut()).for_each(|s| s[2] = "hidden".into());
        m.replace(again).unwrap();
        assert!(!m.patches_tree(&shape), "an attribute or style change builds the tree again");
        let after_attrs = build(&mut m).await;
        assert!(m.has_kept(), "neither reaches the DOM pass");
        same(&after_attrs, &whole(&m, &facts));
        assert!(
            after_attrs.text.contains("\"Email\" [ref=@e3 disabled=true") && !after_check.text.contains("\"Email\" [ref=@e3 disabled"),
            "{}",
            after_attrs.text
        );
        assert_ne!(after_attrs.text.lines().count(), after_check.text.lines().count(), "the hidden heading is gone");
        assert!(!first.text.contains("Your basket (3)") && after_text.text.contains("Your basket (3)"), "{}", after_text.text);
        assert!(!after_text.text.contains("z@y.x") && after_value.text.contains("z@y.x"), "{}", after_value.text);
        assert_ne!(after_value.text, after_check.text);
        // A change the DOM pass reads (here an attribute it makes selectors of) keeps the build too:
        // its page is patched, its DOM tree made again from the mirror.
        change(&mut m, |n| named(n, "name", "email"), |n| n.attrs.push(("aria-label".into(), Some("Mail".into()))));
        assert!(m.has_kept());
        let built = build(&mut m).await;
        assert!(built.text.contains("\"Mail\""), "{}", built.text);
        same(&built, &whole(&m, &facts));
    }

    #[tokio::test]
    async fn a_subtree_hidden_is_taken_out_of_the_kept_tree_and_the_build_equals_a_whole_one() {
        let (mut m, facts, shape) = forms_mirror();
        let build = async |m: &mut Mirror| build_offline(m, &facts, &shape).await;
        let first = build(&mut m).await;
        // Hidden as Chrome then reports it: the `hidden` attribute on its root, nothing in it laid
        // out, and no generated box (a list item's `::marker`) in it.
        let hide = |m: &mut Mirror, backend: i64| {
            let read = m.read_again(backend);
            let mut at = vec![u32::MAX; read.len()];
            let mut again: Vec<MNode> = Vec::new();
            for (i, n) in read.into_iter().enumerate() {
                if n.pseudo.is_none() {
                    at[i] = again.len() as u32;
                    let parent = at.get(n.parent as usize).copied().unwrap_or(n.parent);
                    again.push(MNode { parent: if i == 0 { n.parent } else { parent }, ..n });
                }
            }
            again.iter_mut().for_each(|n| n.styles = None);
            again[0].attrs.push(("hidden".into(), None));
            m.replace(again).unwrap();
        };
        let heading = m.find(|n| n.node_type == 1 && n.name == "H1").expect("the heading");
        let shown = m.read_again(heading);
        // A heading: its text goes, and the names its ancestors take from their content with it.
        hide(&mut m, heading);
        assert!(m.patches_tree(&shape), "a subtree hidden is taken out of the kept tree, not built again");
        let no_heading = build(&mut m).await;
        same(&no_heading, &whole(&m, &facts));
        assert!(first.text.contains("Your cart") && !no_heading.text.contains("Your cart"), "{}", no_heading.text);
        // A list and its items.
        let list = m.find(|n| n.node_type == 1 && n.name == "UL").expect("the list");
        let list_shown = m.read_again(list);
        assert!(list_shown.iter().any(|n| n.pseudo.is_some()), "its items have generated boxes");
        hide(&mut m, list);
        assert!(m.patches_tree(&shape), "a list with its items");
        let no_list = build(&mut m).await;
        same(&no_list, &whole(&m, &facts));
        // Shown again, the list's items with their generated boxes coming back: built into the
        // kept tree where a whole build puts it, and equal.
        m.replace(list_shown).unwrap();
        assert!(m.patches_tree(&shape), "a list shown again with its items' markers");
        let with_list = build(&mut m).await;
        same(&with_list, &whole(&m, &facts));
        assert!(with_list.text.lines().count() > no_list.text.lines().count(), "{}", with_list.text);
        m.replace(shown).unwrap();
        assert!(m.patches_tree(&shape), "a heading shown again");
        let again = build(&mut m).await;
        same(&again, &whole(&m, &facts));
        assert_eq!(again.text, first.text, "the page reads as at first");
        // A label with the field it wraps, inline among other labels: the white space after it
        // joined its text to the next, and now joins the text before it. Built whole, and equal;
        // so it is when it comes back.
        let label = m.find(|n| n.node_type == 1 && n.name == "LABEL").expect("a label");
        let label_shown = m.read_again(label);
        hide(&mut m, label);
        assert!(!m.patches_tree(&shape), "a laid-out white-space text after the subtree builds the tree again");
        same(&build(&mut m).await, &whole(&m, &facts));
        m.replace(label_shown).unwrap();
        assert!(!m.patches_tree(&shape), "and when it is shown again");
        same(&build(&mut m).await, &whole(&m, &facts));
    }

    #[test]
    fn a_build_from_the_mirror_itself_equals_one_from_the_mirror_written_out() {
        // A shadow root in the mirror: its flat tree is not the element tree, either way.
        let shadowed = mirror_of("shadow-dom.json");
        let facts = shadowed.facts.clone().unwrap();
        assert!(CaptureSession::finish_mirror(opts(), CaptureContext::default(), Instant::now(), &shadowed, facts.clone(), None, None).is_err());
        assert!(CaptureSession::finish_from(opts(), CaptureContext::default(), Instant::now(), &shadowed.to_snapshot(), facts, None, None).is_err());
        // Media controls: Chrome's own subtrees are asked for after the build, either way.
        let media = mirror_of("media-dom.json");
        let facts = media.facts.clone().unwrap();
        let asks = |r: Result<(CaptureSession, Step)>| match r {
            Ok((_, Step::Send(batch))) => batch.iter().map(|c| c.call.method().to_string()).collect::<Vec<_>>(),
            _ => panic!("media-dom.json: Chrome's subtrees were not asked for"),
        };
        let from_mirror =
            CaptureSession::finish_mirror(opts(), CaptureContext::default(), Instant::now(), &media, facts.clone(), None, None).map(|(s, step, _)| (s, step));
        let written_out = CaptureSession::finish_from(opts(), CaptureContext::default(), Instant::now(), &media.to_snapshot(), facts, None, None);
        assert_eq!(asks(from_mirror), asks(written_out));
        for recording in ["forms-dom.json", "frames-dom.json", "clickable-dom.json", "widgets-dom.json"] {
            let m = mirror_of(recording);
            let facts = m.facts.clone().unwrap();
            let Ok((_, Step::Done(built), page_of)) =
                CaptureSession::finish_mirror(opts(), CaptureContext::default(), Instant::now(), &m, facts.clone(), None, None)
            else {
                panic!("{recording}: the mirror's build did not finish")
            };
            same(&built, &whole(&m, &facts));
            assert_eq!(page_of, m.to_snapshot_mapped().1, "{recording}");
            assert!(built.text.contains("[ref=@e1"), "{recording}: {}", built.text);
        }
    }

    /// A copy of the subtree of `backend` as a re-read of a new one gives it: new ids from `first_id`.
    fn copy_of(m: &Mirror, backend: i64, first_id: i64) -> Vec<MNode> {
        let mut copy = m.read_again(backend);
        for (j, n) in copy.iter_mut().enumerate() {
            n.backend = first_id + j as i64;
        }
        copy[0].parent = crate::incremental::mirror::NONE;
        copy
    }

    #[tokio::test]
    async fn after_changes_to_the_tree_the_kept_build_laid_out_again_gives_what_a_whole_build_gives() {
        let (mut m, facts, shape) = forms_mirror();
        let build = async |m: &mut Mirror| build_offline(m, &facts, &shape).await;
        build(&mut m).await;
        let list = m.find(|n| n.node_type == 1 && n.children.len() >= 3 && n.pseudo.is_none()).expect("an element with children");
        let had = m.child_backends(list).unwrap();
        // A child removed.
        m.set_children(list, &had[1..], &mut Default::default()).unwrap();
        m.retire_detached();
        assert!(m.has_kept());
        assert!(m.patches_tree(&shape), "a child taken out is taken out of the kept tree");
        same(&build(&mut m).await, &whole(&m, &facts));
        // The rest in reverse order.
        let mut reversed = had[1..].to_vec();
        reversed.reverse();
        m.set_children(list, &reversed, &mut Default::default()).unwrap();
        m.retire_detached();
        // (The document element's own children, the head among them, moved: built whole.)
        assert!(!m.patches_tree(&shape), "the head and the body swapped build the tree whole");
        same(&build(&mut m).await, &whole(&m, &facts));
        // A list's items in reverse order, each read again where it now is (as the watcher has a
        // moved row read): taken out of the kept tree and placed again.
        let ul = m.find(|n| n.node_type == 1 && n.name == "UL").expect("a list");
        let items: Vec<i64> = m.child_backends(ul).unwrap().into_iter().rev().collect();
        m.set_children(ul, &items, &mut Default::default()).unwrap();
        for &b in &items {
            if let Some(again) = m.find(|n| n.backend == b && n.node_type == 1).map(|_| m.read_again(b)) {
                m.replace(again).unwrap();
            }
        }
        assert!(m.patches_tree(&shape), "children moved and read again are placed again in the kept tree");
        same(&build(&mut m).await, &whole(&m, &facts));
        // A copy of the heading added at the end of the page: built into the kept tree.
        let heading = m.find(|n| n.node_type == 1 && n.name == "H1").expect("a heading");
        let body = m.find(|n| n.node_type == 1 && n.name == "BODY").expect("a body");
        let mut kids = m.child_backends(body).unwrap();
        let mut fresh = rustc_hash::FxHashMap::default();
        fresh.insert(790_000, copy_of(&m, heading, 790_000));
        kids.push(790_000);
        m.set_children(body, &kids, &mut fresh).unwrap();
        assert!(m.patches_tree(&shape), "a subtree added is built into the kept tree");
        let with_copy = build(&mut m).await;
        same(&with_copy, &whole(&m, &facts));
        assert_eq!(with_copy.text.matches("Your cart").count(), 2, "{}", with_copy.text);
        // A copy of the form added at the end, with a value changed in the same look.
        let form = m.find(|n| n.node_type == 1 && n.name == "FORM").expect("a form");
        let mut kids = m.child_backends(body).unwrap();
        let mut fresh = rustc_hash::FxHashMap::default();
        fresh.insert(800_000, copy_of(&m, form, 800_000));
        kids.push(800_000);
        m.set_children(body, &kids, &mut fresh).unwrap();
        change(&mut m, |n| named(n, "name", "email"), |n| n.input_value = Some("new@x.y".into()));
        let added = build(&mut m).await;
        same(&added, &whole(&m, &facts));
        assert!(added.text.contains("new@x.y"), "{}", added.text);
        // An id given to one element and referred to by another: the page's id index follows
        // (with no change to the tree, too).
        build(&mut m).await;
        change(&mut m, |n| n.node_type == 1 && n.name == "H1", |n| n.attrs.push(("id".into(), Some("named-by".into()))));
        change(&mut m, |n| named(n, "name", "email"), |n| n.attrs.push(("aria-labelledby".into(), Some("named-by".into()))));
        let named_by = build(&mut m).await;
        same(&named_by, &whole(&m, &facts));
        assert!(named_by.text.contains("textbox \"Your cart\" [ref=@e3"), "{}", named_by.text);
        // A subtree read again with fewer nodes (an element emptied).
        let mut emptied = m.read_again(form);
        emptied.truncate(1);
        m.replace(emptied).unwrap();
        same(&build(&mut m).await, &whole(&m, &facts));
        // Rows added and taken out until the arena is compacted, with the build kept throughout.
        let slots = m.node_slots();
        let mut k = 0;
        while m.node_slots() >= slots && k < 400 {
            let mut fresh = rustc_hash::FxHashMap::default();
            let id = 810_000 + 1_000 * k;
            fresh.insert(id, copy_of(&m, 800_000, id));
            let mut with = m.child_backends(body).unwrap();
            with.push(id);
            m.set_children(body, &with, &mut fresh).unwrap();
            with.pop();
            m.set_children(body, &with, &mut Default::default()).unwrap();
            m.retire_detached();
            k += 1;
        }
        assert!(m.node_slots() < slots + 64 && k > 1, "compacted after {k} rounds: {} slots", m.node_slots());
        assert!(m.has_kept());
        same(&build(&mut m).await, &whole(&m, &facts));
    }

    #[tokio::test]
    async fn a_subtree_hidden_or_shown_and_a_click_fact_changed_keep_the_build() {
        let (mut m, facts, shape) = forms_mirror();
        let build = async |m: &mut Mirror| build_offline(m, &facts, &shape).await;
        let first = build(&mut m).await;
        // `form.hidden = true`: the same nodes, none laid out (no computed styles).
        let form = m.find(|n| n.node_type == 1 && n.name == "FORM").expect("a form");
        let shown = m.read_again(form);
        let mut hidden = shown.clone();
        hidden.iter_mut().for_each(|n| n.styles = None);
        m.replace(hidden).unwrap();
        assert!(m.has_kept(), "hiding reaches the DOM pass only through its click hints, which are patched");
        let after_hide = build(&mut m).await;
        same(&after_hide, &whole(&m, &facts));
        assert!(first.text.contains("textbox") && !after_hide.text.contains("textbox"), "{}", after_hide.text);
        // Shown again: the same snapshot as before it was hidden.
        m.replace(shown.clone()).unwrap();
        assert!(m.has_kept());
        let after_show = build(&mut m).await;
        same(&after_show, &whole(&m, &facts));
        assert_eq!(after_show.text, first.text);
        // A list hidden loses its items' markers (generated boxes exist only when laid out);
        // shown again, it gets new ones. Either way the build is kept, and whole.
        let list = m.find(|n| n.node_type == 1 && n.name == "UL").expect("a list");
        let with_markers = m.read_again(list);
        assert!(with_markers.iter().any(|n| n.pseudo.is_some()), "the list's items have markers");
        let mut hidden: Vec<MNode> = Vec::new();
        let mut place = Vec::new();
        for n in &with_markers {
            if n.pseudo.is_some() {
                place.push(crate::incremental::mirror::NONE);
                continue;
            }
            place.push(hidden.len() as u32);
            let parent = place.get(n.parent as usize).copied().unwrap_or(crate::incremental::mirror::NONE);
            hidden.push(MNode { styles: None, parent, ..n.clone() });
        }
        m.replace(hidden).unwrap();
        assert!(m.has_kept(), "markers that went are taken out of what was kept");
        let list_hidden = build(&mut m).await;
        same(&list_hidden, &whole(&m, &facts));
        assert!(!list_hidden.text.contains("Blue mug") && first.text.contains("Blue mug"), "{}", list_hidden.text);
        let mut shown_again = with_markers.clone();
        for (j, n) in shown_again.iter_mut().enumerate() {
            if n.pseudo.is_some() {
                n.backend = 800_000 + j as i64;
            }
        }
        m.replace(shown_again).unwrap();
        assert!(m.has_kept(), "new markers are added to what was kept");
        let list_shown = build(&mut m).await;
        same(&list_shown, &whole(&m, &facts));
        assert_eq!(list_shown.text, first.text);
        // `cursor: pointer` set on the heading (it begins there: a click hint) and a listener
        // added to a paragraph: each then reads as clickable, as a whole build reads it.
        let heading = m.find(|n| n.node_type == 1 && n.name == "H1").expect("a heading");
        let mut again = m.read_again(heading);
        again.iter_mut().filter_map(|n| n.styles.as_mut()).for_each(|s| s[0] = "pointer".into());
        m.replace(again).unwrap();
        assert!(m.has_kept());
        let pointer = build(&mut m).await;
        same(&pointer, &whole(&m, &facts));
        assert!(pointer.text.contains("heading \"Your cart\" [ref=") && !first.text.contains("heading \"Your cart\" [ref="), "{}", pointer.text);
        let mut again = m.read_again(heading);
        again.iter_mut().filter_map(|n| n.styles.as_mut()).for_each(|s| s[0] = "auto".into());
        again[0].clickable = true;
        m.replace(again).unwrap();
        assert!(m.has_kept());
        let listener = build(&mut m).await;
        same(&listener, &whole(&m, &facts));
        assert_eq!(listener.text, pointer.text, "a listener is a click hint as the pointer was");
        let mut again = m.read_again(heading);
        again[0].clickable = false;
        m.replace(again).unwrap();
        let plain = build(&mut m).await;
        same(&plain, &whole(&m, &facts));
        assert_eq!(plain.text, first.text);
    }

    #[tokio::test]
    async fn a_text_put_in_another_texts_place_is_a_change_of_value_and_keeps_the_build() {
        let (mut m, facts, shape) = forms_mirror();
        let build = async |m: &mut Mirror| build_offline(m, &facts, &shape).await;
        let first = build(&mut m).await;
        // `h1.textContent = …`: the heading's one text goes, a new one (a new backend id) comes.
        let h1 = m.find(|n| n.node_type == 1 && n.name == "H1").expect("a heading");
        let old_text = m.child_backends(h1).unwrap();
        assert_eq!(old_text.len(), 1, "the fixture's heading holds one text");
        let mut text = m.read_again(old_text[0]);
        text[0].backend = 900_001;
        text[0].value = Some("Your basket".into());
        let mut fresh = rustc_hash::FxHashMap::default();
        fresh.insert(900_001, text);
        m.set_children(h1, &[900_001], &mut fresh).unwrap();
        assert!(m.has_kept(), "what the last build made still serves");
        assert!(m.patches_tree(&shape), "and the engine's tree is told of the new text");
        let after = build(&mut m).await;
        same(&after, &whole(&m, &facts));
        assert!(after.text.contains("heading \"Your basket\"") && !first.text.contains("Your basket"), "{}", after.text);
        assert!(m.node_of(900_001).is_some() && m.node_of(old_text[0]).is_none(), "the text is known by its new id");
        // The same when the heading is read whole (a small element whose children changed is).
        let mut whole_heading = m.read_again(h1);
        whole_heading[1].backend = 900_003;
        whole_heading[1].value = Some("Your order".into());
        m.replace(whole_heading).unwrap();
        assert!(m.has_kept() && m.patches_tree(&shape));
        let again = build(&mut m).await;
        same(&again, &whole(&m, &facts));
        assert!(again.text.contains("heading \"Your order\""), "{}", again.text);
        assert!(m.node_of(900_003).is_some() && m.node_of(900_001).is_none());
        // An element in a text's place is a change of the tree: the build is laid out again
        // from the mirror (the engine's tree is built again).
        let mut element = m.read_again(h1);
        element.truncate(1);
        element[0].backend = 900_002;
        element[0].parent = crate::incremental::mirror::NONE;
        let mut fresh = rustc_hash::FxHashMap::default();
        fresh.insert(900_002, element);
        m.set_children(h1, &[900_002], &mut fresh).unwrap();
        assert!(m.has_kept() && !m.patches_tree(&shape));
        same(&build(&mut m).await, &whole(&m, &facts));
    }

    #[tokio::test]
    async fn a_class_style_or_data_attribute_with_no_style_of_its_own_keeps_the_engine_tree() {
        let (mut m, facts, shape) = forms_mirror();
        let build = async |m: &mut Mirror| build_offline(m, &facts, &shape).await;
        let first = build(&mut m).await;
        // The engine never reads these: what they do reaches it as computed styles, unchanged here.
        change(
            &mut m,
            |n| named(n, "name", "email"),
            |n| {
                n.attrs.push(("class".into(), Some("active open".into())));
                n.attrs.push(("style".into(), Some("outline: 1px solid".into())));
                n.attrs.push(("data-state".into(), Some("open".into())));
            },
        );
        assert!(m.patches_tree(&shape), "the tree is kept");
        let after = build(&mut m).await;
        same(&after, &whole(&m, &facts));
        assert_eq!(after.text, first.text);
        // An attribute the engine reads does build the tree again.
        change(&mut m, |n| named(n, "name", "email"), |n| n.attrs.push(("aria-disabled".into(), Some("true".into()))));
        assert!(!m.patches_tree(&shape), "aria-disabled is read");
        let required = build(&mut m).await;
        same(&required, &whole(&m, &facts));
        assert_ne!(required.text, first.text);
    }

    #[tokio::test]
    async fn a_change_another_element_may_read_builds_the_tree_again_and_the_build_is_whole() {
        // Recorded with the DOM engine: the engine's styles follow `cursor`.
        let (mut m, facts, shape) = forms_mirror();
        let build = async |m: &mut Mirror| build_offline(m, &facts, &shape).await;
        build(&mut m).await;
        let text = |want: &'static str| move |n: &MNode| n.node_type == 3 && n.value.as_deref().is_some_and(|v| v.trim() == want);
        // A label's text is the name of the field it holds, which is not its ancestor.
        change(&mut m, text("Email"), |n| n.value = Some("E-mail ".into()));
        assert!(!m.patches_tree(&shape), "a label's text");
        let after_label = build(&mut m).await;
        assert!(after_label.text.contains("\"E-mail\""), "{}", after_label.text);
        same(&after_label, &whole(&m, &facts));
        // A text that empties parts its neighbours; one in the head names the document.
        change(&mut m, text("Your cart"), |n| n.value = Some("  ".into()));
        assert!(!m.patches_tree(&shape), "an emptied text");
        same(&build(&mut m).await, &whole(&m, &facts));
        // (The fixture's one select holds its options.)
        let option = m.find(|n| n.name == "OPTION" && !n.selected).expect("an option");
        change(&mut m, |n| n.backend == option, |n| n.selected = true);
        assert!(m.patches_tree(&shape), "an option chosen in the one field its label holds");
        same(&build(&mut m).await, &whole(&m, &facts));
    }

    #[tokio::test]
    async fn frames_in_other_processes_get_a_world_and_a_mark_once_and_one_that_gives_no_world_is_not_asked_again() {
        use std::sync::{Arc, Mutex};
        let calls = Arc::new(Mutex::new(Vec::<String>::new()));
        let seen = calls.clone();
        let t = Answer(move |method: &str, params: &Value| {
            seen.lock().unwrap().push(method.to_string());
            match method {
                // Two frames of this page in other processes, and one of another page.
                "Target.getTargets" => CdpReply::Ok(
                    json!({ "targetInfos": [
                        { "type": "iframe", "targetId": "A", "parentFrameId": "F" },
                        { "type": "iframe", "targetId": "B", "parentFrameId": "F" },
                        { "type": "iframe", "targetId": "Z", "parentFrameId": "other-page" },
                        { "type": "page", "targetId": "F" },
                    ] })
                    .to_string(),
                ),
                "Page.createIsolatedWorld" if params["frameId"] == "A" => CdpReply::Ok(json!({ "executionContextId": 9 }).to_string()),
                "Page.createIsolatedWorld" => CdpReply::Err("no session for this frame".into()),
                "Runtime.evaluate" => CdpReply::Ok(json!({ "result": { "type": "boolean", "value": true } }).to_string()),
                _ => CdpReply::Err("not expected".into()),
            }
        });
        let opts = opts();
        let reader = Reader { transport: &t, opts: &opts, deadline: Instant::now() + Duration::from_secs(5), group: "g".into() };
        let mut m = mirror();
        m.frames_elsewhere = true;
        m.blind_elsewhere = 2;
        let documents: rustc_hash::FxHashMap<String, String> = [("F".to_string(), "L".to_string())].into_iter().collect();
        assert!(matches!(watch_elsewhere(&reader, &mut m, &documents, "\"s-1\"", None).await, Ok(Ok(()))));
        assert_eq!(m.oopif_worlds.get("A"), Some(&9), "A's world, marked");
        assert!(m.oopif_unreachable.contains("B") && !m.oopif_worlds.contains_key("Z"));
        assert_eq!(calls.lock().unwrap().as_slice(), ["Target.getTargets", "Page.createIsolatedWorld", "Page.createIsolatedWorld", "Runtime.evaluate"]);
        // Every frame has a world or gave none: the next build asks nothing.
        calls.lock().unwrap().clear();
        assert!(matches!(watch_elsewhere(&reader, &mut m, &documents, "\"s-1\"", None).await, Ok(Ok(()))));
        assert!(calls.lock().unwrap().is_empty());
    }

    #[test]
    fn a_frame_with_a_shadow_tree_of_the_page_is_not_watched_but_user_agent_roots_do_not_count() {
        let input = json!({ "nodeName": "INPUT", "shadowRoots": [{ "nodeName": "#document-fragment", "shadowRootType": "user-agent" }] });
        let doc = |inner: Value| json!({ "nodeType": 9, "children": [{ "nodeName": "HTML", "children": [input.clone(), inner] }] });
        assert!(!has_author_shadow_root(&doc(json!({ "nodeName": "P" }))));
        for kind in ["open", "closed"] {
            let host = json!({ "nodeName": "DIV", "shadowRoots": [{ "nodeName": "#document-fragment", "shadowRootType": kind }] });
            assert!(has_author_shadow_root(&doc(host)), "{kind}");
        }
        // In a frame inside the frame, and in a template's content.
        let nested = json!({ "nodeName": "IFRAME", "contentDocument": { "nodeType": 9, "children": [{ "nodeName": "X", "shadowRoots": [{ "shadowRootType": "open" }] }] } });
        assert!(has_author_shadow_root(&doc(nested)));
        let template = json!({ "nodeName": "TEMPLATE", "templateContent": { "children": [{ "shadowRoots": [{ "shadowRootType": "closed" }] }] } });
        assert!(has_author_shadow_root(&doc(template)));
    }

    #[tokio::test]
    async fn a_browser_out_of_time_is_a_timeout_error_not_a_fallback() {
        match run(CdpReply::TimedOut, true).await {
            Err(e) => assert_eq!(e.code, ErrorCode::Timeout),
            _ => panic!("expected a timeout"),
        }
    }
}
