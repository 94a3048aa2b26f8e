// Page sessions on live Chromium, from each of the three sources a session
// takes: a Playwright page, `{ cdp }` (a CDP session of that page) and
// `{ cdpEndpoint, targetId }` (the core connecting by itself).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPageSession, buildWebAiSnapshot, WebAiError } from '../lib/index.mjs';
import { launchWithEndpoint, pagesDir, newTab } from './helpers.mjs';

let browser;
let endpoint;


before(async () => {
    ({ browser, endpoint } = await launchWithEndpoint());
});

after(async () => { await browser?.close(); });

const SOURCES = ['playwright', 'cdp', 'endpoint'];
const sleep = ms => new Promise(r => setTimeout(r, ms));

/** A fixture page of `loop/` and a session on it from `kind`. */
async function open(name, kind, options = {}) {
    const page = await newTab(browser, { viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(join(pagesDir, 'loop', name)).href, { waitUntil: 'load' });
    const cdp = await page.context().newCDPSession(page);
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    const source = kind === 'playwright' ? page : kind === 'cdp' ? { cdp } : { cdpEndpoint: endpoint, targetId: targetInfo.targetId };
    const session = createPageSession(source, options);
    return {
        page,
        session,
        async close() {
            await session.close();
            await cdp.detach().catch(() => {});
            await page.close();
        },
    };
}

const refOf = (snapshot, pattern) => {
    const m = snapshot.text.match(pattern);
    assert.ok(m, `${pattern} in\n${snapshot.text}`);
    return m[1];
};

for (const kind of SOURCES) {
    test(`${kind}: a churning page (clock, elapsed time, timer, marquee, spinner, caret, focus) keeps one revision over ten snapshots in 2 s`, async () => {
        const t = await open('churn.html', kind, { cacheTtlMs: 0 });
        try {
            const revisions = [];
            const texts = new Set();
            for (let i = 0; i < 10; i += 1) {
                const s = await t.session.snapshot();
                revisions.push(s.revision);
                texts.add(s.text);
                if (i > 0) {
                    assert.equal(s.fromCache, false, 'cacheTtlMs 0 captures every time');
                    assert.deepEqual([s.delta.added, s.delta.removed, s.delta.changed], [[], [], []]);
                    assert.match(s.delta.text, /^# no changes since revision 1/);
                }
                await sleep(200);
            }
            assert.deepEqual(revisions, Array(10).fill(1));
            assert.ok(texts.size > 1, 'the text did change (the clock ran), and it did not count');
            const w = await t.session.waitForUiChange({ timeoutMs: 1000 });
            assert.deepEqual([w.success, w.timeout, w.observedChange, w.snapshot], [false, true, null, null]);
        } finally {
            await t.close();
        }
    });

    test(`${kind}: adding an item, renaming a button, ticking a box and navigating each bump the revision by one, and the delta names that ref`, async () => {
        const t = await open('todo.html', kind);
        try {
            const first = await t.session.snapshot();
            assert.equal(first.revision, 1);
            assert.equal(first.delta, undefined, 'the first snapshot has no delta');
            const save = refOf(first, /button "Save" \[ref=(@e\d+)/);
            const box = refOf(first, /checkbox "Show done" \[ref=(@e\d+)/);
            const refsBefore = Object.keys(first.refs);

            await t.page.evaluate(() => window.todo.add('Jam'));
            const added = await t.session.snapshot();
            assert.equal(added.revision, 2);
            const jam = refOf(added, /button "Remove Jam" \[ref=(@e\d+)/);
            assert.ok(!refsBefore.includes(jam), 'a new element gets a new number');
            assert.deepEqual([added.delta.added, added.delta.removed, added.delta.changed], [[jam], [], []]);
            assert.equal(added.observedChange, 'hierarchy_diff');
            assert.match(added.delta.text, new RegExp(`\\+\\s+- button "Remove Jam" \\[ref=${jam}\\]`));
            assert.equal(added.delta.unchanged, refsBefore.length);

            await t.page.evaluate(() => window.todo.rename('Save all'));
            const renamed = await t.session.snapshot();
            assert.equal(renamed.revision, 3);
            assert.deepEqual(renamed.delta.changed.map(c => c.ref), [save]);
            assert.deepEqual([renamed.delta.added, renamed.delta.removed], [[], []]);
            assert.equal(renamed.delta.changed[0].was, `- button "Save" [ref=${save}]`);
            assert.equal(renamed.observedChange, 'text_change');

            await t.page.evaluate(() => window.todo.toggle());
            const ticked = await t.session.snapshot();
            assert.equal(ticked.revision, 4);
            assert.deepEqual(ticked.delta.changed, [{ ref: box, was: `- checkbox "Show done" [ref=${box}]`, now: `- checkbox "Show done" [ref=${box} checked=true]` }]);
            assert.equal(ticked.observedChange, 'state_change');

            await t.page.click('a');
            await t.page.waitForURL(/other\.html$/);
            const moved = await t.session.snapshot();
            assert.equal(moved.revision, 5);
            assert.equal(moved.observedChange, 'hierarchy_diff');
            assert.match(moved.delta.text, /# navigated from .*todo\.html to .*other\.html/);
            const back = refOf(moved, /link "Back to todo" \[ref=(@e\d+)/);
            const everyEarlier = [...Object.keys(first.refs), ...Object.keys(added.refs)].map(r => Number(r.slice(2)));
            assert.ok(Number(back.slice(2)) > Math.max(...everyEarlier), 'a new document never reuses a number');
            assert.deepEqual(moved.delta.removed.sort(), Object.keys(ticked.refs).sort());
            assert.equal(t.session.revision, 5);
        } finally {
            await t.close();
        }
    });

    test(`${kind}: waitForUiChange resolves after a stream ends and holds still for the window, filters by kind, and times out`, async () => {
        const t = await open('stream.html', kind);
        try {
            const first = await t.session.snapshot();
            const ask = refOf(first, /button "Ask" \[ref=(@e\d+)/);
            // No settling: the wait below is what waits for the stream.
            const clicked = await t.session.act('click', { ref: ask }, { settleMs: 0 });
            assert.equal(clicked.success, true, clicked.message);
            const w = await t.session.waitForUiChange({ stabilityWindowMs: 300, timeoutMs: 5000 });
            const sinceEnd = await t.page.evaluate(() => performance.now() - window.streamEnded);
            assert.equal(w.success, true);
            assert.equal(w.timeout, false);
            assert.equal(w.snapshotRevision, w.snapshot.revision);
            assert.match(w.snapshot.text, /button "Copy answer"/, 'the snapshot is of the finished stream');
            assert.match(w.snapshot.text, /paragraph: The quick .* keeps running far away The quick brown fox jumps over$/m);
            assert.ok(sinceEnd >= 300, `resolved ${sinceEnd} ms after the stream ended, inside the window`);
            assert.equal(w.delta.fromRevision, clicked.revision);
            assert.match(w.delta.text, /\+ +- button "Copy answer"/);

            // A state change is not the hierarchy change asked for.
            // Renamed before the wait starts, so that the wait's first look sees it however loaded the machine is.
            await t.page.evaluate(() => document.querySelector('#answer').setAttribute('aria-label', 'Reply'));
            const notThat = await t.session.waitForUiChange({ expectedChange: 'state_change', timeoutMs: 900 });
            assert.deepEqual([notThat.success, notThat.timeout], [false, true]);
            const quiet = await t.session.waitForUiChange({ timeoutMs: 500 });
            assert.equal(quiet.timeout, true, 'the rename was seen by the last wait and is not news');
            await t.page.evaluate(() => setTimeout(() => { document.querySelector('#status button').disabled = true; }, 100));
            const state = await t.session.waitForUiChange({ expectedChange: 'state_change', timeoutMs: 3000 });
            assert.equal(state.success, true);
            assert.equal(state.observedChange, 'state_change');
            assert.match(state.delta.changed[0].now, /button "Copy answer" \[ref=@e\d+ disabled=true\]/);
            await assert.rejects(t.session.waitForUiChange({ expectedChange: 'colour' }), err => err instanceof WebAiError && err.errorCode === 'snapshot.invalid-input');
        } finally {
            await t.close();
        }
    });

    test(`${kind}: refs stay stable across 20 snapshots of a list that grows and shrinks, and numbers are never reused`, async () => {
        const t = await open('todo.html', kind);
        try {
            const refOfName = new Map();
            const numbersUsed = new Map();
            let seed = 7;
            const rand = () => {
                seed = (seed * 1103515245 + 12345) % 2147483648;
                return seed / 2147483648;
            };
            let made = 0;
            for (let i = 0; i < 20; i += 1) {
                const s = await t.session.snapshot();
                for (const r of Object.values(s.refs)) {
                    if (refOfName.has(r.name)) assert.equal(r.ref, refOfName.get(r.name), `${r.name} kept its ref (snapshot ${i})`);
                    refOfName.set(r.name, r.ref);
                    const owner = numbersUsed.get(r.ref);
                    assert.ok(owner === undefined || owner === r.name, `${r.ref} was ${owner}, now ${r.name}`);
                    numbersUsed.set(r.ref, r.name);
                }
                const count = await t.page.evaluate(() => window.todo.count());
                if (count > 0 && rand() < 0.45) {
                    await t.page.evaluate(k => window.todo.removeAt(k), Math.floor(rand() * count));
                } else {
                    made += 1;
                    await t.page.evaluate(n => window.todo.add(`Item ${n}`), made);
                }
            }
            assert.ok(numbersUsed.size >= 12, `${numbersUsed.size} distinct refs seen`);
            // The drop-in keeps numbering from 1.
            if (kind === 'playwright') {
                const plain = await buildWebAiSnapshot(t.page);
                assert.equal(Object.keys(plain.refs)[0], '@e1');
                assert.deepEqual(Object.keys(plain.refs).map(r => Number(r.slice(2))), Object.keys(plain.refs).map((_, k) => k + 1));
            }
        } finally {
            await t.close();
        }
    });

    test(`${kind}: a repeat snapshot is a cache hit until the page changes, an action runs or invalidate() is called; allRefs bypasses the cache`, async () => {
        // The time-bound cache of a session that captures in full (an incremental one asks the page each time).
        const t = await open('todo.html', kind, { incremental: false });
        try {
            const first = await t.session.snapshot();
            const hit = await t.session.snapshot();
            assert.equal(hit.fromCache, true);
            assert.equal(hit.snapshotId, first.snapshotId);
            // A mutation, a property set from script, and a typed value each end the hit.
            await t.page.evaluate(() => window.todo.add('Tea'));
            const afterMutation = await t.session.snapshot();
            assert.equal(afterMutation.fromCache, false);
            assert.equal((await t.session.snapshot()).fromCache, true);
            await t.page.evaluate(() => window.todo.toggle());
            const afterProperty = await t.session.snapshot();
            assert.equal(afterProperty.fromCache, false, 'checked set from script is seen');
            assert.equal(afterProperty.revision, first.revision + 2);
            t.session.invalidate();
            const afterInvalidate = await t.session.snapshot();
            assert.equal(afterInvalidate.fromCache, false);
            assert.equal(afterInvalidate.revision, afterProperty.revision, 'a capture of an unchanged page is the same revision');
            const all = await t.session.snapshot({ allRefs: true });
            assert.equal(all.fromCache, false);
            const stillCached = await t.session.snapshot();
            assert.equal(stillCached.fromCache, true, 'allRefs did not replace the cached snapshot');
            assert.equal(stillCached.snapshotId, afterInvalidate.snapshotId);
            const save = refOf(stillCached, /button "Save" \[ref=(@e\d+)/);
            const acted = await t.session.act('click', { ref: save });
            assert.equal(acted.success, true, acted.message);
            assert.equal(acted.snapshot.fromCache, false, 'an action invalidates the cache');
            assert.equal(acted.settle.settled, true);
            // Expired: a short lifetime captures again.
            const short = await open('todo.html', kind, { cacheTtlMs: 50, incremental: false });
            try {
                await short.session.snapshot();
                await sleep(120);
                assert.equal((await short.session.snapshot()).fromCache, false);
            } finally {
                await short.close();
            }
        } finally {
            await t.close();
        }
    });
}

test('a look whose refs the session cannot take fails, and the next has no delta from the text the caller never got', async () => {
    const t = await open('todo.html', 'playwright');
    try {
        const first = await t.session.snapshot();
        // The session's copy of the refs out of step with the core's (which cannot happen by itself).
        t.session._sent = { id: t.session._sent.id, refs: {}, ids: null };
        await t.page.evaluate(() => window.todo.rename('Store'));
        await assert.rejects(t.session.snapshot(), err => err.errorCode === 'snapshot.capture-failed' && /the next snapshot sends every ref/.test(err.message));
        const next = await t.session.snapshot();
        assert.ok(next.revision > first.revision);
        assert.ok(next.delta === undefined || next.delta.fromRevision === first.revision, `a delta from revision ${next.delta?.fromRevision}, which the caller never got`);
        assert.deepEqual(Object.keys(next.refs), Object.keys(first.refs));
        assert.match(next.text, /Store/);
    } finally {
        await t.close();
    }
});

test('delta: true answers with the delta when it is under 70% of the full text', async () => {
    const t = await open('todo.html', 'playwright');
    try {
        const first = await t.session.snapshot({ delta: true });
        assert.equal(first.textIsDelta, undefined, 'the first snapshot has nothing to be a delta of');
        await t.page.evaluate(() => window.todo.rename('Store'));
        const small = await t.session.snapshot({ delta: true });
        assert.equal(small.textIsDelta, true);
        assert.match(small.text, /^# changes from revision 1 to 2: 0 added, 0 removed, 1 changed/);
        assert.match(small.fullText, /^- document "Todo"/);
        await t.page.evaluate(() => { document.querySelector('main').innerHTML = '<button>Only</button>'; });
        const big = await t.session.snapshot({ delta: true });
        assert.equal(big.textIsDelta, false, 'a rewrite is shorter as the whole page');
        assert.match(big.text, /^- document "Todo"/);
    } finally {
        await t.close();
    }
});

test('loading state: aria-busy, a progress indicator, a skeleton, and requests the last action started; absent otherwise', async () => {
    const t = await open('loading.html', 'playwright', { settleMs: 300 });
    let answer;
    const answered = new Promise(r => { answer = r; });
    await t.page.route('http://orders.test/api', async route => {
        await answered;
        await route.fulfill({ contentType: 'application/json', body: JSON.stringify(['Order 1', 'Order 2']) });
    });
    try {
        const idle = await t.session.snapshot();
        assert.equal(idle.loadingState, undefined);
        for (const [kind, signal] of [['busy', 'aria_busy'], ['progress', 'progress_indicator'], ['skeleton', 'skeleton']]) {
            await t.page.evaluate(k => window.show(k), kind);
            const s = await t.session.snapshot();
            assert.deepEqual(Object.keys(s.loadingState).sort(), ['active', 'detail', 'signal', 'source']);
            assert.equal(s.loadingState.active, true);
            assert.equal(s.loadingState.signal, signal, kind);
        }
        await t.page.evaluate(() => window.show(''));
        const load = refOf(await t.session.snapshot(), /button "Load orders" \[ref=(@e\d+)/);
        const r = await t.session.act('click', { ref: load });
        assert.equal(r.settle.settled, false, 'the request outlived settleMs');
        assert.ok(r.settle.waitedMs >= 300);
        assert.deepEqual(r.settle.pending.requests, ['http://orders.test/api']);
        assert.deepEqual(r.snapshot.loadingState, { active: true, signal: 'network', source: 'network', detail: '1 request(s) started by the last action in flight: http://orders.test/api' });
        answer();
        const w = await t.session.waitForUiChange({ timeoutMs: 3000 });
        assert.equal(w.success, true);
        assert.match(w.snapshot.text, /listitem: Order 2/);
        assert.equal(w.snapshot.loadingState, undefined);
    } finally {
        await t.close();
    }
});

test('loading state follows attributes set on elements already there, and styles that hide them', async () => {
    // The watcher keeps the loading selectors' matches between looks: these changes
    // add no element, so only the attributes it watches (or re-checking what is
    // shown) can tell it.
    const t = await open('loading.html', 'playwright');
    try {
        assert.equal((await t.session.snapshot()).loadingState, undefined);
        await t.page.evaluate(() => document.querySelector('main').setAttribute('aria-busy', 'true'));
        assert.equal((await t.session.snapshot()).loadingState?.signal, 'aria_busy');
        await t.page.evaluate(() => document.querySelector('main').removeAttribute('aria-busy'));
        assert.equal((await t.session.snapshot()).loadingState, undefined);
        await t.page.evaluate(() => document.querySelector('h1').classList.add('skeleton'));
        const s = await t.session.snapshot();
        assert.equal(s.loadingState?.signal, 'skeleton');
        assert.match(s.loadingState.detail, /^h1/);
        // A style rule is no DOM mutation: the element is still a candidate, and no longer shown.
        await t.page.evaluate(() => document.styleSheets[0].insertRule('h1 { display: none }'));
        await t.page.evaluate(() => document.getElementById('orders').append(Object.assign(document.createElement('li'), { textContent: 'Order 9' })));
        const hidden = await t.session.snapshot();
        assert.match(hidden.text, /Order 9/);
        assert.equal(hidden.loadingState, undefined);
        await t.page.evaluate(() => document.querySelector('main').setAttribute('role', 'progressbar'));
        assert.equal((await t.session.snapshot()).loadingState?.signal, 'progress_indicator');
    } finally {
        await t.close();
    }
});

test('a repeat capture that reads what changed brings the loading signals with its reads: no look of its own after it', async () => {
    // `always`: loading.html is small, and a small page that changed is otherwise captured in full.
    const t = await open('loading.html', 'playwright', { incremental: 'always', cacheTtlMs: 0 });
    try {
        const looks = [];
        const evaluate = t.session._access.evaluate;
        t.session._access.evaluate = (args, ms) => {
            looks.push(args[0]);
            return evaluate(args, ms);
        };
        assert.equal((await t.session.snapshot()).loadingState, undefined);
        for (const [change, signal] of [
            [() => document.querySelector('main').setAttribute('aria-busy', 'true'), 'aria_busy'],
            [() => document.querySelector('main').removeAttribute('aria-busy'), undefined],
            [() => document.querySelector('h1').classList.add('skeleton'), 'skeleton'],
        ]) {
            await t.page.evaluate(change);
            looks.length = 0;
            const s = await t.session.snapshot();
            assert.equal(s.stats.captureMode, 'incremental');
            assert.ok(s.stats.subtreesReread > 0);
            assert.equal(s.loadingState?.signal, signal);
            assert.deepEqual(looks.map(l => Boolean(l.loading)), [false], 'only the look before the capture');
        }
    } finally {
        await t.close();
    }
});

test('a session makes our world once: its watcher and its captures share the one world cache, and a navigation makes it again', async () => {
    const page = await newTab(browser);
    await page.goto(pathToFileURL(join(pagesDir, 'loop', 'loading.html')).href, { waitUntil: 'load' });
    const real = await page.context().newCDPSession(page);
    const calls = [];
    const cdp = { send: (method, params) => { calls.push(method); return real.send(method, params); }, on: (...a) => real.on(...a), off: (...a) => real.off(...a) };
    const session = createPageSession({ cdp }, { cacheTtlMs: 0 });
    const made = () => calls.filter(m => m === 'Page.createIsolatedWorld').length;
    try {
        await session.snapshot();
        assert.equal(made(), 1, `the watcher's world is the capture's: ${calls.join(', ')}`);
        await page.evaluate(() => { document.querySelector('h1').textContent = 'Changed'; });
        await session.snapshot();
        assert.equal(made(), 1, 'kept while the document stays');
        // Another document: the world went with the old one; one is made for the new.
        await page.goto(pathToFileURL(join(pagesDir, 'loop', 'loading.html')).href, { waitUntil: 'load' });
        const after = await session.snapshot();
        assert.match(after.text, /heading/);
        assert.ok(made() >= 2, 'a new world for the new document');
        const before = made();
        await session.snapshot();
        assert.equal(made(), before, 'and that one is kept in turn');
    } finally {
        await session.close();
        await real.detach().catch(() => {});
        await page.close();
    }
});

test('an action waits for the requests it started before the fresh snapshot', async () => {
    const t = await open('loading.html', 'playwright', { settleMs: 3000 });
    let answeredAt = null;
    await t.page.route('http://orders.test/api', async route => {
        await sleep(400);
        await route.fulfill({ contentType: 'application/json', body: JSON.stringify(['Late order']) });
        answeredAt = Date.now();
    });
    try {
        const load = refOf(await t.session.snapshot(), /button "Load orders" \[ref=(@e\d+)/);
        const r = await t.session.act('click', { ref: load });
        assert.equal(r.settle.settled, true);
        // An order of events, not a duration: the answer came before the fresh snapshot was taken.
        assert.ok(answeredAt !== null && r.settle.waitedMs > 0, `waited ${r.settle.waitedMs} ms`);
        assert.ok(answeredAt <= r.snapshot.capturedAtMs, `answered at ${answeredAt}, captured at ${r.snapshot.capturedAtMs}`);
        assert.match(r.snapshot.text, /listitem: Late order/, 'the fresh snapshot shows what the request brought');
        assert.deepEqual(r.snapshot.delta.added, []);
        assert.equal(r.revision, 2);
    } finally {
        await t.close();
    }
});

test('sessions refuse what they cannot drive and bad options', async () => {
    assert.throws(() => createPageSession({}), err => err instanceof WebAiError && err.errorCode === 'snapshot.unavailable');
    assert.throws(() => createPageSession({ cdp: { send: async () => ({}) } }, { cacheTtlMs: -1 }), err => err.errorCode === 'snapshot.invalid-input');
    const s = createPageSession({ cdp: { send: async () => ({}) } });
    await s.close();
    await assert.rejects(s.snapshot(), err => err.errorCode === 'snapshot.invalid-input' && /closed/.test(err.message));
});

test('playwright: a look whose watcher does not answer in time is a full capture that says why', async () => {
    // snapshot timeoutMs 4000: the watcher is given 2000 ms; the page's main thread is busy for 3000.
    const { page, session, close } = await open('todo.html', 'playwright', { cacheTtlMs: 0, snapshotOptions: { timeoutMs: 4000 } });
    try {
        const first = await session.snapshot();
        assert.ok(!first.notes.some(n => /watcher did not answer/.test(n)), first.notes.join(' | '));
        await page.evaluate(() => { setTimeout(() => { const end = Date.now() + 3000; while (Date.now() < end) { /* busy */ } }, 0); });
        const busy = await session.snapshot();
        assert.equal(busy.stats.captureMode, 'full');
        assert.ok(busy.notes.includes("a full capture, not an incremental one: the page's watcher did not answer within 2000 ms"), busy.notes.join(' | '));
        const after = await session.snapshot();
        assert.ok(!after.notes.some(n => /watcher did not answer/.test(n)), 'the next look is answered as usual');
    } finally {
        await close();
    }
});
