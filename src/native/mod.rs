//! The native path: the core connects to a running browser's DevTools
//! endpoint by itself, picks the tab, captures over [`NativeConnection`]
//! and detaches, leaving the browser as it found it. Everything here is
//! async on tokio, so captures wait on sockets, not on threads.

mod connection;
mod discovery;
mod kept;

use std::time::{Duration, Instant};

pub use connection::{Dialog, NativeConnection, MAX_MESSAGE_BYTES};
pub use kept::{is_fatal, KeptConnection};

use crate::capture::{capture_in, CaptureContext, Captured};
use crate::error::Result;
use crate::options::SnapshotOptions;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Endpoint {
    /// `http(s)://host:port` or a `ws(s)://` DevTools URL.
    pub url: String,
    pub target_id: Option<String>,
    pub url_includes: Option<String>,
    /// The largest websocket message accepted (default [`connection::MAX_MESSAGE_BYTES`]).
    pub max_message_bytes: Option<usize>,
}

/// Connect, snapshot the chosen tab, detach.
pub async fn capture_endpoint(endpoint: &Endpoint, opts: SnapshotOptions, ctx: CaptureContext) -> Result<Captured> {
    let deadline = Instant::now() + Duration::from_millis(opts.timeout_ms as u64);
    let conn = NativeConnection::open(endpoint, deadline).await?;
    let left = deadline.saturating_duration_since(Instant::now()).as_millis() as u32;
    let result = capture_in(&conn, SnapshotOptions { timeout_ms: left.max(1), ..opts }, ctx).await;
    conn.close().await;
    result
}

/// The benchmark's native floor: connect and attach like [`capture_endpoint`],
/// then one bare tree call whose reply is not parsed. `[totalMs, connectMs, bytes]`.
pub async fn bare_tree(endpoint: &Endpoint, timeout_ms: u32) -> Result<[f64; 3]> {
    let started = Instant::now();
    let deadline = started + Duration::from_millis(timeout_ms as u64);
    let conn = NativeConnection::open(endpoint, deadline).await?;
    let connected = started.elapsed().as_secs_f64() * 1000.0;
    let bytes = conn.raw_tree(deadline).await;
    let total = started.elapsed().as_secs_f64() * 1000.0;
    conn.close().await;
    Ok([total, connected, bytes? as f64])
}

/// Load `url` in the chosen tab and wait for it (the CLI's own browser).
pub async fn navigate(endpoint: &Endpoint, url: &str, timeout_ms: u32) -> Result<()> {
    let deadline = Instant::now() + Duration::from_millis(timeout_ms as u64);
    let conn = NativeConnection::open(endpoint, deadline).await?;
    let result = conn.navigate(url, deadline).await;
    conn.close().await;
    result
}
