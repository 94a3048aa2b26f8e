'use strict';
const native = require('./native.cjs');
const { webAiError } = require('./errors.cjs');

/** Registry hashes and ids are strings; a falsy value means "not known" (undefined for the addon). */
function str(v) {
    return v ? String(v) : undefined;
}

function fields(registry) {
    return {
        stale: registry.stale === true,
        snapshotId: str(registry.snapshotId),
        domHash: str(registry.domHash),
        axHash: str(registry.axHash),
    };
}

function freshness(ctx = {}) {
    return {
        expectedSnapshotId: str(ctx.expectedSnapshotId),
        currentDomHash: str(ctx.currentDomHash),
        currentAxHash: str(ctx.currentAxHash),
    };
}

function createRefRegistry(snapshot) {
    return {
        snapshotId: (snapshot && snapshot.snapshotId) || null,
        axHash: (snapshot && snapshot.axHash) || null,
        domHash: (snapshot && snapshot.domHash) || null,
        refs: { ...((snapshot && snapshot.refs) || {}) },
        createdAt: Date.now(),
        stale: false,
        invalidatedAt: null,
    };
}

function isRegistryStale(registry, ctx = {}) {
    return native.registryIsStale(registry ? fields(registry) : null, freshness(ctx || {}));
}

async function resolveRef(page, registry, ref, options = {}) {
    const { expectedSnapshotId = null, currentDomHash = null, currentAxHash = null, allowStale = false } = options || {};
    const normalized = native.normalizeRef(String(ref ?? ''));
    if (!allowStale && isRegistryStale(registry, { expectedSnapshotId, currentDomHash, currentAxHash })) {
        throw webAiError('snapshot.ref-stale', `ref ${normalized} belongs to a stale snapshot registry`.trim(), {
            ref: normalized,
            snapshotId: (registry && registry.snapshotId) || null,
            expectedSnapshotId: expectedSnapshotId || null,
            domHash: (registry && registry.domHash) || null,
            currentDomHash: currentDomHash || null,
            axHash: (registry && registry.axHash) || null,
            currentAxHash: currentAxHash || null,
            stale: Boolean(registry && registry.stale === true),
        });
    }
    const refs = registry && registry.refs;
    const entry = refs && Object.prototype.hasOwnProperty.call(refs, normalized) ? refs[normalized] : undefined;
    if (!entry) {
        throw webAiError('snapshot.ref-not-found', `ref ${normalized} not found in current snapshot registry`, {
            ref: normalized,
            snapshotId: (registry && registry.snapshotId) || null,
        });
    }
    return entry;
}

function invalidateRefsOnDomChange(registry, ctx = {}) {
    if (!registry) return false;
    const { domHash = null, axHash = null } = ctx || {};
    const next = native.registryInvalidation(fields(registry), str(domHash), str(axHash));
    if (!next) return false;
    registry.refs = {};
    registry.domHash = next[0];
    registry.axHash = next[1];
    registry.stale = true;
    registry.invalidatedAt = Date.now();
    return true;
}

/**
 * The Playwright locator of a ref: through `frameLocator` for each frame of
 * `framePath`, then each shadow host of `shadowPath`, then `selector`.
 * Null for a ref no selector reaches (inside a closed shadow root).
 */
function locatorForRef(page, entry) {
    if (!entry || typeof entry.selector !== 'string' || !entry.selector) return null;
    let scope = page;
    for (const frame of entry.framePath || []) scope = scope.frameLocator(frame);
    for (const host of entry.shadowPath || []) scope = scope.locator(host);
    return scope.locator(entry.selector);
}

module.exports = { createRefRegistry, resolveRef, invalidateRefsOnDomChange, isRegistryStale, locatorForRef };
