//! A capture plan driven from the thread that holds the browser session.
//!
//! A JS session's `send` lives on Node's main thread. Run on a tokio worker,
//! the plan reached it through a thread-safe function: a thread hop for every
//! command and every reply, each waiting for a core the browser is also
//! using. Measured on a 20-node page (`hidden-nodes.html`, release build,
//! Playwright CDP session, medians of 41): the capture's six commands sent
//! raw and at once took 1.36 ms, the capture 2.89 ms, of which 0.12 ms was
//! reading replies and building the snapshot; the rest was hops. A pump keeps
//! it all on the caller's thread: the caller polls the plan, sends the
//! requests it hands out, gives each reply back ([`Pump::deliver`]) and
//! polls again. Deadlines are the caller's to keep: each request says how
//! long it may take, and an unanswered one is delivered as timed out.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::transport::{CdpCall, CdpReply, CdpTransport, ReplyFuture};

/// One command for the caller to send.
#[derive(Debug, Clone, PartialEq)]
pub struct PumpRequest {
    /// Names the reply in [`Pump::deliver`].
    pub id: u32,
    pub method: String,
    pub params: Value,
    /// The out-of-process frame whose own session must answer (None: the page's).
    pub session: Option<String>,
    /// Copy only these fields of the reply into its text (see [`CdpCall::project`]).
    pub project: Option<Value>,
    /// How long the reply may take before it is delivered as [`CdpReply::TimedOut`].
    pub timeout_ms: u64,
}

/// What a poll found.
pub enum PumpStep<T> {
    /// Send these (possibly none: replies are still awaited), then poll again after each delivery.
    Send(Vec<PumpRequest>),
    /// The plan's result; later polls find nothing.
    Done(T),
    /// The result was taken by an earlier poll.
    Finished,
}

#[derive(Default)]
struct Slot {
    reply: Option<CdpReply>,
    waker: Option<Waker>,
}

#[derive(Default)]
struct Mailbox {
    next_id: u32,
    outbox: Vec<PumpRequest>,
    slots: FxHashMap<u32, Slot>,
}

/// The transport a pumped plan sends through: requests wait in an outbox
/// for the caller, replies in slots for the plan.
#[derive(Default)]
pub struct PumpTransport {
    mailbox: Mutex<Mailbox>,
}

impl PumpTransport {
    // Poisoning needs a panic while the lock is held; none of the code
    // under it can panic, and the data stays consistent either way.
    fn lock(&self) -> MutexGuard<'_, Mailbox> {
        self.mailbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn post(&self, call: CdpCall<'_>, timeout_ms: u64) -> u32 {
        let mut m = self.lock();
        let id = m.next_id;
        m.next_id = m.next_id.wrapping_add(1);
        m.outbox.push(PumpRequest {
            id,
            method: call.method.to_string(),
            params: call.params.clone(),
            session: call.session.map(str::to_string),
            project: call.project.cloned(),
            timeout_ms,
        });
        m.slots.insert(id, Slot::default());
        id
    }
}

/// The reply to request `id`, once delivered. Dropped early (its batch
/// ended), it frees its slot: a late reply then finds nothing to fill.
struct Awaited {
    transport: Arc<PumpTransport>,
    id: u32,
}

impl Future for Awaited {
    type Output = CdpReply;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<CdpReply> {
        let mut m = self.transport.lock();
        match m.slots.get_mut(&self.id) {
            Some(slot) => match slot.reply.take() {
                Some(reply) => Poll::Ready(reply),
                None => {
                    slot.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            },
            // Only a misuse (polled after it was answered) gets here.
            None => Poll::Ready(CdpReply::Err("the reply was already taken".into())),
        }
    }
}

impl Drop for Awaited {
    fn drop(&mut self) {
        self.transport.lock().slots.remove(&self.id);
    }
}

/// A handle the plan holds: the transport shared with its [`Pump`].
pub struct PumpHandle(Arc<PumpTransport>);

impl CdpTransport for PumpHandle {
    fn call<'a>(&'a self, call: CdpCall<'a>) -> ReplyFuture<'a> {
        self.call_until(call, Instant::now() + std::time::Duration::from_millis(crate::options::DEFAULT_TIMEOUT_MS as u64))
    }

    fn call_until<'a>(&'a self, call: CdpCall<'a>, deadline: Instant) -> ReplyFuture<'a> {
        let left = deadline.saturating_duration_since(Instant::now());
        // Rounded up: a call with 0.4 ms left is sent, and given 1 ms.
        let ms = left.as_micros().div_ceil(1000) as u64;
        if ms == 0 {
            return Box::pin(async { CdpReply::TimedOut });
        }
        let id = self.0.post(call, ms);
        Box::pin(Awaited { transport: self.0.clone(), id })
    }
}

type Plan<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A plan and the transport it sends through.
pub struct Pump<T> {
    plan: Option<Plan<T>>,
    transport: Arc<PumpTransport>,
}

impl<T> Pump<T> {
    /// `make` builds the plan over the pump's transport; nothing runs until [`Pump::poll`].
    pub fn new<F, Fut>(make: F) -> Pump<T>
    where
        F: FnOnce(PumpHandle) -> Fut,
        Fut: Future<Output = T> + Send + 'static,
    {
        let transport = Arc::new(PumpTransport::default());
        let plan: Plan<T> = Box::pin(make(PumpHandle(transport.clone())));
        Pump { plan: Some(plan), transport }
    }

    /// Run the plan as far as the replies so far allow.
    pub fn poll(&mut self) -> PumpStep<T> {
        let Some(plan) = self.plan.as_mut() else { return PumpStep::Finished };
        // Nobody needs waking: the caller polls after every delivery.
        let mut cx = Context::from_waker(Waker::noop());
        match plan.as_mut().poll(&mut cx) {
            Poll::Ready(out) => {
                self.plan = None;
                self.transport.lock().outbox.clear();
                PumpStep::Done(out)
            }
            Poll::Pending => PumpStep::Send(std::mem::take(&mut self.transport.lock().outbox)),
        }
    }

    /// The reply to request `id`. Unknown ids (a request whose batch has
    /// ended, a second reply) are ignored.
    pub fn deliver(&self, id: u32, reply: CdpReply) {
        let waker = {
            let mut m = self.transport.lock();
            match m.slots.get_mut(&id) {
                Some(slot) if slot.reply.is_none() => {
                    slot.reply = Some(reply);
                    slot.waker.take()
                }
                _ => None,
            }
        };
        // Wakes the plan's inner futures (a batch's set of calls), so the next poll looks at this one.
        if let Some(w) = waker {
            w.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::call_before;
    use std::time::Duration;

    fn requests<T>(step: PumpStep<T>) -> Vec<PumpRequest> {
        match step {
            PumpStep::Send(r) => r,
            _ => panic!("expected requests"),
        }
    }

    #[test]
    fn a_plan_waits_for_its_replies_in_any_order() {
        let mut pump = Pump::new(|t| async move {
            let p = serde_json::json!({});
            let deadline = Instant::now() + Duration::from_secs(5);
            let (a, b) =
                futures::future::join(call_before(&t, CdpCall::new("A.one", &p), deadline), call_before(&t, CdpCall::new("B.two", &p), deadline)).await;
            let c = call_before(&t, CdpCall::new("C.three", &p), deadline).await;
            (a, b, c)
        });
        let first = requests(pump.poll());
        assert_eq!(first.iter().map(|r| r.method.as_str()).collect::<Vec<_>>(), ["A.one", "B.two"]);
        assert!(first.iter().all(|r| r.timeout_ms > 4000 && r.timeout_ms <= 5000));
        pump.deliver(first[1].id, CdpReply::Ok("2".into()));
        assert!(requests(pump.poll()).is_empty(), "one reply is not enough");
        pump.deliver(first[0].id, CdpReply::Err("no".into()));
        pump.deliver(first[0].id, CdpReply::Ok("late duplicate".into()));
        let third = requests(pump.poll());
        assert_eq!(third.len(), 1);
        pump.deliver(third[0].id, CdpReply::TimedOut);
        match pump.poll() {
            PumpStep::Done((a, b, c)) => {
                assert_eq!(a, CdpReply::Err("no".into()));
                assert_eq!(b, CdpReply::Ok("2".into()));
                assert_eq!(c, CdpReply::TimedOut);
            }
            _ => panic!("the plan should be done"),
        }
        assert!(matches!(pump.poll(), PumpStep::Finished));
    }

    #[test]
    fn a_call_past_its_deadline_is_not_sent() {
        let mut pump = Pump::new(|t| async move {
            let p = serde_json::json!({});
            call_before(&t, CdpCall::new("A.one", &p), Instant::now()).await
        });
        assert!(matches!(pump.poll(), PumpStep::Done(CdpReply::TimedOut)));
    }

    #[test]
    fn replies_to_a_dropped_call_are_ignored() {
        let mut pump = Pump::new(|t| async move {
            let p = serde_json::json!({});
            let deadline = Instant::now() + Duration::from_secs(5);
            // The first reply ends the race; the other call is dropped.
            let won = futures::future::select(
                Box::pin(call_before(&t, CdpCall::new("A.one", &p), deadline)),
                Box::pin(call_before(&t, CdpCall::new("B.two", &p), deadline)),
            )
            .await
            .factor_first()
            .0;
            won
        });
        let sent = requests(pump.poll());
        pump.deliver(sent[0].id, CdpReply::Ok("a".into()));
        assert!(matches!(pump.poll(), PumpStep::Done(CdpReply::Ok(ref t)) if t == "a"));
        pump.deliver(sent[1].id, CdpReply::Ok("b".into()));
        assert!(pump.transport.lock().slots.is_empty());
    }
}
