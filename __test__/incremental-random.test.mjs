// The proof that an incremental snapshot is the full one: after each of at
// least 500 random mutations (at full length, WEB_AI_TEST_FULL=1) over
// fixture, generated and real pages, frames and shadow trees, the session's
// snapshot is compared with a full capture given the same ref numbering. A
// failure prints the page, the seeds and the mutations that reproduce it
// (shortened as far as a few retries allow) and the first lines that differ.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePage } from '../bench/generate.mjs';
import { createRequire } from 'node:module';
import { browser, closeBrowser, pagesDir, realPagesDir, sized, newTab } from './helpers.mjs';
import { AGENT_OPTIONS, MUTATE, OPTIONS, componentsPage, difference, failMinimal, framedShop, fullCapture, mutate, open, run, serveHtml } from './incremental-helpers.mjs';

const require = createRequire(import.meta.url);
const { createPageSession } = require('../lib/session.cjs');

after(closeBrowser);

// Random mutations on the page of components (light DOM, slotted content, shadow trees), each of three runs: full length (CI) and a developer's run.
const COMPONENT_MUTATIONS = sized(40, 6);
test(`on a page of web components, after each of ${COMPONENT_MUTATIONS} random mutations (anywhere, inside shadow trees, with an agent's looks), the incremental snapshot is the full capture`, { timeout: 5 * 60 * 1000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-components-'));
    try {
        const path = join(dir, 'components.html');
        writeFileSync(path, componentsPage(120));
        const seeds = Array.from({ length: COMPONENT_MUTATIONS }, (_, k) => 9127 + k);
        const modes = { full: 0, incremental: 0 };
        const failure = await run(path, seeds, s => { modes[s.stats.captureMode] += 1; });
        if (failure) await failMinimal(path, seeds, failure);
        assert.ok(modes.incremental >= seeds.length / 2, `incremental ${modes.incremental} of ${seeds.length} (full ${modes.full})`);
        // Inside the shadow trees alone (text, attributes, insertions, removals, hiding).
        const inside = { full: 0, incremental: 0 };
        const shadowKind = () => 'shadow';
        const deep = await run(path, seeds, s => { inside[s.stats.captureMode] += 1; }, shadowKind);
        if (deep) await failMinimal(path, seeds, deep, shadowKind, " with the kind 'shadow'");
        assert.ok(inside.incremental >= seeds.length / 2, `inside shadow trees: incremental ${inside.incremental} of ${seeds.length} (full ${inside.full})`);
        // An agent's looks (layout boxes read again by a walk of the flat tree), one step in three a scroll.
        const agent = { full: 0, incremental: 0 };
        const change = (page, seed, kind) =>
            seed % 3 === 2 ? page.evaluate(dy => { window.scrollBy(0, dy); return `scrolled by ${dy}`; }, seed % 2 ? 450 : -300) : mutate(page, seed, kind);
        const looks = await run(path, seeds, s => { agent[s.stats.captureMode] += 1; }, () => null, { options: AGENT_OPTIONS, change });
        assert.equal(looks, null, looks && `${path}: after step ${looks.step + 1} (seeds ${JSON.stringify(seeds.slice(0, looks.step + 1))}, ${looks.mode}):\n${looks.done.map((d, i) => `  ${i + 1}. ${d}`).join('\n')}\n${looks.diff}`);
        assert.ok(agent.incremental >= seeds.length / 2, `agent's looks: incremental ${agent.incremental} of ${seeds.length} (full ${agent.full})`);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});


const FRAME_MUTATIONS = sized(48, 8);
test(`after each of ${FRAME_MUTATIONS} random mutations inside frames the page cannot enter (one in its process, one in another), the incremental snapshot is the full capture`, { timeout: 5 * 60 * 1000 }, async () => {
    // The page's watcher cannot see into either frame: each is watched from our world in it.
    // Mutations go to the page, the same-site frame of another origin, or the cross-site one, in turn.
    const fixture = name => readFileSync(join(pagesDir, `${name}.html`), 'utf8');
    const frames = await serveHtml(url => fixture(url.includes('widgets') ? 'widgets' : 'forms'));
    const port = frames.address().port;
    const top = await serveHtml(() => fixture('forms').replace('</body>',
        `<iframe title="Same site" src="http://127.0.0.1:${port}/forms"></iframe><iframe title="Cross site" src="http://localhost:${port}/widgets"></iframe></body>`));
    const page = await newTab(await browser());
    const session = createPageSession(page, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: OPTIONS });
    const modes = { full: 0, incremental: 0, cached: 0 };
    try {
        await page.goto(`http://127.0.0.1:${top.address().port}/`, { waitUntil: 'load' });
        const sameSite = page.frames().find(f => f.url().startsWith(`http://127.0.0.1:${port}/`));
        const crossSite = page.frames().find(f => f.url().startsWith('http://localhost:'));
        assert.ok(sameSite && crossSite, page.frames().map(f => f.url()).join(' '));
        const targets = [['the page', page.mainFrame()], ['the same-site frame', sameSite], ['the cross-site frame', crossSite]];
        await session.snapshot();
        const done = [];
        for (let k = 0; k < FRAME_MUTATIONS; k += 1) {
            const seed = 104729 + k;
            const [where, frame] = targets[k % targets.length];
            done.push(`${where}: ${await frame.evaluate(([src, s]) => (0, eval)(`(${src})`)(s), [MUTATE, seed])}`);
            const numbering = session._numbering();
            const inc = await session.snapshot();
            modes[inc.fromCache ? 'cached' : inc.stats.captureMode] += 1;
            const diff = difference(inc, await fullCapture(page, numbering));
            if (diff) {
                assert.fail([`after mutation ${k + 1} the ${inc.stats.captureMode} snapshot differs from a full capture.`,
                    'Reproduce: forms.html with forms.html in a same-site frame and widgets.html in a cross-site one; session snapshot; then each mutation (bench/mutations.js with the seed, in that document) and a snapshot.',
                    `Seeds: from 104729, the k-th in target k % 3 (page, same-site, cross-site)`, 'Mutations:', ...done.map((d, i) => `  ${i + 1}. ${d}`), diff].join('\n'));
            }
        }
        // Most looks read only what changed; none may be answered from the last snapshot after a change
        // that shows (a mutation that shows nothing may be).
        assert.ok(modes.incremental + modes.cached >= Math.floor(FRAME_MUTATIONS * 0.8), JSON.stringify(modes));
    } finally {
        await session.close();
        await page.close();
        top.close();
        frames.close();
    }
});


// The page `bench:incremental -- --kinds` measures (issue 32): rows of a 40k-node page added,
// copied, removed, moved, hidden and shown at random, each look the full capture. Full length
// (CI): 12; a developer's run: 1 (a full capture of this page with a debug addon takes seconds).
const LARGE_STEPS = sized(12, 1);
test(`on the 40k-node page, after each of ${LARGE_STEPS} random rows inserted, copied, removed, moved, hidden or shown, the incremental snapshot is the full capture`, { timeout: 10 * 60 * 1000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-incremental-40k-'));
    try {
        const big = join(dir, 'generated-40k.html');
        writeFileSync(big, generatePage(40000));
        const kinds = ['insert', 'copy', 'remove', 'move', 'hide', 'show'];
        const kindOf = seed => kinds[seed % kinds.length];
        const seeds = Array.from({ length: LARGE_STEPS }, (_, k) => 5501 + k);
        const modes = { full: 0, incremental: 0 };
        const failure = await run(big, seeds, s => { modes[s.stats.captureMode] += 1; }, kindOf);
        if (failure) await failMinimal(big, seeds, failure, kindOf, ' with the kinds insert, copy, remove, move, hide, show by seed modulo 6');
        // (A change whose reach is a third of the page, as a mutation of `main` would be, is a full capture.)
        assert.ok(modes.incremental >= Math.ceil((seeds.length * 3) / 4), `incremental ${modes.incremental} of ${seeds.length} (full ${modes.full})`);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

// Full length (WEB_AI_TEST_FULL=1, CI): 32 changes a page; a developer's run: 4.
const TEXT_CHANGES = sized(32, 4);
test(`after each of ${6 * TEXT_CHANGES} random changes of text, elements' text set whole and values (the engine's kept tree patched, not built again, where only text and values changed), the incremental snapshot is the full capture, its DOM hash too`, { timeout: 10 * 60 * 1000 }, async () => {
    // Text in every kind of element (labels, headings, cells, list items, a title's neighbours,
    // white space at the ends) and fields' values set by script: src/engine/retext.rs and its fallbacks.
    const plan = [
        ...['forms', 'widgets', 'unicode', 'chatgpt'].map(n => [join(pagesDir, `${n}.html`), TEXT_CHANGES]),
        ...['wikipedia', 'mozilla-1'].map(n => [join(realPagesDir, `${n}.html`), TEXT_CHANGES]),
    ];
    let steps = 0;
    for (const [path, count] of plan) {
        const seeds = Array.from({ length: count }, (_, k) => 6007 * (steps + 1) + k);
        // A field's value for one seed in four, an element's textContent (its text nodes replaced:
        // the DOM hash kept, src/page/watch.js) for another, a text's data for the others.
        const kindOf = seed => ['text', 'retext', 'text', 'value'][seed % 4];
        const failure = await run(path, seeds, () => {}, kindOf);
        if (failure) await failMinimal(path, seeds, failure, kindOf, " with the kind 'value' for a seed that leaves 3 divided by 4, 'retext' for 1, else 'text'");
        steps += count;
    }
    assert.ok(steps >= 6 * TEXT_CHANGES, `${steps} changes`);
});

// Mutations a page at full length (CI) and in a developer's run: every page is visited either way.
const MUTATIONS = sized({ fixture: 36, media: 20, real: 30, framed: 20 }, { fixture: 3, media: 3, real: 2, framed: 2 });
const MUTATION_TOTAL = 11 * MUTATIONS.fixture + MUTATIONS.media + 4 * MUTATIONS.real + 2 * MUTATIONS.framed;
test(`after each of ${MUTATION_TOTAL} random mutations, the incremental snapshot is the full capture`, { timeout: 15 * 60 * 1000 }, async () => {
    // Fixture pages (frames, forms, widgets, injection text, right-to-left and
    // Unicode) and real pages, two of them with frames the watcher cannot enter.
    const plan = [
        ...['forms', 'widgets', 'chatgpt', 'frames', 'clickable', 'hidden', 'injection', 'unicode', 'gemini', 'grok', 'viewport']
            .map(n => [join(pagesDir, `${n}.html`), MUTATIONS.fixture]),
        // Media controls and date fields: their subtrees are Chrome's, asked again on every look.
        [join(pagesDir, 'media.html'), MUTATIONS.media],
        ...['wikipedia', 'mozilla-1', 'theverge', 'gitlab-blog'].map(n => [join(realPagesDir, `${n}.html`), MUTATIONS.real]),
        // Frames in other processes (read again by their own capture) and of other origins in this one (read again whole).
        ...['nytimes-1', 'lifehacker-post-comment-load'].map(n => [join(realPagesDir, `${n}.html`), MUTATIONS.framed]),
    ];
    let steps = 0;
    const modes = { full: 0, incremental: 0 };
    for (const [path, count] of plan) {
        const base = 7919 * (steps + 1);
        const seeds = Array.from({ length: count }, (_, k) => base + k);
        const failure = await run(path, seeds, s => { modes[s.stats.captureMode] += 1; });
        if (failure) await failMinimal(path, seeds, failure);
        steps += count;
    }
    assert.ok(steps >= MUTATION_TOTAL, `${steps} mutations`);
    // The proof is about incremental snapshots: most of them must have been.
    assert.ok(modes.incremental >= 0.7 * steps, `incremental ${modes.incremental} of ${steps} (full ${modes.full})`);
});

const AGENT_STEPS = sized(24, 4);
test(`looks that need layout boxes (viewportOnly and maxTokens, an agent's) stay incremental through ${5 * AGENT_STEPS} random mutations and scrolls, each the full capture, frames in other processes too`, { timeout: 10 * 60 * 1000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-agent-looks-'));
    try {
        const big = join(dir, 'generated-5k.html');
        writeFileSync(big, generatePage(5000));
        // One step in three scrolls the page (no mutation at all), down or back up.
        const change = (page, seed, kind) =>
            seed % 3 === 2 ? page.evaluate(dy => { window.scrollBy(0, dy); return `scrolled by ${dy}`; }, seed % 2 ? 450 : -300) : mutate(page, seed, kind);
        // Frames of the page's origin, three deep, are walked by the same script.
        const plan = [big, join(pagesDir, 'forms.html'), join(pagesDir, 'frames.html'), join(realPagesDir, 'gitlab-blog.html'), join(realPagesDir, 'wikipedia.html')];
        const modes = { full: 0, incremental: 0 };
        let steps = 0;
        for (const path of plan) {
            const seeds = Array.from({ length: AGENT_STEPS }, (_, k) => 3301 * (steps + 1) + k);
            const failure = await run(path, seeds, s => { modes[s.stats.captureMode] += 1; }, () => null, { options: AGENT_OPTIONS, change });
            assert.equal(failure, null, failure && `${path}: after step ${failure.step + 1} (seeds ${JSON.stringify(seeds.slice(0, failure.step + 1))}, ${failure.mode}):\n${failure.done.map((d, i) => `  ${i + 1}. ${d}`).join('\n')}\n${failure.diff}`);
            steps += seeds.length;
        }
        assert.ok(modes.incremental >= 0.8 * steps, `incremental ${modes.incremental} of ${steps} (full ${modes.full})`);

        // A frame of another site is in another process: its own capture reads its boxes, placed at its owner's.
        const shop = await framedShop('localhost', AGENT_OPTIONS);
        try {
            await shop.session.snapshot();
            const frame = shop.page.frames().find(f => f !== shop.page.mainFrame());
            for (const change of [
                () => shop.page.evaluate(() => { document.querySelector('h1').textContent = 'Checkout (2)'; }),
                () => frame.evaluate(() => { document.querySelector('#t').textContent = 'Card number, 16 digits'; }),
                () => shop.page.evaluate(() => { document.body.insertAdjacentHTML('afterbegin', '<div style="height:400px">Banner</div>'); }),
            ]) {
                await change();
                const numbering = shop.session._numbering();
                const look = await shop.session.snapshot();
                assert.equal(look.stats.captureMode, 'incremental', look.notes.join('; '));
                assert.equal(difference(look, await fullCapture(shop.page, numbering, AGENT_OPTIONS)), null);
            }
        } finally {
            await shop.close();
        }

        // Nothing moved: the watcher's answer stands. A scroll alone: a new look, of the rows now in view.
        const { page, session, close } = await open(big, AGENT_OPTIONS);
        try {
            const first = await session.snapshot();
            const again = await session.snapshot();
            assert.equal(again.revision, first.revision, 'an unchanged page keeps its revision');
            assert.match(first.text, /Item 0: /);
            await page.evaluate(() => document.querySelector('#card-60').scrollIntoView());
            const numbering = session._numbering();
            const scrolled = await session.snapshot();
            assert.equal(scrolled.stats.captureMode, 'incremental');
            assert.ok(scrolled.revision > first.revision, 'a scroll is a change of what the agent sees');
            assert.doesNotMatch(scrolled.text, /Item 0: /);
            assert.match(scrolled.text, /Item 60: /);
            assert.equal(difference(scrolled, await fullCapture(page, numbering, AGENT_OPTIONS)), null);
        } finally {
            await close();
        }
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});
