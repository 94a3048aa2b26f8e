// What one capture costs, call by call (issue 32: the fixed costs of a
// small page): each CDP call the capture sends, when it was sent after the
// capture began, how long its reply took and how large it was, for the
// capture whose total is the median of `--runs` (after one warm-up), beside
// Playwright's AI snapshot of the same page. Over a Playwright page (the
// `{ cdp }` transport the benchmarks use).
//
//   npm run bench:calls -- [--runs N] [--read auto|snapshot|walk] [FILE]
//
// Without FILE, a generated page of about 20 nodes. (`npm run` builds the
// release addon first; a debug addon makes every figure several times worse.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as ax from '../lib/ax-snapshot.cjs';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import { median, round } from './pages.mjs';

const { values, positionals } = parseArgs({ options: { runs: { type: 'string', default: '21' }, read: { type: 'string', default: 'auto' } }, allowPositionals: true });
const RUNS = Number(values.runs);
const SMALL = '<!doctype html><html lang="en"><head><title>Small</title></head><body><header><nav aria-label="Main"><a href="#a">Home</a> <a href="#b">Help</a></nav></header><main><h1>Sign in</h1><form><label>Email <input type="email"></label> <label>Password <input type="password"></label> <button>Sign in</button></form></main></body></html>';

const dir = mkdtempSync(join(tmpdir(), 'web-ai-calls-'));
const file = positionals[0] ? resolve(positionals[0]) : join(dir, 'small.html');
if (!positionals[0]) writeFileSync(file, SMALL);
const browser = await launchChromium();
try {
    const page = await openFile(browser, file);
    const cdp = await ax.cdpSessionFor(page);
    let log = null;
    let began = 0;
    const send = async (method, params) => {
        const at = performance.now();
        const reply = await cdp.send(method, params);
        // The reply's size is measured once the capture is over: stringified here, a
        // big page's reply would hold up the replies queued behind it.
        log?.push({ method, sentMs: at - began, tookMs: performance.now() - at, reply });
        return reply;
    };
    const opts = { engine: 'dom', domRead: values.read, timeoutMs: 30_000 };
    await ax.captureOverCdp(send, opts);
    const runs = [];
    for (let i = 0; i < RUNS; i += 1) {
        log = [];
        began = performance.now();
        const s = await ax.captureOverCdp(send, opts);
        runs.push({ totalMs: performance.now() - began, calls: log, nodes: s.stats?.interactiveCount });
    }
    log = null;
    const pw = [];
    for (let i = 0; i < RUNS; i += 1) {
        const t = performance.now();
        await page.ariaSnapshot({ mode: 'ai' });
        pw.push(performance.now() - t);
    }
    runs.sort((a, b) => a.totalMs - b.totalMs);
    const mid = runs[runs.length >> 1];
    const nodes = await cdp.send('Runtime.evaluate', { expression: "document.getElementsByTagName('*').length", returnByValue: true });
    console.log(`${file}: ${nodes.result.value} elements; domRead '${values.read}'; median of ${RUNS} captures ${round(median(runs.map(r => r.totalMs)), 2)} ms, Playwright's AI snapshot ${round(median(pw), 2)} ms\n`);
    console.log('| call | sent at ms | reply ms | reply bytes |');
    console.log('| --- | --- | --- | --- |');
    for (const c of mid.calls) console.log(`| ${c.method} | ${round(c.sentMs, 2)} | ${round(c.tookMs, 2)} | ${JSON.stringify(c.reply).length} |`);
    const inCalls = Math.max(...mid.calls.map(c => c.sentMs + c.tookMs));
    console.log(`\nthat capture: ${round(mid.totalMs, 2)} ms in all, its last reply in at ${round(inCalls, 2)} ms; the rest is reading the replies and building the snapshot (Rust) and the JS around it.`);
} finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
}
