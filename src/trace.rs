//! Phase timings of a capture on stderr, for finding where a look's time
//! goes on a real page: `WEB_AI_TRACE=1 node …` prints one line a phase,
//! `web-ai-trace <phase> <ms>`. Off, a phase costs one load of a flag read
//! once a process. (Call logs kept in JS cannot tell Rust's time apart from
//! the replies it waited on: `bench/calls.mjs`.)

use std::sync::OnceLock;
use std::time::Instant;

fn on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("WEB_AI_TRACE").is_some_and(|v| !v.is_empty() && v != "0"))
}

/// A phase that began at `started`, printed as it ends. A line stderr does
/// not take is dropped: `eprintln!` panics when a write fails, and a host
/// whose stderr is a full non-blocking pipe (`node --test` reading a child's)
/// answers a write with `EAGAIN`, which took the test process down.
pub fn phase(name: &str, started: Instant) {
    if on() {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "web-ai-trace {name} {:.2}", started.elapsed().as_secs_f64() * 1000.0);
    }
}

/// Time `f` as the phase `name`.
pub fn timed<R>(name: &str, f: impl FnOnce() -> R) -> R {
    if !on() {
        return f();
    }
    let started = Instant::now();
    let r = f();
    phase(name, started);
    r
}

/// Time the future `f` as the phase `name`.
pub async fn timed_async<R>(name: &str, f: impl std::future::Future<Output = R>) -> R {
    let started = Instant::now();
    let r = f.await;
    phase(name, started);
    r
}
