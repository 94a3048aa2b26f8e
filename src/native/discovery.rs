//! Finding a browser's DevTools websocket from the endpoint a user gives.

use std::time::Instant;

use serde_json::{json, Value};

use crate::error::{ErrorCode, Result, WebAiError};

pub fn unreachable(endpoint: &str, why: impl std::fmt::Display) -> WebAiError {
    WebAiError::new(ErrorCode::CdpUnreachable, format!("cannot reach the DevTools endpoint {endpoint}: {why}"))
        .with_evidence(json!({ "endpoint": endpoint, "message": why.to_string() }))
}

fn bad_endpoint(endpoint: &str) -> WebAiError {
    WebAiError::new(ErrorCode::InvalidInput, format!("cdpEndpoint must be http(s)://host:port or a ws(s):// DevTools URL, got {endpoint:?}"))
        .with_evidence(json!({ "what": "cdpEndpoint" }))
}

/// The browser's websocket URL for an endpoint given as http(s):// or ws(s)://.
pub async fn websocket_url(endpoint: &str, deadline: Instant) -> Result<String> {
    if endpoint.starts_with("ws://") || endpoint.starts_with("wss://") {
        return Ok(endpoint.to_string());
    }
    let base = reqwest::Url::parse(endpoint).map_err(|_| bad_endpoint(endpoint))?;
    if !matches!(base.scheme(), "http" | "https") || base.host_str().is_none() {
        return Err(bad_endpoint(endpoint));
    }
    let version = base.join("/json/version").map_err(|_| bad_endpoint(endpoint))?;
    let left = deadline.saturating_duration_since(Instant::now());
    // No proxy: a DevTools port is local to the browser, never behind the user's HTTP proxy.
    let client = reqwest::Client::builder().no_proxy().timeout(left).build().map_err(|e| unreachable(endpoint, e))?;
    let answer = client.get(version).header("Accept", "application/json").send().await.map_err(|e| {
        if e.is_timeout() {
            unreachable(endpoint, "no answer before the deadline")
        } else {
            unreachable(endpoint, e)
        }
    })?;
    if !answer.status().is_success() {
        return Err(unreachable(endpoint, format!("/json/version answered HTTP {}", answer.status())));
    }
    let body = answer.bytes().await.map_err(|e| unreachable(endpoint, e))?;
    let v: Value = serde_json::from_slice(&body).map_err(|e| unreachable(endpoint, format!("/json/version is not JSON: {e}")))?;
    let ws = v.get("webSocketDebuggerUrl").and_then(Value::as_str).ok_or_else(|| unreachable(endpoint, "/json/version has no webSocketDebuggerUrl"))?;
    // The browser reports its own idea of the host (often localhost or
    // 127.0.0.1): keep the one the caller reached, and its scheme's security.
    let mut url = reqwest::Url::parse(ws).map_err(|_| unreachable(endpoint, format!("bad webSocketDebuggerUrl {ws:?}")))?;
    let scheme = if base.scheme() == "https" { "wss" } else { "ws" };
    let _ = url.set_scheme(scheme);
    let _ = url.set_host(base.host_str());
    let _ = url.set_port(base.port_or_known_default());
    Ok(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn ws_urls_pass_through_and_other_schemes_are_invalid_input() {
        let d = Instant::now() + Duration::from_secs(1);
        assert_eq!(websocket_url("wss://h:1/devtools/browser/x", d).await.unwrap_or_default(), "wss://h:1/devtools/browser/x");
        let e = websocket_url("ftp://x", d).await.err().map(|e| e.code.code());
        assert_eq!(e, Some("snapshot.invalid-input"));
    }

    #[tokio::test]
    async fn a_dead_port_is_unreachable_within_the_deadline() {
        let started = Instant::now();
        let e = websocket_url("http://127.0.0.1:9", started + Duration::from_millis(500)).await.err().map(|e| e.code.code());
        assert_eq!(e, Some("cdp.unreachable"));
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}
