// viewportOnly: what shows in the viewport, through frames and scrolling,
// against live Chromium (seed 001's get_snapshot viewport_only).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildWebAiSnapshot } from '../lib/index.mjs';
import { closeBrowser, openFixture } from './helpers.mjs';

after(closeBrowser);

const names = s => Object.values(s.refs).map(r => r.name);

test('viewportOnly keeps what is on screen, follows the scroll, and clips frames to their own viewport', async () => {
    const page = await openFixture('viewport.html');
    try {
        const whole = await buildWebAiSnapshot(page);
        assert.deepEqual(names(whole), ['Menu', 'Top button', 'Size', 'Small', 'Large', 'Frame top', 'Frame deep', 'a middle link', 'Bottom button']);
        assert.ok(!whole.notes.some(n => n.startsWith('viewportOnly')), 'off by default');

        const top = await buildWebAiSnapshot(page, { viewportOnly: true });
        // Options of a closed select have no box of their own: they go with the select.
        assert.deepEqual(names(top), ['Menu', 'Top button', 'Size', 'Small', 'Large', 'Frame top']);
        assert.match(top.text, /heading "Top of the page"/);
        assert.doesNotMatch(top.text, /Middle of the page/);
        const note = top.notes.find(n => n.startsWith('viewportOnly'));
        assert.match(note, /^viewportOnly: \d+ node\(s\) outside the viewport are left out, 3 of them controls; scroll to see them$/);

        // Scrolling inside the frame brings its deep button into the frame's viewport.
        await page.frames()[1].evaluate(() => window.scrollTo(0, 850));
        const inFrame = await buildWebAiSnapshot(page, { viewportOnly: true });
        assert.ok(names(inFrame).includes('Frame deep'));
        assert.ok(!names(inFrame).includes('Frame top'), 'scrolled out of the frame');

        // The page scrolled to the middle: the fixed header stays, the top is gone.
        await page.evaluate(() => document.querySelector('h2').scrollIntoView());
        const middle = await buildWebAiSnapshot(page, { viewportOnly: true });
        assert.deepEqual(names(middle), ['Menu', 'a middle link']);
        assert.match(middle.text, /heading "Middle of the page"/);
        for (const r of Object.values(middle.refs)) assert.equal(await page.locator(r.selector).count(), 1);

        await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
        assert.deepEqual(names(await buildWebAiSnapshot(page, { viewportOnly: true })), ['Menu', 'Bottom button']);
    } finally {
        await page.close();
    }
});

test('viewportOnly without the DOM pass says so and shows the whole page', async () => {
    const page = await openFixture('viewport.html');
    try {
        const s = await buildWebAiSnapshot(page, { viewportOnly: true, domPass: false });
        assert.ok(names(s).includes('Bottom button'));
        assert.ok(s.notes.some(n => /viewportOnly needs the DOM pass/.test(n)), s.notes.join(' | '));
    } finally {
        await page.close();
    }
});
