import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRefRegistry, resolveRef, invalidateRefsOnDomChange, isRegistryStale, buildWebAiSnapshotFromAxTree, WebAiError } from '../lib/index.mjs';

const snapshot = () => {
    const s = buildWebAiSnapshotFromAxTree({ role: 'WebArea', name: 'P', children: [{ role: 'button', name: 'Send' }, { role: 'link', name: 'Home' }] });
    s.domHash = 'sha256:dom1';
    return s;
};

test('createRefRegistry binds refs to snapshotId, axHash and domHash as a plain mutable object', () => {
    const s = snapshot();
    const r = createRefRegistry(s);
    assert.equal(r.snapshotId, s.snapshotId);
    assert.equal(r.axHash, s.axHash);
    assert.equal(r.domHash, 'sha256:dom1');
    assert.deepEqual(Object.keys(r.refs), ['@e1', '@e2']);
    assert.notEqual(r.refs, s.refs);
    assert.equal(r.stale, false);
    assert.equal(r.invalidatedAt, null);
    assert.ok(Math.abs(r.createdAt - Date.now()) < 5000);
    const empty = createRefRegistry(null);
    assert.ok(Math.abs(empty.createdAt - Date.now()) < 5000);
    assert.deepEqual(empty, { snapshotId: null, axHash: null, domHash: null, refs: {}, createdAt: empty.createdAt, stale: false, invalidatedAt: null });
});

test('resolveRef returns the entry, normalising e3 to @e3', async () => {
    const r = createRefRegistry(snapshot());
    assert.equal((await resolveRef(null, r, '@e1')).name, 'Send');
    assert.equal((await resolveRef(null, r, 'e2')).name, 'Home');
    assert.equal((await resolveRef(null, r, ' e2 ')).name, 'Home');
});

test('resolveRef throws snapshot.ref-not-found for an unknown ref', async () => {
    const r = createRefRegistry(snapshot());
    await assert.rejects(resolveRef(null, r, 'e9'), err => err instanceof WebAiError && err.errorCode === 'snapshot.ref-not-found'
        && err.stage === 'snapshot-ref-resolve' && err.retryHint === 're-snapshot' && err.evidence.ref === '@e9');
    await assert.rejects(resolveRef(null, r, 'toString'), err => err.errorCode === 'snapshot.ref-not-found', 'prototype keys are not refs');
});

test('resolveRef throws snapshot.ref-stale on a snapshot id, DOM or AX hash mismatch, or a hand-set stale flag', async () => {
    const r = createRefRegistry(snapshot());
    for (const ctx of [{ expectedSnapshotId: 'other' }, { currentDomHash: 'sha256:dom2' }, { currentAxHash: 'sha256:ax2' }]) {
        await assert.rejects(resolveRef(null, r, 'e1', ctx), err => err.errorCode === 'snapshot.ref-stale' && err.retryHint === 're-snapshot');
        assert.equal((await resolveRef(null, r, 'e1', { ...ctx, allowStale: true })).name, 'Send');
    }
    assert.equal((await resolveRef(null, r, 'e1', { currentDomHash: 'sha256:dom1', currentAxHash: r.axHash, expectedSnapshotId: r.snapshotId })).name, 'Send');
    r.stale = true;
    assert.equal(isRegistryStale(r), true);
    await assert.rejects(resolveRef(null, r, 'e1'), err => err.errorCode === 'snapshot.ref-stale');
    await assert.rejects(resolveRef(null, null, 'e1'), err => err.errorCode === 'snapshot.ref-stale');
});

test('isRegistryStale: null is stale; unknown hashes are not a mismatch', () => {
    const r = createRefRegistry(snapshot());
    assert.equal(isRegistryStale(null), true);
    assert.equal(isRegistryStale(r), false);
    assert.equal(isRegistryStale(r, { currentDomHash: null, currentAxHash: '' }), false);
    assert.equal(isRegistryStale(r, { currentDomHash: 'sha256:other' }), true);
    r.domHash = null;
    assert.equal(isRegistryStale(r, { currentDomHash: 'sha256:other' }), false);
});

test('invalidateRefsOnDomChange clears refs and marks the registry on a change only', () => {
    const r = createRefRegistry(snapshot());
    assert.equal(invalidateRefsOnDomChange(r, { domHash: 'sha256:dom1', axHash: r.axHash }), false);
    assert.equal(Object.keys(r.refs).length, 2);
    const ax = r.axHash;
    assert.equal(invalidateRefsOnDomChange(r, { domHash: 'sha256:dom2' }), true);
    assert.deepEqual(r.refs, {});
    assert.equal(r.domHash, 'sha256:dom2');
    assert.equal(r.axHash, ax);
    assert.equal(r.stale, true);
    assert.equal(typeof r.invalidatedAt, 'number');
    const r2 = createRefRegistry(snapshot());
    assert.equal(invalidateRefsOnDomChange(r2, { axHash: 'sha256:ax2' }), true);
    assert.equal(r2.axHash, 'sha256:ax2');
    assert.equal(invalidateRefsOnDomChange(null, { domHash: 'x' }), false);
    assert.equal(invalidateRefsOnDomChange(r2), false);
});
