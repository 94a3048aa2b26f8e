// The DOM engine's two ways to read a page (`domRead`): one DOMSnapshot, or
// DOM.getDocument and a walk in our world that never carries inline script
// or style text. They must give the same snapshot on every page, and 'auto'
// must walk where DOMSnapshot would carry megabytes of inline state.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildWebAiSnapshot, createPageSession, domHashAround } from '../lib/index.mjs';
import { defaultPages } from '../bench/agreement.mjs';
import { generateAppPage, generatePage } from '../bench/generate.mjs';
import { browser, closeBrowser, launchWithEndpoint, newTab, openFile, sized, sweep } from './helpers.mjs';

after(closeBrowser);

const FELL_BACK = /read with a DOM snapshot, not a walk: (.*)/;

/** A generated app page with `stateBytes` of inline JSON state, in a folder of its own. */
function appFile(stateBytes) {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-walk-'));
    const file = join(dir, 'app.html');
    writeFileSync(file, generateAppPage(stateBytes));
    return { dir, file };
}

test('a walk reads every fixture and real page as its DOM snapshot does, or says why it could not', async () => {
    // In development the fixture pages and three real ones (frames, a long page, one the walk leaves); CI reads them all.
    const pages = sized(defaultPages(), defaultPages().filter(p => p.includes('/fixtures/pages/') || /nytimes-1|wikipedia|yahoo-2/.test(p)));
    assert.ok(pages.length >= 20);
    let walked = 0;
    const why = new Map();
    await sweep(pages, async (page, file) => {
        // (The full text shows every node the walk read; CI also compares the default, agent-sized text.)
        for (const opts of sized([{}, { interactiveOnly: false, compact: false, urls: true }], [{ interactiveOnly: false, compact: false, urls: true }])) {
            // A page whose own scripts still change it (a video getting ready) is asked again, up to three times.
            let a;
            let b;
            for (let attempt = 0; attempt < 3 && (!a || a.text !== b.text); attempt += 1) {
                a = await buildWebAiSnapshot(page, { ...opts, domRead: 'snapshot' });
                b = await buildWebAiSnapshot(page, { ...opts, domRead: 'walk' });
            }
            const fell = b.notes.map(n => n.match(FELL_BACK)).find(Boolean);
            if (fell) why.set(basename(file), fell[1]);
            else walked += 1;
            assert.equal(b.text, a.text, `${basename(file)} ${JSON.stringify(opts)}`);
            assert.deepEqual(Object.keys(b.refs), Object.keys(a.refs), basename(file));
            assert.deepEqual(
                Object.values(b.refs).map(r => r.selector),
                Object.values(a.refs).map(r => r.selector),
                `${basename(file)}: the DOM pass reads the walk as it reads the snapshot`,
            );
            assert.deepEqual(b.notes.filter(n => !FELL_BACK.test(n)), a.notes, basename(file));
        }
        // The DOM hash (page_facts.js leaves long inline text without markup out of what it normalises), cut short.
        for (const maxChars of sized([300, 32768], [300])) {
            const s = await buildWebAiSnapshot(page, { domHashMaxChars: maxChars });
            assert.equal(s.domHash, await domHashAround(page, ['body'], { maxChars }), `${basename(file)}: the DOM hash cut at ${maxChars}`);
        }
    });
    // Shadow roots and frames of another origin in the page's process are read by the snapshot.
    for (const [file, reason] of why) assert.match(reason, /shadow root|another origin/, file);
    assert.ok(walked >= pages.length * 0.75, `walked ${walked} reads of ${pages.length} pages; fell back: ${JSON.stringify([...why])}`);
});

test('long script and style texts with markup in them hash as the whole outerHTML does, and again after their text or tags change', async () => {
    // Random texts of markup-like pieces (a tag left open runs into the closing tag; comment
    // marks; a closing tag's start), set as script and style text in the body: page_facts.js
    // writes them as they are, and its writing must normalise as the whole outerHTML does.
    const PIECES = ['<', '>', '<a b', '<b>', '</a>', ' ', '\n\t', 'x=1;', 'if (a<b) ', '<!--', '-->', '<div class="q">', '</script', '"', '<p\u00a0id=1>', 'é'];
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-walk-'));
    const file = join(dir, 'raw.html');
    writeFileSync(file, '<!doctype html><title>Raw</title><main><p>Before</p><section id="s"></section><p>After</p></main>');
    const page = await openFile(await browser(), file);
    try {
        let seed = 11;
        const next = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed; };
        const UNCOMMENTED = PIECES.filter(p => p !== '<!--' && p !== '-->');
        const text = pieces => {
            let t = '';
            while (t.length < 3000) t += pieces[next() % pieces.length];
            return t;
        };
        for (let round = 0; round < 12; round += 1) {
            // Three of four without comment marks. One ends with a tag left open, which
            // normalising closes with the element's closing tag.
            const texts = Array.from({ length: 4 }, (_, k) => text(k === 3 ? PIECES : UNCOMMENTED) + (k === 1 ? '<a b' : ''));
            // A third of the rounds change the elements' tags and keep their texts; a third
            // write new texts into the same elements.
            await page.evaluate(([texts, round]) => {
                const s = document.getElementById('s');
                const els = [...s.querySelectorAll('script, style')];
                if (round % 3 === 2 && els.length) {
                    for (const el of els) el.setAttribute('data-round', String(round));
                    return;
                }
                if (round % 3 === 1 && els.length) {
                    els.forEach((el, k) => { el.textContent = texts[k]; });
                    return;
                }
                s.textContent = '';
                texts.forEach((t, k) => {
                    const el = document.createElement(k % 2 ? 'style' : 'script');
                    if (k % 2 === 0) el.type = 'text/x-template';
                    el.textContent = t;
                    s.append(el, document.createElement('br'));
                });
            }, [texts, round]);
            for (const maxChars of [300, 32768]) {
                const s = await buildWebAiSnapshot(page, { domHashMaxChars: maxChars });
                assert.equal(s.domHash, await domHashAround(page, ['body'], { maxChars }), `round ${round}, the DOM hash cut at ${maxChars}`);
            }
        }
    } finally {
        await page.close();
        rmSync(dir, { recursive: true, force: true });
    }
});

test('generated boxes (list markers, ::before and ::after content, in a frame too) read by a walk as by the DOM snapshot; none where there is no layout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-walk-'));
    const file = join(dir, 'boxes.html');
    writeFileSync(file, `<!doctype html><title>Boxes</title><style>
        .new::before { content: "New: "; } .price::after { content: " USD"; } button.icon::before { content: "★ "; }
        .gone { display: none; } .gone::before { content: "Hidden"; }
        .locked { content-visibility: hidden; } .locked p::before { content: "Locked "; }
    </style>
    <ul><li>First</li><li class="new">Second</li></ul><p class="price">12</p>
    <div class="gone"><span>x</span></div><div class="locked"><p>inside</p></div>
    <button class="icon">Save</button>
    <iframe title="inner" srcdoc="<style>p::before { content: 'Framed '; }</style><p>text</p><ol><li>one</li></ol>"></iframe>`);
    const page = await openFile(await browser(), file);
    try {
        await page.waitForFunction(() => document.querySelector('iframe').contentDocument?.readyState === 'complete');
        const opts = { interactiveOnly: false, compact: false };
        const read = await buildWebAiSnapshot(page, { ...opts, domRead: 'snapshot' });
        const walked = await buildWebAiSnapshot(page, { ...opts, domRead: 'walk' });
        assert.ok(!walked.notes.some(n => FELL_BACK.test(n)), walked.notes.join(' | '));
        for (const t of ['text: New:', 'text: USD', 'button "★ Save"', 'text: Framed']) assert.ok(walked.text.includes(t), `${t} in:\n${walked.text}`);
        assert.ok(!/Hidden|Locked/.test(walked.text), walked.text);
        assert.equal(walked.text, read.text);
        // A later snapshot is as the first: asking for a box where there is no layout would make one.
        assert.equal((await buildWebAiSnapshot(page, { ...opts, domRead: 'snapshot' })).text, read.text);
    } finally {
        await page.close();
        rmSync(dir, { recursive: true, force: true });
    }
});

test("'auto' walks a page heavy with inline state from its second look, sending no DOM snapshot, and the text is the same", async () => {
    const { dir, file } = appFile(400_000);
    const page = await openFile(await browser(), file);
    try {
        const cdp = await page.context().newCDPSession(page);
        const sent = [];
        // The walk's script: its expression, as each walk sent it.
        const walks = [];
        const source = {
            cdp: {
                send: (method, params) => {
                    sent.push(method);
                    if (method === 'Runtime.evaluate' && /\.call\(document, /.test(params.expression)) walks.push(params.expression);
                    return cdp.send(method, params);
                },
            },
        };
        const first = await buildWebAiSnapshot(source, {});
        assert.ok(sent.includes('DOMSnapshot.captureSnapshot'), 'the first look knows nothing of the page yet');
        sent.length = 0;
        const second = await buildWebAiSnapshot(source, {});
        assert.ok(!sent.includes('DOMSnapshot.captureSnapshot') && sent.includes('DOM.getDocument'), sent.join(', '));
        assert.equal(second.text, first.text);
        assert.match(second.text, /button "Save 29"/);
        // The walk's script is sent whole once, kept in our world, and called by name after.
        const third = await buildWebAiSnapshot(source, {});
        assert.equal(third.text, first.text);
        assert.equal(walks.length, 2, walks.map(w => w.slice(0, 60)).join(' | '));
        assert.ok(walks[0].length > 10000 && walks[1].length < 200, walks.map(w => w.length).join(', '));
        // A capture of Chrome's tree in between leaves the choice as it was.
        await buildWebAiSnapshot(source, { engine: 'ax' });
        sent.length = 0;
        await buildWebAiSnapshot(source, {});
        assert.ok(!sent.includes('DOMSnapshot.captureSnapshot'), sent.join(', '));
        // Layout boxes come only with a DOM snapshot.
        sent.length = 0;
        await buildWebAiSnapshot(source, { viewportOnly: true });
        assert.ok(sent.includes('DOMSnapshot.captureSnapshot'));
        // Another document, a small one: snapshotted.
        writeFileSync(join(dir, 'small.html'), '<main><h1>Small</h1><script>var x = 1;</script><button>Go</button></main>');
        await page.goto(pathToFileURL(join(dir, 'small.html')).href);
        await buildWebAiSnapshot(source, {});
        sent.length = 0;
        await buildWebAiSnapshot(source, {});
        assert.ok(sent.includes('DOMSnapshot.captureSnapshot'), sent.join(', '));
        await cdp.detach();
    } finally {
        await page.close();
        rmSync(dir, { recursive: true, force: true });
    }
});

test('a page session that walked its first look reads changes incrementally and sees what a full-capture twin sees', async () => {
    const { dir, file } = appFile(200_000);
    const page = await openFile(await browser(), file);
    const walked = createPageSession(page, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: { domRead: 'walk' } });
    const twin = createPageSession(page, { cacheTtlMs: 0, incremental: false, snapshotOptions: { domRead: 'snapshot' } });
    try {
        const a0 = await walked.snapshot();
        assert.ok(!a0.notes.some(n => FELL_BACK.test(n)), a0.notes.join('\n'));
        await twin.snapshot();
        const changes = [
            () => document.querySelector('ul').insertAdjacentHTML('beforeend', '<li><a href="#new">New item</a> <button>Save new</button></li>'),
            () => document.querySelector('ul li').remove(),
            () => { document.querySelector('h1').textContent = 'Changed dashboard'; },
            () => { document.querySelector('nav').hidden = true; },
        ];
        for (const change of changes) {
            await page.evaluate(change);
            const a = await walked.snapshot();
            const b = await twin.snapshot();
            assert.equal(a.stats.captureMode, 'incremental', String(change));
            assert.equal(a.text, b.text, String(change));
        }
    } finally {
        await walked.close();
        await twin.close();
        await page.close();
        rmSync(dir, { recursive: true, force: true });
    }
});

test('the DOM hash leaves long inline text without markup out of its reading, normalises a large page a chunk at a time, and is still the hash of the whole outerHTML', async () => {
    const quiet = JSON.stringify({ items: Array.from({ length: 400 }, (_, i) => ({ id: i, title: `Item ${i} & more`, tags: ['a', 'b'] })) });
    const css = Array.from({ length: 300 }, (_, i) => `.c${i} > p { margin: ${i}px; }`).join('\n');
    const variants = {
        plain: `<main><h1>A</h1><script type="application/json">${quiet}</script><style>${css}</style><p>x</p></main>`,
        // Markup the normalising could begin or end inside: such a text is read whole.
        markup: `<main><script>var s = "${'<b>'.repeat(900)}";</script><!-- open <script>${'x'.repeat(3000)}--></script>--><script type="application/json">${quiet}</script></main>`,
        // A page whose normalised text runs far past every cut.
        long: generatePage(3000).replace(/^[\s\S]*?<body>|<\/body>[\s\S]*$/g, ''),
        // Elements above the left-out text, written out by the page facts as outerHTML writes them.
        // A page cut into chunks (page_facts.js) where a comment opened in one script closes
        // in another thousands of elements later, and tags, voids, SVG, a template and
        // white space sit at every cut: the regexes see it as one string.
        cuts: [
            '<script>var open = "<!--";</script>',
            Array.from({ length: 700 }, (_, i) => `<div class="r${i}" title="a > b < c"><span>${i} &gt; ${i - 1}</span>\n  <br><i>${'\t '.repeat(i % 3)}</i></div>`).join(' \n'),
            '<script>var close = "-->";</script>',
            `<svg viewBox="0 0 10 10">${Array.from({ length: 600 }, (_, i) => `<rect x="${i % 10}" width="1" height="1"></rect>`).join('')}</svg>`,
            `<template>${Array.from({ length: 600 }, (_, i) => `<p>t${i}</p>`).join('')}</template>`,
            Array.from({ length: 900 }, (_, i) => `<section id="s${i}"><h2>H ${i}</h2><!-- ${i} --><p>a<b>b</b>c</p></section>`).join('\n'),
        ].join('\n'),
        above: `<x-app data-a="1 &amp; &quot;2&quot; &lt;3&gt;" title="\u00a0nb"><div id="d">text &amp; &lt;tags&gt;\u00a0<!-- a comment --><svg viewBox="0 0 1 1"><style>${css}</style></svg><section><script type="application/ld+json">${quiet}</script>tail</section></div></x-app><noscript><p>no</p></noscript>`,
    };
    const tab = await newTab(await browser());
    try {
        for (const [name, body] of Object.entries(variants)) {
            await tab.setContent(`<!doctype html><html><head><title>${name}</title></head><body>${body}</body></html>`);
            await tab.evaluate(() => {
                if (!customElements.get('x-app')) {
                    window.made = 0;
                    customElements.define('x-app', class extends HTMLElement { constructor() { super(); window.made += 1; } });
                }
            });
            const made = await tab.evaluate(() => window.made);
            for (const maxChars of [100, 5000, 32768, 10_000_000]) {
                const s = await buildWebAiSnapshot(tab, { domHashMaxChars: maxChars });
                assert.equal(s.domHash, await domHashAround(tab, ['body'], { maxChars }), `${name}, cut at ${maxChars}`);
            }
            assert.equal(await tab.evaluate(() => window.made), made, `${name}: no page code ran`);
        }
    } finally {
        await tab.close();
    }
});

test('over a { cdpEndpoint } the walk reads the page as the snapshot does, and a native session walks its first look', async () => {
    const { dir, file } = appFile(300_000);
    const { browser: b, endpoint } = await launchWithEndpoint();
    try {
        const page = await b.newPage();
        await page.goto(pathToFileURL(file).href);
        const cdp = await page.context().newCDPSession(page);
        const { targetInfo } = await cdp.send('Target.getTargetInfo');
        await cdp.detach();
        const source = { cdpEndpoint: endpoint, targetId: targetInfo.targetId };
        const a = await buildWebAiSnapshot(source, { domRead: 'snapshot' });
        const w = await buildWebAiSnapshot(source, { domRead: 'walk' });
        assert.ok(!w.notes.some(n => FELL_BACK.test(n)), w.notes.join('\n'));
        assert.equal(w.text, a.text);
        const session = createPageSession(source, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: { domRead: 'walk' } });
        try {
            const first = await session.snapshot();
            assert.equal(first.text.replace(/revision \d+/, ''), a.text.replace(/revision \d+/, ''));
            await page.evaluate(() => document.querySelector('ul').insertAdjacentHTML('beforeend', '<li><a href="#n">Newest</a> <button>Save newest</button></li>'));
            const next = await session.snapshot();
            assert.equal(next.stats.captureMode, 'incremental');
            assert.match(next.text, /button "Save newest"/);
        } finally {
            await session.close();
        }
    } finally {
        await b.close();
        rmSync(dir, { recursive: true, force: true });
    }
});

test('a page nested 120 elements deep is walked whole; one deeper than DevTools can send is read by the snapshot, with a note; both read as the snapshot does', async () => {
    const tab = await newTab(await browser());
    try {
        // 120 levels: past serde_json's 128 JSON levels (about 60 of the page's), which the walk once stopped at.
        // 400 levels: past what Chromium's DevTools sends itself ("CBOR: stack limit exceeded", about 147 elements).
        for (const [depth, walked] of [[120, true], [400, false]]) {
            await tab.setContent(`<main>${'<div>'.repeat(depth)}<button>Deep</button>${'</div>'.repeat(depth)}</main>`);
            const a = await buildWebAiSnapshot(tab, { domRead: 'snapshot' });
            const b = await buildWebAiSnapshot(tab, { domRead: 'walk' });
            assert.equal(b.text, a.text, `${depth} deep`);
            assert.match(a.text, /button "Deep"/);
            assert.equal(!b.notes.some(n => FELL_BACK.test(n)), walked, `${depth} deep: ${b.notes.join('\n')}`);
        }
    } finally {
        await tab.close();
    }
});
