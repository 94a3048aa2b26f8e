// A page session over `{ cdpEndpoint }` is a whole session: it keeps its own
// connection, looks incrementally, waits for changes, and ends its calls at
// once, with their cause, when its tab closes or crashes. Also: sessions are
// not limited in number (each owns its state; nothing is evicted).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPageSession } from '../lib/index.mjs';
import { launchWithEndpoint, pagesDir, root, newTab } from './helpers.mjs';

let browser;
let endpoint;

before(async () => {
    ({ browser, endpoint } = await launchWithEndpoint());
});

after(async () => { await browser?.close(); });

const MUTATE = readFileSync(join(root, 'bench', 'mutations.js'), 'utf8').replace(/^(\s*\/\/[^\n]*\n)+/, '');
const mutate = (page, seed) => page.evaluate(([src, s]) => (0, eval)(`(${src})`)(s, null), [MUTATE, seed]);
const OPTIONS = { engine: 'dom', timeoutMs: 30000 };

/** A tab on `file` (a fixture path under pages/) and its target id. */
async function tab(file) {
    const page = await newTab(browser, { viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(join(pagesDir, file)).href, { waitUntil: 'load' });
    const cdp = await page.context().newCDPSession(page);
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    await cdp.detach();
    return { page, targetId: targetInfo.targetId };
}

/**
 * A tab on a local HTTP server whose requests `handle(req, res)` answers (or leaves
 * unanswered), loaded at `/`: `{ page, targetId, server }`.
 */
async function servedTab(handle) {
    const http = await import('node:http');
    const server = await new Promise(resolve => {
        const s = http.createServer(handle);
        s.listen(0, '127.0.0.1', () => resolve(s));
    });
    const page = await newTab(browser);
    await page.goto(`http://127.0.0.1:${server.address().port}/`, { waitUntil: 'load' });
    const cdp = await page.context().newCDPSession(page);
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    await cdp.detach();
    return { page, targetId: targetInfo.targetId, server };
}

const body = s => s.text.replace(/<<<[^\n]*\n|>>>[^\n]*\n?/g, '');

test('endpoint: after each of 24 random changes the session looks incrementally and sees what a full-capture twin sees', async () => {
    const { page, targetId } = await tab('widgets.html');
    const source = { cdpEndpoint: endpoint, targetId };
    const inc = createPageSession(source, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: OPTIONS });
    const full = createPageSession(source, { cacheTtlMs: 0, incremental: false, snapshotOptions: OPTIONS });
    try {
        await inc.snapshot();
        await full.snapshot();
        const modes = new Map();
        for (let seed = 1; seed <= 24; seed += 1) {
            const did = await mutate(page, seed);
            const a = await inc.snapshot();
            const b = await full.snapshot();
            modes.set(a.stats.captureMode, (modes.get(a.stats.captureMode) || 0) + 1);
            assert.equal(body(a), body(b), `seed ${seed} (${did}): the incremental look differs from the full one`);
            assert.deepEqual(Object.keys(a.refs), Object.keys(b.refs), `seed ${seed}: refs`);
        }
        assert.ok((modes.get('incremental') || 0) >= 12, `most looks read only what changed: ${JSON.stringify([...modes])}`);
    } finally {
        await inc.close();
        await full.close();
        await page.close();
    }
});

test('endpoint: waitForUiChange sees a change made after it started', async () => {
    const { page, targetId } = await tab('loop/todo.html');
    // 'always': a page this small is otherwise captured whole after a change (that costs less).
    const session = createPageSession({ cdpEndpoint: endpoint, targetId }, { incremental: 'always' });
    try {
        const first = await session.snapshot();
        setTimeout(() => page.evaluate(() => window.todo.add('Tea')).catch(() => {}), 300);
        const w = await session.waitForUiChange({ timeoutMs: 5000 });
        assert.equal(w.success, true, JSON.stringify({ ...w, snapshot: undefined }));
        assert.equal(w.observedChange, 'hierarchy_diff');
        assert.ok(w.snapshot.revision > first.revision);
        assert.match(w.snapshot.text, /Tea/);
        assert.equal(w.snapshot.stats.captureMode, 'incremental');
    } finally {
        await session.close();
        await page.close();
    }
});

test('twenty endpoint sessions on twenty tabs of one browser each look incrementally after a change', async () => {
    const tabs = [];
    for (let i = 0; i < 20; i += 1) tabs.push(await tab('loop/todo.html'));
    const sessions = tabs.map(t => createPageSession({ cdpEndpoint: endpoint, targetId: t.targetId }, { incremental: 'always', cacheTtlMs: 0 }));
    try {
        await Promise.all(sessions.map(s => s.snapshot()));
        await Promise.all(tabs.map((t, i) => t.page.evaluate(n => window.todo.add(`Item ${n}`), i)));
        const looks = await Promise.all(sessions.map(s => s.snapshot()));
        looks.forEach((s, i) => {
            assert.equal(s.stats.captureMode, 'incremental', `session ${i}: ${s.notes.join(' | ')}`);
            assert.match(s.text, new RegExp(`Item ${i}\\b`));
            assert.equal(s.revision, 2);
        });
    } finally {
        await Promise.all(sessions.map(s => s.close()));
        await Promise.all(tabs.map(t => t.page.close()));
    }
});

for (const kind of ['playwright', 'endpoint']) {
    test(`${kind}: act on a tab that was closed fails at once with target.detached`, async () => {
        const { page, targetId } = await tab('loop/todo.html');
        const session = createPageSession(kind === 'playwright' ? page : { cdpEndpoint: endpoint, targetId });
        try {
            const s = await session.snapshot();
            const ref = s.text.match(/button "Save" \[ref=(@e\d+)\]/)[1];
            await page.close();
            const started = performance.now();
            await assert.rejects(session.act('click', { ref }, { settleMs: 20000, timeoutMs: 20000 }), err => {
                assert.equal(err.name, 'WebAiError');
                assert.equal(err.errorCode, 'target.detached', err.message);
                return true;
            });
            // Not a timing claim: with a 20 s settle cap and action deadline, an
            // answer well inside them means nothing waited for the tab that is gone.
            const took = performance.now() - started;
            assert.ok(took < 10000, `took ${Math.round(took)} ms`);
        } finally {
            await session.close();
        }
    });

    test(`${kind}: waitForUiChange on a crashed tab ends with target.crashed, not a timeout`, async () => {
        const { page, targetId } = await tab('loop/todo.html');
        const session = createPageSession(kind === 'playwright' ? page : { cdpEndpoint: endpoint, targetId });
        try {
            await session.snapshot();
            // Settled into a value at once: the crash may end the wait before the navigation's promise does.
            const waiting = session.waitForUiChange({ timeoutMs: 20000 }).then(() => null, err => err);
            const started = performance.now();
            await page.goto('chrome://crash').catch(() => {});
            const err = await waiting;
            assert.ok(err, 'waitForUiChange rejected');
            assert.equal(err.name, 'WebAiError');
            assert.equal(err.errorCode, 'target.crashed', err.message);
            assert.ok(performance.now() - started < 10000, 'well before the 20 s timeout');
        } finally {
            await session.close();
            await page.close().catch(() => {});
        }
    });
}

test('endpoint: an action waits for the requests it started (the Network domain over the session\'s own connection)', async () => {
    let answeredAt = null;
    const { page, targetId, server } = await servedTab((req, res) => {
        if (req.url === '/api') {
            setTimeout(() => { res.setHeader('content-type', 'application/json'); res.end('["Late order"]'); answeredAt = Date.now(); }, 600);
            return;
        }
        res.setHeader('content-type', 'text/html');
        res.end(`<!doctype html><title>Orders</title><button id=b>Load orders</button><ul id=list></ul><script>
            document.getElementById('b').onclick = () => fetch('/api').then(r => r.json()).then(items => {
                for (const t of items) { const li = document.createElement('li'); li.textContent = t; document.getElementById('list').append(li); }
            });
        </script>`);
    });
    const session = createPageSession({ cdpEndpoint: endpoint, targetId }, { settleMs: 5000 });
    try {
        const s = await session.snapshot();
        const ref = s.text.match(/button "Load orders" \[ref=(@e\d+)\]/)[1];
        const r = await session.act('click', { ref });
        assert.equal(r.settle.requestsTracked, true);
        assert.equal(r.settle.settled, true, JSON.stringify(r.settle));
        // An order of events, not a duration: the answer came before the fresh snapshot was taken.
        assert.ok(answeredAt !== null && answeredAt <= r.snapshot.capturedAtMs, `answered at ${answeredAt}, captured at ${r.snapshot.capturedAtMs}`);
        assert.match(r.snapshot.text, /Late order/);
    } finally {
        await session.close();
        await page.close();
        server.close();
    }
});

test('endpoint: a click that starts a load the server never answers is done, and the look after it ends by its deadline', async () => {
    // While such a load is pending Chrome holds every question to the tab. The click's wait for the
    // next frame is bounded at 1 s (it took the action's whole deadline), the settle's questions by
    // the settle's cap, and the look by its `timeoutMs`, its watcher's wait included (the watcher
    // took 2.5 s of a 5 s look and the capture then had the whole 5 s: 7.5 s). Together, the act
    // took 14 s here before, for a settle of 1.5 s and a look of 5.
    const { page, targetId, server } = await servedTab((req, res) => {
        if (req.url === '/hang') return; // never answered
        res.setHeader('content-type', 'text/html');
        res.end('<!doctype html><title>Home</title><a href="/hang">Go nowhere</a>');
    });
    const session = createPageSession({ cdpEndpoint: endpoint, targetId }, { settleMs: 1500, timeoutMs: 5000 });
    try {
        const s = await session.snapshot();
        const ref = s.text.match(/link "Go nowhere" \[ref=(@e\d+)\]/)[1];
        const started = Date.now();
        const r = await session.act('click', { ref }, { snapshotOptions: { timeoutMs: 5000 } });
        const took = Date.now() - started;
        assert.equal(r.success, true, JSON.stringify(r));
        assert.equal(r.snapshot, null);
        assert.match(r.snapshotError, /^snapshot capture exceeded timeoutMs \(5000 ms\) .*: the page's watcher did not answer within \d+ ms, and the capture had the \d+ ms left$/);
        assert.equal(r.settle.settled, false);
        assert.ok(r.settle.pending.requests.some(u => u.endsWith('/hang')), JSON.stringify(r.settle));
        // A bound, not a speed: 1 s for the frame, 1.5 for the settle, 5 for the look, and slack.
        assert.ok(took < 10000, `the act took ${took} ms`);
        // The load stopped, the tab answers again.
        await session.send('Page.stopLoading', {});
        session.invalidate();
        assert.match((await session.snapshot()).text, /link "Go nowhere"/);
    } finally {
        await session.close();
        await page.close();
        server.closeAllConnections();
        server.close();
    }
});

test('endpoint: click, fill and scroll act in a background tab, and the tab in front stays in front', async () => {
    // A browser of its own with no Playwright attached: Playwright makes every page it drives report itself visible.
    const { launchChromiumNative } = await import('../lib/chromium.mjs');
    const own = await launchChromiumNative();
    try {
        const open = async url => (await (await fetch(`${own.endpoint}/json/new?${url}`, { method: 'PUT' })).json());
        const back = await open(`data:text/html,${encodeURIComponent('<title>Back</title><button onclick="document.title=\'clicked\'">Go</button><input aria-label="Name"><div style="height:3000px"></div>')}`);
        const front = await open('data:text/html,<title>Front</title><p>in front</p>');
        const session = createPageSession({ cdpEndpoint: own.endpoint, targetId: back.id }, { settleMs: 1000 });
        const watcher = createPageSession({ cdpEndpoint: own.endpoint, targetId: front.id });
        try {
            // A tab opened over /json/new starts on about:blank: look until its page has loaded.
            let s = await session.snapshot();
            for (let i = 0; i < 100 && !/button "Go"/.test(s.text); i += 1) {
                await new Promise(r => setTimeout(r, 100));
                s = await session.snapshot();
            }
            const go = s.text.match(/button "Go" \[ref=(@e\d+)\]/)[1];
            const name = s.text.match(/textbox "Name" \[ref=(@e\d+)\]/)[1];
            const clicked = await session.act('click', { ref: go }, { timeoutMs: 10000 });
            assert.equal(clicked.success, true, `${clicked.error}: ${clicked.message}`);
            assert.equal(clicked.snapshot.title, 'clicked');
            const filled = await session.act('fill', { ref: name, value: 'Ada' }, { timeoutMs: 10000 });
            assert.equal(filled.success, true, `${filled.error}: ${filled.message}`);
            assert.match(filled.snapshot.text, /textbox "Name" \[ref=@e\d+ value="Ada"\]/);
            const scrolled = await session.act('scroll', { direction: 'down', amount: 500 }, { timeoutMs: 10000 });
            assert.equal(scrolled.success, true, `${scrolled.error}: ${scrolled.message}`);
            // Which tab is in front, as each page itself says.
            const state = await session._native.evaluateEndpoint({ cdpEndpoint: own.endpoint, targetId: back.id }, '(function () { return document.visibilityState; })', null, [], 5000);
            const frontState = await watcher._native.evaluateEndpoint({ cdpEndpoint: own.endpoint, targetId: front.id }, '(function () { return document.visibilityState; })', null, [], 5000);
            assert.deepEqual([JSON.parse(state.value), JSON.parse(frontState.value)], ['hidden', 'visible'], 'no tab was brought to the front');
        } finally {
            await session.close();
            await watcher.close();
        }
    } finally {
        await own.close();
    }
});
