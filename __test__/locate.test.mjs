// Item 1 of the ref contract: every ref carries its own way back. For every
// ref of every fixture page and every real page, Playwright's locator built
// from `framePath`, `shadowPath` and `selector` finds exactly one element,
// and it is the element the snapshot saw (same backendNodeId).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { closeBrowser, FULL, halved, pagesDir, realPagesDir, sweep } from './helpers.mjs';
import { buildWebAiSnapshot, cdpSessionFor, locatorForRef } from '../lib/index.cjs';

after(closeBrowser);

/** Run `fn` over `items`, `width` at a time. */
async function pool(items, width, fn) {
    const queue = [...items];
    await Promise.all(Array.from({ length: width }, async () => {
        while (queue.length) await fn(queue.shift());
    }));
}

/**
 * Every ref at full length (WEB_AI_TEST_FULL=1, CI); in a developer's run,
 * at most 12 a page, spread evenly over it (the first, the last and those between).
 */
const MOST = 12;
function sample(refs, most = MOST) {
    if (FULL || refs.length <= most) return refs;
    return Array.from({ length: most }, (_, k) => refs[Math.round((k * (refs.length - 1)) / (most - 1))]);
}

/**
 * Check each ref; returns the failures as text. Playwright marks the element
 * it found in the page; the ref's backendNodeId, resolved over CDP in the
 * same frame, must be that element.
 */
async function checkRefs(page, snapshot) {
    const session = await cdpSessionFor(page);
    const failures = [];
    let located = 0;
    await pool(sample(Object.values(snapshot.refs)), 8, async ref => {
        const where = `${ref.ref} ${ref.role} ${JSON.stringify(ref.name)} [${[...ref.framePath, ...ref.shadowPath, ref.selector].join(' | ')}]`;
        const { object } = await session.send('DOM.resolveNode', { backendNodeId: ref.backendNodeId });
        if (ref.shadowClosed) {
            if (ref.selector !== null) failures.push(`${where}: closed shadow root but a selector`);
            if (!object.objectId) failures.push(`${where}: not resolvable by backendNodeId`);
            return;
        }
        const loc = locatorForRef(page, ref);
        if (!loc) { failures.push(`${where}: no selector`); return; }
        const count = await loc.evaluateAll((els, key) => {
            (window.__locateProbe ??= new Map()).set(key, els[0]);
            return els.length;
        }, ref.ref).catch(err => `error ${err.message.split('\n')[0]}`);
        if (count !== 1) { failures.push(`${where}: ${count} matches`); return; }
        const { result } = await session.send('Runtime.callFunctionOn', {
            objectId: object.objectId,
            functionDeclaration: 'function (key) { return !!window.__locateProbe && window.__locateProbe.get(key) === this; }',
            arguments: [{ value: ref.ref }],
            returnByValue: true,
        });
        if (result.value !== true) failures.push(`${where}: matches another element`);
        else located += 1;
    });
    return { failures, located };
}

const fixturePages = readdirSync(pagesDir).filter(f => f.endsWith('.html')).map(f => join(pagesDir, f));
// Every real page in CI; every other one in a developer's run (each is loaded and read in full).
const realPages = halved(readdirSync(realPagesDir).filter(f => f.endsWith('.html')).map(f => join(realPagesDir, f)));

for (const [label, files] of [['fixture', fixturePages], ['real', realPages]]) {
    test(`${FULL ? 'every ref' : `up to ${MOST} refs spread over each`} of every ${label === 'real' && !FULL ? 'other real' : label} page resolves to exactly its own element`, async () => {
        assert.ok(files.length >= (FULL || label === 'fixture' ? 10 : 5), `expected the ${label} pages`);
        const report = [];
        let total = 0;
        await sweep(files, async (page, file) => {
            const snapshot = await buildWebAiSnapshot(page, { timeoutMs: 30000 });
            const refs = Object.values(snapshot.refs);
            const { failures, located } = await checkRefs(page, snapshot);
            total += located;
            if (failures.length) report.push(`${file}: ${failures.length}/${refs.length} failed\n  ${failures.slice(0, 8).join('\n  ')}`);
            if (refs.length > 0) assert.ok(refs.every(r => r.selector !== null || r.shadowClosed), `${file}: a ref without selector`);
        });
        assert.deepEqual(report, [], report.join('\n'));
        // A developer's run: 84 refs over every other real page (Chromium 156).
        assert.ok(total > (label === 'real' ? (FULL ? 500 : 60) : 50), `only ${total} refs were checked`);
    });
}
