//! A minimal RFC 6455 client over a blocking TCP stream, for talking CDP to a
//! browser's DevTools endpoint. Only what CDP needs: one text message per
//! command or event, client frames masked, fragments joined, pings answered.
//! Every read and write is bounded by the caller's deadline.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

pub struct WebSocket {
    stream: TcpStream,
    buf: Vec<u8>,
    mask_state: u32,
}

#[derive(Debug)]
pub enum WsError {
    Io(io::Error),
    Timeout,
    Protocol(String),
    Closed,
}

impl std::fmt::Display for WsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WsError::Io(e) => write!(f, "{e}"),
            WsError::Timeout => write!(f, "timed out"),
            WsError::Protocol(m) => write!(f, "{m}"),
            WsError::Closed => write!(f, "the browser closed the connection"),
        }
    }
}

fn io_err(e: io::Error) -> WsError {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => WsError::Timeout,
        _ => WsError::Io(e),
    }
}

/// `ws://host:port/path` → (host, port, path).
pub fn split_ws_url(url: &str) -> Option<(String, u16, String)> {
    let rest = url.strip_prefix("ws://")?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h, p.parse().ok()?),
        None => (authority, 80),
    };
    Some((host.trim_matches(|c| c == '[' || c == ']').to_string(), port, path.to_string()))
}

fn remaining(deadline: Instant) -> Result<Duration, WsError> {
    deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()).ok_or(WsError::Timeout)
}

/// Open a TCP connection to host:port before the deadline.
pub fn connect_tcp(host: &str, port: u16, deadline: Instant) -> Result<TcpStream, WsError> {
    let addrs: Vec<_> = (host, port).to_socket_addrs().map_err(WsError::Io)?.collect();
    let mut last = WsError::Protocol(format!("{host} did not resolve"));
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, remaining(deadline)?) {
            Ok(s) => {
                s.set_nodelay(true).ok();
                return Ok(s);
            }
            Err(e) => last = io_err(e),
        }
    }
    Err(last)
}

/// A tiny HTTP/1.1 GET (for `/json/version`), bounded by the deadline.
pub fn http_get(host: &str, port: u16, path: &str, deadline: Instant) -> Result<String, WsError> {
    let mut s = connect_tcp(host, port, deadline)?;
    s.set_write_timeout(Some(remaining(deadline)?)).map_err(WsError::Io)?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\nAccept: application/json\r\n\r\n").map_err(io_err)?;
    let mut out = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        // Chrome keeps the connection open despite `Connection: close`: stop at Content-Length.
        if let Some(end) = out.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&out[..end]).to_ascii_lowercase();
            let length = head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse::<usize>().ok());
            if length.is_some_and(|n| out.len() >= end + 4 + n) {
                break;
            }
        }
        s.set_read_timeout(Some(remaining(deadline)?)).map_err(WsError::Io)?;
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
            Err(e) => return Err(io_err(e)),
        }
        if out.len() > 1 << 20 {
            return Err(WsError::Protocol("the HTTP answer is too large".into()));
        }
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| WsError::Protocol("not an HTTP answer".into()))?;
    if !head.starts_with("HTTP/1.1 200") && !head.starts_with("HTTP/1.0 200") {
        return Err(WsError::Protocol(format!("HTTP {}", head.lines().next().unwrap_or_default())));
    }
    Ok(body.to_string())
}

impl WebSocket {
    pub fn connect(url: &str, deadline: Instant) -> Result<WebSocket, WsError> {
        let (host, port, path) = split_ws_url(url).ok_or_else(|| WsError::Protocol(format!("not a ws:// URL: {url}")))?;
        let mut stream = connect_tcp(&host, port, deadline)?;
        stream.set_write_timeout(Some(remaining(deadline)?)).map_err(WsError::Io)?;
        // The key only has to be 16 random-looking bytes, base64: a fixed one is allowed
        // for a client that does not share connections.
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: d2ViLWFpLXNuYXBzaG90IQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .map_err(io_err)?;
        let mut ws = WebSocket { stream, buf: Vec::with_capacity(1 << 16), mask_state: 0x9e37_79b9 };
        // Read the handshake answer up to the blank line.
        loop {
            if let Some(end) = ws.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&ws.buf[..end]).into_owned();
                ws.buf.drain(..end + 4);
                if !head.starts_with("HTTP/1.1 101") {
                    return Err(WsError::Protocol(format!("the endpoint refused the websocket: {}", head.lines().next().unwrap_or_default())));
                }
                return Ok(ws);
            }
            ws.fill(deadline)?;
            if ws.buf.len() > 64 * 1024 {
                return Err(WsError::Protocol("the websocket handshake answer is too large".into()));
            }
        }
    }

    fn fill(&mut self, deadline: Instant) -> Result<(), WsError> {
        self.stream.set_read_timeout(Some(remaining(deadline)?)).map_err(WsError::Io)?;
        let old = self.buf.len();
        self.buf.resize(old + (1 << 18), 0);
        let read = self.stream.read(&mut self.buf[old..]);
        self.buf.truncate(old + *read.as_ref().unwrap_or(&0));
        match read {
            Ok(0) => Err(WsError::Closed),
            Ok(_) => Ok(()),
            Err(e) => Err(io_err(e)),
        }
    }

    fn next_mask(&mut self) -> [u8; 4] {
        // xorshift: masking only has to be unpredictable to intermediaries, not secret.
        let mut x = self.mask_state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.mask_state = x;
        x.to_le_bytes()
    }

    fn send_frame(&mut self, opcode: u8, payload: &[u8], deadline: Instant) -> Result<(), WsError> {
        let mut frame = Vec::with_capacity(payload.len() + 14);
        frame.push(0x80 | opcode);
        let len = payload.len();
        if len < 126 {
            frame.push(0x80 | len as u8);
        } else if len <= u16::MAX as usize {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(len as u16).to_be_bytes());
        } else {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(len as u64).to_be_bytes());
        }
        let mask = self.next_mask();
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.set_write_timeout(Some(remaining(deadline)?)).map_err(WsError::Io)?;
        self.stream.write_all(&frame).map_err(io_err)
    }

    pub fn send_text(&mut self, text: &str, deadline: Instant) -> Result<(), WsError> {
        self.send_frame(0x1, text.as_bytes(), deadline)
    }

    /// The next complete text message (fragments joined, pings answered).
    pub fn read_message(&mut self, deadline: Instant) -> Result<Vec<u8>, WsError> {
        let mut message: Vec<u8> = Vec::new();
        loop {
            // Header: 2 bytes, then the extended length, then (never from a server) a mask.
            while self.buf.len() < 2 {
                self.fill(deadline)?;
            }
            let fin = self.buf[0] & 0x80 != 0;
            let opcode = self.buf[0] & 0x0f;
            let masked = self.buf[1] & 0x80 != 0;
            let short = (self.buf[1] & 0x7f) as usize;
            let ext = match short {
                126 => 2,
                127 => 8,
                _ => 0,
            };
            let header = 2 + ext + if masked { 4 } else { 0 };
            while self.buf.len() < header {
                self.fill(deadline)?;
            }
            let len = match short {
                126 => u16::from_be_bytes([self.buf[2], self.buf[3]]) as usize,
                127 => {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&self.buf[2..10]);
                    usize::try_from(u64::from_be_bytes(b)).map_err(|_| WsError::Protocol("frame too large".into()))?
                }
                n => n,
            };
            if len > 1 << 30 {
                return Err(WsError::Protocol(format!("a {len}-byte frame is larger than any CDP answer")));
            }
            while self.buf.len() < header + len {
                self.buf.reserve(header + len - self.buf.len());
                self.fill(deadline)?;
            }
            let mut payload = self.buf[header..header + len].to_vec();
            if masked {
                let key = [self.buf[2 + ext], self.buf[3 + ext], self.buf[4 + ext], self.buf[5 + ext]];
                for (i, b) in payload.iter_mut().enumerate() {
                    *b ^= key[i % 4];
                }
            }
            self.buf.drain(..header + len);
            match opcode {
                0x0..=0x2 => {
                    message.append(&mut payload);
                    if fin {
                        return Ok(message);
                    }
                }
                0x8 => return Err(WsError::Closed),
                0x9 => self.send_frame(0xA, &payload, deadline)?,
                _ => {}
            }
        }
    }

    pub fn close(mut self) {
        let deadline = Instant::now() + Duration::from_millis(200);
        let _ = self.send_frame(0x8, &[0x03, 0xe8], deadline);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_ws_urls() {
        assert_eq!(split_ws_url("ws://127.0.0.1:9222/devtools/browser/abc"), Some(("127.0.0.1".into(), 9222, "/devtools/browser/abc".into())));
        assert_eq!(split_ws_url("ws://[::1]:9/x"), Some(("::1".into(), 9, "/x".into())));
        assert_eq!(split_ws_url("http://x"), None);
    }

    #[test]
    fn a_dead_port_is_an_error_within_the_deadline() {
        let started = Instant::now();
        let err = WebSocket::connect("ws://127.0.0.1:9/devtools", Instant::now() + Duration::from_millis(500));
        assert!(err.is_err());
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}
