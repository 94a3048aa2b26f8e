import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { summarizeSnapshotForDoctor, selectorMatchSummary, buildWebAiSnapshot, hashDoctorField } from '../lib/index.mjs';
import { closeBrowser, openFixture, recording, replaySession } from './helpers.mjs';

after(closeBrowser);

test('summarizeSnapshotForDoctor carries hashes and counts, never names or text', async () => {
    const rec = recording('chatgpt');
    const s = await buildWebAiSnapshot({ cdp: replaySession(rec) });
    const sum = summarizeSnapshotForDoctor(s);
    assert.deepEqual(Object.keys(sum), ['enabled', 'contentSafe', 'snapshotId', 'axHash', 'domHash', 'interactiveCount', 'tokenEstimate', 'topRefs']);
    assert.equal(sum.enabled, true);
    assert.equal(sum.contentSafe, true);
    assert.equal(sum.snapshotId, s.snapshotId);
    assert.equal(sum.interactiveCount, 13);
    assert.equal(sum.tokenEstimate, s.stats.tokenEstimate);
    assert.equal(sum.topRefs.length, 8);
    const first = sum.topRefs[0];
    assert.deepEqual(first, { ref: '@e1', role: 'button', nameHash: hashDoctorField('New chat'), nameChars: 8 });
    assert.equal(first.nameHash, `sha256:${createHash('sha256').update('New chat').digest('hex').slice(0, 12)}`);
    const json = JSON.stringify(sum);
    for (const r of Object.values(s.refs)) if (r.name) assert.ok(!json.includes(`"${r.name}"`), r.name);
    assert.equal(summarizeSnapshotForDoctor(s, { maxRefs: 2 }).topRefs.length, 2);
});

test('summarizeSnapshotForDoctor tolerates missing pieces like the JS module', () => {
    assert.deepEqual(summarizeSnapshotForDoctor(null), {
        enabled: true, contentSafe: true, snapshotId: null, axHash: null, domHash: null, interactiveCount: 0, tokenEstimate: 0, topRefs: [],
    });
    const sum = summarizeSnapshotForDoctor({ refs: { a: { ref: '@e1', role: 'button', name: '' }, b: { ref: '@e2', role: 'link', name: '😀x' } } });
    assert.deepEqual(sum.topRefs, [{ ref: '@e1', role: 'button', nameHash: null, nameChars: 0 }, { ref: '@e2', role: 'link', nameHash: hashDoctorField('😀x'), nameChars: 3 }]);
});

test('selectorMatchSummary counts matches and visibility on a live page', async () => {
    const page = await openFixture('hidden.html');
    try {
        const out = await selectorMatchSummary(page, ['button', 'button[hidden]', '#nothing', 'div[[']);
        assert.deepEqual(out, [
            { selector: 'button', matched: 6, visible: true },
            { selector: 'button[hidden]', matched: 1, visible: false },
            { selector: '#nothing', matched: 0, visible: false },
            { selector: 'div[[', matched: 0, visible: false },
        ]);
    } finally {
        await page.close();
    }
});
