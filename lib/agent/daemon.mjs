// The agent CLI's kept browser: `web-ai-snapshot open URL` starts a small
// daemon that owns the browser and its page sessions (an AgentHost), and
// every later command (`click @e4`, `fill`, `press`, `tabs`, `close`, …) is
// a new process that sends one tool call over a local socket and prints the
// answer.
//
// Why a daemon rather than state saved between processes: a page session
// keeps its ref numbering, its mirror of the page and its DevTools
// connection in memory. Rebuilt in every process, each command would pay a
// websocket handshake, an attach and a full capture before it could act
// (the `--cdp` path's click costs that), and the refs of one command would
// have to be matched to the next by saved identities. With the daemon, a
// ref printed by one command is the same session's ref in the next, and a
// command costs Node's start plus the action.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_STEPS, UsageError, agentCall, agentOutput, keptBrowserCommand } from './commands.mjs';

/** Where the daemon's socket and its record live (WEB_AI_SNAPSHOT_STATE_DIR moves them). */
export function daemonPaths() {
    const dir = process.env.WEB_AI_SNAPSHOT_STATE_DIR || join(tmpdir(), 'web-ai-snapshot');
    const socket = process.platform === 'win32'
        ? `\\\\.\\pipe\\web-ai-snapshot-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}`
        : join(dir, 'agent.sock');
    return { dir, socket, record: join(dir, 'agent.json') };
}

/**
 * Send one call to the running daemon; resolves to its answer, or null
 * when no daemon listens.
 */
export function request(message, { timeoutMs = 120000 } = {}) {
    const { socket } = daemonPaths();
    return new Promise((resolve, reject) => {
        const conn = createConnection(socket);
        let data = '';
        let answered = false;
        const timer = setTimeout(() => {
            conn.destroy();
            reject(new Error(`the kept browser's daemon did not answer within ${timeoutMs} ms`));
        }, timeoutMs);
        conn.setEncoding('utf8');
        conn.on('connect', () => conn.write(`${JSON.stringify(message)}\n`));
        conn.on('data', d => { data += d; });
        conn.on('end', () => {
            clearTimeout(timer);
            answered = true;
            conn.destroy();
            // A daemon that is exiting (after another client's `close`) may
            // take the connection and end it without a word: no daemon.
            if (data === '') return resolve(null);
            try {
                resolve(JSON.parse(data));
            } catch {
                reject(new Error('the kept browser\'s daemon sent an answer that is not JSON'));
            }
        });
        conn.on('error', err => {
            clearTimeout(timer);
            if (answered) return;
            // ECONNRESET/EPIPE: the daemon stopped listening while this
            // connection waited to be taken, i.e. it is exiting.
            if (['ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(err.code)) resolve(null);
            else reject(err);
        });
    });
}

/** Start the daemon (detached, outliving this process) and wait until it listens. */
export async function startDaemon(binPath, args = [], { timeoutMs = 20000 } = {}) {
    const { dir } = daemonPaths();
    mkdirSync(dir, { recursive: true });
    const child = spawn(process.execPath, [binPath, 'agent-daemon', ...args], { detached: true, stdio: 'ignore', env: process.env });
    child.unref();
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
        const pong = await request({ tool: 'ping' }, { timeoutMs: 2000 }).catch(() => null);
        if (pong) return pong;
        await new Promise(resolve => setTimeout(resolve, 50));
    }
    throw new Error(`the kept browser's daemon did not start within ${timeoutMs} ms`);
}

/** The daemon itself: serve tool calls on the socket until `close`. */
export async function runDaemon(options) {
    const { AgentHost } = await import('./host.mjs');
    const { dir, socket, record } = daemonPaths();
    mkdirSync(dir, { recursive: true });
    if (process.platform !== 'win32' && existsSync(socket)) rmSync(socket, { force: true });
    const host = new AgentHost({ allowFileUrls: true, steps: CLI_STEPS, ...options });
    let queue = Promise.resolve();
    let server = null;
    // From a `close` on, no new command finds this daemon: neither its record
    // nor its socket takes another connection.
    const stopListening = () => {
        server.close();
        rmSync(record, { force: true });
    };
    const quit = async () => {
        stopListening();
        await host.close().catch(() => undefined);
        rmSync(record, { force: true });
        if (process.platform !== 'win32') rmSync(socket, { force: true });
        process.exit(0);
    };
    server = createServer(conn => {
        let data = '';
        conn.setEncoding('utf8');
        conn.on('data', d => {
            data += d;
            const nl = data.indexOf('\n');
            if (nl < 0) return;
            let message;
            try {
                message = JSON.parse(data.slice(0, nl));
            } catch {
                conn.end(JSON.stringify({ text: 'Error invalid_params: the request is not JSON', isError: true }));
                return;
            }
            if (message.tool === 'ping') {
                conn.end(JSON.stringify({ pid: process.pid, endpoint: host.browser.endpoint }));
                return;
            }
            if (Array.isArray(message.cli)) {
                // The native client's raw command line (client/src/main.rs).
                queue = queue.then(async () => {
                    const answer = await cliAnswer(host, message).catch(err => ({ stdout: '', stderr: `internal.unhandled: ${firstLine(err)}\n`, code: 1 }));
                    if (answer.close) {
                        stopListening();
                        conn.end(JSON.stringify(answer), () => quit());
                    } else {
                        conn.end(JSON.stringify(answer));
                    }
                });
                return;
            }
            if (message.tool === 'close') {
                stopListening();
                conn.end(JSON.stringify({ text: 'Closed the kept browser.', isError: false }), () => quit());
                return;
            }
            // One call at a time: the host's tabs and sessions are a single agent's.
            // A call that throws answers so, and the calls after it still run.
            queue = queue.then(async () => {
                const r = await host.call(message.tool, message.args || {}).catch(err => ({ text: `Error action_failed: ${firstLine(err)}`, isError: true }));
                conn.end(JSON.stringify(r));
            });
        });
        conn.on('error', () => undefined);
    });
    process.once('SIGTERM', quit);
    process.once('SIGINT', quit);
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(socket, resolve);
    });
    writeFileSync(record, JSON.stringify({ pid: process.pid, socket, startedAt: new Date().toISOString() }));
    // The browser starts now, so that `open` pays for it once.
    await host.start().catch(() => undefined);
}

/**
 * The answer to a native client's command line `{ cli, cwd }`: what the JS
 * CLI would print, `{ stdout, stderr, code }`, or `{ fallback: true }` for a
 * command line that the JS CLI runs itself (help, --cdp, `snapshot FILE`).
 */
export async function cliAnswer(host, { cli, cwd }) {
    if (!cli.every(a => typeof a === 'string') || typeof cwd !== 'string') {
        return { stdout: '', stderr: 'internal.unhandled: the client sent a malformed command line\n', code: 1 };
    }
    const [command, ...rest] = cli;
    if (!keptBrowserCommand(command, rest)) return { fallback: true };
    let call;
    try {
        call = agentCall(command, rest, cwd);
    } catch (err) {
        if (err instanceof UsageError) return { stdout: '', stderr: `usage: ${err.message}\n`, code: 2 };
        throw err;
    }
    if (call.help) return { fallback: true };
    if (call.tool === 'close') return { stdout: 'Closed the kept browser.\n', stderr: '', code: 0, close: true };
    try {
        return { stderr: '', ...agentOutput(call, await host.call(call.tool, call.args), cwd) };
    } catch (err) {
        return { stdout: '', stderr: `internal.unhandled: ${String(err?.message ?? err).split('\n')[0]}\n`, code: 1 };
    }
}

function firstLine(err) {
    return String(err?.message ?? err).split('\n')[0];
}

/** The daemon's record, when one was written. */
export function daemonRecord() {
    try {
        return JSON.parse(readFileSync(daemonPaths().record, 'utf8'));
    } catch {
        return null;
    }
}
