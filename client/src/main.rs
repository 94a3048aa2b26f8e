//! `web-ai-snapshot` as a native executable: the agent CLI's commands
//! (`click @e4`, `fill`, `snapshot`, …) go to the kept browser's daemon
//! over its local socket without starting Node.
//!
//! Why it exists: a command of the agent CLI is a new process, and Node's
//! own start is 40-100 ms of it here (README, `bench/cli.mjs`), more than
//! the action in the daemon. This client starts in about a millisecond.
//!
//! It decides nothing itself. The daemon parses the command line with the
//! JS CLI's own code and answers with the exact output and exit code, or
//! with `fallback` for a command it does not serve; that, every other
//! command (`open`, `mcp`, `--cdp …`, `--help`) and a missing daemon run
//! the JS CLI beside this executable (`web-ai-snapshot.mjs`) under Node,
//! so the two entry points cannot drift apart.
//!
//! The install step (`lib/agent/install-client.cjs`) puts this executable
//! in place of the package's JS `bin` where it can (not on Windows).

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// The commands the daemon may serve; the first argument must be one.
const AGENT_COMMANDS: &[&str] = &[
    "snapshot",
    "click",
    "fill",
    "select",
    "type",
    "press",
    "hover",
    "scroll",
    "wait",
    "tabs",
    "screenshot",
    "navigate",
    "back",
    "forward",
    "reload",
    "dialog",
    "close",
];

/// The JS client's deadline for the daemon's answer (`lib/agent/daemon.mjs`).
const ANSWER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

fn main() -> ExitCode {
    let raw: Vec<OsString> = std::env::args_os().skip(1).collect();
    if raw.len() == 1 && raw[0] == "--client-version" {
        println!("web-ai-snapshot-client {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    // Arguments that are not UTF-8 cannot be sent as JSON; Node takes them.
    let args: Option<Vec<String>> = raw.iter().map(|a| a.to_str().map(str::to_owned)).collect();
    if let Some(args) = args {
        if args.first().is_some_and(|c| AGENT_COMMANDS.contains(&c.as_str())) {
            if let Some(code) = ask_daemon(&args) {
                return code;
            }
        }
    }
    run_js_cli(raw)
}

/// Node's `os.tmpdir()` on POSIX, so that both clients find one socket.
#[cfg(unix)]
fn node_tmpdir() -> String {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let mut dir = var("TMPDIR").or_else(|| var("TMP")).or_else(|| var("TEMP")).unwrap_or_else(|| "/tmp".to_owned());
    if dir.len() > 1 && dir.ends_with('/') {
        dir.pop();
    }
    dir
}

/// `daemonPaths().socket` of `lib/agent/daemon.mjs`.
#[cfg(unix)]
fn socket_path() -> PathBuf {
    let dir = std::env::var("WEB_AI_SNAPSHOT_STATE_DIR")
        .ok()
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(node_tmpdir()).join("web-ai-snapshot"));
    dir.join("agent.sock")
}

/// Send the command line to the daemon and print its answer. `None` when
/// Node should run the command instead: no daemon listens, or the daemon
/// said the command is not one it serves.
#[cfg(unix)]
fn ask_daemon(args: &[String]) -> Option<ExitCode> {
    use std::os::unix::net::UnixStream;
    // A socket that is missing or refused means no kept browser runs; the
    // JS CLI says so in its own words (or, for `snapshot`, opens its own).
    let mut conn = UnixStream::connect(socket_path()).ok()?;
    let cwd = std::env::current_dir().ok()?;
    let request = serde_json::json!({ "cli": args, "cwd": cwd.to_string_lossy() });
    let mut line = request.to_string();
    line.push('\n');
    let _ = conn.set_read_timeout(Some(ANSWER_TIMEOUT));
    if let Err(err) = conn.write_all(line.as_bytes()) {
        return Some(fail(&format!("could not send the command to the kept browser's daemon: {err}")));
    }
    let mut body = Vec::new();
    if let Err(err) = conn.read_to_end(&mut body) {
        let why = if matches!(err.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) {
            format!("the kept browser's daemon did not answer within {} ms", ANSWER_TIMEOUT.as_millis())
        } else {
            format!("the kept browser's daemon's answer was cut off: {err}")
        };
        return Some(fail(&why));
    }
    let Ok(answer) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return Some(fail("the kept browser's daemon sent an answer that is not JSON"));
    };
    if answer.get("fallback").and_then(serde_json::Value::as_bool) == Some(true) {
        return None;
    }
    let text = |k: &str| answer.get(k).and_then(serde_json::Value::as_str).unwrap_or("");
    // A reader that went away (`| head`) is not an error of the command.
    let _ = std::io::stdout().write_all(text("stdout").as_bytes());
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().write_all(text("stderr").as_bytes());
    let code = answer.get("code").and_then(serde_json::Value::as_u64).and_then(|c| u8::try_from(c).ok()).unwrap_or(1);
    Some(ExitCode::from(code))
}

#[cfg(not(unix))]
fn ask_daemon(_args: &[String]) -> Option<ExitCode> {
    // The daemon's Windows pipe is named by a hash of its folder; the install
    // step never puts this client in place there, so Node serves every command.
    None
}

fn fail(message: &str) -> ExitCode {
    eprintln!("internal.unhandled: {message}");
    ExitCode::from(1)
}

/// The JS CLI beside this executable, under `node` from PATH (what the JS
/// `bin`'s `#!/usr/bin/env node` would have run).
fn run_js_cli(args: Vec<OsString>) -> ExitCode {
    let here = std::env::current_exe().and_then(|p| p.canonicalize());
    let script = match here {
        Ok(exe) => exe.with_file_name("web-ai-snapshot.mjs"),
        Err(err) => return fail(&format!("cannot find this executable's folder to run the JS CLI: {err}")),
    };
    if !script.is_file() {
        return fail(&format!("the JS CLI is missing beside this executable: {}", script.display()));
    }
    let mut command = std::process::Command::new("node");
    command.arg(&script).args(args);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // exec: Node takes over this process (its stdio, signals and exit code).
        let err = command.exec();
        fail(&format!("cannot start Node (`node` on PATH) to run {}: {err}", script.display()))
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(status) => ExitCode::from(status.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(1)),
        Err(err) => fail(&format!("cannot start Node (`node` on PATH) to run {}: {err}", script.display())),
    }
}
