//! A page session's own DevTools connection, kept for the session's life.
//!
//! A one-off capture over an endpoint connects, attaches and detaches (three
//! round trips and a websocket handshake). A page session looks again and
//! again, watches the page between looks and acts on it, so it keeps one
//! connection: its captures can patch the session's mirror (the watcher's
//! world and the page's backend ids stay the same), and a tab that closes
//! or crashes is known the moment Chrome says so, from the connection's
//! events, instead of after a call's deadline.
//!
//! A connection that broke is reported once with its cause
//! (`target.detached`, `target.crashed`, `connection.closed`); the call
//! after that connects again, which finds the tab if it came back (a
//! crashed tab reloaded) and says which tabs there are if it did not.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::{Endpoint, NativeConnection};
use crate::capture::World;
use crate::error::{ErrorCode, Result, WebAiError};

struct Kept {
    endpoint: Endpoint,
    conn: Arc<NativeConnection>,
    /// The world the last capture's page scripts ran in (handed to the next).
    world: Option<World>,
    /// Our world's context where `global` holds the installed function, per document.
    installed: Option<i64>,
}

/// A request in flight: its URL and how long ago it started.
pub type InFlight = (String, std::time::Duration);

#[derive(Default)]
pub struct KeptConnection {
    kept: tokio::sync::Mutex<Option<Kept>>,
    /// Follow the tab's requests on every connection this opens (a session that settles after actions).
    track_requests: std::sync::atomic::AtomicBool,
    /// Follow the tab's JavaScript dialogs on every connection this opens (an agent's session).
    watch_dialogs: std::sync::atomic::AtomicBool,
    /// The request rules the tab was given (`Network.setBlockedURLs`),
    /// given again to every connection this opens, out-of-process frames included.
    request_rules: std::sync::Mutex<Option<Value>>,
}

impl KeptConnection {
    /// The session's connection to `endpoint`'s tab (opened now if there is
    /// none), and the world the last capture used.
    pub async fn get(&self, endpoint: &Endpoint, deadline: Instant) -> Result<(Arc<NativeConnection>, Option<World>)> {
        self.get_for(endpoint, None, deadline).await
    }

    /// [`Self::get`] for one command: a reload of a crashed tab goes through.
    async fn get_for(&self, endpoint: &Endpoint, method: Option<&str>, deadline: Instant) -> Result<(Arc<NativeConnection>, Option<World>)> {
        let mut kept = self.kept.lock().await;
        if let Some(k) = kept.as_ref().filter(|k| k.endpoint == *endpoint) {
            match k.conn.broken() {
                None => return Ok((k.conn.clone(), k.world.clone())),
                Some(why) if method.is_some_and(|m| super::connection::revives(&why, m)) => return Ok((k.conn.clone(), k.world.clone())),
                Some(why) => {
                    if let Some(old) = kept.take() {
                        close_later(old.conn);
                    }
                    return Err(why);
                }
            }
        }
        if let Some(old) = kept.take() {
            close_later(old.conn);
        }
        let conn = Arc::new(NativeConnection::open(endpoint, deadline).await?);
        // A crashed tab takes no domains; it is reached only to be reloaded,
        // after which the next call connects again and enables them.
        let tolerated = |e: &WebAiError| method.is_some_and(|m| super::connection::revives(e, m));
        if self.track_requests.load(std::sync::atomic::Ordering::Relaxed) {
            conn.track_requests(deadline).await.or_else(|e| if tolerated(&e) { Ok(()) } else { Err(e) })?;
        }
        if self.watch_dialogs.load(std::sync::atomic::Ordering::Relaxed) {
            conn.watch_dialogs(deadline).await.or_else(|e| if tolerated(&e) { Ok(()) } else { Err(e) })?;
        }
        let rules = self.request_rules.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(rules) = rules {
            let held = async {
                conn.call("Network.enable", &serde_json::json!({}), deadline).await?;
                conn.call("Network.setBlockedURLs", &rules, deadline).await?;
                conn.hold_frames_to(&rules, deadline).await
            };
            held.await.or_else(|e| if tolerated(&e) { Ok(()) } else { Err(e) })?;
        }
        *kept = Some(Kept { endpoint: endpoint.clone(), conn: conn.clone(), world: None, installed: None });
        Ok((conn, None))
    }

    /// Follow the tab's requests from now on, on this connection and any opened later.
    pub async fn track_requests(&self, endpoint: &Endpoint, deadline: Instant) -> Result<()> {
        self.turn_on(&self.track_requests, endpoint, deadline, |conn| async move { conn.track_requests(deadline).await }).await
    }

    /// Follow the tab's JavaScript dialogs from now on, on this connection and any opened later.
    pub async fn watch_dialogs(&self, endpoint: &Endpoint, deadline: Instant) -> Result<()> {
        self.turn_on(&self.watch_dialogs, endpoint, deadline, |conn| async move { conn.watch_dialogs(deadline).await }).await
    }

    /// Set a domain's flag (every connection opened from now on enables it)
    /// and enable it on the connection kept already. A failure clears the
    /// flag it set, so that the next call tries again instead of taking the
    /// domain for on.
    async fn turn_on<F, Fut>(&self, flag: &std::sync::atomic::AtomicBool, endpoint: &Endpoint, deadline: Instant, enable: F) -> Result<()>
    where
        F: FnOnce(Arc<NativeConnection>) -> Fut,
        Fut: std::future::Future<Output = Result<()>>,
    {
        let already = flag.swap(true, std::sync::atomic::Ordering::Relaxed);
        let on = async {
            let (conn, _) = self.get(endpoint, deadline).await?;
            if already {
                Ok(())
            } else {
                enable(conn).await
            }
        };
        let r = on.await;
        if r.is_err() && !already {
            flag.store(false, std::sync::atomic::Ordering::Relaxed);
        }
        r
    }

    /// The dialog open in the kept connection's tab, if one is.
    pub async fn dialog(&self) -> Option<super::Dialog> {
        self.kept.lock().await.as_ref().and_then(|k| k.conn.dialog())
    }

    /// One command on the tab over the session's connection (opened if there is none).
    pub async fn call(&self, endpoint: &Endpoint, method: &str, params: &Value, deadline: Instant) -> Result<String> {
        let (conn, _) = self.get_for(endpoint, Some(method), deadline).await?;
        let crashed = conn.broken().is_some_and(|why| why.code == ErrorCode::TargetCrashed);
        let mut r = conn.call(method, params, deadline).await;
        // The rules of what the tab may load hold for its out-of-process frames too.
        if method == "Network.setBlockedURLs" && r.is_ok() {
            *self.request_rules.lock().unwrap_or_else(|p| p.into_inner()) = Some(params.clone());
            if let Err(e) = conn.hold_frames_to(params, deadline).await {
                r = Err(e);
            }
        }
        // A reload brought a crashed tab back: the next call connects afresh, with its domains.
        if r.as_ref().is_err_and(is_fatal) || (crashed && r.is_ok()) {
            self.drop_broken(&conn).await;
        }
        r
    }

    /// The kept connection's requests in flight (none without a connection).
    pub async fn requests_in_flight(&self) -> Vec<InFlight> {
        self.kept.lock().await.as_ref().map(|k| k.conn.requests_in_flight()).unwrap_or_default()
    }

    /// Remember the world a capture over `conn` used.
    pub async fn keep_world(&self, conn: &Arc<NativeConnection>, world: Option<World>) {
        if let Some(k) = self.kept.lock().await.as_mut().filter(|k| Arc::ptr_eq(&k.conn, conn)) {
            k.world = world;
        }
    }

    /// Forget `conn` if it is still the kept one (it broke and its cause was reported).
    pub async fn drop_broken(&self, conn: &Arc<NativeConnection>) {
        let mut kept = self.kept.lock().await;
        if kept.as_ref().is_some_and(|k| Arc::ptr_eq(&k.conn, conn)) {
            if let Some(old) = kept.take() {
                close_later(old.conn);
            }
        }
    }

    /// Call the function `source` with `args` in our world of the tab's main
    /// frame. With `global`, the function is compiled once per document into
    /// that global of our world and each later call only names it (a
    /// watcher polled every 25 ms would otherwise send and compile its
    /// whole source each time).
    pub async fn evaluate(&self, conn: &Arc<NativeConnection>, source: &str, global: Option<&str>, args: &[Value], deadline: Instant) -> Result<String> {
        let args_json = serde_json::to_string(args).unwrap_or_else(|_| "[]".into());
        let args_literal = serde_json::to_string(&args_json).unwrap_or_default();
        let installed = self.kept.lock().await.as_ref().filter(|k| Arc::ptr_eq(&k.conn, conn)).and_then(|k| k.installed);
        if let (Some(global), Some(context)) = (global, installed) {
            let expression = format!("globalThis[{}].apply(null, JSON.parse({args_literal}))", serde_json::to_string(global).unwrap_or_default());
            match conn.evaluate_in_context(context, &expression, deadline).await {
                Ok(v) => return Ok(v),
                // The document (and its world) went, or the call itself failed: install again below.
                Err(e) if is_fatal(&e) => return Err(e),
                Err(_) => {}
            }
        }
        let context = conn.world_context(deadline).await?;
        let function = match global {
            Some(g) => format!("(globalThis[{}] = ({source}))", serde_json::to_string(g).unwrap_or_default()),
            None => format!("({source})"),
        };
        let value = conn.evaluate_in_context(context, &format!("{function}.apply(null, JSON.parse({args_literal}))"), deadline).await?;
        if global.is_some() {
            if let Some(k) = self.kept.lock().await.as_mut().filter(|k| Arc::ptr_eq(&k.conn, conn)) {
                k.installed = Some(context);
            }
        }
        Ok(value)
    }

    /// Detach and close the connection, if there is one.
    pub async fn close(&self) {
        let old = self.kept.lock().await.take();
        if let Some(old) = old {
            match Arc::try_unwrap(old.conn) {
                Ok(conn) => conn.close().await,
                // A call still holds it: it closes when that call lets go.
                Err(shared) => drop(shared),
            }
        }
    }
}

/// Faults after which asking again cannot help: the tab or the browser is gone.
pub fn is_fatal(e: &WebAiError) -> bool {
    matches!(e.code, ErrorCode::TargetDetached | ErrorCode::TargetCrashed | ErrorCode::ConnectionClosed)
}

/// Close a connection nobody uses any more without waiting for it.
fn close_later(conn: Arc<NativeConnection>) {
    if let Ok(conn) = Arc::try_unwrap(conn) {
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(conn.close());
        }
    }
}
