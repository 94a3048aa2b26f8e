//! CDP capture orchestration, independent of how commands reach the browser.
//!
//! [`CaptureSession`] is a state machine: it hands out batches of commands
//! (sent concurrently), takes their replies as JSON text and finally yields a
//! snapshot. [`super::capture_with`] drives it over any
//! [`super::CdpTransport`] (a JS session's `send`, the native connection,
//! recorded replies). Keeping I/O out of the plan makes every capture path
//! share it and lets `cargo test` replay recorded browser answers.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::{json, Value};

use super::calls::{Call, ChromeCall, FrameCall, WalkCall};
use super::context::{CaptureContext, World};
use super::transport::CdpReply;
use super::walk;
use crate::capture::calls::{Mark, MarkCall};
use crate::capture::frames::{child_frames, stitch, FrameCapture, FrameInfo};
use crate::dom::snapshot_reader::{self, read_snapshot, SnapshotRead};
use crate::dom::viewport::{Boxes, Placement};
use crate::dom::DomTree;
use crate::error::{ErrorCode, Result, WebAiError};
use crate::options::{DomRead, Engine, SnapshotOptions};
use crate::text::snapshot::{build_snapshot, PageFacts, WebAiSnapshot};
use crate::tree::cdp_reader::parse_full_ax_tree;
use crate::tree::rows_reader::{parse_rows, projection_spec};
use crate::tree::AxTree;

#[derive(Debug, Clone, PartialEq)]
pub struct CdpCommand {
    pub call: Call,
    pub params: Value,
    /// For transports that hold parsed results (the JS driver): copy only these
    /// fields into the reply text. Transports with raw JSON send it unchanged.
    pub project: Option<Value>,
    /// Send through the session of this out-of-process frame (its frame id),
    /// not the page's session.
    pub session: Option<String>,
}

impl CdpCommand {
    pub(super) fn new(call: Call, params: Value) -> CdpCommand {
        CdpCommand { call, params, project: None, session: None }
    }
}

pub enum Step {
    Send(Vec<CdpCommand>),
    Done(Box<WebAiSnapshot>),
}

/// Frames read per capture; more are listed in a note.
const MAX_FRAMES: usize = 200;

/// The isolated world the page scripts run in. Chrome keeps one world per
/// name and frame, so repeat captures reuse it rather than add worlds.
pub use crate::page::WORLD_NAME;

/// From this many nodes in a DOM snapshot, the DOM pass reads it on a thread of its own.
pub(crate) const PARALLEL_READ_NODES: usize = 8_000;

/// The page's URL, title, viewport and DOM-hash input (see the script).
const PAGE_FACTS_JS: &str = crate::page::PAGE_FACTS;

/// The page facts, compiled and kept in the world (`crate::page::FACTS_FN`) or, where they
/// ran before (`installed`), called by name.
fn page_facts_expression(selectors: &[&str], include_html: bool, max_chars: u32, marks: bool, count: bool, installed: bool) -> String {
    let sels = serde_json::to_string(selectors).unwrap_or_else(|_| "[]".into());
    let facts = crate::page::FACTS_FN;
    let function = if installed { format!("globalThis.{facts}") } else { format!("(globalThis.{facts} = ({PAGE_FACTS_JS}))") };
    format!("{function}({sels}, {include_html}, {max_chars}, {marks}, {count})")
}

/// The focused element or the modal dialog, as a remote object (the DOM
/// engine), asked only when the page facts say there is one.
const MARKED_ELEMENT_JS: &str = crate::page::MARKED_ELEMENT;

/// The page facts script's answer, if the reply has one.
fn facts_value(reply: &CdpReply) -> Option<serde_json::Map<String, Value>> {
    let CdpReply::Ok(text) = reply else { return None };
    let value = crate::compat::json_text::from_str_lossy::<Value>(text).ok()?;
    value.pointer("/result/value").and_then(Value::as_object).cloned()
}

/// Where the engine's computed styles begin among a node's with these options: after those the DOM pass asks for.
fn engine_style_at(opts: &SnapshotOptions) -> usize {
    let boxes = opts.wants_boxes() || opts.mark_untrusted;
    dom_snapshot_params(opts.mark_untrusted, boxes)["computedStyles"].as_array().map_or(0, Vec::len)
}

/// What a call that ran out of time becomes when it is only a note.
const NO_ANSWER: &str = "no answer within timeoutMs";

/// A `DOM.getDocument` answer read into a tree, or why it could not be.
type DomReply = std::result::Result<DomTree, String>;

/// What the DOM pass read for one process (the page, or an out-of-process frame).
#[derive(Default)]
struct DomParts {
    tree: Option<DomReply>,
    click_hints: Vec<i64>,
    boxes: Option<Boxes>,
    concealed: Vec<(i64, crate::dom::concealment::Concealed)>,
    /// The shadow hosts whose element trees are still to be grafted into `tree`
    /// (backend id, index in it), asked with `DOM.describeNode`; `grafted`: some were.
    hosts: Vec<(i64, u32)>,
    grafted: bool,
}

pub struct CaptureSession {
    opts: SnapshotOptions,
    ctx: CaptureContext,
    started: Instant,
    replies: HashMap<Call, CdpReply>,
    waiting: Vec<Call>,
    root_backend_id: Option<i64>,
    stage: Stage,
    /// The tree is read as soon as its reply arrives, while the page still
    /// answers the other calls of the batch.
    ax_tree: Option<Result<AxTree>>,
    facts: Option<PageFacts>,
    frames: Vec<FrameJob>,
    frame_trees: Vec<Option<Result<AxTree>>>,
    frame_notes: Vec<String>,
    /// Frames not read (over the limit, failed, no answer) or not placed.
    unread_frames: usize,
    frame_round: u8,
    /// The DOM pass: the page's tree and each out-of-process frame's (by job).
    dom: DomParts,
    /// How many of the DOM pass's trees are the page's own (the frames' in other
    /// processes follow them): only those are kept for the next build.
    page_dom_trees: usize,
    frame_doms: Vec<DomParts>,
    /// `DOM.getDocument` calls for processes whose DOMSnapshot could not
    /// stand in for the tree (shadow roots); they ride on the next batch.
    dom_pending: Vec<CdpCommand>,
    /// The sessions `DOM.getDocument` went to (None: the page's), whose DOM
    /// agent the capture leaves enabled.
    dom_documented: Vec<Option<String>>,
    /// The connection or tab went away: the capture fails with this.
    fault: Option<WebAiError>,
    /// The page's `Page.getFrameTree` answer, read once: it names the main
    /// frame (for the isolated world) and the frames to read.
    frame_tree: Option<Value>,
    /// Frame id → loaderId of every frame tree read (keys a session's stable refs).
    documents: rustc_hash::FxHashMap<String, String>,
    /// A previous capture's world (`ctx.world`): whether the frame tree showed its document.
    hint: Hint,
    /// The hinted page facts and root element replies, until the hint is judged.
    hinted_facts: Option<CdpReply>,
    hinted_root: Option<CdpReply>,
    /// The world the page scripts ran in, for the next capture of this page.
    pub world: Option<World>,
    /// The world a walk of this capture ran in and left its script in (see [`CaptureSession::world_after`]).
    walked_in: Option<i64>,
    /// With `ctx.incremental`: the page's DOM snapshot kept for repeat captures.
    pub mirror: Option<crate::incremental::Mirror>,
    /// The page's DOM snapshot was given (a repeat capture's patched mirror): it is not asked for.
    prebuilt: bool,
    /// The DOM engine's nodes whose subtrees Chrome gives (`AxTree::chrome_subtrees`), as asked.
    chrome_jobs: Vec<ChromeJob>,
    /// The world (None: the page's own) the page scripts were sent to.
    script_context: Option<i64>,
    /// What the DOM engine's marks found: the focused element's and the modal dialog's `backendNodeId`.
    focused: Option<i64>,
    modal: Option<i64>,
    /// `Page.getFrameTree` and `Target.getTargets` were asked.
    frame_tree_asked: bool,
    targets_asked: bool,
    /// The page's DOM snapshot has frame owners hosting no document in it
    /// (frames in other processes): the DOM engine then asks for the targets.
    unhosted_frames: bool,
    /// Those owners' `backendNodeId`s, when the page's own snapshot (or walk) named them.
    unhosted_owners: Vec<i64>,
    /// The frames in other processes read alongside the page's first batch (`early_frames`) were looked for.
    early_frames_asked: bool,
    /// A repeat capture's build: the engine's page and the DOM pass's trees are
    /// kept for the next (`built`), and may come from the last (`given_dom`).
    keep_built: bool,
    pub built: Option<crate::incremental::kept::Built>,
    built_page: Option<crate::engine::page::Page>,
    /// What the engine's build of `built_page` knew, for patching its tree after text changes.
    built_index: Option<crate::engine::retext::Index>,
    given_dom: Option<Vec<DomTree>>,
    /// A repeat capture's layout boxes of the page's document, read again by
    /// script (`crate::incremental::layout`): they stand for the build's.
    pub(crate) given_boxes: Option<Boxes>,
    /// A page session's capture records what each frame in another process
    /// answered (`FrameReplies`): the next repeat capture replays a frame that
    /// has not changed since instead of asking it again (`frame_replay`).
    record_frames: bool,
    /// The page facts are the caller's (a repeat capture's build, which has read them):
    /// no page script runs, and the frame tree only names frames.
    given_facts: bool,
    pub(crate) frame_replies: FrameReplies,
    /// The bytes of reply text `frame_replies` holds (see `MAX_RECORDED_FRAME_BYTES`).
    recorded_bytes: usize,
    pub(crate) frame_replay: FrameReplies,
    /// Whether the page is read by a walk instead of a DOM snapshot (`super::walk`), and how far it got.
    walk: Walk,
}

enum Walk {
    Off,
    /// Its calls are out; it is read once the first batch is answered. `context`:
    /// the world its facts were asked in, where its generated boxes are asked (none: no world).
    Asked {
        context: Option<i64>,
        /// The generated boxes asked for as soon as the document came (`walk::generated_boxes`).
        boxes: Option<Vec<(usize, &'static str)>>,
    },
    /// Its document and facts are read, and its generated boxes asked for, while
    /// the rest is asked; or why they could not be read (`Err`).
    Parsed(std::result::Result<walk::Parsed, String>),
    /// Read (or given up for the DOM snapshot).
    Read,
}

/// What frames in other processes answered a capture.
#[derive(Debug, Default, Clone)]
pub struct FrameReplies {
    /// By frame id: each frame call's reply text (its owner, frame tree and DOM snapshot).
    pub frames: rustc_hash::FxHashMap<String, Vec<(FrameCall, String)>>,
    /// The `Target.getTargets` reply that named them.
    pub targets: Option<String>,
}

/// What a repeat capture's build is given of the frames in other processes
/// (a page session's mirror reads none of them): each one read again, or
/// answered as it last was.
#[derive(Debug, Default)]
pub(crate) struct FramesGiven {
    /// By frame id: the replies of each frame that has not changed since (see `FrameReplies`).
    pub replay: rustc_hash::FxHashMap<String, Vec<(FrameCall, String)>>,
    /// The frame tree and the last capture's targets, when every frame is as it
    /// was: they name the same frames, and the build asks nothing to find them.
    pub named: Option<(Value, String)>,
}

/// The most reply text a capture records for replay (a mirror slot keeps it): a
/// page of many or huge frames has the rest asked again, as before.
const MAX_RECORDED_FRAME_BYTES: usize = 16 << 20;

/// One `Accessibility.queryAXTree` for a node of the DOM engine's tree whose
/// content is in a user-agent shadow root.
struct ChromeJob {
    /// The frame job whose tree holds the node (None: the page's).
    frame: Option<usize>,
    node: u32,
    reply: Option<Result<AxTree>>,
}

/// A job for each out-of-process frame the `Target.getTargets` reply lists
/// under a frame in `known`, each then known (nested ones follow their parent
/// when the reply lists the parent first). Frames in `known` are not listed again.
fn oopif_jobs(targets: &Value, known: &mut Vec<String>) -> Vec<FrameJob> {
    let mut jobs = Vec::new();
    for t in targets.get("targetInfos").and_then(Value::as_array).into_iter().flatten() {
        let is_frame = t.get("type").and_then(Value::as_str) == Some("iframe");
        let parent = t.get("parentFrameId").and_then(Value::as_str);
        let id = t.get("targetId").and_then(Value::as_str);
        if let (true, Some(parent), Some(id)) = (is_frame, parent, id) {
            if known.iter().any(|k| k == parent) && !known.iter().any(|k| k == id) {
                known.push(id.to_string());
                jobs.push(FrameJob {
                    info: FrameInfo {
                        id: id.to_string(),
                        parent_id: Some(parent.to_string()),
                        url: t.get("url").and_then(Value::as_str).unwrap_or_default().to_string(),
                    },
                    session: Some(id.to_string()),
                    oopif_root: true,
                });
            }
        }
    }
    jobs
}

/// What became of a previous capture's world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hint {
    None,
    /// Sent in the first batch; the frame tree has not been read yet.
    Unjudged,
    /// The same document: its replies stand.
    Confirmed,
    /// Another document, or the world is gone: a new world was asked for.
    Rejected,
}

/// A frame to read, and where its commands go.
struct FrameJob {
    info: FrameInfo,
    /// The out-of-process frame whose session answers for this frame (None: the page's).
    session: Option<String>,
    /// This frame is itself the root of an out-of-process frame.
    oopif_root: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    NotStarted,
    First,
    Describe,
    Frames,
    /// The `DOM.getDocument` calls nothing else was left to carry.
    DomDocuments,
    /// The DOM engine's user-agent subtrees of a tree given, not captured.
    ChromeSubtrees,
    Finished,
}

impl CaptureSession {
    pub fn new(opts: SnapshotOptions, ctx: CaptureContext) -> CaptureSession {
        CaptureSession {
            opts,
            ctx,
            started: Instant::now(),
            replies: HashMap::new(),
            waiting: Vec::new(),
            root_backend_id: None,
            stage: Stage::NotStarted,
            ax_tree: None,
            facts: None,
            frames: Vec::new(),
            frame_trees: Vec::new(),
            frame_notes: Vec::new(),
            unread_frames: 0,
            frame_round: 0,
            dom: DomParts::default(),
            frame_doms: Vec::new(),
            dom_pending: Vec::new(),
            dom_documented: Vec::new(),
            fault: None,
            frame_tree: None,
            documents: rustc_hash::FxHashMap::default(),
            hint: Hint::None,
            hinted_facts: None,
            hinted_root: None,
            world: None,
            walked_in: None,
            mirror: None,
            prebuilt: false,
            chrome_jobs: Vec::new(),
            script_context: None,
            focused: None,
            modal: None,
            frame_tree_asked: false,
            targets_asked: false,
            unhosted_frames: false,
            page_dom_trees: 0,
            unhosted_owners: Vec::new(),
            early_frames_asked: false,
            keep_built: false,
            built: None,
            built_page: None,
            built_index: None,
            given_dom: None,
            given_boxes: None,
            record_frames: false,
            given_facts: false,
            frame_replies: FrameReplies::default(),
            recorded_bytes: 0,
            frame_replay: FrameReplies::default(),
            walk: Walk::Off,
        }
        .recording()
    }

    /// A page session's capture records its frames' replies (see `record_frames`).
    fn recording(mut self) -> CaptureSession {
        self.record_frames = self.ctx.incremental.is_some() && self.dom_engine();
        self
    }

    /// Milliseconds left before `timeoutMs`; transports bound each call by it.
    pub fn remaining_ms(&self) -> u64 {
        (self.opts.timeout_ms as u64).saturating_sub(self.started.elapsed().as_millis() as u64)
    }

    pub fn timeout_error(&self, method: &str) -> WebAiError {
        WebAiError::new(ErrorCode::Timeout, format!("snapshot capture exceeded timeoutMs ({} ms) waiting for {method}", self.opts.timeout_ms))
            .with_evidence(json!({ "method": method, "timeoutMs": self.opts.timeout_ms }))
    }

    /// The first batch: the frame tree, the tree, the targets and the DOM pass.
    pub fn start(&mut self) -> Vec<CdpCommand> {
        self.started = Instant::now();
        self.stage = Stage::First;
        // On a JS session every message costs (a Playwright page: 0.2-0.3 ms
        // of JS each), and on a small page that is most of a capture. So the
        // DOM engine, given a world and no ref keys to keep, judges the world
        // by the document the page facts name (`judge_hint`), not by the
        // frame tree, and asks for targets only when its DOM snapshot shows a
        // frame in another process (`frames_or_finish`).
        let lean =
            self.dom_engine() && self.ctx.world.as_ref().is_some_and(|w| w.token.is_some()) && self.ctx.numbering.is_none() && self.ctx.incremental.is_none();
        let mut cmds = Vec::new();
        if !lean && !self.frame_tree_asked {
            // The frame tree first: it names the main frame, whose isolated
            // world the page scripts then run in (see `receive`), while the
            // renderer builds the tree.
            cmds.push(CdpCommand::new(Call::FrameTree, json!({})));
            self.frame_tree_asked = true;
        }
        if !self.dom_engine() {
            cmds.push(CdpCommand { project: Some(projection_spec()), ..CdpCommand::new(Call::AxTree, json!({})) });
        } else if !self.prebuilt && self.walks() {
            self.walk = Walk::Asked { context: None, boxes: None };
            cmds.extend(walk_commands());
        } else if !self.prebuilt {
            // The DOM engine's tree: ahead of the page scripts, which the
            // renderer then runs while the snapshot's reply travels and is read.
            cmds.push(self.dom_snapshot_command(Call::DomSnapshot, None));
        }
        if (!self.dom_engine() || self.unhosted_frames || self.expects_frames_elsewhere()) && !self.targets_asked {
            // Out-of-process (cross-site) frames are not in the page's frame tree.
            cmds.push(CdpCommand::new(Call::Targets, json!({})));
            self.targets_asked = true;
        }
        if let Some(world) = self.ctx.world.clone().filter(|_| !self.given_facts) {
            // A world this page had: the page scripts go in the first batch,
            // and the frame tree, read alongside, says whether they count.
            self.hint = Hint::Unjudged;
            cmds.extend(self.scripts_in(Some(world.context_id), Call::HintedFacts, Call::HintedRoot, self.dom_engine()));
            if matches!(self.walk, Walk::Asked { .. }) {
                cmds.push(self.walk_facts(world.context_id));
            }
        }
        if self.opts.dom_pass && !self.dom_engine() && !self.prebuilt {
            // The DOM pass rides along, after the tree: the renderer takes
            // the snapshot while the tree's reply travels and is read. Its
            // reply is the element tree too, unless the page has shadow
            // roots; then `DOM.getDocument` follows (see `dom_snapshot`).
            cmds.push(self.dom_snapshot_command(Call::DomSnapshot, None));
        }
        self.waiting = cmds.iter().map(|c| c.call).collect();
        cmds
    }

    /// Take one reply. What it returns joins the batch in flight: the page
    /// scripts, once the frame tree names the frame whose world they need.
    pub fn receive(&mut self, call: Call, reply: CdpReply) -> Vec<CdpCommand> {
        if let (true, Call::Frame(k, fc), CdpReply::Ok(text)) = (self.record_frames, call, &reply) {
            if let Some(job) = self.frames.get(k as usize).filter(|j| j.oopif_root && self.recorded_bytes + text.len() <= MAX_RECORDED_FRAME_BYTES) {
                self.recorded_bytes += text.len();
                self.frame_replies.frames.entry(job.info.id.clone()).or_default().push((fc, text.clone()));
            }
        }
        if let (true, Call::Targets, CdpReply::Ok(text)) = (self.record_frames, call, &reply) {
            self.frame_replies.targets = Some(text.clone());
        }
        if let CdpReply::Broken(e) = reply {
            self.fault.get_or_insert(e);
            self.replies.insert(call, CdpReply::Err(String::new()));
            return Vec::new();
        }
        // An optional call that ran out of time is only a note.
        let reply = match reply {
            CdpReply::TimedOut if call.optional() => CdpReply::Err(NO_ANSWER.into()),
            other => other,
        };
        let follow = match (call, &reply) {
            // The facts are given: the tree only names the frames to read, and no world is needed.
            (Call::FrameTree, CdpReply::Ok(text)) if self.given_facts => {
                self.frame_tree = crate::compat::json_text::from_str_lossy::<Value>(text).ok();
                Vec::new()
            }
            (Call::FrameTree, _) if self.given_facts => Vec::new(),
            (Call::FrameTree, CdpReply::Ok(text)) if self.stage == Stage::First => {
                self.frame_tree = crate::compat::json_text::from_str_lossy::<Value>(text).ok();
                let main = self.main_frame();
                let same = match (&self.ctx.world, &main) {
                    (Some(w), Some((id, loader))) => &w.frame_id == id && Some(&w.loader_id) == loader.as_ref(),
                    _ => false,
                };
                if self.hint == Hint::Unjudged {
                    self.hint = if same { Hint::Confirmed } else { Hint::Rejected };
                }
                match main {
                    _ if same && self.hint != Hint::Rejected => {
                        self.world = self.ctx.world.clone();
                        Vec::new()
                    }
                    Some((frame_id, _)) => vec![CdpCommand::new(Call::CreateWorld, json!({ "frameId": frame_id, "worldName": WORLD_NAME }))],
                    None => self.page_scripts(None, Some("the frame tree named no main frame")),
                }
            }
            (Call::FrameTree, CdpReply::Ok(text)) => {
                // Asked later, for the targets: it names the frames they hang from.
                self.frame_tree = crate::compat::json_text::from_str_lossy::<Value>(text).ok();
                Vec::new()
            }
            (Call::FrameTree, _) if self.stage == Stage::First => {
                if self.hint == Hint::Unjudged {
                    self.hint = Hint::Rejected;
                }
                self.page_scripts(None, Some("the frame tree could not be read"))
            }
            (Call::CreateWorld, CdpReply::Ok(text)) => {
                let context = crate::compat::json_text::from_str_lossy::<Value>(text).ok().and_then(|v| v.get("executionContextId").and_then(Value::as_i64));
                if let (Some(id), Some((frame_id, Some(loader_id)))) = (context, self.main_frame()) {
                    self.world = Some(World { frame_id, loader_id, context_id: id, token: None, walk: None, frames: None, walked: false });
                }
                match context {
                    Some(id) => self.page_scripts(Some(id), None),
                    None => self.page_scripts(None, Some("Page.createIsolatedWorld gave no context")),
                }
            }
            (Call::CreateWorld, CdpReply::Err(m)) => {
                let why = format!("Page.createIsolatedWorld failed: {m}");
                self.page_scripts(None, Some(&why))
            }
            (Call::Mark(mark, MarkCall::Find), CdpReply::Ok(text)) => {
                let object = crate::compat::json_text::from_str_lossy::<Value>(text)
                    .ok()
                    .and_then(|v| v.pointer("/result/objectId").and_then(Value::as_str).map(str::to_string));
                match object {
                    Some(id) => vec![
                        CdpCommand::new(Call::Mark(mark, MarkCall::Describe), json!({ "objectId": id })),
                        CdpCommand::new(Call::Mark(mark, MarkCall::Release), json!({ "objectId": id })),
                    ],
                    None => Vec::new(),
                }
            }
            (Call::Mark(mark, MarkCall::Describe), CdpReply::Ok(text)) => {
                let backend =
                    crate::compat::json_text::from_str_lossy::<Value>(text).ok().and_then(|v| v.pointer("/node/backendNodeId").and_then(Value::as_i64));
                match mark {
                    Mark::Focused => self.focused = backend,
                    Mark::Modal => self.modal = backend,
                }
                Vec::new()
            }
            // The walk's listeners are asked of the page's own world (see `repeat::page_listeners`).
            (Call::Walk(WalkCall::PageDocument), CdpReply::Ok(text)) => {
                let object = crate::compat::json_text::from_str_lossy::<Value>(text)
                    .ok()
                    .and_then(|v| v.pointer("/result/objectId").and_then(Value::as_str).map(str::to_string));
                object.map(|id| CdpCommand::new(Call::Walk(WalkCall::Listeners), json!({ "objectId": id, "depth": -1, "pierce": true }))).into_iter().collect()
            }
            (Call::ChromeSubtree(j, ChromeCall::Resolve), _) => self.query_chrome_subtree(j, &reply),
            // The page facts say whether there is something to mark; if so, it is asked at once.
            (Call::PageFacts, _) => {
                self.learn_token(&reply);
                self.mark_scripts(&reply)
            }
            _ => Vec::new(),
        };
        self.waiting.extend(follow.iter().map(|c| c.call));
        match call {
            Call::PageFacts => {
                self.facts = Some(self.read_page_facts(&reply));
                self.replies.insert(call, CdpReply::Ok(String::new()));
            }
            Call::HintedFacts | Call::HintedRoot => {
                let slot = if call == Call::HintedFacts { &mut self.hinted_facts } else { &mut self.hinted_root };
                *slot = Some(reply);
                self.replies.insert(call, CdpReply::Ok(String::new()));
            }
            c if c.is_dom() => {
                let snapshot = !c.is_document();
                let mut more = self.receive_dom(call, reply);
                if snapshot {
                    // Asked at once, they join the batch in flight.
                    more.extend(self.ask_chrome_subtrees());
                }
                self.waiting.extend(more.iter().map(|c| c.call));
                return follow.into_iter().chain(more).collect();
            }
            Call::ChromeSubtree(j, ChromeCall::Query) => {
                if let Some(job) = self.chrome_jobs.get_mut(j as usize) {
                    job.reply = Some(match &reply {
                        CdpReply::Ok(text) => parse_full_ax_tree(text),
                        CdpReply::Err(msg) => Err(WebAiError::new(ErrorCode::CaptureFailed, format!("{}: {msg}", call.method()))),
                        CdpReply::TimedOut | CdpReply::Broken(_) => Err(WebAiError::new(ErrorCode::Timeout, format!("{}: {NO_ANSWER}", call.method()))),
                    });
                }
                self.replies.insert(call, CdpReply::Ok(String::new()));
            }
            Call::Frame(k, FrameCall::AxTree) => {
                if let Some(slot) = self.frame_trees.get_mut(k as usize) {
                    *slot = Some(match &reply {
                        CdpReply::Ok(text) => parse_ax_reply(text),
                        CdpReply::Err(msg) => Err(WebAiError::new(ErrorCode::CaptureFailed, msg.clone())),
                        CdpReply::TimedOut | CdpReply::Broken(_) => Err(WebAiError::new(ErrorCode::Timeout, NO_ANSWER)),
                    });
                }
                self.replies.insert(call, CdpReply::Ok(String::new()));
            }
            Call::AxTree if matches!(reply, CdpReply::Ok(_)) => {
                if let CdpReply::Ok(text) = &reply {
                    self.ax_tree = Some(parse_ax_reply(text));
                }
                // Keep only a marker: the tree is parsed, the text can go.
                self.replies.insert(call, CdpReply::Ok(String::new()));
            }
            Call::Walk(WalkCall::Document | WalkCall::Facts) => {
                let early = if call == Call::Walk(WalkCall::Document) { self.ask_generated_boxes(&reply) } else { Vec::new() };
                self.waiting.extend(early.iter().map(|c| c.call));
                self.replies.insert(call, reply);
                let later = self.walk_read_so_far();
                self.waiting.extend(later.iter().map(|c| c.call));
                return follow.into_iter().chain(early).chain(later).collect();
            }
            Call::Targets | Call::FrameTree => {
                self.replies.insert(call, reply);
                let early = self.early_frames();
                self.waiting.extend(early.iter().map(|c| c.call));
                return follow.into_iter().chain(early).collect();
            }
            _ => {
                self.replies.insert(call, reply);
            }
        }
        follow
    }

    /// Whether the DOM engine's first batch asks for the targets: when the page's
    /// last capture in this world found frames in other processes, or none has said
    /// yet. (On a page without them the call is spared: on a JS session each
    /// message costs 0.2–0.3 ms, much of a small page's capture.)
    fn expects_frames_elsewhere(&self) -> bool {
        self.dom_engine()
            && !self.prebuilt
            && !self.given_facts
            && self.opts.root_selector.is_none()
            && self.ctx.world.as_ref().and_then(|w| w.frames) != Some(false)
    }

    /// Frames in other processes whose parent the capture knows already (the
    /// main frame, by the world or the frame tree; the same-process frames the
    /// frame tree names), read from the first batch on: each in its own
    /// process, while the page's renderer still builds its DOM snapshot,
    /// instead of once that is read. (bbc-1 of `../shared/pages`, read through
    /// a Playwright page: its four such frames were asked at 37 ms, after the
    /// page's snapshot and facts, and the capture ended at 53.) Frames found
    /// later (a parent in another frame, or one the snapshot shows and the
    /// targets did not) are read as before (`frames_or_finish`).
    fn early_frames(&mut self) -> Vec<CdpCommand> {
        if self.early_frames_asked || self.stage != Stage::First || !self.expects_frames_elsewhere() {
            return Vec::new();
        }
        // The frame tree, when asked, names the same-process frames too: wait for it.
        if self.frame_tree_asked && !self.replies.contains_key(&Call::FrameTree) {
            return Vec::new();
        }
        let Some(targets) = self.reply_json(Call::Targets) else { return Vec::new() };
        let mut known: Vec<String> = match &self.frame_tree {
            Some(tree) => tree
                .pointer("/frameTree/frame/id")
                .and_then(Value::as_str)
                .map(str::to_string)
                .into_iter()
                .chain(child_frames(tree).into_iter().map(|f| f.id))
                .collect(),
            None => self.ctx.world.iter().map(|w| w.frame_id.clone()).collect(),
        };
        if known.is_empty() {
            return Vec::new();
        }
        self.early_frames_asked = true;
        let jobs = oopif_jobs(&targets, &mut known);
        if jobs.is_empty() {
            return Vec::new();
        }
        self.queue_frame_jobs(jobs)
    }

    /// The page facts and the `rootSelector` lookup, run in our isolated world
    /// (`context`) so nothing the page did to its globals or prototypes
    /// changes what they read; in the page's own world, with a note, only
    /// when no isolated world could be had.
    fn page_scripts(&mut self, context: Option<i64>, no_world: Option<&str>) -> Vec<CdpCommand> {
        if let Some(why) = no_world {
            self.frame_notes.push(format!("page scripts ran in the page's own world ({why}), so the page could change what they read"));
        }
        self.script_context = context;
        let mut cmds = self.scripts_in(context, Call::PageFacts, Call::FindRoot, self.dom_engine());
        // (With no world the walk has no facts, and the capture takes its DOM snapshot.)
        if let (Walk::Asked { .. }, Some(id)) = (&self.walk, context) {
            cmds.push(self.walk_facts(id));
        }
        cmds
    }

    /// Whether this capture reads the page by a walk (`DomRead`): never where
    /// it needs layout boxes, which only a DOM snapshot gives.
    fn walks(&self) -> bool {
        if self.opts.wants_boxes() || self.opts.mark_untrusted {
            return false;
        }
        match self.opts.dom_read {
            DomRead::Snapshot => false,
            DomRead::Walk => true,
            DomRead::Auto => self.ctx.world.as_ref().and_then(|w| w.walk) == Some(true),
        }
    }

    /// The world the page scripts ran in, for the next capture: it keeps the
    /// walk's script once a walk there read the page.
    pub(crate) fn world_after(&self) -> Option<World> {
        let mut world = self.world.clone()?;
        world.walked |= self.walked_in == Some(world.context_id);
        Some(world)
    }

    /// The walk's facts of the whole document, in our world `context`.
    fn walk_facts(&mut self, context: i64) -> CdpCommand {
        if let Walk::Asked { context: asked_in, .. } = &mut self.walk {
            *asked_in = Some(context);
        }
        let walked = [self.world.as_ref(), self.ctx.world.as_ref()].into_iter().flatten().any(|w| w.context_id == context && w.walked);
        let expression = walk::facts_expression(&self.snapshot_style_names(), walked);
        CdpCommand::new(Call::Walk(WalkCall::Facts), json!({ "expression": expression, "contextId": context, "returnByValue": true }))
    }

    /// The document is in, and the walk's facts already asked (in the world
    /// `context`): its generated boxes are asked for at once, behind them.
    fn ask_generated_boxes(&mut self, document: &CdpReply) -> Vec<CdpCommand> {
        let (Walk::Asked { context: Some(context), boxes: None }, CdpReply::Ok(text)) = (&self.walk, document) else { return Vec::new() };
        let context = *context;
        let Ok(list) = walk::generated_boxes(text) else { return Vec::new() };
        let expression = walk::later_expression(&self.snapshot_style_names(), &list);
        if let Walk::Asked { boxes, .. } = &mut self.walk {
            *boxes = Some(list);
        }
        vec![CdpCommand::new(Call::Walk(WalkCall::Later), json!({ "expression": expression, "contextId": context, "returnByValue": true }))]
    }

    /// Once the walk's document and facts are in: read them, and ask for the
    /// generated boxes at once, joining the batch in flight (the listeners
    /// are still being asked). What cannot be read waits for `read_walk`.
    fn walk_read_so_far(&mut self) -> Vec<CdpCommand> {
        let (Some(CdpReply::Ok(_)), Some(CdpReply::Ok(_))) =
            (self.replies.get(&Call::Walk(WalkCall::Document)), self.replies.get(&Call::Walk(WalkCall::Facts)))
        else {
            return Vec::new();
        };
        let Walk::Asked { context: Some(context), boxes } = &mut self.walk else { return Vec::new() };
        let (context, boxes) = (*context, boxes.take());
        let asked = boxes.is_some();
        let mut take = |c: WalkCall| match self.replies.get_mut(&Call::Walk(c)) {
            // Taken: the document's reply is the page's size.
            Some(CdpReply::Ok(t)) => std::mem::take(t),
            _ => String::new(),
        };
        let (document, facts) = (take(WalkCall::Document), take(WalkCall::Facts));
        let parsed = walk::parse(document, &facts, boxes);
        if parsed.is_ok() {
            self.walked_in = Some(context);
        }
        match parsed {
            Ok(parsed) if asked => {
                self.walk = Walk::Parsed(Ok(parsed));
                Vec::new()
            }
            Ok(parsed) => {
                let expression = walk::later_expression(&self.snapshot_style_names(), &parsed.later);
                self.walk = Walk::Parsed(Ok(parsed));
                vec![CdpCommand::new(Call::Walk(WalkCall::Later), json!({ "expression": expression, "contextId": context, "returnByValue": true }))]
            }
            Err(why) => {
                self.walk = Walk::Parsed(Err(why));
                Vec::new()
            }
        }
    }

    /// After the first batch: the walk's replies into the page's snapshot; if
    /// they cannot stand in for a DOM snapshot, the batch that asks for one.
    fn read_walk(&mut self) -> Option<Step> {
        let frame_id = self.world.as_ref().map(|w| w.frame_id.clone()).or_else(|| self.main_frame().map(|(id, _)| id));
        let style_count = self.snapshot_style_names().len();
        let replies = &self.replies;
        let text = |c: WalkCall| -> std::result::Result<&str, String> {
            match replies.get(&Call::Walk(c)) {
                Some(CdpReply::Ok(t)) => Ok(t.as_str()),
                Some(CdpReply::Err(m)) => Err(format!("{} failed: {m}", Call::Walk(c).method())),
                _ => Err(format!("{} gave no answer", Call::Walk(c).method())),
            }
        };
        let read = match std::mem::replace(&mut self.walk, Walk::Read) {
            Walk::Parsed(Ok(parsed)) => {
                text(WalkCall::Listeners).and_then(|listeners| walk::finish(parsed, listeners, text(WalkCall::Later).ok(), frame_id, style_count))
            }
            Walk::Parsed(Err(why)) => Err(why),
            // The document or the facts did not answer, or there was no world to walk the page in.
            Walk::Asked { .. } | Walk::Off | Walk::Read => {
                text(WalkCall::Document).and(text(WalkCall::Facts)).and(Err("there was no world to walk the page in".to_string()))
            }
        };
        for c in [WalkCall::Listeners, WalkCall::Later] {
            self.replies.insert(Call::Walk(c), CdpReply::Ok(String::new()));
        }
        match read {
            Ok(mirror) => {
                self.take_page_mirror(mirror);
                None
            }
            Err(why) => {
                // This document is not walked again.
                if let Some(w) = self.world.as_mut() {
                    w.walk = Some(false);
                }
                if self.opts.dom_read == DomRead::Walk {
                    self.frame_notes.push(format!("the page was read with a DOM snapshot, not a walk: {why}"));
                }
                let snapshot = self.dom_snapshot_command(Call::DomSnapshot, None);
                Some(self.send(vec![snapshot]))
            }
        }
    }

    /// The DOM engine's marks the page facts said there is something for (a
    /// focused element, a modal dialog), in the world the scripts ran in.
    fn mark_scripts(&self, reply: &CdpReply) -> Vec<CdpCommand> {
        if !self.dom_engine() {
            return Vec::new();
        }
        let Some(obj) = facts_value(reply) else { return Vec::new() };
        let flag = |k: &str| obj.get(k).and_then(Value::as_bool).unwrap_or(false);
        [(Mark::Focused, "focus"), (Mark::Modal, "modal")]
            .into_iter()
            .filter(|(_, kind)| flag(kind))
            .map(|(mark, kind)| {
                let mut params = json!({ "expression": format!("({MARKED_ELEMENT_JS})({kind:?})"), "returnByValue": false });
                if let Some(id) = self.script_context {
                    params["contextId"] = json!(id);
                }
                CdpCommand::new(Call::Mark(mark, MarkCall::Find), params)
            })
            .collect()
    }

    /// The world the page scripts ran in learns its document's name from their facts.
    fn learn_token(&mut self, reply: &CdpReply) {
        let facts = facts_value(reply);
        let token = facts.as_ref().and_then(|o| o.get("token").and_then(Value::as_str).map(str::to_string));
        // The walk's verdict for the document, from its first facts that count (a walk that fails says no).
        let inline = facts.as_ref().and_then(|o| o.get("inline")).and_then(Value::as_array).and_then(|a| Some((a.first()?.as_f64()?, a.get(1)?.as_f64()?)));
        if let (Some(world), Some(token)) = (self.world.as_mut(), token) {
            if Some(world.context_id) == self.script_context {
                world.token = Some(token);
                // (Facts for Chrome's tree carry no count.) Kept for the document's life: a page
                // the walk cannot read (a shadow root) would otherwise be walked, then
                // snapshotted, every other look.
                if let (None, Some((chars, elements))) = (world.walk, inline) {
                    world.walk = Some(walk::prefers_walk(chars, elements));
                }
            }
        }
    }

    /// The page facts and `rootSelector` lookup commands, in `context` (None:
    /// the page's own world); with `marks`, the facts name the focused element
    /// and a modal dialog (the DOM engine's full captures).
    pub(super) fn scripts_in(&self, context: Option<i64>, facts: Call, root: Call, marks: bool) -> Vec<CdpCommand> {
        let dom_selectors: Vec<&str> = match &self.opts.root_selector {
            Some(s) => vec![s.as_str()],
            None => vec!["body"],
        };
        let in_context = |mut params: Value| {
            if let Some(id) = context {
                params["contextId"] = json!(id);
            }
            params
        };
        // The inline text is counted only while the world's document has no verdict on the walk (see `learn_token`).
        let known = || [self.world.as_ref(), self.ctx.world.as_ref()].into_iter().flatten().filter(|w| Some(w.context_id) == context);
        let decided = known().any(|w| w.walk.is_some());
        let count = marks && self.opts.dom_read == DomRead::Auto && !decided;
        // The facts named the world's document: they ran there, and left their function.
        // (Were it gone, the call throws and names no document; the world asked for then is
        // new to this capture, with no token, even where Chrome answers with the same context.)
        let current = self.world.as_ref().or(self.ctx.world.as_ref()).filter(|w| Some(w.context_id) == context);
        let installed = current.is_some_and(|w| w.token.is_some());
        let expression = page_facts_expression(&dom_selectors, self.opts.include_dom_hash, self.opts.dom_hash_max_chars, marks, count, installed);
        let mut cmds = vec![CdpCommand::new(facts, in_context(json!({ "expression": expression, "returnByValue": true })))];
        if let Some(sel) = &self.opts.root_selector {
            let expression = format!("document.querySelector({})", serde_json::to_string(sel).unwrap_or_default());
            cmds.push(CdpCommand::new(root, in_context(json!({ "expression": expression, "returnByValue": false }))));
        }
        cmds
    }

    /// The main frame's id and loaderId, from the frame tree read.
    fn main_frame(&self) -> Option<(String, Option<String>)> {
        let frame = self.frame_tree.as_ref()?.pointer("/frameTree/frame")?;
        let id = frame.get("id").and_then(Value::as_str)?.to_string();
        Some((id, frame.get("loaderId").and_then(Value::as_str).map(str::to_string)))
    }

    /// After the first batch with a confirmed hint: its replies stand in for
    /// the page scripts, or, if the world is gone, a new one is asked for.
    fn judge_hint(&mut self) -> Option<Step> {
        if self.hint == Hint::Unjudged && !self.frame_tree_asked {
            // No frame tree: the world stands if its page facts name its document.
            let world = self.ctx.world.clone()?;
            let shown = self.hinted_facts.as_ref().and_then(facts_value).and_then(|o| o.get("token").and_then(Value::as_str).map(str::to_string));
            if shown.is_some() && shown == world.token {
                self.hint = Hint::Confirmed;
                self.world = Some(world);
            } else {
                // Another document, or the world is gone: the frame tree names
                // the main frame, and a new world is made there (`receive`).
                self.hint = Hint::Rejected;
                self.hinted_facts = None;
                self.hinted_root = None;
                self.frame_tree_asked = true;
                return Some(self.send(vec![CdpCommand::new(Call::FrameTree, json!({}))]));
            }
        }
        if self.hint != Hint::Confirmed {
            return None;
        }
        let facts = self.hinted_facts.take();
        let root = self.hinted_root.take();
        let answered = |r: &Option<CdpReply>| matches!(r, Some(CdpReply::Ok(_)));
        if answered(&facts) && (self.opts.root_selector.is_none() || answered(&root)) {
            self.hint = Hint::None;
            let mut marks = Vec::new();
            if let Some(reply) = facts {
                self.facts = Some(self.read_page_facts(&reply));
                self.replies.insert(Call::PageFacts, CdpReply::Ok(String::new()));
                self.script_context = self.world.as_ref().map(|w| w.context_id);
                self.learn_token(&reply);
                marks = self.mark_scripts(&reply);
            }
            if let Some(reply) = root {
                self.replies.insert(Call::FindRoot, reply);
            }
            // Something to mark: found in the world, then described, before the capture goes on.
            return (!marks.is_empty()).then(|| self.send(marks));
        }
        // The document is the same but the world did not answer: make a new one.
        self.hint = Hint::Rejected;
        self.world = None;
        let frame_id = self.ctx.world.as_ref().map(|w| w.frame_id.clone()).unwrap_or_default();
        Some(self.send(vec![CdpCommand::new(Call::CreateWorld, json!({ "frameId": frame_id, "worldName": WORLD_NAME }))]))
    }

    fn reply_json(&self, call: Call) -> Option<Value> {
        match self.replies.get(&call) {
            Some(CdpReply::Ok(text)) => crate::compat::json_text::from_str_lossy(text).ok(),
            _ => None,
        }
    }

    /// Commands for new frame jobs; all frames of a round are read at once.
    fn frame_batch(&mut self, jobs: Vec<FrameJob>) -> Result<Step> {
        let cmds = self.queue_frame_jobs(jobs);
        if self.frames.is_empty() {
            return self.finish();
        }
        self.stage = Stage::Frames;
        self.frame_round += 1;
        if cmds.is_empty() && self.dom_pending.is_empty() {
            // Every frame replayed or read already: nothing to wait for.
            self.waiting.clear();
            return self.advance();
        }
        Ok(self.send(cmds))
    }

    /// Take on frame jobs (at most `MAX_FRAMES` in all): the commands that read them.
    fn queue_frame_jobs(&mut self, jobs: Vec<FrameJob>) -> Vec<CdpCommand> {
        let room = MAX_FRAMES.saturating_sub(self.frames.len());
        let mut jobs = jobs;
        if jobs.len() > room {
            self.frame_notes.push(format!("{} more frames are not included (at most {MAX_FRAMES})", jobs.len() - room));
            self.unread_frames += jobs.len() - room;
            jobs.truncate(room);
        }
        let mut cmds = Vec::with_capacity(jobs.len() * 3);
        let mut replayed: Vec<(u32, Vec<(FrameCall, String)>)> = Vec::new();
        for job in jobs {
            let k = self.frames.len() as u32;
            let asked = self.frame_commands(k, &job);
            // A frame in another process unchanged since a page session's last capture read it:
            // what it answered then to each of these calls is answered again, through `receive`.
            let calls: Vec<FrameCall> = asked.iter().filter_map(|c| if let Call::Frame(_, fc) = c.call { Some(fc) } else { None }).collect();
            let replay = job.oopif_root.then(|| self.frame_replay.frames.remove(&job.info.id)).flatten();
            match replay.filter(|r| calls.iter().all(|w| r.iter().any(|(c, _)| c == w))) {
                Some(replies) => replayed.push((k, replies.into_iter().filter(|(c, _)| calls.contains(c)).collect())),
                None => cmds.extend(asked),
            }
            self.frames.push(job);
            self.frame_trees.push(None);
            self.frame_doms.push(DomParts::default());
        }
        for (k, replies) in replayed {
            for (fc, text) in replies {
                let more = self.receive(Call::Frame(k, fc), CdpReply::Ok(text));
                cmds.extend(more);
            }
        }
        cmds
    }

    /// What frame job `k` is asked.
    fn frame_commands(&self, k: u32, job: &FrameJob) -> Vec<CdpCommand> {
        let frame_id = &job.info.id;
        let mut cmds = Vec::with_capacity(4);
        // The DOM engine builds a frame's tree from its process's DOM snapshot.
        if !self.dom_engine() {
            cmds.push(CdpCommand {
                project: Some(projection_spec()),
                session: job.session.clone(),
                ..CdpCommand::new(Call::Frame(k, FrameCall::AxTree), json!({ "frameId": frame_id }))
            });
        }
        // The owner element lives in the parent's document: ask the parent's session.
        let owner_session = if job.oopif_root { None } else { job.session.clone() };
        cmds.push(CdpCommand { session: owner_session, ..CdpCommand::new(Call::Frame(k, FrameCall::Owner), json!({ "frameId": frame_id })) });
        if job.oopif_root {
            cmds.push(CdpCommand { session: job.session.clone(), ..CdpCommand::new(Call::Frame(k, FrameCall::FrameTree), json!({})) });
        }
        if job.oopif_root && (self.opts.dom_pass || self.dom_engine()) {
            // Another process: its DOM is not in the page's.
            cmds.push(self.dom_snapshot_command(Call::Frame(k, FrameCall::DomSnapshot), job.session.clone()));
        }
        cmds
    }

    /// A batch to send, carrying any `DOM.getDocument` calls found needed.
    fn send(&mut self, mut cmds: Vec<CdpCommand>) -> Step {
        cmds.append(&mut self.dom_pending);
        self.waiting = cmds.iter().map(|c| c.call).collect();
        Step::Send(cmds)
    }

    /// After the page's own calls: its same-process frames and the
    /// out-of-process frames whose parent is one of them.
    fn frames_or_finish(&mut self) -> Result<Step> {
        // (Also when the DOM engine gave way to Chrome's tree, which reads frames by the frame tree.)
        let wanted = !self.dom_engine() || (self.unhosted_frames && !self.early_frames_cover_owners());
        if wanted && !(self.targets_asked && self.frame_tree_asked) {
            let mut cmds = Vec::new();
            if !self.targets_asked {
                self.targets_asked = true;
                cmds.push(CdpCommand::new(Call::Targets, json!({})));
            }
            if !self.frame_tree_asked {
                self.frame_tree_asked = true;
                cmds.push(CdpCommand::new(Call::FrameTree, json!({})));
            }
            // `advance` comes back here with both answered.
            return Ok(self.send(cmds));
        }
        let tree = self.frame_tree.take();
        if let Some(t) = &tree {
            crate::capture::frames::documents(t, &mut self.documents);
        }
        if let Some(CdpReply::Err(msg)) = self.replies.get(&Call::FrameTree) {
            self.frame_notes.push(format!("frames were not read: {msg}"));
        }
        let main_id = tree.as_ref().and_then(|t| t.pointer("/frameTree/frame/id")).and_then(Value::as_str).map(str::to_string);
        let same_process = tree.as_ref().map(child_frames).unwrap_or_default();
        let mut known: Vec<String> = main_id.into_iter().chain(same_process.iter().map(|f| f.id.clone())).collect();
        // The frames read from the first batch on are known, and not read again.
        known.extend(self.frames.iter().map(|j| j.info.id.clone()));
        // The DOM engine has same-process frames' documents in the page's snapshot.
        let mut jobs: Vec<FrameJob> =
            if self.dom_engine() { Vec::new() } else { same_process.into_iter().map(|info| FrameJob { info, session: None, oopif_root: false }).collect() };
        if let Some(targets) = self.reply_json(Call::Targets) {
            jobs.extend(oopif_jobs(&targets, &mut known));
        }
        self.frame_batch(jobs)
    }

    /// Whether every frame owner the page's snapshot shows without its document
    /// hosts a frame read from the first batch on (by its `DOM.getFrameOwner`
    /// answer): then no other frame is left to look for.
    fn early_frames_cover_owners(&self) -> bool {
        if self.unhosted_owners.is_empty() || self.frames.is_empty() {
            return false;
        }
        let owners: Vec<i64> = (0..self.frames.len()).filter_map(|k| self.frame_owner(k)).collect();
        self.unhosted_owners.iter().all(|o| owners.contains(o))
    }

    /// After the first frame round: the same-process frames inside each
    /// out-of-process frame, read through that frame's session.
    fn nested_frames_or_finish(&mut self) -> Result<Step> {
        // The DOM engine read them in their out-of-process frame's snapshot.
        if self.frame_round >= 2 || self.dom_engine() {
            return self.finish();
        }
        let mut jobs = Vec::new();
        for k in 0..self.frames.len() {
            if !self.frames[k].oopif_root {
                continue;
            }
            let root = self.frames[k].info.id.clone();
            if let Some(tree) = self.reply_json(Call::Frame(k as u32, FrameCall::FrameTree)) {
                crate::capture::frames::documents(&tree, &mut self.documents);
                for info in child_frames(&tree) {
                    jobs.push(FrameJob { info, session: Some(root.clone()), oopif_root: false });
                }
            }
        }
        if jobs.is_empty() {
            return self.finish();
        }
        self.frame_batch(jobs)
    }

    /// The `iframe` element hosting frame job `k`, from its `DOM.getFrameOwner` reply.
    fn frame_owner(&self, k: usize) -> Option<i64> {
        self.reply_json(Call::Frame(k as u32, FrameCall::Owner)).and_then(|v| v.get("backendNodeId").and_then(Value::as_i64))
    }

    fn frame_captures(&mut self) -> Vec<FrameCapture> {
        let frames = std::mem::take(&mut self.frames);
        let trees = std::mem::take(&mut self.frame_trees);
        let mut out = Vec::new();
        for (k, (job, tree)) in frames.into_iter().zip(trees).enumerate() {
            let owner = self.frame_owner(k);
            match tree {
                Some(Ok(tree)) => out.push(FrameCapture { info: job.info, tree, owner_backend_id: owner }),
                Some(Err(e)) => {
                    self.frame_notes.push(format!("frame {} could not be read: {}", job.info.url, e.message));
                    self.unread_frames += 1;
                }
                None => {
                    self.frame_notes.push(format!("frame {} did not answer", job.info.url));
                    self.unread_frames += 1;
                }
            }
        }
        out
    }

    /// After all replies of the last batch: the next batch, or the snapshot
    /// (or, when the connection or tab broke, its error).
    pub fn advance(&mut self) -> Result<Step> {
        if let Some(e) = &self.fault {
            return Err(e.clone());
        }
        if let Some(missing) = self.waiting.iter().find(|c| !self.replies.contains_key(c)) {
            return Err(WebAiError::new(ErrorCode::CaptureFailed, format!("no reply was given for {}", missing.method())));
        }
        if self.stage == Stage::First {
            if let Some(step) = self.judge_hint() {
                return Ok(step);
            }
            if matches!(self.walk, Walk::Asked { .. } | Walk::Parsed(_)) {
                if let Some(step) = self.read_walk() {
                    return Ok(step);
                }
            }
        }
        match self.stage {
            Stage::NotStarted => Ok(Step::Send(self.start())),
            Stage::First if self.opts.root_selector.is_some() => {
                let object_id = self.root_object()?;
                self.stage = Stage::Describe;
                Ok(self.send(vec![
                    CdpCommand::new(Call::DescribeRoot, json!({ "objectId": object_id })),
                    CdpCommand::new(Call::ReleaseRoot, json!({ "objectId": object_id })),
                ]))
            }
            Stage::Describe => {
                let described = self.ok_json(Call::DescribeRoot)?;
                self.root_backend_id = described.pointer("/node/backendNodeId").and_then(Value::as_i64);
                if self.root_backend_id.is_none() {
                    return Err(self.root_not_found());
                }
                self.frames_or_finish()
            }
            Stage::First => self.frames_or_finish(),
            Stage::Frames => self.nested_frames_or_finish(),
            Stage::DomDocuments | Stage::ChromeSubtrees => self.finish(),
            Stage::Finished => Err(WebAiError::new(ErrorCode::CaptureFailed, "the capture already finished")),
        }
    }

    fn root_not_found(&self) -> WebAiError {
        let sel = self.opts.root_selector.clone().unwrap_or_default();
        WebAiError::new(ErrorCode::RootNotFound, format!("rootSelector matched nothing: {sel}")).with_evidence(json!({ "rootSelector": sel }))
    }

    fn failed(method: &str, message: &str) -> WebAiError {
        WebAiError::new(ErrorCode::CaptureFailed, format!("{method} failed: {message}")).with_evidence(json!({ "method": method, "message": message }))
    }

    fn ok_text(&self, call: Call) -> Result<&str> {
        match self.replies.get(&call) {
            Some(CdpReply::Ok(text)) => Ok(text),
            Some(CdpReply::Err(msg)) => Err(Self::failed(call.method(), msg)),
            Some(CdpReply::TimedOut) => Err(self.timeout_error(call.method())),
            Some(CdpReply::Broken(e)) => Err(e.clone()),
            None => Err(Self::failed(call.method(), "no reply")),
        }
    }

    fn ok_json(&self, call: Call) -> Result<Value> {
        let text = self.ok_text(call)?;
        serde_json::from_str(text).map_err(|e| Self::failed(call.method(), &format!("reply is not JSON: {e}")))
    }

    fn root_object(&self) -> Result<String> {
        let v = self.ok_json(Call::FindRoot)?;
        if let Some(ex) = v.get("exceptionDetails") {
            let sel = self.opts.root_selector.clone().unwrap_or_default();
            let msg = ex
                .pointer("/exception/description")
                .and_then(Value::as_str)
                .unwrap_or("the selector could not be evaluated")
                .lines()
                .next()
                .unwrap_or_default()
                .to_string();
            return Err(WebAiError::new(ErrorCode::InvalidInput, format!("rootSelector is not a valid CSS selector: {msg}"))
                .with_evidence(json!({ "what": "options.rootSelector", "rootSelector": sel })));
        }
        v.pointer("/result/objectId").and_then(Value::as_str).map(str::to_string).ok_or_else(|| self.root_not_found())
    }

    pub(super) fn read_page_facts(&self, reply: &CdpReply) -> PageFacts {
        let mut facts = PageFacts::default();
        let parsed = match reply {
            CdpReply::Ok(text) => crate::compat::json_text::from_str_lossy::<Value>(text).map_err(|e| format!("reply is not JSON: {e}")),
            CdpReply::Err(msg) => Err(msg.clone()),
            CdpReply::TimedOut | CdpReply::Broken(_) => Err(NO_ANSWER.to_string()),
        };
        let value = match parsed {
            Ok(v) => v,
            Err(e) => {
                facts.notes.push(format!("page URL, title and DOM hash are unavailable: {e}"));
                return facts;
            }
        };
        let Some(obj) = value.pointer("/result/value") else {
            facts.notes.push("page URL, title and DOM hash are unavailable: the page did not answer".into());
            return facts;
        };
        facts.url = obj.get("url").and_then(Value::as_str).map(str::to_string);
        facts.title = obj.get("title").and_then(Value::as_str).map(str::to_string);
        facts.viewport = match obj.get("viewport").and_then(Value::as_array).map(Vec::as_slice) {
            Some([w, h]) => w.as_f64().zip(h.as_f64()).filter(|(w, h)| *w > 0.0 && *h > 0.0),
            _ => None,
        };
        if self.opts.include_dom_hash {
            facts.dom_hash = obj.get("normalizedHtml").and_then(Value::as_str).map(|h| crate::compat::hash::hash16(h.as_bytes()));
            facts.hash_cut = obj.get("hashCut").and_then(Value::as_u64).filter(|_| facts.dom_hash.is_some());
        }
        facts
    }

    fn finish(&mut self) -> Result<Step> {
        if !self.dom_pending.is_empty() {
            self.stage = Stage::DomDocuments;
            return Ok(self.send(Vec::new()));
        }
        let asked = self.ask_chrome_subtrees();
        if !asked.is_empty() {
            self.stage = Stage::ChromeSubtrees;
            return Ok(self.send(asked));
        }
        self.graft_chrome_subtrees();
        if self.dom_engine() {
            if let Some(Ok(tree)) = self.ax_tree.as_mut() {
                crate::engine::build::apply_marks(tree, self.focused, self.modal);
            }
        }
        self.stage = Stage::Finished;
        if !self.dom_engine() {
            self.ok_text(Call::AxTree)?;
        }
        let mut tree = match self.ax_tree.take() {
            Some(t) => t?,
            None if self.dom_engine() => return Err(Self::failed(Call::DomSnapshot.method(), "no reply")),
            None => return Err(Self::failed(Call::AxTree.method(), "no reply")),
        };
        let mut facts = self.facts.take().unwrap_or_default();
        facts.focused = self.focused;
        facts.modal = self.modal;
        if let Some(m) = &mut self.mirror {
            m.frames_elsewhere = self.frames.iter().any(|j| j.oopif_root);
            m.documents = self.documents.clone();
            m.facts = Some(PageFacts { notes: Vec::new(), documents: Default::default(), ..facts.clone() });
            m.shape = crate::incremental::mirror::shape_of(&self.opts);
        }
        facts.documents = std::mem::take(&mut self.documents);
        // The rootSelector element is in the page's own document: look before frames join.
        let subtree = match self.root_backend_id {
            Some(id) => match tree.find_by_backend_id(id) {
                Some(idx) => Some(idx),
                None => {
                    facts.notes.push(format!(
                        "the rootSelector element has no accessibility node (hidden or not rendered): {}",
                        self.opts.root_selector.as_deref().unwrap_or_default()
                    ));
                    // Serialize nothing under the document rather than the whole page.
                    Some(u32::MAX)
                }
            },
            None => None,
        };
        let dom = match self.given_dom.take() {
            // The last build's trees of the page, as `dom_trees` left them: only the
            // viewport, the boxes read again and the frames in other processes are new.
            Some(mut dom) => {
                if let Some(t) = dom.first_mut() {
                    t.placement = facts.viewport.map(|(w, h)| Placement::page(w, h));
                    if let Some(boxes) = self.given_boxes.take() {
                        t.set_boxes(boxes);
                    }
                    // Their owners are found again, as they are now.
                    for job in self.frames.iter().filter(|j| j.oopif_root) {
                        t.owners.remove(&job.info.id);
                    }
                }
                self.page_dom_trees = dom.len();
                self.frame_dom_trees(&mut dom, &mut facts.notes);
                dom
            }
            None => crate::trace::timed("dom.trees", || self.dom_trees(&tree, facts.viewport, &mut facts.notes)),
        };
        let frames_elsewhere = self.unhosted_frames || self.frames.iter().any(|j| j.oopif_root);
        if let Some(w) = self.world.as_mut() {
            w.frames = Some(frames_elsewhere);
        }
        let captures = self.frame_captures();
        // The tree is kept for the next build only as the engine built it: frames in other
        // processes stitched in are taken out again after the snapshot (`unstitch`).
        let as_built = self.focused.is_none() && self.modal.is_none() && tree.chrome_subtrees.is_empty();
        let built_len = (tree.nodes.len(), tree.notes.len());
        let stitched = !captures.is_empty();
        if stitched {
            let main_frame = tree.root.and_then(|r| tree.node(r)).and_then(|n| n.frame_id.clone());
            self.unread_frames += stitch(&mut tree, main_frame.as_deref(), captures, &mut facts.notes);
        }
        facts.notes.append(&mut self.frame_notes);
        facts.unread_frames = self.unread_frames;
        let capture_ms = self.started.elapsed().as_secs_f64() * 1000.0;
        let mut dom = dom;
        if let (Some(boxes), Some(t)) = (self.given_boxes.take(), dom.first_mut()) {
            t.set_boxes(boxes);
        }
        if self.keep_built {
            dom.iter_mut().for_each(|t| {
                t.remember_locations();
                t.remember_hints();
            });
        }
        let mut snapshot =
            crate::trace::timed("build_snapshot", || build_snapshot(&tree, subtree, facts, &self.opts, self.ctx.numbering.as_deref(), capture_ms, &dom));
        if self.ctx.incremental.is_some() {
            snapshot.capture_mode = Some(crate::text::snapshot::CaptureMode::Full);
        }
        if self.keep_built {
            let style_at = self.engine_style_at();
            let index = self.built_index.take().filter(|_| as_built);
            if stitched && index.is_some() {
                crate::capture::frames::unstitch(&mut tree, built_len.0, built_len.1);
            }
            // The page's own trees: the frames' in other processes are read again, or replayed, by the next build.
            dom.truncate(self.page_dom_trees);
            self.built = self.built_page.take().map(|page| crate::incremental::kept::Built { page, dom, style_at, tree: index.map(|i| (tree, i)) });
        }
        Ok(Step::Done(Box::new(snapshot)))
    }

    /// Read a DOM pass reply; what it returns joins the batch in flight.
    fn receive_dom(&mut self, call: Call, reply: CdpReply) -> Vec<CdpCommand> {
        let text = match reply {
            CdpReply::Ok(text) => Ok(text),
            CdpReply::Err(msg) => Err(msg),
            CdpReply::TimedOut | CdpReply::Broken(_) => Err(NO_ANSWER.to_string()),
        };
        self.replies.insert(call, CdpReply::Ok(String::new()));
        if let Some(k) = call.dom_host() {
            return self.graft_host(call, k, text);
        }
        if call.is_document() {
            if let Some(parts) = self.dom_parts(call) {
                parts.tree = Some(text.and_then(|t| DomTree::from_get_document(&t, None)));
            }
            return Vec::new();
        }
        let mut more = Vec::new();
        if let Err(m) = &text {
            // A browser that takes no DOM snapshot (not one that is only
            // slow) still has its own tree, unless the caller chose the engine.
            if call == Call::DomSnapshot && self.dom_engine() && !self.opts.engine_given && m != NO_ANSWER {
                self.opts.engine = Engine::Ax;
                self.frame_notes.push(format!(
                    "DOMSnapshot.captureSnapshot failed ({m}), so this snapshot is Chrome's accessibility tree (engine 'ax') rather than the DOM engine's"
                ));
                more.push(CdpCommand { project: Some(projection_spec()), ..CdpCommand::new(Call::AxTree, json!({})) });
            }
        }
        let want_concealed = self.opts.mark_untrusted;
        let want_boxes = self.opts.wants_boxes() || want_concealed;
        // The DOM engine's tree and the DOM pass's facts come from one parse of the reply.
        let keep = self.ctx.incremental.is_some() && call == Call::DomSnapshot;
        // The mirror's first build is kept with it, as a repeat capture's is (`crate::incremental::kept`).
        self.keep_built |= keep;
        let read = match &text {
            Ok(t) if self.dom_engine() => {
                let page = call == Call::DomSnapshot;
                let both = snapshot_reader::with_snapshot(t, |snap| {
                    let mirror = keep.then(|| crate::incremental::Mirror::from_snapshot(snap, self.snapshot_style_names().len()));
                    let unhosted = if page { snapshot_reader::unhosted_frame_owners(snap) } else { Vec::new() };
                    (self.engine_read(snap, keep), mirror, unhosted)
                });
                // (`take_page_mirror` is this for a page a walk read.)
                match both {
                    Ok(((read, tree), mirror, unhosted)) => {
                        self.unhosted_frames |= !unhosted.is_empty();
                        self.unhosted_owners.extend(unhosted);
                        if mirror.is_some() {
                            self.mirror = mirror;
                        }
                        self.engine_tree(call, Ok(tree));
                        Ok(read)
                    }
                    Err(e) => {
                        self.engine_tree(call, Err(WebAiError::new(ErrorCode::CaptureFailed, e.clone())));
                        Err(e)
                    }
                }
            }
            Ok(t) => read_snapshot(t, want_boxes, want_concealed),
            Err(m) => {
                if self.dom_engine() {
                    let e = if m == NO_ANSWER { self.timeout_error(call.method()) } else { Self::failed(call.method(), m) };
                    self.engine_tree(call, Err(e));
                }
                Err(m.clone())
            }
        };
        // The DOM engine reads the snapshot for its tree either way; `domPass: false` still means
        // no selectors, no clickable marks and no layout, as with Chrome's tree.
        if self.opts.dom_pass {
            self.keep_dom_read(call, read, &text);
        }
        more
    }

    /// The DOM pass's part of a DOM snapshot reply (or, without one, the `DOM.getDocument` to ask for).
    fn keep_dom_read(&mut self, call: Call, read: std::result::Result<SnapshotRead, String>, text: &std::result::Result<String, String>) {
        let Some(parts) = self.dom_parts(call) else { return };
        // Without the snapshot, clickability falls back to attributes. Out
        // of time, nothing follows: the capture has no time left to wait for.
        let out_of_time = matches!(text, Err(m) if m == NO_ANSWER);
        let (tree, hosts) = match read {
            Ok(read) => {
                parts.click_hints = read.click_hints;
                parts.boxes = read.boxes;
                parts.concealed = read.concealed;
                (read.tree, read.hosts)
            }
            Err(_) => (None, Vec::new()),
        };
        // With shadow hosts, each host's element tree (`DOM.describeNode`, a few nodes a
        // component) instead of the whole document's (`DOM.getDocument`): on a generated page
        // of 3,000 nodes with one open shadow root a first look took 45.6 ms with the document
        // and 30.3 with the host described (`node bench/components.mjs first-look --nodes 3000`,
        // the addons before and after in turns). Past MAX_HOSTS hosts one call for the document
        // costs less.
        let tree = tree.filter(|_| hosts.len() <= MAX_HOSTS);
        match tree {
            Some(tree) if !hosts.is_empty() => {
                let session = call.frame().and_then(|k| self.frames.get(k)).and_then(|j| j.session.clone());
                for (k, &(backend, _)) in hosts.iter().enumerate() {
                    let ask = match call.frame() {
                        None => Call::DomHost(k as u32),
                        Some(f) => Call::Frame(f as u32, FrameCall::DomHost(k as u32)),
                    };
                    self.dom_pending.push(CdpCommand {
                        session: session.clone(),
                        ..CdpCommand::new(ask, json!({ "backendNodeId": backend, "depth": -1, "pierce": true }))
                    });
                }
                if let Some(parts) = self.dom_parts(call) {
                    parts.tree = Some(Ok(tree));
                    parts.hosts = hosts;
                }
            }
            Some(tree) => parts.tree = Some(Ok(tree)),
            None if out_of_time => parts.tree = Some(Err(NO_ANSWER.to_string())),
            None => {
                let ask = self.ask_document(call.frame());
                self.dom_pending.push(ask);
            }
        }
    }

    fn dom_engine(&self) -> bool {
        self.opts.engine == Engine::Dom
    }

    /// The page as a walk read it, taken as `receive_dom` takes Chrome's reply: the
    /// engine's page and the DOM pass's tree are made from the mirror of it
    /// (`incremental::to_page`, `incremental::to_dom`), not from the mirror written
    /// out as a DOMSnapshot reply and read back.
    fn take_page_mirror(&mut self, mirror: crate::incremental::Mirror) {
        use crate::incremental::{to_dom, to_page};
        let keep = self.ctx.incremental.is_some();
        self.keep_built |= keep;
        let unhosted = mirror.unhosted_frame_owners();
        self.unhosted_frames |= !unhosted.is_empty();
        self.unhosted_owners.extend(unhosted);
        let style_at = self.engine_style_at();
        // The capture's first computed style is `cursor` when it asked for any before the engine's.
        let cursor = style_at > 0;
        let view = mirror.tree();
        let dom_pass = self.opts.dom_pass;
        let engine = || {
            let (page, _) = crate::trace::timed("engine.page", || to_page::page_of_mirror(view, style_at, None));
            let (tree, index) = crate::trace::timed("engine.build", || crate::engine::build::build_indexed(&page));
            (page, tree, index)
        };
        let dom = |index: bool| {
            let mut tree = crate::trace::timed("dom.read", || to_dom::dom_tree_of_mirror(view, cursor));
            if let (true, Some(t)) = (index, tree.as_mut()) {
                t.index_root_document();
            }
            tree
        };
        // As `engine_read`: the DOM pass beside the engine on a large page (its selector index too).
        let large = view.live >= PARALLEL_READ_NODES;
        let ((page, tree, index), dom) = crate::parallel::beside(dom_pass && large, engine, move || dom_pass.then(|| dom(large)));
        if keep {
            self.built_page = Some(page);
            self.built_index = Some(index);
            self.mirror = Some(mirror);
        }
        self.engine_tree(Call::DomSnapshot, Ok(tree));
        self.replies.insert(Call::DomSnapshot, CdpReply::Ok(String::new()));
        if let Some(tree) = dom {
            // (A walk reads no shadow root: a tree always comes; without one the DOM is asked for.)
            let read = SnapshotRead { click_hints: Vec::new(), tree, hosts: Vec::new(), boxes: None, concealed: Vec::new() };
            self.keep_dom_read(Call::DomSnapshot, Ok(read), &Ok(String::new()));
        }
    }

    /// The engine's tree and the DOM pass's facts of one parsed reply.
    /// With `keep_page`, the engine's page is kept for the build's `built`.
    fn engine_read(&mut self, snap: &snapshot_reader::Snapshot<'_>, keep_page: bool) -> (SnapshotRead, AxTree) {
        let want_concealed = self.opts.mark_untrusted;
        let want_boxes = self.opts.wants_boxes() || want_concealed;
        let style_at = self.engine_style_at();
        let (kept_page, kept_index) = (&mut self.built_page, &mut self.built_index);
        let mut engine = || {
            let page = crate::trace::timed("engine.page", || crate::engine::page::from_snapshot(snap, style_at));
            let (tree, index) = crate::trace::timed("engine.build", || crate::engine::build::build_indexed(&page));
            if keep_page {
                *kept_page = Some(page);
                *kept_index = Some(index);
            }
            tree
        };
        let dom_pass = || crate::trace::timed("dom.read", || snapshot_reader::read_parsed(snap, want_boxes, want_concealed));
        // The thread that reads the DOM is done long before the engine: it indexes
        // the document for the refs' selectors meanwhile.
        let dom_pass_and_index = || {
            let mut read = dom_pass();
            if let Some(tree) = read.tree.as_mut() {
                tree.index_root_document();
            }
            read
        };
        // Both only read the reply: on a large page the DOM pass's reading runs on a
        // second thread beside the engine (the machine's other core: about 2 of 12-14 ms
        // on the 40k-node page, replayed: `npm run bench:replay`). On small pages a thread costs more than it saves.
        if snapshot_reader::node_count(snap) < PARALLEL_READ_NODES {
            let read = dom_pass();
            return (read, engine());
        }
        let (tree, read) = crate::parallel::beside(true, engine, dom_pass_and_index);
        (read, tree)
    }

    /// The computed styles this capture's DOM snapshot asks for, in order.
    pub(super) fn snapshot_style_names(&self) -> Vec<String> {
        let boxes = self.opts.wants_boxes() || self.opts.mark_untrusted;
        let mut names: Vec<String> = dom_snapshot_params(self.opts.mark_untrusted, boxes)["computedStyles"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        if self.dom_engine() {
            names.extend(crate::engine::page::STYLES.iter().map(|s| s.to_string()));
        }
        names
    }

    /// A page session's capture with the DOM engine: it would keep a mirror.
    pub fn wants_mirror(&self) -> bool {
        self.ctx.incremental.is_some() && self.dom_engine()
    }

    /// A capture whose page DOM snapshot is `snap` (a repeat capture's patched
    /// mirror): the rest (page facts, frames in other processes) is read as usual.
    pub(crate) fn with_page_snapshot(opts: SnapshotOptions, ctx: CaptureContext, snap: &snapshot_reader::Snapshot<'_>, keep_built: bool) -> CaptureSession {
        let mut s = CaptureSession::new(opts, ctx);
        s.keep_built = keep_built;
        let (read, tree) = s.engine_read(snap, keep_built);
        s.ax_tree = Some(Ok(tree));
        if s.opts.dom_pass {
            s.keep_dom_read(Call::DomSnapshot, Ok(read), &Ok(String::new()));
        }
        s.prebuilt = true;
        // Frames in other processes are not in the snapshot: their targets go in the first batch.
        s.unhosted_frames = !snapshot_reader::unhosted_frame_owners(snap).is_empty();
        s
    }

    /// Build with `frame_tree` (the repeat capture's own) and `targets` (the
    /// last capture's `Target.getTargets` reply) as the page's: when every frame
    /// in another process is as it was, they name the same frames, and the build
    /// asks the browser nothing but what changed.
    pub(crate) fn give_frames(&mut self, frame_tree: Value, targets: String) {
        self.frame_tree = Some(frame_tree);
        self.frame_tree_asked = true;
        self.replies.insert(Call::Targets, CdpReply::Ok(targets));
        self.targets_asked = true;
    }

    /// Why this capture's mirror cannot serve a repeat capture, if it cannot.
    pub fn mirror_unusable(&self) -> Option<String> {
        if self.opts.root_selector.is_some() {
            return Some("a rootSelector capture".into());
        }
        // Boxes move with any change: a repeat capture reads them all again by script
        // (`crate::incremental::layout`), but none of what `elements` and the concealment
        // marks need besides (focus, styles).
        if self.opts.include_elements || self.opts.mark_untrusted {
            return Some("layout boxes and focus (includeElements, untrustedContent: 'mark') are not mirrored".into());
        }
        // (The frames' URLs are parsed only for a capture that needs boxes.)
        let other_origins = if self.opts.wants_boxes() { self.mirror.as_ref().map_or(0, |m| m.frames_of_other_origins()) } else { 0 };
        if other_origins > 0 {
            return Some(crate::incremental::layout::other_origins(other_origins));
        }
        // A page with open shadow roots is mirrored: its DOM pass's tree, read from
        // `DOM.getDocument`, is kept and patched (`incremental::to_dom`).
        if let Some(why) = self.mirror.as_ref().and_then(|m| m.unmirrored_shadow_roots()) {
            return Some(why.into());
        }
        if self.modal.is_some() {
            return Some("a modal dialog is open (the rest of the page is inert)".into());
        }
        None
    }

    /// The snapshot of a DOM snapshot reply rebuilt from a mirror (`crate::incremental`):
    /// the same steps as a capture's last, over the page's reply alone. The
    /// step is the snapshot, or what Chrome must still be asked (the
    /// engine's user-agent subtrees) before it: run it with `drive_from`.
    pub(crate) fn finish_from(
        opts: SnapshotOptions,
        ctx: CaptureContext,
        started: Instant,
        snap: &snapshot_reader::Snapshot<'_>,
        mut facts: PageFacts,
        boxes: Option<Boxes>,
        frames: Option<FramesGiven>,
    ) -> Result<(CaptureSession, Step)> {
        let mut s = CaptureSession::with_page_snapshot(opts, ctx, snap, true);
        s.started = started;
        s.given_boxes = boxes;
        s.documents = std::mem::take(&mut facts.documents);
        s.stage = Stage::First;
        s.facts = Some(facts);
        if !s.dom_pending.is_empty() {
            return Err(WebAiError::new(ErrorCode::CaptureFailed, "the mirror's DOM is not the element tree (shadow roots)"));
        }
        let step = s.frames_then_finish(frames)?;
        Ok((s, step))
    }

    /// A build given its page: with frames in other processes, those are read
    /// (or replayed) first, as a capture reads them after its page; else the snapshot.
    fn frames_then_finish(&mut self, frames: Option<FramesGiven>) -> Result<Step> {
        let Some(frames) = frames else { return self.finish() };
        // The facts are the build's: the frame tree, if asked, only names frames (no world is made).
        self.given_facts = true;
        self.unhosted_frames = true;
        self.frame_replay.frames = frames.replay;
        if let Some((tree, targets)) = frames.named {
            self.give_frames(tree, targets);
        }
        self.frames_or_finish()
    }

    /// [`CaptureSession::finish_from`] over the mirror itself: its engine's page
    /// and DOM tree made from its nodes (`incremental::to_page`, `to_dom`), not
    /// from the mirror written out as a DOMSnapshot reply; with each mirror
    /// node's index in the page. A mirror holding a shadow root (whose flat tree
    /// is not the element tree) goes through the reply, as before.
    pub(crate) fn finish_mirror(
        opts: SnapshotOptions,
        ctx: CaptureContext,
        started: Instant,
        mirror: &crate::incremental::Mirror,
        facts: PageFacts,
        boxes: Option<Boxes>,
        frames: Option<FramesGiven>,
    ) -> Result<(CaptureSession, Step, Vec<u32>)> {
        use crate::incremental::{to_dom, to_page};
        let style_at = engine_style_at(&opts);
        let view = mirror.tree();
        let dom = if opts.dom_pass {
            let Some(mut tree) = crate::trace::timed("dom.read", || to_dom::dom_tree_of_mirror(view, style_at > 0)) else {
                let (snap, page_of) = crate::trace::timed("mirror.to_snapshot", || mirror.to_snapshot_mapped());
                let (session, step) = CaptureSession::finish_from(opts, ctx, started, &snap, facts, boxes, frames)?;
                return Ok((session, step, page_of));
            };
            // As `dom_trees` tells a tree read from a reply: the frame of its root document.
            tree.root_frame = view.docs.first().and_then(|d| d.frame_id.clone());
            vec![tree]
        } else {
            Vec::new()
        };
        let (page, page_of) = crate::trace::timed("engine.page", || to_page::page_of_mirror(view, style_at, None));
        let (session, step) = CaptureSession::finish_built(opts, ctx, started, page, dom, None, facts, boxes, frames)?;
        Ok((session, step, page_of))
    }

    /// [`CaptureSession::finish_from`] with the engine's page and the DOM
    /// pass's trees already built (a kept build patched with new values:
    /// `crate::incremental::kept`), and the engine's tree when only text
    /// changed. The session keeps them again (`built`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn finish_built(
        opts: SnapshotOptions,
        ctx: CaptureContext,
        started: Instant,
        page: crate::engine::page::Page,
        dom: Vec<DomTree>,
        tree: Option<(AxTree, crate::engine::retext::Index)>,
        mut facts: PageFacts,
        boxes: Option<Boxes>,
        frames: Option<FramesGiven>,
    ) -> Result<(CaptureSession, Step)> {
        let mut s = CaptureSession::new(opts, ctx);
        s.started = started;
        s.given_boxes = boxes;
        s.keep_built = true;
        let (tree, index) = tree.unwrap_or_else(|| crate::trace::timed("engine.build", || crate::engine::build::build_indexed(&page)));
        s.ax_tree = Some(Ok(tree));
        s.built_index = Some(index);
        s.built_page = Some(page);
        s.given_dom = Some(dom);
        s.prebuilt = true;
        s.documents = std::mem::take(&mut facts.documents);
        s.stage = Stage::First;
        s.facts = Some(facts);
        let step = s.frames_then_finish(frames)?;
        Ok((s, step))
    }

    /// Graft the `k`th shadow host's element tree into its DOM tree; when one
    /// cannot be read, the whole document is asked for instead (its reply
    /// replaces the tree, and the other hosts' replies are then not read).
    fn graft_host(&mut self, call: Call, k: usize, text: std::result::Result<String, String>) -> Vec<CdpCommand> {
        let frame = call.frame();
        let Some(parts) = self.dom_parts(call) else { return Vec::new() };
        let Some(&(_, at)) = parts.hosts.get(k) else { return Vec::new() };
        let grafted = match (&text, parts.tree.as_mut()) {
            (Ok(t), Some(Ok(tree))) => tree.graft_described(t, at).is_ok(),
            // The document was asked for after another host failed: this reply is not needed.
            (_, Some(Err(_))) | (_, None) => return Vec::new(),
            (Err(_), _) => false,
        };
        if grafted {
            parts.grafted = true;
            return Vec::new();
        }
        if text.as_ref().is_err_and(|m| m == NO_ANSWER) {
            parts.tree = Some(Err(NO_ANSWER.to_string()));
            return Vec::new();
        }
        // The document after all: `receive_dom` reads it as it reads any `DOM.getDocument`.
        parts.tree = None;
        parts.hosts.clear();
        vec![self.ask_document(frame)]
    }

    /// `DOM.getDocument` for the page (None) or frame job `frame`, on its session,
    /// which is then turned off again after the capture (`cleanup`).
    fn ask_document(&mut self, frame: Option<usize>) -> CdpCommand {
        let (document, session) = match frame {
            None => (Call::DomDocument, None),
            Some(f) => (Call::Frame(f as u32, FrameCall::DomDocument), self.frames.get(f).and_then(|j| j.session.clone())),
        };
        self.dom_documented.push(session.clone());
        CdpCommand { session, ..CdpCommand::new(document, dom_document_params()) }
    }

    /// The DOM parts a DOM call fills: the page's, or its frame job's.
    fn dom_parts(&mut self, call: Call) -> Option<&mut DomParts> {
        match call.frame() {
            None => Some(&mut self.dom),
            Some(k) => self.frame_doms.get_mut(k),
        }
    }

    /// Where the engine's styles begin: after those the DOM pass asks for.
    fn engine_style_at(&self) -> usize {
        engine_style_at(&self.opts)
    }

    /// `DOMSnapshot.captureSnapshot` for the page (`session` None) or an out-of-process frame.
    fn dom_snapshot_command(&self, call: Call, session: Option<String>) -> CdpCommand {
        let boxes = self.opts.wants_boxes() || self.opts.mark_untrusted;
        let mut project = snapshot_reader::projection_spec(boxes);
        let mut params = dom_snapshot_params(self.opts.mark_untrusted, boxes);
        if self.dom_engine() {
            crate::engine::page::add_projection(&mut project);
            if let Some(styles) = params["computedStyles"].as_array_mut() {
                styles.extend(crate::engine::page::STYLES.iter().map(|s| json!(s)));
            }
        }
        CdpCommand { session, project: Some(project), ..CdpCommand::new(call, params) }
    }

    /// Chrome's subtree of each node of the engine's trees whose content
    /// Chrome must give and that was not asked for yet: the node resolved to
    /// a remote object of its document first ([`ChromeCall`]), then
    /// `Accessibility.queryAXTree` asked by that object.
    ///
    /// Never by `backendNodeId`: Chromium 156's renderer crashes when asked
    /// that for a node of the document before a navigation (probes,
    /// 2026-11-29: the first such call took the tab down, each time), and a
    /// page may navigate between the reply these ids come from and the
    /// question (a repeat look's mirror holds ids read looks ago). Asked by
    /// object, the same question after a reload is an error ("Cannot find
    /// context with specified id"), and so is the resolving of such an id;
    /// the capture then notes the controls unread, and the tab lives. It
    /// costs a round trip (the query itself waits about a frame). For the
    /// same reason these are never asked in the first batch for the last
    /// capture's elements (which would have hidden that wait).
    fn ask_chrome_subtrees(&mut self) -> Vec<CdpCommand> {
        let mut cmds = Vec::new();
        let trees = std::iter::once((None, &self.ax_tree)).chain(self.frame_trees.iter().enumerate().map(|(k, t)| (Some(k), t)));
        let mut found = Vec::new();
        for (frame, tree) in trees {
            let Some(Ok(tree)) = tree else { continue };
            for &node in &tree.chrome_subtrees {
                if self.chrome_jobs.iter().any(|j| j.frame == frame && j.node == node) {
                    continue;
                }
                if let Some(backend) = tree.node(node).and_then(|n| n.backend_node_id) {
                    found.push((frame, node, backend));
                }
            }
        }
        for (frame, node, backend) in found {
            let session = frame.and_then(|k| self.frames.get(k)).and_then(|j| j.session.clone());
            let call = Call::ChromeSubtree(self.chrome_jobs.len() as u32, ChromeCall::Resolve);
            self.chrome_jobs.push(ChromeJob { frame, node, reply: None });
            cmds.push(CdpCommand { session, ..CdpCommand::new(call, json!({ "backendNodeId": backend })) });
        }
        cmds
    }

    /// On chrome job `j`'s resolved node: its subtree asked by the object,
    /// and the object let go after (queued behind the question, which holds
    /// the node it names). A node that could not be resolved (its document
    /// gone) is the job's failure.
    fn query_chrome_subtree(&mut self, j: u32, reply: &CdpReply) -> Vec<CdpCommand> {
        let Some(job) = self.chrome_jobs.get_mut(j as usize) else { return Vec::new() };
        // Its calls go where the resolve went: the frame job's session, else the page's.
        let session = job.frame.and_then(|k| self.frames.get(k)).and_then(|f| f.session.clone());
        let object = match reply {
            CdpReply::Ok(text) => crate::compat::json_text::from_str_lossy::<Value>(text)
                .ok()
                .and_then(|v| v.pointer("/object/objectId").and_then(Value::as_str).map(str::to_string)),
            _ => None,
        };
        let Some(object) = object else {
            let why = match reply {
                CdpReply::Err(msg) => msg.clone(),
                CdpReply::Ok(_) => "no object was given".to_string(),
                CdpReply::TimedOut | CdpReply::Broken(_) => NO_ANSWER.to_string(),
            };
            job.reply = Some(Err(WebAiError::new(ErrorCode::CaptureFailed, format!("{}: {why}", Call::ChromeSubtree(j, ChromeCall::Resolve).method()))));
            return Vec::new();
        };
        vec![
            CdpCommand { session: session.clone(), ..CdpCommand::new(Call::ChromeSubtree(j, ChromeCall::Query), json!({ "objectId": object })) },
            CdpCommand { session, ..CdpCommand::new(Call::ChromeSubtree(j, ChromeCall::Release), json!({ "objectId": object })) },
        ]
    }

    /// Chrome's subtrees in place of the engine's nodes. One that could not
    /// be read leaves the engine's node, childless, and a note.
    fn graft_chrome_subtrees(&mut self) {
        let mut failed = Vec::new();
        for job in std::mem::take(&mut self.chrome_jobs) {
            let tree = match job.frame {
                None => self.ax_tree.as_mut(),
                Some(k) => self.frame_trees.get_mut(k).and_then(Option::as_mut),
            };
            let Some(Ok(tree)) = tree else { continue };
            match job.reply {
                Some(Ok(sub)) => tree.graft(job.node, sub),
                Some(Err(e)) => failed.push(e.message),
                None => failed.push(NO_ANSWER.to_string()),
            }
        }
        if let Some(first) = failed.first() {
            self.frame_notes.push(format!(
                "the contents of {} element(s) Chrome draws itself (media controls; date, time and file fields) were not read ({first})",
                failed.len()
            ));
        }
    }

    /// Keep the DOM engine's tree of a DOM snapshot reply: the page's, or frame `k`'s.
    fn engine_tree(&mut self, call: Call, tree: Result<AxTree>) {
        match call.frame() {
            None => self.ax_tree = Some(tree),
            Some(k) => {
                if let Some(slot) = self.frame_trees.get_mut(k) {
                    *slot = Some(tree);
                }
            }
        }
    }

    /// The DOM trees read, each told which frame its root document is and,
    /// for `viewportOnly`, where its viewport sits in the page's.
    fn dom_trees(&mut self, ax: &AxTree, viewport: Option<(f64, f64)>, notes: &mut Vec<String>) -> Vec<DomTree> {
        let mut out = Vec::new();
        let main = std::mem::take(&mut self.dom);
        match main.tree {
            Some(Ok(mut t)) => {
                if main.grafted {
                    t.index_siblings();
                }
                t.root_frame = ax.root.and_then(|r| ax.node(r)).and_then(|n| n.frame_id.clone());
                t.add_hint_ids(main.click_hints);
                // A repeat capture's boxes, read again by script, stand for the mirror's (none):
                // frames in other processes are placed at their owners' boxes below.
                t.boxes = self.given_boxes.take().or(main.boxes);
                t.concealed = main.concealed.into_iter().collect();
                t.placement = viewport.map(|(w, h)| Placement::page(w, h));
                out.push(t);
            }
            Some(Err(e)) => notes.push(format!("the DOM was not read, so refs have no selectors or clickable marks: {e}")),
            None => {}
        }
        self.page_dom_trees = out.len();
        self.frame_dom_trees(&mut out, notes);
        // No tree at all is the serializer's note ("needs the DOM pass").
        if self.opts.viewport_only && !out.is_empty() && !out.iter().any(|t| t.boxes.is_some() && t.placement.is_some()) {
            notes.push("viewportOnly: the page's layout could not be read, so the whole page is shown".into());
        }
        out
    }

    /// The DOM trees of the frames in other processes, after the page's in `out`,
    /// each placed at its owner element's box.
    fn frame_dom_trees(&mut self, out: &mut Vec<DomTree>, notes: &mut Vec<String>) {
        let mut oopif_trees = Vec::new();
        for (k, job) in self.frames.iter().enumerate() {
            if !job.oopif_root {
                continue;
            }
            let parts = self.frame_doms.get_mut(k).map(std::mem::take).unwrap_or_default();
            match parts.tree {
                Some(Ok(mut t)) => {
                    if parts.grafted {
                        t.index_siblings();
                    }
                    t.root_frame = Some(job.info.id.clone());
                    t.add_hint_ids(parts.click_hints);
                    t.boxes = parts.boxes;
                    t.concealed = parts.concealed.into_iter().collect();
                    oopif_trees.push((k, out.len()));
                    out.push(t);
                }
                Some(Err(e)) => notes.push(format!("the DOM of frame {} was not read: {e}", job.info.url)),
                _ => {}
            }
        }
        // A DOMSnapshot tree does not say which element hosts an
        // out-of-process frame; `DOM.getFrameOwner` did. The frame's viewport
        // sits at that element's box.
        for (k, t) in oopif_trees {
            let job = &self.frames[k];
            let Some(owner) = self.frame_owner(k) else { continue };
            if let Some(p) = crate::dom::tree_for(out, job.info.parent_id.as_deref(), owner) {
                out[p].add_owner(&job.info.id, owner);
                let placement = match (&out[p].boxes, &out[p].placement) {
                    (Some(b), Some(at)) => b.placement_inside(owner, at),
                    _ => None,
                };
                out[t].placement = placement;
            }
        }
    }

    /// Fire-and-forget commands for after the capture, for drivers whose
    /// session outlives it: `DOM.getDocument` turned on DOM events for the
    /// session, which would otherwise stream every later mutation to it.
    pub fn cleanup(&self) -> Vec<CdpCommand> {
        self.dom_documented
            .iter()
            .cloned()
            .enumerate()
            .map(|(k, session)| CdpCommand { session, ..CdpCommand::new(Call::Cleanup(k as u32), json!({})) })
            .collect()
    }
}

/// The walk's first calls (`super::walk`); its facts follow in our world, its listeners the page's document.
///
/// The page's document comes first: its object answers before `DOM.getDocument`
/// is done, and the listeners' question it leads to queues in the renderer behind
/// the walk instead of a round trip after the document's reply. The generated app
/// page, `node bench/engine.mjs --script-heavy --only generated-app --no-readme`,
/// old and new in turns, 2026-11-29: the DOM engine 10.7 and 11.0 ms before, 10.0
/// and 10.3 after.
fn walk_commands() -> Vec<CdpCommand> {
    vec![
        CdpCommand::new(Call::Walk(WalkCall::Release), json!({ "objectGroup": walk::OBJECT_GROUP })),
        CdpCommand::new(Call::Walk(WalkCall::PageDocument), json!({ "expression": "document", "objectGroup": walk::OBJECT_GROUP })),
        CdpCommand::new(Call::Walk(WalkCall::Enable), json!({ "includeWhitespace": "all" })),
        CdpCommand::new(Call::Walk(WalkCall::Document), dom_document_params()),
        CdpCommand::new(Call::Walk(WalkCall::Disable), json!({})),
    ]
}

/// Shadow hosts outside any shadow tree past which the DOM pass asks for the
/// whole document in one call rather than each host's element tree.
const MAX_HOSTS: usize = 200;

fn dom_document_params() -> Value {
    json!({ "depth": -1, "pierce": true })
}

/// `cursor` first (click hints); with `concealment`, the styles that hide
/// text after it; with `boxes`, `overflow-y` last (scrollable regions).
fn dom_snapshot_params(concealment: bool, boxes: bool) -> Value {
    let mut styles = vec!["cursor"];
    if concealment {
        styles.extend(crate::dom::concealment::STYLES);
    }
    if boxes {
        styles.push("overflow-y");
    }
    json!({ "computedStyles": styles, "includePaintOrder": false, "includeDOMRects": false })
}

/// The tree reply is either the browser's raw JSON or the driver's projected rows.
fn parse_ax_reply(text: &str) -> Result<AxTree> {
    let mut chars = text.trim_start().chars();
    if chars.next() == Some('[') && matches!(chars.find(|c| !c.is_whitespace()), Some('[') | Some(']')) {
        parse_rows(text)
    } else {
        parse_full_ax_tree(text)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    use serde_json::{json, Value};

    use super::*;
    use crate::capture::driver::capture_in;
    use crate::capture::transport::{CdpCall, CdpTransport, ReplyFuture};

    const FRAME: &str = "T-oopif";

    /// The recorded frames page (real Chromium, DOM engine) with its "Empty frame"
    /// document moved to another process: the page's snapshot shows that iframe
    /// without its document, and the frame's own session answers with it. The page's
    /// snapshot is answered only once the frame's has been asked (`hold`), so a
    /// capture that reads the frame after the page's snapshot never gets it.
    struct OutOfProcess {
        replies: Vec<(String, Value)>,
        page_snapshot: String,
        frame_snapshot: String,
        main: String,
        owner: i64,
        hold: bool,
        frame_asked: Arc<tokio::sync::Notify>,
        page_answered: AtomicBool,
        /// Each call as it came: its method, its session, and whether the page's snapshot had been answered.
        log: Mutex<Vec<(String, Option<String>, bool)>>,
    }

    impl OutOfProcess {
        fn new(hold: bool) -> OutOfProcess {
            let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/recorded/frames-dom.json");
            let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            let replies: Vec<(String, Value)> =
                v["replies"].as_array().unwrap().iter().map(|r| (r["method"].as_str().unwrap().to_string(), r["result"].clone())).collect();
            let mut snap = replies.iter().find(|(m, _)| m == "DOMSnapshot.captureSnapshot").unwrap().1.clone();
            let strings = snap["strings"].clone();
            let main = strings[snap["documents"][0]["frameId"].as_u64().unwrap() as usize].as_str().unwrap().to_string();
            // The page's document hosts the last document at its second frame owner: that one goes elsewhere.
            let docs = snap["documents"].as_array_mut().unwrap();
            let moved = docs.pop().unwrap();
            let moved_index = docs.len() as u64;
            let hosting = &mut docs[0]["nodes"]["contentDocumentIndex"];
            let at = hosting["value"].as_array().unwrap().iter().position(|d| d.as_u64() == Some(moved_index)).unwrap();
            let owner_index = hosting["index"].as_array_mut().unwrap().remove(at).as_u64().unwrap() as usize;
            hosting["value"].as_array_mut().unwrap().remove(at);
            let owner = docs[0]["nodes"]["backendNodeId"][owner_index].as_i64().unwrap();
            let frame_snapshot = json!({ "documents": [moved], "strings": strings }).to_string();
            OutOfProcess {
                replies,
                page_snapshot: snap.to_string(),
                frame_snapshot,
                main,
                owner,
                hold,
                frame_asked: Arc::new(tokio::sync::Notify::new()),
                page_answered: AtomicBool::new(false),
                log: Mutex::new(Vec::new()),
            }
        }

        fn recorded(&self, method: &str) -> CdpReply {
            match self.replies.iter().find(|(m, _)| m == method) {
                Some((_, v)) => CdpReply::Ok(v.to_string()),
                None => CdpReply::Err(format!("not recorded: {method}")),
            }
        }

        fn calls(&self) -> Vec<(String, Option<String>, bool)> {
            self.log.lock().unwrap().clone()
        }
    }

    impl CdpTransport for OutOfProcess {
        fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a> {
            let answered = self.page_answered.load(Ordering::SeqCst);
            self.log.lock().unwrap().push((call.method.to_string(), call.session.map(str::to_string), answered));
            Box::pin(async move {
                match (call.method, call.session) {
                    ("DOMSnapshot.captureSnapshot", None) => {
                        if self.hold {
                            self.frame_asked.notified().await;
                        }
                        self.page_answered.store(true, Ordering::SeqCst);
                        CdpReply::Ok(self.page_snapshot.clone())
                    }
                    ("DOMSnapshot.captureSnapshot", Some(_)) => {
                        self.frame_asked.notify_one();
                        CdpReply::Ok(self.frame_snapshot.clone())
                    }
                    ("Target.getTargets", None) => CdpReply::Ok(
                        json!({ "targetInfos": [
                            { "targetId": self.main, "type": "page", "url": "file:///frames.html" },
                            { "targetId": FRAME, "type": "iframe", "parentFrameId": self.main, "url": "https://elsewhere.test/" },
                            // Another tab's frame: not this page's.
                            { "targetId": "T-other", "type": "iframe", "parentFrameId": "P-other", "url": "https://other.test/" }
                        ] })
                        .to_string(),
                    ),
                    ("DOM.getFrameOwner", None) if call.params["frameId"] == FRAME => {
                        CdpReply::Ok(json!({ "backendNodeId": self.owner, "frameId": self.main }).to_string())
                    }
                    ("Page.getFrameTree", Some(_)) => {
                        CdpReply::Ok(json!({ "frameTree": { "frame": { "id": FRAME, "loaderId": "L-oopif", "url": "https://elsewhere.test/" } } }).to_string())
                    }
                    (method, None) => self.recorded(method),
                    (method, Some(s)) => CdpReply::Err(format!("{method} was not expected in session {s}")),
                }
            })
        }
    }

    fn opts() -> SnapshotOptions {
        SnapshotOptions { engine: crate::options::Engine::Dom, timeout_ms: 3000, ..SnapshotOptions::default() }
    }

    #[tokio::test]
    async fn frames_in_other_processes_are_read_while_the_page_builds_its_snapshot() {
        let t = OutOfProcess::new(true);
        // A page captured for the first time: nothing says whether it has such frames.
        let captured = capture_in(&t, opts(), CaptureContext::default()).await.expect("the capture ends once the frame was read");
        let text = &captured.snapshot.text;
        assert!(text.contains("- iframe \"Empty frame\":\n      - document \"Nothing\""), "the frame's document is under its iframe:\n{text}");
        assert!(text.contains("button \"Deepest button\""), "{text}");
        let calls = t.calls();
        let asked_early = |method: &str, session: Option<&str>| calls.iter().any(|(m, s, answered)| m == method && s.as_deref() == session && !answered);
        assert!(asked_early("Target.getTargets", None), "{calls:?}");
        assert!(asked_early("DOM.getFrameOwner", None), "{calls:?}");
        assert!(asked_early("DOMSnapshot.captureSnapshot", Some(FRAME)), "{calls:?}");
        assert_eq!(calls.iter().filter(|(m, _, _)| m == "Target.getTargets").count(), 1, "{calls:?}");
        assert_eq!(
            calls.iter().filter(|(m, s, _)| m == "DOMSnapshot.captureSnapshot" && s.is_some()).count(),
            1,
            "one frame read, not the other tab's: {calls:?}"
        );
        // The world remembers the frames: the next capture asks for the targets at once again.
        assert_eq!(captured.world.as_ref().and_then(|w| w.frames), Some(true));
    }

    #[tokio::test]
    async fn a_page_that_had_no_such_frames_is_not_asked_for_targets_until_its_snapshot_shows_one() {
        let t = OutOfProcess::new(false);
        let world = World { frame_id: t.main.clone(), loader_id: "L".into(), context_id: 7, token: None, walk: None, frames: Some(false), walked: false };
        let captured = capture_in(&t, opts(), CaptureContext { world: Some(world), ..CaptureContext::default() }).await.unwrap();
        assert!(captured.snapshot.text.contains("- iframe \"Empty frame\":\n      - document \"Nothing\""), "{}", captured.snapshot.text);
        let calls = t.calls();
        let targets = calls.iter().find(|(m, _, _)| m == "Target.getTargets").expect("asked once the snapshot showed the frame");
        assert!(targets.2, "asked after the page's snapshot: {calls:?}");
        assert_eq!(captured.world.as_ref().and_then(|w| w.frames), Some(true));
    }
}
