// The Rust core connecting to a DevTools endpoint by itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildWebAiSnapshot, createPageSession, runAction, WebAiError } from '../lib/index.mjs';
import native from '../lib/native.cjs';
import { freePort, launchWithEndpoint, pagesDir, newTab } from './helpers.mjs';

let browser;
let endpoint;


function serve(body) {
    return new Promise(resolve => {
        const server = http.createServer((_req, res) => { res.setHeader('content-type', 'text/html; charset=utf-8'); res.end(body()); });
        server.listen(0, '127.0.0.1', () => resolve(server));
    });
}

before(async () => {
    ({ browser, endpoint } = await launchWithEndpoint());
});

after(async () => { await browser?.close(); });

async function rejectsWith(promise, codes) {
    await assert.rejects(promise, err => {
        assert.ok(err instanceof WebAiError, String(err && err.stack));
        assert.ok([].concat(codes).includes(err.errorCode), `${err.errorCode}: ${err.message}`);
        return true;
    });
}

test('the native path gives the same text as the Playwright path: frames three deep, shadow DOM, a cross-site frame', async () => {
    const child = await serve(() => '<!doctype html><title>Card form</title><button>Pay now</button><iframe title="inner" srcdoc="<button>Inner of cross-site</button>"></iframe>');
    const top = await serve(() => `<!doctype html><title>Shop</title><button>Top</button><iframe title="Payment" src="http://localhost:${child.address().port}/"></iframe><iframe title="Same" srcdoc="<button>Same site</button>"></iframe>`);
    const pages = [];
    try {
        for (const url of [pathToFileURL(join(pagesDir, 'frames.html')).href, pathToFileURL(join(pagesDir, 'shadow.html')).href, `http://127.0.0.1:${top.address().port}/`]) {
            const page = await newTab(browser);
            pages.push(page);
            await page.goto(url, { waitUntil: 'load' });
            const viaPlaywright = await buildWebAiSnapshot(page, { maxDepth: 20 });
            const tab = new URL(url).pathname === '/' ? new URL(url).host : new URL(url).pathname.split('/').pop();
            const viaNative = await buildWebAiSnapshot({ cdpEndpoint: endpoint, urlIncludes: tab }, { maxDepth: 20 });
            assert.equal(viaNative.text, viaPlaywright.text, url);
            assert.deepEqual(viaNative.notes, viaPlaywright.notes);
            assert.deepEqual(Object.values(viaNative.refs).map(r => r.frameId), Object.values(viaPlaywright.refs).map(r => r.frameId));
            assert.equal(viaNative.url, url);
        }
        const crossSite = await buildWebAiSnapshot({ cdpEndpoint: endpoint, urlIncludes: `127.0.0.1:${top.address().port}` }, { maxDepth: 20 });
        assert.ok(crossSite.text.includes('button "Inner of cross-site"'), crossSite.text);
    } finally {
        for (const p of pages) await p.close();
        child.close();
        top.close();
    }
});

test('tabs are chosen by target id, by URL substring, or as the single page; otherwise cdp.target-mismatch', async () => {
    const a = await newTab(browser);
    const b = await newTab(browser);
    try {
        await a.goto(pathToFileURL(join(pagesDir, 'forms.html')).href);
        await b.goto(pathToFileURL(join(pagesDir, 'widgets.html')).href);
        const info = await (await a.context().newCDPSession(a)).send('Target.getTargetInfo');
        assert.equal((await buildWebAiSnapshot({ cdpEndpoint: endpoint, targetId: info.targetInfo.targetId })).title, 'Checkout');
        assert.equal((await buildWebAiSnapshot({ cdpEndpoint: endpoint, urlIncludes: 'widgets' })).title, 'Widgets');
        await rejectsWith(buildWebAiSnapshot({ cdpEndpoint: endpoint }), 'cdp.target-mismatch');
        await rejectsWith(buildWebAiSnapshot({ cdpEndpoint: endpoint, urlIncludes: 'no-such-tab' }), 'cdp.target-mismatch');
        await rejectsWith(buildWebAiSnapshot({ cdpEndpoint: endpoint, targetId: 'ABCDEF' }), 'cdp.target-mismatch');
        await buildWebAiSnapshot({ cdpEndpoint: endpoint }).catch(err => {
            assert.equal(err.retryHint, 'tab-switch');
            assert.ok(err.evidence.tabs.length >= 2);
        });
    } finally {
        await a.close();
        await b.close();
    }
});

test('the browser and its tabs are left as they were', async () => {
    const page = await newTab(browser);
    try {
        await page.goto(pathToFileURL(join(pagesDir, 'grok.html')).href);
        const s = await page.context().newCDPSession(page);
        const before = (await s.send('Target.getTargets')).targetInfos.filter(t => t.type === 'page').map(t => t.targetId).sort();
        for (let i = 0; i < 3; i += 1) await buildWebAiSnapshot({ cdpEndpoint: endpoint, urlIncludes: 'grok.html' });
        const afterIds = (await s.send('Target.getTargets')).targetInfos.filter(t => t.type === 'page').map(t => t.targetId).sort();
        assert.deepEqual(afterIds, before);
        assert.equal(await page.title(), 'Grok');
    } finally {
        await page.close();
    }
});

test('an unreachable endpoint is cdp.unreachable within the deadline; a bad endpoint is invalid-input', async () => {
    const dead = await freePort();
    for (const url of [`http://127.0.0.1:${dead}`, `ws://127.0.0.1:${dead}/devtools/browser/x`]) {
        const started = Date.now();
        await rejectsWith(buildWebAiSnapshot({ cdpEndpoint: url }, { timeoutMs: 2000 }), 'cdp.unreachable');
        assert.ok(Date.now() - started < 4000);
    }
    // A server that accepts and never answers.
    const silent = net.createServer(() => {});
    await new Promise(r => silent.listen(0, '127.0.0.1', r));
    const started = Date.now();
    await rejectsWith(buildWebAiSnapshot({ cdpEndpoint: `http://127.0.0.1:${silent.address().port}` }, { timeoutMs: 700 }), 'cdp.unreachable');
    assert.ok(Date.now() - started < 3000, 'the deadline was kept');
    silent.close();
    await rejectsWith(buildWebAiSnapshot({ cdpEndpoint: 'ftp://nowhere' }), 'snapshot.invalid-input');
});

test('captures waiting on a stuck endpoint hold no thread: the event loop and the fs pool stay free', async () => {
    // Servers that accept and never answer: one for HTTP discovery, one for the websocket handshake.
    const sockets = [];
    const stuck = net.createServer(socket => sockets.push(socket));
    await new Promise(r => stuck.listen(0, '127.0.0.1', r));
    const port = stuck.address().port;
    let settled = 0;
    const captures = Array.from({ length: 8 }, (_, i) => buildWebAiSnapshot(
        { cdpEndpoint: i % 2 ? `http://127.0.0.1:${port}` : `ws://127.0.0.1:${port}/devtools/browser/x` }, { timeoutMs: 2500 },
    ).then(() => 'resolved', err => err).finally(() => { settled += 1; }));
    await new Promise(r => setTimeout(r, 200));
    // libuv's pool has 4 threads: blocking captures would queue this read behind them.
    const reads = [];
    for (let i = 0; i < 5; i += 1) {
        const started = performance.now();
        await readFile(new URL(import.meta.url));
        reads.push(performance.now() - started);
    }
    const settledDuringReads = settled;
    const outcomes = await Promise.all(captures);
    for (const socket of sockets) socket.destroy();
    stuck.close();
    // An order of events, not a duration (a loaded machine once took 362 ms for one read): captures
    // holding the pool's threads would let the reads finish only once they gave up at their deadline.
    assert.equal(settledDuringReads, 0, `fs.readFile took ${reads.map(r => r.toFixed(1)).join(', ')} ms: the reads waited for the captures to end`);
    for (const o of outcomes) {
        assert.ok(o instanceof WebAiError, String(o));
        assert.equal(o.errorCode, 'cdp.unreachable', o.message);
    }
});

test('16 concurrent native captures of 16 tabs all succeed, each of its own tab', async () => {
    const pages = [];
    try {
        for (let i = 0; i < 16; i += 1) {
            const page = await newTab(browser);
            pages.push(page);
            const n = String(i).padStart(2, '0');
            await page.goto(`data:text/html,<title>Tab ${n}</title><button>Button ${n}</button>`);
        }
        const ids = await Promise.all(pages.map(async p => {
            const s = await p.context().newCDPSession(p);
            const { targetInfo } = await s.send('Target.getTargetInfo');
            await s.detach();
            return targetInfo.targetId;
        }));
        const snaps = await Promise.all(ids.map(targetId => buildWebAiSnapshot({ cdpEndpoint: endpoint, targetId })));
        snaps.forEach((s, i) => {
            const n = String(i).padStart(2, '0');
            assert.equal(s.title, `Tab ${n}`);
            assert.match(s.text, new RegExp(`button "Button ${n}" \\[ref=@e1\\]`));
        });
    } finally {
        await Promise.all(pages.map(p => p.close()));
    }
});

test('actions run on a { cdpEndpoint } tab like on a Playwright page', async () => {
    const page = await newTab(browser);
    try {
        await page.goto(pathToFileURL(join(pagesDir, 'actions.html')).href);
        const source = { cdpEndpoint: endpoint, urlIncludes: 'actions.html' };
        const snapshot = await buildWebAiSnapshot(source);
        const go = Object.values(snapshot.refs).find(r => r.role === 'button' && r.name === 'Go');
        const r = await runAction(source, snapshot, 'click', { ref: go.ref });
        assert.equal(r.success, true, r.message);
        assert.match(await page.evaluate(() => document.getElementById('log').textContent), /go/i);
        assert.ok(r.snapshot && r.snapshot.snapshotId !== snapshot.snapshotId, 'a fresh snapshot, also over the endpoint');
        const email = Object.values(r.snapshot.refs).find(x => x.role === 'textbox' && x.name === 'Email');
        const f = await runAction(source, r.snapshot, 'fill', { ref: email.ref, value: 'a@b.c' });
        assert.equal(f.success, true, f.message);
        assert.equal(f.value, 'a@b.c');
    } finally {
        await page.close();
    }
});

/**
 * `f()` called from deep in the JS stack, as an app's call can come: 2,500
 * frames above where a plain recursion of the same frames runs out of V8's
 * stack (about 11,000 frames here). Boxed, a call needs well under that much
 * stack; unboxed, a debug build's call needed about 8,000 frames' worth, a
 * release build's nearly all of it.
 */
function fromDeep(f) {
    let most = 0;
    const probe = n => {
        most = n;
        probe(n + 1);
    };
    try {
        probe(0);
    } catch {
        // RangeError: the depth is found.
    }
    const down = n => (n ? down(n - 1) : f());
    return down(most - 2500);
}

test('a capture, a session look and an action over { cdpEndpoint } work when called deep in the JS stack or right after another call resolves', async () => {
    // napi builds an async call's future on the JS thread's stack; unboxed, a capture's
    // future left too little of it, and the call threw `undefined` (src/binding/mod.rs).
    const page = await newTab(browser);
    try {
        await page.goto(pathToFileURL(join(pagesDir, 'actions.html')).href);
        const source = { cdpEndpoint: endpoint, urlIncludes: 'actions.html' };
        // The addon's async functions, called where the library's async wrappers cannot put them: deep.
        const captured = await fromDeep(() => native.captureNative(source, {}, null));
        assert.equal(captured.error, undefined);
        const kept = new native.NativeSession();
        try {
            for (let i = 0; i < 3; i += 1) assert.equal((await fromDeep(() => kept.captureEndpoint(source, {}, null))).error, undefined);
            assert.equal((await fromDeep(() => kept.send(source, 'Runtime.evaluate', { expression: '1' }, 5000))).error, undefined);
        } finally {
            await kept.close();
        }
        const snapshot = await buildWebAiSnapshot(source);
        const go = Object.values(snapshot.refs).find(r => r.role === 'button' && r.name === 'Go');
        const r = await fromDeep(() => native.actNative(source, { action: 'click', args: { ref: go.ref }, snapshotId: snapshot.snapshotId, refCount: Object.keys(snapshot.refs).length, target: snapshot.refs[go.ref], timeoutMs: 5000 }));
        assert.equal(r.success, true, r.message);
        const session = createPageSession(source, { cacheTtlMs: 0 });
        try {
            // Each look in the continuation of the last one's await, as an agent's loop makes them.
            const first = await session.snapshot();
            await page.evaluate(() => { document.getElementById('log').textContent = 'changed once'; });
            const second = await session.snapshot();
            await page.evaluate(() => { document.getElementById('log').textContent = 'changed twice'; });
            const third = await fromDeep(() => session.snapshot());
            assert.match(second.text, /changed once/);
            assert.match(third.text, /changed twice/);
            assert.ok(third.revision > first.revision);
        } finally {
            await session.close();
        }
    } finally {
        await page.close();
    }
});

test('a tab closed mid-capture fails cleanly, without a hang', async () => {
    const page = await newTab(browser);
    await page.goto(pathToFileURL(join(pagesDir, 'forms.html')).href);
    // The page stays busy past the capture's deadline, so the capture can end only by the close:
    // with a shorter busy spell a loaded machine closed the tab after the capture had finished.
    // Chromium closes a busy tab in about half a second all the same.
    await page.evaluate(() => setTimeout(() => { const t = Date.now(); while (Date.now() - t < 10000); }, 0));
    const started = Date.now();
    const capture = buildWebAiSnapshot({ cdpEndpoint: endpoint, urlIncludes: 'forms.html' }, { timeoutMs: 5000 });
    setTimeout(() => page.close().catch(() => {}), 150);
    await rejectsWith(capture, ['target.detached', 'cdp.target-mismatch']);
    assert.ok(Date.now() - started < 4000, 'a closed tab fails fast instead of waiting for timeoutMs');
});

test('the CLI snapshots and doctors a running browser\'s tab with --cdp', async () => {
    const { root } = await import('./helpers.mjs');
    const { spawn } = await import('node:child_process');
    const page = await newTab(browser);
    try {
        await page.goto(pathToFileURL(join(pagesDir, 'gemini.html')).href);
        const cli = (...argv) => new Promise(resolve => {
            const child = spawn(process.execPath, [join(root, 'bin', 'web-ai-snapshot.mjs'), ...argv]);
            let stdout = '';
            let stderr = '';
            child.stdout.on('data', d => { stdout += d; });
            child.stderr.on('data', d => { stderr += d; });
            child.on('close', status => resolve({ status, stdout, stderr }));
        });
        const r = await cli('snapshot', '--cdp', endpoint, '--url-includes', 'gemini.html');
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /^- document "Gemini":/);
        const d = await cli('doctor', '--vendor', 'gemini', '--snapshot', 'interactive', '--cdp', endpoint, '--url-includes', 'gemini.html', '--json');
        assert.equal(d.status, 0, d.stderr);
        const report = JSON.parse(d.stdout);
        assert.equal(report.snapshot.interactiveCount, 9);
        assert.ok(!d.stdout.includes('Enter a prompt here'));
        const dead = await cli('snapshot', '--cdp', 'http://127.0.0.1:9', '--timeout', '1000');
        assert.equal(dead.status, 1);
        assert.match(dead.stderr, /^cdp\.unreachable: /);
        const usage = await cli('snapshot', '--cdp', endpoint, 'https://example.com');
        assert.equal(usage.status, 2);
    } finally {
        await page.close();
    }
});

test('the CLI acts on a --cdp tab by the refs it printed, checks they still name the same element, and prints the new snapshot', async () => {
    const { root } = await import('./helpers.mjs');
    const { spawn } = await import('node:child_process');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const stateDir = mkdtempSync(join(tmpdir(), 'was-cli-'));
    const page = await newTab(browser);
    const cli = (...argv) => new Promise(resolve => {
        const child = spawn(process.execPath, [join(root, 'bin', 'web-ai-snapshot.mjs'), ...argv], { env: { ...process.env, WEB_AI_SNAPSHOT_STATE_DIR: stateDir } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', d => { stdout += d; });
        child.stderr.on('data', d => { stderr += d; });
        child.on('close', status => resolve({ status, stdout, stderr }));
    });
    const tab = ['--cdp', endpoint, '--url-includes', 'actions.html'];
    const refOf = (text, line) => text.split('\n').find(l => l.includes(line))?.match(/\[ref=(@e\d+)/)?.[1];
    const log = () => page.evaluate(() => document.getElementById('log').textContent);
    try {
        await page.goto(pathToFileURL(join(pagesDir, 'actions.html')).href);
        const none = await cli('click', '@e1', ...tab);
        assert.equal(none.status, 1);
        assert.match(none.stderr, /^snapshot\.ref-not-found: no earlier snapshot of this tab/);
        const s = await cli('snapshot', ...tab);
        assert.equal(s.status, 0, s.stderr);
        const go = refOf(s.stdout, 'button "Go"');
        const c = await cli('click', go, ...tab);
        assert.equal(c.status, 0, c.stderr);
        assert.match(c.stdout, /^- document "Actions":/, 'the new snapshot is printed');
        assert.match(await log(), /clicked Go/);
        const email = refOf(c.stdout, 'textbox "Email"');
        const f = await cli('fill', email, 'cli@example.com', ...tab);
        assert.equal(f.status, 0, f.stderr);
        assert.equal(await page.inputValue('#email'), 'cli@example.com');
        // The element the printed ref named is now something else: refused, nothing clicked.
        const removable = refOf(f.stdout, 'button "Removable"');
        await page.evaluate(() => { document.getElementById('removable').textContent = 'Delete account'; });
        const before = await log();
        const stale = await cli('click', removable, ...tab);
        assert.equal(stale.status, 1);
        assert.match(stale.stderr, /^snapshot\.ref-stale: Element changed since snapshot\. Was: button "Removable", Now: button "Delete account"/);
        assert.equal(await log(), before);
        const disabled = refOf(f.stdout, 'button "Disabled"');
        const d = await cli('click', disabled, ...tab);
        assert.equal(d.status, 1);
        assert.match(d.stderr, /^element_disabled: button "Disabled"/m);
        const sc = await cli('scroll', '--direction', 'down', '--amount', '120', ...tab);
        assert.equal(sc.status, 0, sc.stderr);
        assert.equal(await page.evaluate(() => window.scrollY), 120);
        const usage = await cli('fill', '@e1', ...tab);
        assert.equal(usage.status, 2);
    } finally {
        await page.close();
        rmSync(stateDir, { recursive: true, force: true });
    }
});
