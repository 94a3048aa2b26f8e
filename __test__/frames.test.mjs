// Frames: same-process iframes nested three deep, stitched under their iframe
// lines, refs numbered on across frames, and frames that vanish mid-capture.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildWebAiSnapshot, locatorForRef, runAction, WebAiError } from '../lib/index.mjs';
import { closeBrowser, openFixture, newTab } from './helpers.mjs';

after(closeBrowser);

test('same-process frames, three deep, are stitched under their iframe with the frame boundary visible', async () => {
    const page = await openFixture('frames.html');
    try {
        const s = await buildWebAiSnapshot(page, { maxDepth: 20 });
        const lines = s.text.split('\n');
        const at = (needle) => lines.findIndex(l => l.includes(needle));
        assert.ok(at('iframe "Payment form"') < at('document "Card details"'));
        assert.ok(at('document "Card details"') < at('textbox "Card number"'));
        assert.ok(at('document "Level 2"') < at('link "Level two link"'));
        assert.ok(at('document "Level 3"') < at('button "Deepest button"'));
        const indent = l => lines[at(l)].match(/^ */)[0].length;
        assert.ok(indent('button "Deepest button"') > indent('link "Level two link"'));
        assert.deepEqual(Object.values(s.refs).map(r => r.name), ['Top button', 'Card number', 'Pay', 'Level two link', 'Deepest button', 'After frames']);
        assert.deepEqual(Object.keys(s.refs), ['@e1', '@e2', '@e3', '@e4', '@e5', '@e6']);
        const frameIds = Object.values(s.refs).map(r => r.frameId);
        assert.equal(frameIds[0], frameIds[5], 'top-level refs share the main frame');
        assert.equal(new Set(frameIds).size, 4, 'each frame level has its own frameId');
        assert.ok(frameIds.every(f => typeof f === 'string' && f.length > 0));
        const viaSession = await buildWebAiSnapshot({ cdp: await page.context().newCDPSession(page) }, { maxDepth: 20 });
        assert.equal(viaSession.text, s.text, 'the raw CDP path stitches the same way');
    } finally {
        await page.close();
    }
});

test('a frame removed mid-capture gives a note, not a failed snapshot', async () => {
    const page = await openFixture('frames.html');
    try {
        const session = await page.context().newCDPSession(page);
        const send = async (method, params) => {
            const result = await session.send(method, params);
            if (method === 'Page.getFrameTree') {
                await session.send('Runtime.evaluate', { expression: 'document.querySelector("iframe[title=\\"Payment form\\"]").remove()' });
            }
            return result;
        };
        // Chrome's tree, read frame by frame (the DOM engine reads same-process frames in the page's one DOM snapshot).
        const s = await buildWebAiSnapshot({ cdp: { send } }, { engine: 'ax' });
        assert.ok(s.text.includes('button "Top button"') && s.text.includes('button "After frames"'));
        assert.ok(!s.text.includes('Deepest button'));
        assert.ok(s.notes.some(n => /frame .* (could not be read|could not be placed|did not answer|has no accessible content)/.test(n)), s.notes.join(' | '));
    } finally {
        await page.close();
    }
});

test('a frame that never answers is a note once timeoutMs runs out; the page itself still has to answer', async () => {
    const page = await openFixture('frames.html');
    try {
        const session = await page.context().newCDPSession(page);
        const send = (method, params) => (params && params.frameId ? new Promise(() => {}) : session.send(method, params));
        const s = await buildWebAiSnapshot({ cdp: { send } }, { timeoutMs: 1500, engine: 'ax' });
        assert.ok(s.text.includes('button "Top button"'));
        assert.ok(s.notes.some(n => n.includes('could not be read') || n.includes('did not answer')), s.notes.join(' | '));
        const stuck = (method, params) => (method === 'Accessibility.getFullAXTree' && !params.frameId ? new Promise(() => {}) : session.send(method, params));
        await assert.rejects(buildWebAiSnapshot({ cdp: { send: stuck } }, { timeoutMs: 300, engine: 'ax' }), err => err instanceof WebAiError && err.errorCode === 'snapshot.timeout');
        // The DOM engine's tree is the page's DOM snapshot: stuck, it is the capture's timeout.
        const stuckSnapshot = (method, params) => (method === 'DOMSnapshot.captureSnapshot' ? new Promise(() => {}) : session.send(method, params));
        await assert.rejects(buildWebAiSnapshot({ cdp: { send: stuckSnapshot } }, { timeoutMs: 300 }),
            err => err instanceof WebAiError && err.errorCode === 'snapshot.timeout' && /DOMSnapshot\.captureSnapshot/.test(err.message));
    } finally {
        await page.close();
    }
});

import http from 'node:http';
import { browser as sharedBrowser } from './helpers.mjs';

function serve(host, body) {
    return new Promise((resolve, reject) => {
        const server = http.createServer((req, res) => {
            res.setHeader('content-type', 'text/html; charset=utf-8');
            res.end(body(req));
        });
        server.on('error', reject);
        server.listen(0, host, () => resolve(server));
    });
}

test('a cross-site (out-of-process) iframe is read through its own session; same-site and nested frames too', async () => {
    // Two hosts, so that Chromium isolates the child in its own process.
    const child = await serve('127.0.0.1', () => '<!doctype html><title>Card form</title><label>Card <input name=card></label><button>Pay now</button>'
        + '<iframe title="Inside payment" srcdoc="<button>Nested in cross-site</button>"></iframe>'
        // A shadow root in the other process: its DOMSnapshot cannot stand in for the tree there.
        + '<x-pay></x-pay><script>document.querySelector("x-pay").attachShadow({ mode: "open" }).innerHTML = "<button>Shadow pay</button>";</script>');
    const top = await serve('127.0.0.1', () => `<!doctype html><title>Shop</title><button>Top</button>`
        + `<iframe title="Payment" src="http://localhost:${child.address().port}/"></iframe>`
        + '<iframe title="Same site" srcdoc="<button>Same-site button</button>"></iframe><button>End</button>');
    const b = await sharedBrowser();
    const page = await newTab(b);
    try {
        await page.goto(`http://127.0.0.1:${top.address().port}/`, { waitUntil: 'load' });
        const session = await page.context().newCDPSession(page);
        const targets = await session.send('Target.getTargets');
        assert.ok(targets.targetInfos.some(t => t.type === 'iframe' && t.url.startsWith('http://localhost:')), 'the child really is out of process');
        const s = await buildWebAiSnapshot(page, { maxDepth: 20 });
        assert.deepEqual(Object.values(s.refs).map(r => r.name), ['Top', 'Card', 'Pay now', 'Nested in cross-site', 'Shadow pay', 'Same-site button', 'End']);
        assert.match(s.text, /iframe "Payment":\n\s+- document "Card form":/);
        assert.equal(new Set(Object.values(s.refs).map(r => r.frameId)).size, 4);
        assert.deepEqual(s.notes, []);
        // Again, in the world the first capture made: without the frame tree in
        // its first batch, the capture finds the cross-site frame by its owner element.
        const again = await buildWebAiSnapshot(page, { maxDepth: 20 });
        assert.deepEqual(Object.values(again.refs).map(r => r.name), Object.values(s.refs).map(r => r.name));
        assert.equal(again.text, s.text);
        // Refs in the cross-site frame resolve by locator and take actions like any other.
        const pay = Object.values(s.refs).find(r => r.name === 'Pay now');
        assert.deepEqual(pay.framePath, ['iframe[title="Payment"]']);
        assert.equal(await locatorForRef(page, pay).count(), 1);
        const shadowPay = Object.values(s.refs).find(r => r.name === 'Shadow pay');
        assert.deepEqual([shadowPay.framePath, shadowPay.shadowPath, shadowPay.selector], [['iframe[title="Payment"]'], ['x-pay'], 'button']);
        assert.equal(await locatorForRef(page, shadowPay).count(), 1);
        const card = Object.values(s.refs).find(r => r.name === 'Card');
        const filled = await runAction(page, s, 'fill', { ref: card.ref, value: '4242' });
        assert.equal(filled.success, true, filled.message);
        const childFrame = page.frames().find(f => f.url().startsWith('http://localhost:'));
        assert.equal(await childFrame.evaluate(() => document.querySelector('input').value), '4242');
        await childFrame.evaluate(() => { document.querySelector('button').onclick = () => { document.title = 'paid'; }; });
        const clicked = await runAction(page, s, 'click', { ref: pay.ref });
        assert.equal(clicked.success, true, clicked.message);
        assert.equal(await childFrame.evaluate(() => document.title), 'paid', 'the click landed on the button inside the cross-site frame');
        // A same-process frame nested inside the cross-site one: its process's session, offset by the cross-site frame.
        const nestedFrame = page.frames().find(f => f.parentFrame() === childFrame);
        await nestedFrame.evaluate(() => { document.querySelector('button').onclick = () => { document.title = 'nested'; }; });
        const nested = Object.values(s.refs).find(r => r.name === 'Nested in cross-site');
        const nestedClick = await runAction(page, s, 'click', { ref: nested.ref });
        assert.equal(nestedClick.success, true, nestedClick.message);
        assert.equal(await nestedFrame.evaluate(() => document.title), 'nested');
        // A bare CDP session cannot reach another process: a note, not a failure.
        const bare = await buildWebAiSnapshot({ cdp: session }, { maxDepth: 20 });
        assert.deepEqual(Object.values(bare.refs).map(r => r.name), ['Top', 'Same-site button', 'End']);
        assert.ok(bare.notes.some(n => n.includes('http://localhost:') && n.includes('out-of-process')), bare.notes.join(' | '));
    } finally {
        await page.close();
        top.close();
        child.close();
    }
});

test('shadow DOM content (open, closed, slotted, nested) appears where the page shows it', async () => {
    const page = await openFixture('shadow.html');
    try {
        const s = await buildWebAiSnapshot(page);
        assert.deepEqual(Object.values(s.refs).map(r => `${r.role}:${r.name}`),
            ['searchbox:Query', 'button:Search', 'button:Closed root button', 'link:Slotted link', 'button:Card action', 'button:Nested shadow button']);
        assert.match(s.text, /region "Card":\n\s+- text: Slotted title\n\s+- link "Slotted link"/);
    } finally {
        await page.close();
    }
});

test('viewportOnly places a cross-site frame at its iframe: below the fold it shows nothing, scrolled to it shows its own viewport', async () => {
    const child = await serve('127.0.0.1', () => '<!doctype html><body style="margin:0"><button>Child top</button><div style="height:800px"></div><button>Child deep</button></body>');
    const top = await serve('127.0.0.1', () => `<!doctype html><body style="margin:0"><button>Top</button><div style="height:1500px"></div>`
        + `<iframe title="Below" style="height:300px;width:400px" src="http://localhost:${child.address().port}/"></iframe><div style="height:1500px"></div></body>`);
    const b = await sharedBrowser();
    const page = await newTab(b, { viewport: { width: 800, height: 600 } });
    try {
        await page.goto(`http://127.0.0.1:${top.address().port}/`, { waitUntil: 'load' });
        const names = async () => Object.values((await buildWebAiSnapshot(page, { viewportOnly: true, maxDepth: 20 })).refs).map(r => r.name);
        assert.deepEqual(await names(), ['Top']);
        await page.evaluate(() => window.scrollTo(0, document.querySelector('iframe').offsetTop - 100));
        assert.deepEqual(await names(), ['Child top'], 'the frame shows its own top only');
        const childFrame = page.frames().find(f => f.url().startsWith('http://localhost:'));
        await childFrame.evaluate(() => window.scrollTo(0, 700));
        assert.deepEqual(await names(), ['Child deep'], 'scrolled inside the frame');
    } finally {
        await page.close();
        top.close();
        child.close();
    }
});
