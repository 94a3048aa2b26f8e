// maxTokens on live Chromium: the text fits the budget as the benchmark
// counts tokens (gpt-tokenizer's o200k), the lines kept are the ones that
// matter first, the `more` lines count exactly what was left out, and
// left-out refs still resolve to one element.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { buildWebAiSnapshot, createBrowserTools } from '../lib/index.mjs';
import { browser, closeBrowser, openFile, openFixture, realPagesDir, root } from './helpers.mjs';
import { generatePage } from '../bench/generate.mjs';

after(closeBrowser);

const REF_LINE = /^ *- ([a-z]+)(?: "(?:[^"\\]|\\.)*")? \[ref=(@e\d+)/;

/** Per role, the ref'd lines of a text; and the refs it shows. */
function refLines(text) {
    const byRole = new Map();
    const shown = new Set();
    for (const line of text.split('\n')) {
        const m = REF_LINE.exec(line);
        if (!m) continue;
        byRole.set(m[1], (byRole.get(m[1]) || 0) + 1);
        shown.add(m[2]);
    }
    return { byRole, shown };
}

/** Per role, the counts on `- more:` lines. */
function moreCounts(text) {
    const byRole = new Map();
    for (const line of text.split('\n')) {
        const m = /^ *- more: (.*) \[expand: /.exec(line);
        if (!m) continue;
        for (const part of m[1].split(', ')) {
            const [, n, what] = /^(\d+) (.+)$/.exec(part);
            byRole.set(what, (byRole.get(what) || 0) + Number(n));
        }
    }
    return byRole;
}

const singular = w => (w.endsWith('xes') || w.endsWith('ses') ? w.slice(0, -2) : w.endsWith('s') ? w.slice(0, -1) : w);

test('maxTokens: the text fits as o200k counts it, and the more lines count exactly the refs left out', async () => {
    const page = await openFile(await browser(), join(realPagesDir, 'wikipedia.html'));
    try {
        const full = await buildWebAiSnapshot(page);
        const cut = await buildWebAiSnapshot(page, { maxTokens: 1500 });
        assert.ok(encode(full.text).length > 10_000, 'the page is far above the budget');
        assert.equal(cut.stats.tokens, encode(cut.text).length, 'stats.tokens is the o200k count');
        assert.ok(cut.stats.tokens <= 1500, `${cut.stats.tokens} tokens`);
        assert.ok(cut.stats.tokens >= 1300, `the budget is used, not wasted: ${cut.stats.tokens}`);
        assert.ok(cut.notes.some(n => n.startsWith('maxTokens 1500:')), cut.notes.join('\n'));
        // Refs are the same, numbered the same: only the text is cut.
        assert.deepEqual(Object.keys(cut.refs), Object.keys(full.refs));
        const all = refLines(full.text).byRole;
        const { byRole: kept, shown } = refLines(cut.text);
        const more = moreCounts(cut.text);
        for (const [role, n] of all) {
            const counted = [...more].filter(([w]) => singular(w) === role).reduce((a, [, k]) => a + k, 0);
            assert.equal((kept.get(role) || 0) + counted, n, `${role}: ${kept.get(role) || 0} shown + ${counted} counted of ${n}`);
        }
        // A left-out ref still resolves to exactly one element.
        const leftOut = Object.values(cut.refs).filter(r => !shown.has(r.ref) && r.selector);
        assert.ok(leftOut.length > 100);
        for (const r of leftOut.slice(0, 20)) {
            assert.equal(await page.locator(r.selector).count(), 1, `${r.ref} ${r.selector}`);
        }
        // Every more line under an element names the selector that shows what it counts.
        const expands = [...cut.text.matchAll(/\[expand: rootSelector=("(?:[^"\\]|\\.)*")\]/g)].map(m => JSON.parse(m[1]));
        assert.ok(expands.length > 0);
        for (const sel of expands.slice(0, 10)) assert.equal(await page.locator(sel).count(), 1, sel);
        const sub = await buildWebAiSnapshot(page, { rootSelector: expands[0], maxTokens: 100_000 });
        assert.ok(sub.text.split('\n').length > 1);
    } finally {
        await page.close();
    }
});

test('maxTokens keeps what is in the viewport, then buttons and links, before text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-budget-'));
    try {
        const links = Array.from({ length: 150 }, (_, k) => `<li><a href="/p${k}">Offscreen product page number ${k}</a></li>`).join('');
        const prose = Array.from({ length: 40 }, (_, k) => `<p>Paragraph ${k} of the long story that nobody needs to act on.</p>`).join('');
        const file = join(dir, 'page.html');
        writeFileSync(file, `<!doctype html><title>Budget</title><body>
            <header><h1>Store</h1><button>Checkout</button><input aria-label="Search"></header>
            <main style="margin-top:2000px">${prose}<nav aria-label="Catalogue"><ul>${links}</ul></nav></main></body>`);
        const page = await openFile(await browser(), file);
        try {
            const s = await buildWebAiSnapshot(page, { maxTokens: 300 });
            assert.ok(s.stats.tokens <= 300);
            assert.match(s.text, /- heading "Store" \[level=1\]/);
            assert.match(s.text, /- button "Checkout" \[ref=@e1\]/);
            assert.match(s.text, /- textbox "Search" \[ref=@e2\]/);
            assert.match(s.text, /- link "Offscreen product page number 0"/, 'links outrank text');
            assert.doesNotMatch(s.text, /Paragraph 39/, 'text is the last kept');
            const shownLinks = s.text.match(/- link "Offscreen/g).length;
            assert.ok(s.text.includes(`- more: ${150 - shownLinks} links [expand: rootSelector="ul"]`), s.text);
            assert.ok(s.text.includes('- more: 40 text lines [expand: rootSelector="main"]'), s.text);
            // A budget the page fits in leaves the text alone, with the count.
            const roomy = await buildWebAiSnapshot(page, { maxTokens: 100_000 });
            const plain = await buildWebAiSnapshot(page);
            assert.equal(roomy.text, plain.text);
            assert.equal(roomy.stats.tokens, encode(plain.text).length);
            assert.equal(plain.stats.tokens, undefined);
        } finally {
            await page.close();
        }
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

test('maxTokens counts the untrusted-content boundaries, and refsOnly lists by priority', async () => {
    const page = await openFile(await browser(), join(realPagesDir, 'bbc-1.html'));
    try {
        const marked = await buildWebAiSnapshot(page, { maxTokens: 400, untrustedContent: 'mark' });
        assert.ok(encode(marked.text).length <= 400, `${encode(marked.text).length} with the boundaries`);
        assert.match(marked.text, /^=== BEGIN UNTRUSTED PAGE CONTENT nonce=[0-9a-f]{16} [^\n]*\n[^\n]*\n- document "/);
        assert.match(marked.text, /=== END UNTRUSTED PAGE CONTENT nonce=[0-9a-f]{16} ===$/);
        const flat = await buildWebAiSnapshot(page, { maxTokens: 200, refsOnly: true });
        assert.ok(flat.stats.tokens <= 200);
        assert.match(flat.text, /^- more: \d+ links.*\[expand: raise maxTokens\]$/m);
    } finally {
        await page.close();
    }
});

test('a bad maxTokens is invalid input naming the option', async () => {
    const page = await openFixture('forms.html');
    try {
        for (const bad of [10, -1, 1.5, '2000']) {
            await assert.rejects(buildWebAiSnapshot(page, { maxTokens: bad }), e => e.errorCode === 'snapshot.invalid-input' && /maxTokens/.test(e.message));
        }
    } finally {
        await page.close();
    }
});

test('the tools\' get_snapshot stays within 2,000 tokens of text and 100 elements on a 40k-node page, viewport or not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-budget-'));
    const file = join(dir, 'big.html');
    writeFileSync(file, generatePage(40000));
    const page = await openFile(await browser(), file);
    try {
        const tools = createBrowserTools(page, { snapshotOptions: { viewportOnly: false } });
        const r = await tools.execute('get_snapshot', {});
        assert.equal(r.success, true);
        assert.ok(encode(r.snapshot.text).length <= 2000, `${encode(r.snapshot.text).length} tokens`);
        assert.ok(r.snapshot.elements.length <= 100);
        assert.match(r.snapshot.text, /- more: /);
    } finally {
        await page.close();
        rmSync(dir, { recursive: true, force: true });
    }
});

test('CLI: --max-tokens and --urls', () => {
    const cli = join(root, 'bin', 'web-ai-snapshot.mjs');
    const file = join(realPagesDir, 'mozilla-1.html');
    const out = execFileSync(process.execPath, [cli, 'snapshot', file, '--max-tokens', '300', '--urls', '--json'], { encoding: 'utf8', timeout: 60_000 });
    const s = JSON.parse(out);
    assert.ok(s.stats.tokens <= 300);
    assert.match(s.text, /- link "[^"]+" \[ref=@e\d+ url="[^"]+"\]/);
    assert.match(s.text, /- more: /);
    assert.throws(() => execFileSync(process.execPath, [cli, 'snapshot', file, '--max-tokens', '7'], { encoding: 'utf8', stdio: 'pipe' }), e => e.status === 2);
});

test('a scrollable region says how many of its items are scrolled out above and below', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-scroll-'));
    try {
        const items = Array.from({ length: 20 }, (_, k) => `<li style="height:30px"><a href="#i${k}">Message ${k}</a></li>`).join('');
        const file = join(dir, 'scroll.html');
        writeFileSync(file, `<!doctype html><title>Inbox</title><body>
            <ul aria-label="Messages" id="box" style="height:100px; overflow-y:auto; margin:0; padding:0">${items}</ul>
            <ul aria-label="Short" style="height:200px; overflow-y:auto"><li>Only one</li></ul></body>`);
        const page = await openFile(await browser(), file);
        try {
            await page.evaluate(() => { document.getElementById('box').scrollTop = 200; });
            const expected = await page.evaluate(() => {
                const box = document.getElementById('box').getBoundingClientRect();
                const rects = [...document.querySelectorAll('#box li')].map(li => li.getBoundingClientRect());
                return { above: rects.filter(r => r.bottom <= box.top + 1).length, below: rects.filter(r => r.top >= box.bottom - 1).length };
            });
            assert.ok(expected.above > 0 && expected.below > 0);
            const s = await buildWebAiSnapshot(page, { includeElements: true });
            assert.match(s.text, new RegExp(`- list "Messages" \\[items-above=${expected.above} items-below=${expected.below}\\]:`), s.text);
            assert.match(s.text, /- list "Short":/, 'nothing scrolled out, nothing said');
            // Only the viewport: the items scrolled out of the region are gone from the text
            // (though inside the viewport's rectangle), and the count says so.
            const v = await buildWebAiSnapshot(page, { viewportOnly: true });
            assert.match(v.text, new RegExp(`items-above=${expected.above} items-below=${expected.below}`));
            const shownItems = [...v.text.matchAll(/- link "Message (\d+)"/g)].map(m => Number(m[1]));
            const visible = await page.evaluate(() => {
                const box = document.getElementById('box').getBoundingClientRect();
                return [...document.querySelectorAll('#box a')].map((a, k) => [k, a.getBoundingClientRect()])
                    .filter(([, r]) => r.bottom > box.top && r.top < box.bottom).map(([k]) => k);
            });
            assert.deepEqual(shownItems, visible, v.text);
            assert.match(v.text, /- listitem: Only one|- list "Short"/);
            // Without layout boxes the capture does not know, and says nothing.
            const plain = await buildWebAiSnapshot(page);
            assert.doesNotMatch(plain.text, /items-above/);
        } finally {
            await page.close();
        }
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});
