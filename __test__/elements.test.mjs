// Seed 001 §1.3's structured elements on live Chromium: boxes that match the
// browser's, seed 001's state values, the focused ref, and §1.3.3's ranking
// when maxElements cuts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWebAiSnapshot, createBrowserTools } from '../lib/index.mjs';
import { browser, closeBrowser, openFixture, openFile } from './helpers.mjs';
import { generatePage } from '../bench/generate.mjs';

after(closeBrowser);

test('elements: one per ref, with boxes that match the browser, seed 001 states, value, level and focus', async () => {
    const page = await openFixture('forms.html');
    try {
        await page.focus('input[type=checkbox]');
        const s = await buildWebAiSnapshot(page, { includeElements: true });
        assert.deepEqual(s.elements.map(e => e.ref), Object.keys(s.refs), 'every ref, in document order');
        assert.match(s.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.ok(Math.abs(Date.parse(s.timestamp) - Date.now()) < 60_000);
        const allowed = new Set(['visible', 'hidden', 'offscreen', 'enabled', 'disabled', 'readonly', 'checked', 'unchecked', 'mixed', 'expanded', 'collapsed', 'focused', 'busy']);
        let compared = 0;
        for (const e of s.elements) {
            for (const st of e.state) assert.ok(allowed.has(st), `${e.ref} ${st}`);
            const ref = s.refs[e.ref];
            assert.ok(e.bbox && ['x', 'y', 'width', 'height'].every(k => Number.isFinite(e.bbox[k])), `${e.ref} has a box of numbers`);
            if (!ref.selector) continue;
            const box = await page.locator(ref.selector).boundingBox();
            // No box of its own (an option of a closed select): its nearest ancestor's.
            if (!box) {
                const parent = s.elements.find(p => (p.children || []).includes(e.ref));
                assert.ok(parent, `${e.ref} ${e.role} has no box and no parent element`);
                assert.deepEqual(e.bbox, parent.bbox, `${e.ref} takes ${parent.ref}'s box`);
                continue;
            }
            compared += 1;
            for (const [k, b] of [['x', 'x'], ['y', 'y'], ['width', 'width'], ['height', 'height']]) {
                assert.ok(Math.abs(e.bbox[k] - box[b]) <= 1, `${e.ref} ${e.role} "${e.name}" ${k}: ${e.bbox[k]} vs ${box[b]}`);
            }
        }
        assert.ok(compared >= 5, `${compared} boxes compared`);
        const byName = name => s.elements.find(e => e.name === name);
        assert.deepEqual(byName('Save card').state, ['visible', 'enabled', 'checked', 'focused']);
        assert.equal(s.focused, byName('Save card').ref);
        // Again, with the isolated world the first capture made (its marks ride the first batch), and after focus moves.
        await page.focus('textarea');
        const again = await buildWebAiSnapshot(page, { includeElements: true });
        assert.equal(again.focused, again.elements.find(e => e.name === 'Notes').ref);
        assert.ok(!again.elements.find(e => e.name === 'Save card').state.includes('focused'));
        assert.ok(byName('Pay now').state.includes('disabled'));
        assert.ok(byName('Gift wrap').state.includes('checked'));
        const heading = s.elements.find(e => e.role === 'heading');
        if (heading) assert.equal(heading.level, 1);
        // Without the option nothing changes.
        const plain = await buildWebAiSnapshot(page);
        assert.equal(plain.elements, undefined);
        assert.equal(plain.text, s.text);
    } finally {
        await page.close();
    }
});

test('maxElements keeps seed 001\'s ranking (in view, role, document order) in elements and text; the rest are counted on more lines and stay resolvable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-elements-'));
    const path = join(dir, 'feed.html');
    writeFileSync(path, generatePage(4000));
    const page = await openFile(await browser(), path);
    try {
        const all = await buildWebAiSnapshot(page, { includeElements: true, allRefs: true });
        const s = await buildWebAiSnapshot(page, { includeElements: true, maxElements: 10, allRefs: true });
        assert.equal(s.elements.length, 10);
        assert.ok(s.notes.some(n => n.startsWith(`elements: 10 of ${Object.keys(s.refs).length} (maxElements`)), s.notes.join(' | '));
        const visible = all.elements.filter(e => e.state.includes('visible'));
        assert.ok(visible.length > 10, 'the viewport holds more than 10');
        assert.ok(all.elements.some(e => e.state.includes('offscreen')));
        assert.ok(s.elements.every(e => e.state.includes('visible')), 'nothing offscreen while in-view ones are left');
        // Among the visible: buttons and links before fields before headings.
        const rank = role => (['button', 'link'].includes(role) ? 0 : ['checkbox', 'radio', 'textbox', 'searchbox'].includes(role) ? 1 : ['combobox', 'listbox'].includes(role) ? 2 : role === 'heading' ? 3 : 5);
        // Fully in the 1280×900 viewport ranks before partly.
        const fully = e => e.bbox.x >= 0 && e.bbox.y >= 0 && e.bbox.x + e.bbox.width <= 1280 && e.bbox.y + e.bbox.height <= 900;
        const key = e => (fully(e) ? 0 : 10) + rank(e.role);
        const cut = Math.max(...s.elements.map(key));
        assert.ok(visible.filter(e => key(e) < cut).every(e => s.elements.some(k => k.ref === e.ref)), 'every better-ranked visible element is kept');
        const order = s.elements.map(e => Object.keys(s.refs).indexOf(e.ref));
        assert.deepEqual(order, [...order].sort((a, b) => a - b), 'kept in document order');
        // The text shows the same ten refs; the rest are counted on `more` lines and stay in refs.
        const shown = [...s.text.matchAll(/\[ref=(@e\d+)/g)].map(m => m[1]);
        assert.deepEqual(shown, s.elements.map(e => e.ref));
        assert.equal(Object.keys(s.refs).length, Object.keys(all.refs).length, 'every ref stays resolvable');
        const more = [...s.text.matchAll(/- more: (.*) \[expand: (.*)\]$/gm)];
        assert.ok(more.length > 0, s.text.slice(0, 2000));
        const counted = more.flatMap(m => m[1].split(', ')).reduce((sum, part) => sum + Number(part.split(' ')[0]), 0);
        assert.equal(counted + 10, Object.keys(s.refs).length, 'every left-out ref is counted once');
        assert.ok(more.some(m => /^rootSelector="[^"]+"$/.test(m[2])), more.map(m => m[2]).join(' | '));
        const sel = more.map(m => m[2]).find(e => e.startsWith('rootSelector='));
        const card = await buildWebAiSnapshot(page, { rootSelector: JSON.parse(sel.slice('rootSelector='.length)) });
        assert.ok(Object.keys(card.refs).length > 0, 'the expand hint shows what was left out');
    } finally {
        await page.close();
        rmSync(dir, { recursive: true, force: true });
    }
});

test('the tools\' get_snapshot carries elements pruned to 100, focused and timestamp', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-elements-'));
    const path = join(dir, 'feed.html');
    writeFileSync(path, generatePage(40000));
    const page = await openFile(await browser(), path);
    try {
        const tools = createBrowserTools(page, { snapshotOptions: { viewportOnly: false } });
        const r = await tools.execute('get_snapshot', {});
        const els = r.snapshot.elements;
        assert.equal(els.length, 100);
        assert.ok('focused' in r.snapshot);
        assert.equal(typeof r.snapshot.timestamp, 'string');
        // The few in view all stay; the rest are offscreen buttons and links, the best-ranked role.
        const visible = els.filter(e => e.state.includes('visible'));
        assert.ok(visible.length > 0 && visible.length < 100);
        assert.ok(els.filter(e => !e.state.includes('visible')).every(e => ['button', 'link'].includes(e.role)));
    } finally {
        await page.close();
        rmSync(dir, { recursive: true, force: true });
    }
});
