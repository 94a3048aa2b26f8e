// Capture sources (SPEC §3) against live Chromium and recordings of it.
import { settle } from '../bench/agreement.mjs';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildWebAiSnapshot, buildWebAiSnapshotFromAxTree, domHashAround, WebAiError } from '../lib/index.mjs';
import { browser, closeBrowser, openFixture, recording, recordingNames, replaySession, pagesDir, root, sweep, newTab } from './helpers.mjs';

after(closeBrowser);

async function rejectsWith(promise, errorCode) {
    await assert.rejects(promise, err => {
        assert.ok(err instanceof WebAiError, `expected a WebAiError, got ${err && err.stack}`);
        assert.equal(err.errorCode, errorCode, err.message);
        return true;
    });
}

test('a current Playwright page (no page.accessibility) is captured through its CDP session', async () => {
    const page = await openFixture('chatgpt.html');
    try {
        assert.equal(page.accessibility, undefined, 'playwright-core 1.65 has no page.accessibility');
        const s = await buildWebAiSnapshot(page);
        assert.equal(s.text, recording('chatgpt').expected.text);
        assert.equal(s.title, 'ChatGPT');
        assert.equal(s.url, page.url());
        assert.ok(s.stats.captureMs > 0);
        assert.equal(s.domHash, await domHashAround(page, ['body'], { maxChars: 32768 }), 'domHash agrees with domHashAround');
    } finally {
        await page.close();
    }
});

test('every fixture captured live equals its recording', async () => {
    const recs = recordingNames().map(name => ({ name, ...recording(name) }));
    await sweep(recs.map(rec => join(pagesDir, rec.page)), async (page, _file, k) => {
        const rec = recs[k];
        // As recorded: once Chrome's own tree has settled (media controls join it late).
        await settle(page);
        const s = await buildWebAiSnapshot(page, rec.options);
        assert.equal(s.text, rec.expected.text, `${rec.name} differs from its recording (re-record with npm run record-fixtures?)`);
    });
});

test('any { cdp: { send } } session gives the same snapshot as the Playwright path', async () => {
    const page = await openFixture('widgets.html');
    try {
        const session = await page.context().newCDPSession(page);
        const viaSession = await buildWebAiSnapshot({ cdp: session });
        const viaPage = await buildWebAiSnapshot(page);
        assert.equal(viaSession.text, viaPage.text);
        assert.deepEqual(Object.values(viaSession.refs).map(r => r.backendNodeId), Object.values(viaPage.refs).map(r => r.backendNodeId));
        await session.detach();
    } finally {
        await page.close();
    }
});

test('recorded CDP replies replay to the recorded snapshot', async () => {
    for (const name of recordingNames()) {
        const rec = recording(name);
        const s = await buildWebAiSnapshot({ cdp: replaySession(rec) }, rec.options);
        assert.equal(s.text, rec.expected.text, name);
        assert.deepEqual(Object.values(s.refs).map(r => [r.ref, r.role, r.name, r.occurrenceIndex, r.backendNodeId,
            r.selector, r.framePath, r.shadowPath, r.shadowClosed, r.clickable]), rec.expected.refs, name);
        assert.deepEqual(s.notes, rec.expected.notes, name);
    }
});

test("a { cdp } session's events: a crash it reports fails the capture at once; an `on` that refuses them changes nothing", async () => {
    const rec = recording('forms-dom');
    // An `on` that throws (a wrapper that only forwards some events): the capture is the recorded one.
    const refusing = { ...replaySession(rec), on() { throw new Error('events are not forwarded'); } };
    assert.equal((await buildWebAiSnapshot({ cdp: refusing }, rec.options)).text, rec.expected.text);
    // A session whose renderer crashes while a reply is awaited: target.crashed, not the deadline.
    const listeners = new Map();
    const crashing = {
        on(event, fn) { listeners.set(event, fn); },
        send: () => new Promise(() => {}),
    };
    const capture = buildWebAiSnapshot({ cdp: crashing }, { ...rec.options, timeoutMs: 600000 }).then(() => null, e => e);
    await new Promise(r => setTimeout(r, 20));
    listeners.get('Inspector.targetCrashed')({});
    const err = await capture;
    assert.ok(err instanceof WebAiError, String(err));
    assert.equal(err.errorCode, 'target.crashed', err.message);
    // Until the renderer is reloaded, later calls fail at once too.
    const again = await buildWebAiSnapshot({ cdp: crashing }, { ...rec.options, timeoutMs: 600000 }).then(() => null, e => e);
    assert.equal(again && again.errorCode, 'target.crashed');
});

test('a capture that ends early leaves nothing behind: the script that awaited it exits without waiting for the deadline', () => {
    // The first command fails as a closed target does; the others are never answered.
    const script = `
        const { buildWebAiSnapshot } = require(${JSON.stringify(join(root, 'lib', 'index.cjs'))});
        let n = 0;
        const cdp = { send: () => (n++ === 0 ? Promise.reject(new Error('Target closed')) : new Promise(() => {})) };
        buildWebAiSnapshot({ cdp }, { timeoutMs: 3600000 }).catch(e => console.log(e.errorCode));
    `;
    // An hour's deadline: a process still alive at the spawn's limit was held by it.
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60000 });
    assert.equal(r.signal, null, 'the process had to be killed: something still waited for the deadline');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'target.detached');
});

test('rootSelector keeps the whole subtree of the first match, at any depth', async () => {
    const page = await openFixture('widgets.html');
    try {
        const s = await buildWebAiSnapshot(page, { rootSelector: 'main [role=grid]' });
        assert.equal(s.text.split('\n')[0], '- document "Widgets":');
        assert.ok(s.text.includes('grid "Seats"'));
        assert.ok(!s.text.includes('Settings') && !s.text.includes('tab "General"'));
        assert.deepEqual(Object.values(s.refs).map(r => r.name), ['A1 A2', 'A1', 'A2', 'B1 B2', 'B1', 'B2']);
        const whole = await buildWebAiSnapshot(page, { rootSelector: 'li[role=option]' });
        assert.deepEqual(Object.values(whole.refs).map(r => r.name), ['Light'], 'first match only');
    } finally {
        await page.close();
    }
});

test('rootSelector that matches nothing is snapshot.root-not-found; a bad selector is invalid-input', async () => {
    const page = await openFixture('forms.html');
    try {
        await rejectsWith(buildWebAiSnapshot(page, { rootSelector: '#does-not-exist' }), 'snapshot.root-not-found');
        await buildWebAiSnapshot(page, { rootSelector: '#does-not-exist' }).catch(err => {
            assert.equal(err.stage, 'snapshot-capture');
            assert.equal(err.retryHint, 'fix-root-selector');
            assert.deepEqual(err.evidence, { rootSelector: '#does-not-exist' });
        });
        await rejectsWith(buildWebAiSnapshot(page, { rootSelector: 'div[[' }), 'snapshot.invalid-input');
    } finally {
        await page.close();
    }
});

test('a blank page gives a minimal document and a note', async () => {
    const page = await openFixture('blank.html');
    try {
        const s = await buildWebAiSnapshot(page);
        assert.equal(s.text, '- document');
        assert.deepEqual(s.notes, ['the page has no accessible content']);
    } finally {
        await page.close();
    }
});

test('every browser call has a deadline: a silent session is snapshot.timeout', async () => {
    const silent = { cdp: { send: () => new Promise(() => {}) } };
    const started = Date.now();
    await rejectsWith(buildWebAiSnapshot(silent, { timeoutMs: 150 }), 'snapshot.timeout');
    assert.ok(Date.now() - started < 2000, 'the deadline was kept');
    await buildWebAiSnapshot(silent, { timeoutMs: 100 }).catch(err => {
        assert.equal(err.retryHint, 'retry');
        assert.equal(err.evidence.timeoutMs, 100);
    });
});

test('a renderer busy past timeoutMs gives snapshot.timeout, and the next capture works', async () => {
    const page = await openFixture('forms.html');
    try {
        await page.evaluate(() => setTimeout(() => { const t = Date.now(); while (Date.now() - t < 1500); }, 0));
        await new Promise(r => setTimeout(r, 50));
        await rejectsWith(buildWebAiSnapshot(page, { timeoutMs: 300 }), 'snapshot.timeout');
        await new Promise(r => setTimeout(r, 1600));
        const s = await buildWebAiSnapshot(page);
        assert.ok(s.text.includes('Checkout'));
    } finally {
        await page.close();
    }
});

test('a closed tab is target.detached, with the session\'s own words in evidence', async () => {
    const page = await openFixture('forms.html');
    const session = await page.context().newCDPSession(page);
    await page.close();
    await rejectsWith(buildWebAiSnapshot({ cdp: session }), 'target.detached');
    await buildWebAiSnapshot({ cdp: session }).catch(err => {
        assert.deepEqual([err.stage, err.retryHint], ['page-target', 'tab-switch']);
        assert.match(err.evidence.message, /closed/);
    });
    await rejectsWith(buildWebAiSnapshot(page), 'snapshot.unavailable');
});

test('without any way to read the tree it is snapshot.unavailable', async () => {
    for (const p of [null, undefined, {}, { cdp: {} }, { accessibility: {} }, { cdpEndpoint: 42 }]) {
        await rejectsWith(buildWebAiSnapshot(p), 'snapshot.unavailable');
    }
    // A Playwright-like page without CDP (Firefox, WebKit).
    const noCdp = { context: () => ({ newCDPSession: async () => { throw new Error('CDP session is only available in Chromium'); } }), url: () => 'about:blank' };
    await rejectsWith(buildWebAiSnapshot(noCdp), 'snapshot.unavailable');
});

test('a legacy accessibility.snapshot() page is serialized by the same rules', async () => {
    const seen = [];
    const tree = { role: 'WebArea', name: 'Old', children: [{ role: 'button', name: 'Go', focused: true }, { role: 'text', name: 'hello' }] };
    const legacy = {
        accessibility: { snapshot: async opts => { seen.push(opts); return tree; } },
        url: () => 'https://old.example/',
        title: async () => 'Old title',
        evaluate: async () => '<body><button class="x">Go</button></body>',
    };
    const s = await buildWebAiSnapshot(legacy, { interactiveOnly: false });
    assert.equal(s.text, '- document "Old title":\n  - button "Go" [ref=@e1]\n  - text: hello');
    assert.deepEqual(seen, [{ interestingOnly: false }]);
    assert.equal(s.url, 'https://old.example/');
    assert.match(s.domHash, /^sha256:[0-9a-f]{16}$/);
    // rootSelector goes through the page's locator; no match is root-not-found.
    legacy.locator = sel => ({ elementHandle: async () => (sel === '#here' ? { dispose: async () => {} } : null) });
    await buildWebAiSnapshot(legacy, { rootSelector: '#here' });
    assert.ok(seen.at(-1).root, 'the root element handle was passed');
    await rejectsWith(buildWebAiSnapshot(legacy, { rootSelector: '#gone' }), 'snapshot.root-not-found');
    // A legacy page that returns null is a blank document, not an error.
    const blank = await buildWebAiSnapshot({ accessibility: { snapshot: async () => null } });
    assert.equal(blank.text, '- document');
    // A legacy snapshot that throws is capture-failed; one that hangs is a timeout.
    await rejectsWith(buildWebAiSnapshot({ accessibility: { snapshot: async () => { throw new Error('boom'); } } }), 'snapshot.capture-failed');
    await rejectsWith(buildWebAiSnapshot({ accessibility: { snapshot: () => new Promise(() => {}) } }, { timeoutMs: 100 }), 'snapshot.timeout');
});

test('malformed options are snapshot.invalid-input naming the option', async () => {
    const page = { cdp: { send: async () => ({}) } };
    for (const [options, what] of [
        [{ maxDepth: -1 }, 'options.maxDepth'],
        [{ maxDepth: 'deep' }, 'options.maxDepth'],
        [{ compact: 1 }, 'options.compact'],
        [{ timeoutMs: Infinity }, 'options.timeoutMs'],
        [{ refPrefix: 'a b' }, 'options.refPrefix'],
        [{ maxNameChars: 0 }, 'options.maxNameChars'],
    ]) {
        await assert.rejects(buildWebAiSnapshot(page, options), err => err.errorCode === 'snapshot.invalid-input' && err.evidence.what === what);
        assert.throws(() => buildWebAiSnapshotFromAxTree(null, options), err => err.errorCode === 'snapshot.invalid-input');
    }
    await rejectsWith(buildWebAiSnapshot(page, 'fast'), 'snapshot.invalid-input');
    assert.throws(() => buildWebAiSnapshotFromAxTree({ nodes: [] }, { rootSelector: 'main' }), err => err.errorCode === 'snapshot.invalid-input');
});

test('the Playwright session is reused across snapshots of a page', async () => {
    const page = await openFixture('grok.html');
    try {
        const ctx = page.context();
        const original = ctx.newCDPSession.bind(ctx);
        let opened = 0;
        ctx.newCDPSession = async p => { opened += 1; return original(p); };
        await buildWebAiSnapshot(page);
        await buildWebAiSnapshot(page);
        assert.ok(opened <= 1, `opened ${opened} sessions`);
        ctx.newCDPSession = original;
    } finally {
        await page.close();
    }
});

test('fixtures are real pages in this repository', () => {
    assert.ok(join(pagesDir, 'chatgpt.html').endsWith('fixtures/pages/chatgpt.html'));
});

test('a repeat capture of the same document reuses its isolated world; a new document gets a new one', async () => {
    const page = await openFixture('chatgpt.html');
    try {
        const cdp = await page.context().newCDPSession(page);
        const methods = [];
        const evaluated = [];
        const source = {
            cdp: {
                send: (method, params) => {
                    methods.push(method);
                    if (method === 'Runtime.evaluate') evaluated.push(params);
                    return cdp.send(method, params);
                },
            },
        };
        const first = await buildWebAiSnapshot(source, { rootSelector: 'main' });
        assert.equal(methods.filter(m => m === 'Page.createIsolatedWorld').length, 1);
        methods.length = 0;
        const again = await buildWebAiSnapshot(source, { rootSelector: 'main' });
        assert.deepEqual(methods.filter(m => m === 'Page.createIsolatedWorld'), [], 'the world of the first capture answered');
        assert.equal(again.text, first.text);
        assert.equal(again.domHash, first.domHash);
        assert.deepEqual(again.notes, []);
        // The same page through Playwright keeps its own world too, and a navigation makes a new one.
        await buildWebAiSnapshot(page);
        await page.goto(`file://${join(pagesDir, 'gemini.html')}`);
        methods.length = 0;
        evaluated.length = 0;
        const moved = await buildWebAiSnapshot(source);
        assert.equal(methods.filter(m => m === 'Page.createIsolatedWorld').length, 1, 'another document: a new world');
        // In a new world the page facts' script is sent whole, and keeps its function there.
        assert.ok(evaluated.some(p => p.expression.startsWith('(globalThis.__webAiSnapshotFactsFn = (')), evaluated.map(p => p.expression.slice(0, 60)).join('\n'));
        assert.equal(moved.title, 'Gemini');
        assert.match(moved.url, /gemini\.html$/);
        assert.deepEqual(moved.notes, []);
        // The same document again: its page facts name it, and it shows no frame of another
        // process, so the DOM snapshot and the page facts are all the capture sends.
        methods.length = 0;
        evaluated.length = 0;
        const lean = await buildWebAiSnapshot(source);
        assert.deepEqual(methods.sort(), ['DOMSnapshot.captureSnapshot', 'Runtime.evaluate']);
        assert.equal(lean.text, moved.text);
        assert.equal(lean.domHash, moved.domHash);
        // ...where the facts named the document already, they are called by name.
        assert.equal(evaluated.length, 1);
        assert.match(evaluated[0].expression, /^globalThis\.__webAiSnapshotFactsFn\(\["body"\], /);
        assert.ok(evaluated[0].expression.length < 200, evaluated[0].expression);
        assert.deepEqual([lean.url, lean.title, lean.notes], [moved.url, moved.title, []]);
        // A world whose function went (nothing of the page can reach it; here CDP takes it) is made again.
        await cdp.send('Runtime.evaluate', { expression: 'delete globalThis.__webAiSnapshotFactsFn', contextId: evaluated[0].contextId });
        methods.length = 0;
        const remade = await buildWebAiSnapshot(source);
        assert.equal(methods.filter(m => m === 'Page.createIsolatedWorld').length, 1, 'the function was gone: a new world');
        assert.deepEqual([remade.text, remade.domHash, remade.title, remade.notes], [moved.text, moved.domHash, moved.title, []]);
        // A world the page destroyed with its document (a reload keeps the frame and changes the loader).
        await page.reload();
        methods.length = 0;
        const reloaded = await buildWebAiSnapshot(source);
        assert.equal(methods.filter(m => m === 'Page.createIsolatedWorld').length, 1);
        assert.equal(reloaded.text, moved.text);
    } finally {
        await page.close();
    }
});

test('inline scripts\' and styles\' text does not travel to the addon; every other string does', async () => {
    const { createRequire } = await import('node:module');
    const { blankText } = createRequire(import.meta.url)('../lib/transport.cjs');
    const long = c => c.repeat(300);
    // #document > SCRIPT > text(long a); DIV[title=long b] > text(long b); STYLE > text(long b); SCRIPT > text("x=1")
    const strings = ['#document', 'SCRIPT', long('a'), 'DIV', 'title', long('b'), 'STYLE', '#text', 'x=1'];
    const result = { strings, documents: [{ documentURL: 0, nodes: {
        parentIndex: [-1, 0, 1, 0, 3, 0, 5, 0, 7],
        nodeType: [9, 1, 3, 1, 3, 1, 3, 1, 3],
        nodeName: [0, 1, 7, 3, 7, 6, 7, 1, 7],
        nodeValue: [-1, -1, 2, -1, 5, -1, 5, -1, 8],
        attributes: [[], [], [], [4, 5], [], [], [], [], []],
    }, layout: { nodeIndex: [], styles: [] } }] };
    const out = blankText(result, { under: ['SCRIPT', 'STYLE'], minChars: 256 });
    assert.equal(out[2], '', 'a long script text only a script uses');
    assert.equal(out[5], long('b'), 'a style text that an attribute also uses is kept');
    assert.equal(out[8], 'x=1', 'short texts are kept');
    assert.equal(strings[2], long('a'), 'the reply itself is not changed');
    assert.equal(blankText({ strings: 3 }, { under: [], minChars: 1 }), 3);

    // Live: a page whose inline script and style dwarf it, and a long text that is content.
    const page = await newTab(await browser());
    try {
        const content = 'Readable paragraph. '.repeat(40).trim();
        await page.setContent(`<style>${'.c{color:red}'.repeat(20000)}</style><script>${'var x=1;'.repeat(40000)}</script>
            <main><p>${content}</p><textarea aria-label="Notes">${'note '.repeat(100).trim()}</textarea><button>Send</button></main>`);
        const s = await buildWebAiSnapshot(page, { interactiveOnly: false, maxNameChars: 100000 });
        assert.ok(s.text.includes(content), s.text.slice(0, 300));
        assert.match(s.text, /textbox "Notes" \[ref=@e1 value="note note/);
        assert.match(s.text, /button "Send"/);
        assert.ok(!s.text.includes('var x=1'));
    } finally {
        await page.close();
    }
});

test('a browser that takes no DOM snapshot gets Chrome\'s tree and a note, unless the engine was chosen', async () => {
    const page = await openFixture('forms.html');
    try {
        const session = await page.context().newCDPSession(page);
        const send = (method, params) => method === 'DOMSnapshot.captureSnapshot'
            ? Promise.reject(new Error("'DOMSnapshot.captureSnapshot' wasn't found"))
            : session.send(method, params);
        const s = await buildWebAiSnapshot({ cdp: { send } });
        const ax = await buildWebAiSnapshot({ cdp: { send } }, { engine: 'ax' });
        assert.equal(s.text, ax.text);
        assert.ok(s.notes.some(n => /so this snapshot is Chrome's accessibility tree \(engine 'ax'\)/.test(n)), s.notes.join(' | '));
        await rejectsWith(buildWebAiSnapshot({ cdp: { send } }, { engine: 'dom' }), 'snapshot.capture-failed');
        await session.detach();
    } finally {
        await page.close();
    }
});

test('a page with shadow roots: each host outside them described, not the whole document; the document when a host cannot be read or hosts are many', async () => {
    const page = await openFixture('shadow.html');
    try {
        const session = await page.context().newCDPSession(page);
        const sent = [];
        const logged = refuse => (method, params) => {
            sent.push(method);
            return refuse && method === 'DOM.describeNode' ? Promise.reject(new Error('No node with given id found')) : session.send(method, params);
        };
        const rec = recording('shadow-dom');
        const described = await buildWebAiSnapshot({ cdp: { send: logged(false) } }, rec.options);
        assert.equal(described.text, rec.expected.text);
        assert.ok(sent.includes('DOM.describeNode') && !sent.includes('DOM.getDocument'), sent.join(' '));
        // A host that cannot be described: the whole document is asked for, and the snapshot is the same.
        sent.length = 0;
        const whole = await buildWebAiSnapshot({ cdp: { send: logged(true) } }, rec.options);
        assert.equal(whole.text, rec.expected.text);
        assert.deepEqual(Object.values(whole.refs).map(r => [r.selector, r.shadowPath]), Object.values(described.refs).map(r => [r.selector, r.shadowPath]));
        assert.ok(sent.includes('DOM.getDocument'), sent.join(' '));
        // Past 200 hosts outside any shadow tree, one call for the document costs less than one a host.
        await page.setContent(`<main>${Array.from({ length: 210 }, (_, k) => `<x-tag><template shadowrootmode="open"><button>Tag ${k}</button></template></x-tag>`).join('')}</main>`);
        sent.length = 0;
        const many = await buildWebAiSnapshot({ cdp: { send: logged(false) } }, { engine: 'dom' });
        assert.match(many.text, /button "Tag 209"/);
        assert.equal(Object.values(many.refs).find(r => r.name === 'Tag 209').shadowPath.length, 1);
        assert.ok(sent.includes('DOM.getDocument') && !sent.includes('DOM.describeNode'), sent.join(' '));
        await session.detach();
    } finally {
        await page.close();
    }
});

test('a page that navigates while its media controls are asked for keeps its tab', async () => {
    // Chromium 156's renderer crashes when `Accessibility.queryAXTree` is asked by the backend
    // id of a node of the document before a navigation. The capture asks for a media element's
    // controls after the DOM snapshot it found the element in; here the page reloads in between,
    // before the first call about such an element goes out.
    const page = await openFixture('media.html');
    try {
        await settle(page);
        const cdp = await page.context().newCDPSession(page);
        let reloaded = false;
        const methods = [];
        const send = async (method, params) => {
            methods.push(method);
            const aboutOne = method === 'Accessibility.queryAXTree' || (method === 'DOM.resolveNode' && params && params.backendNodeId !== undefined);
            if (aboutOne && !reloaded) {
                reloaded = true;
                await page.reload({ waitUntil: 'load' });
            }
            return cdp.send(method, params);
        };
        const s = await buildWebAiSnapshot({ cdp: { send, on: (...a) => cdp.on(...a), off: (...a) => cdp.off(...a) } }, { engine: 'dom' });
        assert.ok(reloaded, `the capture asked about no media element: ${methods.join(', ')}`);
        assert.ok(s.notes.some(n => /element\(s\) Chrome draws itself \(media controls; date, time and file fields\) were not read/.test(n)), s.notes.join('\n'));
        // The tab lives: it answers, and the next capture reads the controls of the page as it is now.
        assert.equal(await page.evaluate(() => 1 + 1), 2);
        await settle(page);
        const again = await buildWebAiSnapshot(page, { engine: 'dom' });
        assert.equal(again.text, recording('media-dom').expected.text);
        await cdp.detach();
    } finally {
        await page.close();
    }
});
