// Pages that fight back, against live Chromium. Each case ends in a valid
// snapshot or a WebAiError within its deadline, and Node's event loop keeps
// answering a timer within 100 ms while the capture runs. Those cases drive a
// Chromium this file starts without Playwright, through the native path, so
// nothing else in the process (Playwright's client handling a churning
// page's events) is measured; Playwright is used only for the monkeypatching
// page, whose patches it injects before the page's own scripts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import net from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { buildWebAiSnapshot, createPageSession, runAction, WebAiError } from '../lib/index.mjs';
import { findChromium, CHROMIUM_FLAGS, launchChromiumNative } from '../lib/chromium.mjs';
import native from '../lib/native.cjs';
import { pagesDir, root, sized } from './helpers.mjs';

// Full size in CI (WEB_AI_TEST_FULL=1); a developer's run uses smaller pages that cross the same limits.
const FRAMES = sized(2000, 300);
const TEXT_MB = sized(50, 5);

let browser; // Playwright's, with a DevTools port, for the monkeypatching page
let endpoint;
let bare; // a Chromium without Playwright, for the rest
let site;

function freePort() {
    return new Promise(resolve => {
        const s = net.createServer();
        s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
    });
}

// Two origins on one server: 127.0.0.1 and localhost are different sites,
// so a frame from one inside the other is out of process.
const ROUTES = {
    '/busy': () => '<!doctype html><title>Busy</title><button>Never clicked</button><script>setTimeout(() => { for (;;) {} }, 100)</script>',
    '/reload': () => `<!doctype html><title>Reloading</title><button>Now ${Date.now()}</button><script>setTimeout(() => location.reload(), 50)</script>`,
    '/navigate': q => {
        const n = Number(q.get('n') || 0);
        return `<!doctype html><title>Hop ${n}</title><button>Hop ${n}</button><script>setTimeout(() => { location.href = '/navigate?n=${n + 1}'; }, 50)</script>`;
    },
    '/frames-churn': (_q, port) => `<!doctype html><title>Churn</title><button>Stays</button><div id="box"></div><script>
        let i = 0;
        setInterval(() => {
            const box = document.getElementById('box');
            box.replaceChildren();
            for (let k = 0; k < 5; k += 1) {
                const f = document.createElement('iframe');
                f.src = (k % 2 ? 'http://localhost:' : 'http://127.0.0.1:') + ${port} + '/leaf?i=' + (i++);
                box.append(f);
            }
        }, 20);
    </script>`,
    '/leaf': q => `<!doctype html><button>Leaf ${Number(q.get('i') || 0)}</button>`,
    // Chromium keeps at most 1,000 frames a page; the rest never exist. Blank
    // frames, because loading frames with content is Chromium's own cost, and
    // dwarfed the rest of this suite when tried.
    '/many-frames': () => `<!doctype html><title>Frames</title><button>Top</button>${'<iframe width="20" height="20"></iframe>'.repeat(FRAMES)}`,
    '/nest': (q, port) => {
        const d = Number(q.get('d') || 0);
        if (d >= 30) return '<!doctype html><button>Deepest</button>';
        const host = d % 2 ? '127.0.0.1' : 'localhost';
        return `<!doctype html><title>Level ${d}</title><button>Level ${d}</button><iframe src="http://${host}:${port}/nest?d=${d + 1}"></iframe>`;
    },
    '/closed-shadow': () => `<!doctype html><title>Closed</title><button>Outside</button><div id="host"></div><script>
        const root = document.getElementById('host').attachShadow({ mode: 'closed' });
        const frag = document.createDocumentFragment();
        for (let i = 0; i < 100000; i += 1) frag.append(document.createElement('b'));
        const b = document.createElement('button'); b.textContent = 'Inside the closed root'; frag.prepend(b);
        root.append(frag);
    </script>`,
    '/big-text': () => `<!doctype html><title>Big text</title><button>Before</button><p id="p"></p><script>
        document.getElementById('p').append(document.createTextNode('word '.repeat(${TEXT_MB / 5} * 1024 * 1024)));
    </script>`,
    '/big-name': () => `<!doctype html><title>Big name</title><button>Before</button><button id="b">x</button><script>
        document.getElementById('b').setAttribute('aria-label', 'label '.repeat(5 * 1024 * 1024 / 6));
    </script>`,
};

let serverPort;
function serve() {
    return new Promise(resolve => {
        const server = http.createServer((req, res) => {
            const url = new URL(req.url, 'http://x');
            const route = ROUTES[url.pathname];
            res.setHeader('content-type', 'text/html; charset=utf-8');
            if (!route) { res.statusCode = 404; res.end('no'); return; }
            res.end(route(url.searchParams, serverPort));
        });
        server.listen(0, '127.0.0.1', () => { serverPort = server.address().port; resolve(server); });
    });
}

let server;
before(async () => {
    const port = await freePort();
    browser = await chromium.launch({ executablePath: findChromium(), args: [...CHROMIUM_FLAGS, `--remote-debugging-port=${port}`] });
    endpoint = `http://127.0.0.1:${port}`;
    server = await serve();
    site = `http://127.0.0.1:${serverPort}`;
    // The bare Chromium runs niced: on a two-core machine a page that churns
    // frames keeps every core busy, and the loop check should see what this
    // process does, not whether the OS scheduled it.
    const wrapper = join(mkdtempSync(join(tmpdir(), 'web-ai-nice-')), 'chromium');
    writeFileSync(wrapper, `#!/bin/sh\nexec nice -n 15 ${JSON.stringify(findChromium())} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const saved = process.env.CHROME_PATH;
    process.env.CHROME_PATH = wrapper;
    try {
        bare = await launchChromiumNative();
    } finally {
        if (saved === undefined) delete process.env.CHROME_PATH; else process.env.CHROME_PATH = saved;
    }
});

after(async () => {
    await browser?.close();
    await bare?.close();
    server?.close();
});

/**
 * Run `fn` while a 5 ms timer measures how late Node's loop answers it:
 * `late` is the 99th percentile of the ticks' lateness, `worst` the largest.
 * The percentile is what the loop's health is judged by: on this shared
 * two-core machine the OS alone sometimes holds a ready thread back for
 * longer than 50 ms once in a capture, which no code in the process causes,
 * and a full test run (a debug addon, Chromium rendering a churning page) has
 * seen a 99th percentile of 54 ms. A capture that blocked the loop would show
 * as a stall of its whole length, which `worst` catches.
 */
async function withLoopWatch(fn) {
    const lateness = [];
    let last = performance.now();
    const timer = setInterval(() => {
        const now = performance.now();
        lateness.push(Math.max(0, now - last - 5));
        last = now;
    }, 5);
    try {
        const started = performance.now();
        const value = await fn();
        const ms = performance.now() - started;
        lateness.sort((a, b) => a - b);
        const late = lateness.length ? lateness[Math.min(lateness.length - 1, Math.floor(lateness.length * 0.99))] : 0;
        return { value, ms, late, worst: lateness.length ? lateness[lateness.length - 1] : 0, ticks: lateness.length };
    } finally {
        clearInterval(timer);
    }
}

async function targetIdOf(page) {
    const s = await page.context().newCDPSession(page);
    const { targetInfo } = await s.send('Target.getTargetInfo');
    await s.detach();
    return targetInfo.targetId;
}

/**
 * Capture a tab natively and check the outcome is a valid snapshot or a
 * WebAiError within `timeoutMs` (plus slack for connecting and detaching),
 * with the loop healthy throughout. Returns the snapshot or the error.
 */
async function hardCapture(targetId, options, { slackMs = 1500, source = {} } = {}) {
    const { value, ms, late, worst, ticks } = await withLoopWatch(() => buildWebAiSnapshot({ cdpEndpoint: bare.endpoint, targetId, ...source }, options).catch(err => err));
    assert.ok(ms < options.timeoutMs + slackMs, `took ${ms.toFixed(0)} ms with timeoutMs ${options.timeoutMs}`);
    // A percentile of fewer than 200 ticks (a capture under a second) is its
    // worst tick, which one garbage collection or the final JSON.parse on the
    // main thread can take: CI saw 132 ms over a short capture with no block,
    // and a loaded developer run a 99th percentile of 140 ms over 300 ticks
    // (Chromium churning frames on both cores). A capture that blocked the
    // loop stalls it for its whole length, seconds here: `worst` says so. One
    // tick alone was once 561 ms late in a loaded developer run (cargo test
    // linking beside it), with no block: the bound is a second.
    if (ticks >= 200) assert.ok(late < 250, `the event loop answered ${late.toFixed(1)} ms late (99th percentile of ${ticks} ticks; worst ${worst.toFixed(1)} ms) during the capture`);
    assert.ok(worst < 1000, `the event loop stalled for ${worst.toFixed(1)} ms during the capture`);
    if (value instanceof Error) {
        assert.ok(value instanceof WebAiError && typeof value.errorCode === 'string', String(value && value.stack));
    } else {
        assert.equal(typeof value.text, 'string');
        assert.ok(value.text.startsWith('- '), value.text.slice(0, 200));
        assert.equal(typeof value.refs, 'object');
    }
    return value;
}

/** A tab of the bare Chromium on `path`, loaded (or given `settleMs` when it never settles). */
async function openTab(path, { settleMs = null, loadMs = 30000 } = {}) {
    const tab = await (await fetch(`${bare.endpoint}/json/new?about:blank`, { method: 'PUT' })).json();
    const targetId = tab.id;
    const source = { cdpEndpoint: bare.endpoint, targetId };
    if (settleMs === null) {
        const r = await native.navigateNative(source, site + path, loadMs);
        assert.equal(r.error ?? null, null, r.error && r.error.message);
    } else {
        native.navigateNative(source, site + path, settleMs).catch(() => {});
        await new Promise(r => setTimeout(r, settleMs));
    }
    const page = { close: () => fetch(`${bare.endpoint}/json/close/${targetId}`).then(r => r.text(), () => null) };
    return { page, targetId };
}

test('a page that redefines every global and prototype method our scripts touch reads exactly as the clean page', async () => {
    const url = pathToFileURL(join(pagesDir, 'forms.html')).href;
    const clean = await browser.newPage();
    const hostile = await browser.newPage();
    try {
        await clean.goto(url);
        await hostile.addInitScript({ path: join(root, 'fixtures', 'hostile', 'monkeypatch.js') });
        await hostile.goto(url);
        // The patches took: the page's own world is blinded (even Playwright's
        // evaluate fails there, so ask through CDP, whose values V8 serialises).
        const cdp = await hostile.context().newCDPSession(hostile);
        const seen = await cdp.send('Runtime.evaluate', { expression: '[document.title, innerWidth, document.querySelector("form")]', returnByValue: true });
        await cdp.detach();
        assert.deepEqual(seen.result.value, ['A title the page made up', 1, null]);
        for (const options of [{}, { interactiveOnly: false, maxDepth: 20 }, { rootSelector: 'form' }, { rootSelector: 'main > ul', interactiveOnly: false }]) {
            const a = await buildWebAiSnapshot(clean, options);
            const b = await buildWebAiSnapshot(hostile, options);
            assert.equal(b.text, a.text, JSON.stringify(options));
            assert.deepEqual([b.url, b.title, b.domHash, b.notes], [a.url, a.title, a.domHash, a.notes], JSON.stringify(options));
            // Two tabs: the same refs but for the frame id of each tab's document
            // and the backend ids (one counter per renderer process: two tabs
            // that share a process number their nodes apart).
            const sameTab = refs => Object.fromEntries(Object.entries(refs).map(([k, r]) => [k, { ...r, frameId: r.frameId ? 'main' : r.frameId, backendNodeId: typeof r.backendNodeId }]));
            assert.deepEqual(sameTab(b.refs), sameTab(a.refs));
            assert.equal(a.title, 'Checkout');
            assert.match(a.domHash, /^sha256:[0-9a-f]{16}$/);
        }
        // The native path runs the same scripts in the same world.
        const native = await buildWebAiSnapshot({ cdpEndpoint: endpoint, targetId: await targetIdOf(hostile) });
        const plain = await buildWebAiSnapshot(clean);
        assert.deepEqual([native.text, native.title, native.domHash], [plain.text, plain.title, plain.domHash]);
    } finally {
        await clean.close();
        await hostile.close();
    }
});

test('on the monkeypatching page, actions read the real element state and act as on the clean page', async () => {
    const url = pathToFileURL(join(pagesDir, 'actions.html')).href;
    const outcomes = [];
    for (const patched of [false, true]) {
        const page = await browser.newPage();
        try {
            if (patched) await page.addInitScript({ path: join(root, 'fixtures', 'hostile', 'monkeypatch.js') });
            await page.goto(url);
            const snapshot = await buildWebAiSnapshot(page);
            const ref = (role, name) => Object.values(snapshot.refs).find(x => x.role === role && x.name === name).ref;
            const run = async (action, args) => {
                const r = await runAction(page, snapshot, action, args);
                // The clean page's own log() adds a line after the first click and
                // moves what follows; the blinded page's cannot: points differ.
                return [r.success, r.error, r.error ? r.message.replace(/ at \(\d+, \d+\)$/, '') : JSON.stringify(r.detail?.value ?? null)];
            };
            outcomes.push([
                await run('click', { ref: ref('button', 'Go') }),
                await run('click', { ref: ref('button', 'Disabled') }),
                await run('click', { ref: ref('button', 'Under overlay') }),
                await run('fill', { ref: ref('textbox', 'Email'), value: 'a@b.c' }),
                await run('fill', { ref: ref('textbox', 'Code'), value: 'x' }),
                await run('select', { ref: ref('combobox', 'Size'), value: 'l' }),
                await run('scroll', { direction: 'down', amount: 200 }),
            ]);
        } finally {
            await page.close();
        }
    }
    const [clean, hostile] = outcomes;
    assert.deepEqual(clean.map(o => o[1]), [null, 'element_disabled', 'element_obscured', null, 'element_disabled', null, null]);
    assert.deepEqual(hostile, clean);
});

test('a renderer busy forever: snapshot.timeout at the deadline, the loop free', async () => {
    const { page, targetId } = await openTab('/busy', { settleMs: 500 });
    try {
        const err = await hardCapture(targetId, { timeoutMs: 2000 });
        assert.ok(err instanceof WebAiError, 'a busy renderer cannot answer');
        assert.equal(err.errorCode, 'snapshot.timeout', err.message);
    } finally {
        await page.close();
    }
});

test('a page that reloads or navigates every 50 ms: each capture is a snapshot or a WebAiError in time', async () => {
    for (const path of ['/reload', '/navigate']) {
        const { page, targetId } = await openTab(path, { settleMs: 300 });
        try {
            const seen = [];
            for (let i = 0; i < 6; i += 1) {
                const r = await hardCapture(targetId, { timeoutMs: 3000 });
                seen.push(r instanceof Error ? r.errorCode : 'snapshot');
            }
            assert.ok(seen.length === 6, seen.join(','));
        } finally {
            await page.close();
        }
    }
});

test('a tab closed mid-capture is target.detached (or a snapshot taken before it went)', async () => {
    const { page, targetId } = await openTab('/closed-shadow');
    const capture = hardCapture(targetId, { timeoutMs: 20000 });
    await new Promise(r => setTimeout(r, 300));
    await page.close();
    const r = await capture;
    if (r instanceof Error) assert.ok(['target.detached', 'cdp.target-mismatch', 'cdp.connection-closed'].includes(r.errorCode), `${r.errorCode}: ${r.message}`);
});

test('frames removed and added every 20 ms during capture, same-site and cross-site: snapshots with notes', async () => {
    const { page, targetId } = await openTab('/frames-churn', { settleMs: 500 });
    try {
        let snapshots = 0;
        for (let i = 0; i < 6; i += 1) {
            // The page spawns a renderer for a cross-site frame every 40 ms on
            // average, and the browser answers every call slowly while it does:
            // measured, a capture takes 0.2-2.5 s here, and a CI run on a busy
            // machine saw four of six pass 4 s. The deadline is for that cost.
            const r = await hardCapture(targetId, { timeoutMs: 10000 });
            if (!(r instanceof Error)) {
                snapshots += 1;
                assert.match(r.text, /button "Stays"/);
            }
        }
        assert.ok(snapshots >= 3, `${snapshots} of 6 captures gave a snapshot`);
    } finally {
        await page.close();
    }
});

test(`${FRAMES.toLocaleString('en')} iframes: the first 200 are read, the rest named in a note`, async () => {
    const { page, targetId } = await openTab('/many-frames');
    try {
        // Chrome's tree is read frame by frame: every iframe element is listed; the first 200 frames' documents are read.
        const s = await hardCapture(targetId, { timeoutMs: 20000, interactiveOnly: false, engine: 'ax' }, { slackMs: 3000 });
        assert.ok(!(s instanceof Error), String(s && s.message));
        assert.match(s.text, /button "Top"/);
        assert.equal((s.text.match(/document "about:blank"/g) || []).length, 200, s.text.slice(0, 500));
        assert.ok(s.notes.some(n => /^\d+ more frames are not included \(at most 200\)$/.test(n)), s.notes.join(' | '));
        // The DOM engine has every same-process frame's document in the page's one DOM snapshot:
        // the same iframes (Chrome loads 1,000 frames a page; its tree leaves out those beyond), all read.
        const d = await hardCapture(targetId, { timeoutMs: 20000, interactiveOnly: false }, { slackMs: 3000 });
        assert.ok(!(d instanceof Error), String(d && d.message));
        assert.match(d.text, /button "Top"/);
        const iframes = text => (text.match(/^ *- iframe/gm) || []).length;
        assert.equal(iframes(d.text), iframes(s.text));
        assert.equal(iframes(d.text), Math.min(FRAMES, 1000), "Chromium keeps at most 1,000 frames a page");
        assert.ok(!d.notes.some(n => /more frames/.test(n)), d.notes.join(' | '));
    } finally {
        await page.close();
    }
});

test('iframes nested 30 deep, cross-site and same-site alternating: a snapshot, deep levels noted not lost silently', async () => {
    const { page, targetId } = await openTab('/nest');
    try {
        const s = await hardCapture(targetId, { timeoutMs: 15000, maxDepth: 100, interactiveOnly: true });
        assert.ok(!(s instanceof Error), String(s && s.message));
        assert.match(s.text, /button "Level 0"/);
        assert.match(s.text, /button "Level 1"/);
    } finally {
        await page.close();
    }
});

test('100k elements inside a closed shadow root: over the message limit it is cdp.message-too-large; raised, the control inside is seen', async () => {
    const { page, targetId } = await openTab('/closed-shadow');
    try {
        // With text in each element its DOM reply (every node, shadow roots
        // pierced) is about 88 MB, over the 64 MiB default: that is
        // cdp.message-too-large, and a raised maxMessageBytes reads it.
        let s = await hardCapture(targetId, { timeoutMs: 30000 }, { slackMs: 3000 });
        if (s instanceof Error) {
            assert.equal(s.errorCode, 'cdp.message-too-large', s.message);
            s = await hardCapture(targetId, { timeoutMs: 30000 }, { slackMs: 3000, source: { maxMessageBytes: 512 * 1024 * 1024 } });
        }
        assert.ok(!(s instanceof Error), String(s && s.message));
        assert.match(s.text, /button "Inside the closed root"/);
    } finally {
        await page.close();
    }
});

test(`a ${TEXT_MB} MB text node and a 5 MB accessible name: snapshots with bounded names`, async () => {
    for (const path of ['/big-text', '/big-name']) {
        // Chromium parsing 50 MB of text under CI's load once took over 30 s: the page's load is
        // not what is tested, so it gets longer.
        const { page, targetId } = await openTab(path, { loadMs: 120000 });
        try {
            const s = await hardCapture(targetId, { timeoutMs: 30000, interactiveOnly: false }, { slackMs: 5000 });
            if (s instanceof Error) {
                assert.ok(['cdp.message-too-large', 'snapshot.timeout'].includes(s.errorCode), `${path}: ${s.errorCode} ${s.message}`);
                continue;
            }
            assert.match(s.text, /button "Before"/);
            assert.ok(s.text.length < 200000, `${path}: ${s.text.length} chars`);
            // Names stop at maxNameChars (900), text lines at maxTextChars (2000), each cut saying what it left out.
            for (const line of s.text.split('\n')) assert.ok(line.length < 2200, `${path}: a line of ${line.length} chars`);
            if (path === '/big-text') assert.match(s.text, /… \[\d+ more characters; maxTextChars shows more\]/);
        } finally {
            await page.close();
        }
    }
});

test("a renderer that crashes: target.crashed at once for a Playwright page, a { cdp } session and their page sessions, not the capture's deadline", async () => {
    const page = await browser.newPage();
    try {
        await page.goto(pathToFileURL(join(pagesDir, 'forms.html')).href);
        const session = createPageSession(page, { snapshotOptions: { timeoutMs: 60000 } });
        const first = await session.snapshot();
        assert.match(first.text, /button "Use points"/);
        const crashed = new Promise(resolve => page.once('crash', resolve));
        page.goto('chrome://crash').catch(() => {});
        // A capture already waiting on the renderer when it goes, and captures after.
        const during = session.snapshot().then(() => null, e => e);
        await crashed;
        for (const [what, outcome] of [
            ['a session snapshot waiting when it crashed', await during],
            ['a session snapshot after', await session.snapshot().then(() => null, e => e)],
            ['a one-off snapshot after', await buildWebAiSnapshot(page, { timeoutMs: 60000 }).then(() => null, e => e)],
        ]) {
            // A waiting call may also have been answered before the renderer went.
            if (outcome === null && what.includes('waiting')) continue;
            assert.ok(outcome instanceof WebAiError, `${what}: ${outcome}`);
            assert.equal(outcome.errorCode, 'target.crashed', `${what}: ${outcome.message}`);
        }
        await session.close();
    } finally {
        await page.close().catch(() => {});
    }
    // A CDP session of the user's own: Chrome's Inspector.targetCrashed event says so.
    const other = await browser.newPage();
    try {
        await other.goto(pathToFileURL(join(pagesDir, 'forms.html')).href);
        const cdp = await other.context().newCDPSession(other);
        const session = createPageSession({ cdp }, { snapshotOptions: { timeoutMs: 60000 } });
        await session.snapshot();
        const crashed = new Promise(resolve => cdp.once('Inspector.targetCrashed', resolve));
        other.goto('chrome://crash').catch(() => {});
        await crashed;
        for (const outcome of [await session.snapshot().then(() => null, e => e), await buildWebAiSnapshot({ cdp }, { timeoutMs: 60000 }).then(() => null, e => e)]) {
            assert.ok(outcome instanceof WebAiError, String(outcome));
            assert.equal(outcome.errorCode, 'target.crashed', outcome.message);
        }
        await session.close();
    } finally {
        await other.close().catch(() => {});
    }
});
