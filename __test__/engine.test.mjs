// The DOM engine (`engine: 'dom'`) against Chrome's own tree, the oracle: on
// every fixture page and every real page, both engines are compared element
// by element through backendNodeId (role, name, states, value, level), and
// each disagreement is printed with its element.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { buildWebAiSnapshot, createBrowserTools, createPageSession, WebAiError } from '../lib/index.mjs';
import { compareEngines, defaultPages } from '../bench/agreement.mjs';
import { launchWithEndpoint, closeBrowser, FULL, halved, openFixture, root, sweep, newTab } from './helpers.mjs';

after(closeBrowser);

const show = r => r.disagreements.map(d => `${d.element} [${d.fields}] chrome=${JSON.stringify(d.chrome)} dom=${JSON.stringify(d.dom)}`).join('\n');

// One visit a fixture page: Chrome's tree is settled once (compareEngines),
// then both engines are asked again with the agent tools' options.
test('on every fixture page the DOM engine refs the same elements as Chrome, with the same role, name and states; with the agent tools\' options it gives the same elements, and the same text but where Chrome drops a space', async () => {
    const fixtures = defaultPages().filter(p => p.includes('/fixtures/pages/'));
    assert.ok(fixtures.length >= 14);
    const opts = { includeElements: true, maxElements: 100, maxTokens: 2000, untrustedContent: 'mark', viewportOnly: true };
    const norm = text => text.replace(/nonce=[0-9a-f]{16}/g, 'nonce=N');
    await sweep(fixtures, async (page, file) => {
        const r = await compareEngines(page);
        assert.equal(r.agreed, r.total, `${basename(file)}:\n${show(r)}`);
        const ax = await buildWebAiSnapshot(page, { ...opts, engine: 'ax' });
        const dom = await buildWebAiSnapshot(page, { ...opts, engine: 'dom' });
        assert.deepEqual(dom.elements, ax.elements, basename(file));
        if (basename(file) === 'clickable.html') {
            // `<span>Open</span> <span>details</span>` in a clickable tile: Chrome's text reads "Opendetails".
            assert.match(norm(ax.text), /: Opendetails/);
            assert.equal(norm(dom.text), norm(ax.text).replace(': Opendetails', ': Open details'));
        } else {
            assert.equal(norm(dom.text), norm(ax.text), basename(file));
        }
    });
});

test(`on ${FULL ? 'the' : 'every other of the'} real pages the DOM engine agrees with Chrome on at least 99% of ref'd elements`, async () => {
    const real = halved(defaultPages().filter(p => p.includes('/fixtures/real-pages/')));
    let agreed = 0;
    let total = 0;
    const report = [];
    await sweep(real, async (page, file) => {
        const r = await compareEngines(page);
        agreed += r.agreed;
        total += r.total;
        report.push(`${basename(file)} ${r.agreed}/${r.total}`);
        // Known: a <video>'s built-in controls live in a user-agent shadow root, which DOMSnapshot does not walk.
        assert.ok(r.rate >= 0.9, `${basename(file)}: ${r.agreed}/${r.total}\n${show(r)}`);
    });
    // 3,062 elements over every real page, 1,480 over every other one (Chromium 156).
    assert.ok(total > (FULL ? 2500 : 1200), `real pages compared ${total} elements`);
    assert.ok(agreed / total >= 0.99, `${agreed}/${total}: ${report.join(', ')}`);
});

test('engine: dom never asks for the accessibility tree, and sees inside closed shadow roots', async () => {
    const page = await openFixture('shadow.html');
    try {
        const cdp = await page.context().newCDPSession(page);
        const methods = [];
        const counting = { send: (method, params) => { methods.push(method); return cdp.send(method, params); } };
        const dom = await buildWebAiSnapshot({ cdp: counting }, { engine: 'dom', maxDepth: 30 });
        assert.ok(!methods.some(m => m.startsWith('Accessibility.')), methods.join(', '));
        assert.ok(methods.includes('DOMSnapshot.captureSnapshot'));
        const ax = await buildWebAiSnapshot({ cdp }, { maxDepth: 30 });
        assert.equal(dom.text, ax.text, 'the same text as Chrome\'s tree gives');
        assert.ok(Object.values(dom.refs).some(r => r.shadowClosed), 'a ref inside a closed shadow root');
    } finally {
        await page.close();
    }
});

test('engine: dom reads a cross-site frame in its own process, and works through sessions, tools, the native endpoint and the CLI', async () => {
    const serve = (body) => new Promise(resolve => {
        const server = http.createServer((_req, res) => { res.setHeader('content-type', 'text/html'); res.end(body()); });
        server.listen(0, '127.0.0.1', () => resolve(server));
    });
    const child = await serve(() => '<title>Card form</title><label>Card <input name=card></label><button>Pay now</button><iframe title="Inside" srcdoc="<button>Nested in cross-site</button>"></iframe>');
    const top = await serve(() => `<title>Shop</title><button>Top</button><iframe title="Payment" src="http://localhost:${child.address().port}/"></iframe><iframe title="Same site" srcdoc="<button>Same-site button</button>"></iframe><button>End</button>`);
    const { browser, endpoint } = await launchWithEndpoint();
    try {
        const page = await newTab(browser);
        await page.goto(`http://127.0.0.1:${top.address().port}/`, { waitUntil: 'load' });
        const opts = { maxDepth: 20 };
        const ax = await buildWebAiSnapshot(page, opts);
        const dom = await buildWebAiSnapshot(page, { ...opts, engine: 'dom' });
        const names = s => Object.values(s.refs).map(r => `${r.role} ${r.name} ${r.frameId === null ? '' : 'framed'}`);
        assert.deepEqual(names(dom), names(ax));
        assert.deepEqual(names(dom).length, 6);
        assert.equal(dom.text, ax.text);

        const cdp = await page.context().newCDPSession(page);
        const { targetInfo } = await cdp.send('Target.getTargetInfo');
        const native = await buildWebAiSnapshot({ cdpEndpoint: endpoint, targetId: targetInfo.targetId }, { ...opts, engine: 'dom' });
        assert.equal(native.text, ax.text, 'the native connection builds the same tree');

        const session = createPageSession(page, { engine: 'dom' });
        const first = await session.snapshot({ engine: 'dom', maxDepth: 20 });
        assert.deepEqual(Object.values(first.refs).map(r => r.name), Object.values(ax.refs).map(r => r.name));
        await session.close();

        const tools = createBrowserTools(page, { snapshotOptions: { engine: 'dom', viewportOnly: false } });
        const got = await tools.execute('get_snapshot');
        assert.equal(got.success, true, got.message);
        assert.match(got.snapshot.text, /button "Pay now" \[ref=@e\d+\]/);
        await page.close();
    } finally {
        await browser.close();
        top.close();
        child.close();
    }
    const cli = join(root, 'bin', 'web-ai-snapshot.mjs');
    const ok = spawnSync(process.execPath, [cli, 'snapshot', '--engine', 'dom', '--vendor', 'gemini'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(ok.status, 0, ok.stderr);
    const axCli = spawnSync(process.execPath, [cli, 'snapshot', '--vendor', 'gemini'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(ok.stdout, axCli.stdout, 'the bundled page prints the same under both engines');
    const bad = spawnSync(process.execPath, [cli, 'snapshot', '--engine', 'chrome'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--engine must be ax or dom/);
    await assert.rejects(buildWebAiSnapshot({ cdp: { send: async () => ({}) } }, { engine: 'chrome' }),
        err => err instanceof WebAiError && err.errorCode === 'snapshot.invalid-input' && /engine/.test(err.message));
});
