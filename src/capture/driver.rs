//! Running the capture plan over a transport: each batch goes out at once,
//! and each reply is handed to the plan as it arrives, so the tree is read
//! while the page still answers the rest of the batch.

use std::time::{Duration, Instant};

use futures::stream::{FuturesUnordered, StreamExt};

use super::context::{CaptureContext, World};
use super::session::{CaptureSession, CdpCommand, Step};
use super::transport::{call_before, CdpCall, CdpTransport};
use crate::error::Result;
use crate::options::SnapshotOptions;
use crate::text::snapshot::WebAiSnapshot;

/// How long the after-capture cleanup (`DOM.disable`) may take at most.
const CLEANUP_MS: u64 = 500;

impl CdpCommand {
    pub fn as_call(&self) -> CdpCall<'_> {
        CdpCall { method: self.call.method(), params: &self.params, session: self.session.as_deref(), project: self.project.as_ref() }
    }
}

/// A finished capture and the time this package spent on it apart from
/// waiting for the browser (reading replies, building the snapshot).
pub struct Captured {
    pub snapshot: WebAiSnapshot,
    pub processing_ms: f64,
    /// The isolated world the page scripts ran in: the next capture of the page may reuse it.
    pub world: Option<World>,
    /// With `ctx.incremental`: the page's DOM snapshot as a mirror, when it can serve repeat captures.
    pub mirror: Option<crate::incremental::Mirror>,
    /// The value of `Incremental::after` as JSON, when a repeat capture read subtrees and it answered.
    pub after: Option<String>,
    /// A page session's capture: what its frames in other processes answered (for the next one to replay).
    pub frame_replies: super::session::FrameReplies,
    /// A repeat capture's build, kept for the next (not taken by a mirror of this capture).
    pub built: Option<crate::incremental::kept::Built>,
}

/// Send a batch and hand each reply over as it comes. A broken connection
/// or tab ends the batch at once: nothing still pending can be answered.
/// Commands `each` returns join the batch in flight.
async fn send_all(
    transport: &dyn CdpTransport,
    batch: Vec<CdpCommand>,
    deadline: Instant,
    mut each: impl FnMut(super::Call, super::CdpReply) -> Vec<CdpCommand>,
) {
    let one = |c: CdpCommand| async move {
        let reply = call_before(transport, c.as_call(), deadline).await;
        (c.call, reply)
    };
    let mut pending: FuturesUnordered<_> = batch.into_iter().map(one).collect();
    while let Some((id, reply)) = pending.next().await {
        let broken = matches!(reply, super::CdpReply::Broken(_));
        let more = each(id, reply);
        if broken {
            return;
        }
        pending.extend(more.into_iter().map(one));
    }
}

/// Capture a snapshot over any transport.
pub async fn capture_with(transport: &dyn CdpTransport, opts: SnapshotOptions) -> Result<Captured> {
    capture_in(transport, opts, CaptureContext::default()).await
}

/// Capture a snapshot for a page session: numbered, in its world, kept as its mirror.
pub async fn capture_in(transport: &dyn CdpTransport, opts: SnapshotOptions, ctx: CaptureContext) -> Result<Captured> {
    drive(transport, CaptureSession::new(opts, ctx)).await
}

/// Run a capture plan to its snapshot.
pub(super) async fn drive(transport: &dyn CdpTransport, mut session: CaptureSession) -> Result<Captured> {
    let batch = session.start();
    drive_from(transport, session, batch).await
}

/// Run a capture plan from the batch it asked for.
pub(super) async fn drive_from(transport: &dyn CdpTransport, mut session: CaptureSession, mut batch: Vec<CdpCommand>) -> Result<Captured> {
    let mut processing = Duration::ZERO;
    loop {
        let remaining = session.remaining_ms();
        if remaining == 0 {
            // Out of time: nothing more is sent. Each call of the batch is
            // taken as unanswered, so the plan keeps what it has: optional
            // calls become notes, a required one the timeout error.
            let mut left = std::mem::take(&mut batch);
            while let Some(c) = left.pop() {
                left.extend(session.receive(c.call, super::CdpReply::TimedOut));
            }
        } else {
            let deadline = Instant::now() + Duration::from_millis(remaining);
            send_all(transport, std::mem::take(&mut batch), deadline, |call, reply| {
                let t = Instant::now();
                let more = session.receive(call, reply);
                processing += t.elapsed();
                more
            })
            .await;
        }
        let t = Instant::now();
        let step = session.advance();
        processing += t.elapsed();
        match step? {
            Step::Send(next) => batch = next,
            Step::Done(snapshot) => {
                // A session that outlives the capture (a Playwright page's)
                // would otherwise stream every later DOM mutation to us.
                let cleanup = session.cleanup();
                if !cleanup.is_empty() {
                    send_all(transport, cleanup, Instant::now() + Duration::from_millis(CLEANUP_MS), |_, _| Vec::new()).await;
                }
                let mut snapshot = *snapshot;
                let why = session.mirror_unusable();
                let mirror = match (session.mirror.take(), why) {
                    (Some(mut m), None) => {
                        // A mirror read from this reply holds its nodes in the page's order.
                        if let Some(built) = session.built.take().filter(|b| b.page.nodes.len() == m.node_slots()) {
                            let page_of = (0..m.node_slots() as u32).collect();
                            let shape = m.shape.clone();
                            m.keep(built.kept(page_of, &shape));
                        }
                        Some(m)
                    }
                    (_, Some(why)) if session.wants_mirror() => {
                        snapshot.notes.push(format!("{}{why}", super::repeat::NOT_MIRRORED_NOTE));
                        None
                    }
                    _ => None,
                };
                return Ok(Captured {
                    snapshot,
                    processing_ms: processing.as_secs_f64() * 1000.0,
                    world: session.world_after(),
                    mirror,
                    after: None,
                    frame_replies: std::mem::take(&mut session.frame_replies),
                    built: session.built.take(),
                });
            }
        }
    }
}
