'use strict';
const native = require('./native.cjs');
const { webAiError } = require('./raise.cjs');

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

function notFound(ref, registry) {
    return webAiError('snapshot.ref-not-found', `ref ${ref} not found in current snapshot registry`, {
        ref,
        snapshotId: (registry && registry.snapshotId) || null,
    });
}

/** A ref's entry from the page's kept snapshots (current or previous) with the registry's snapshotId. */
function keptEntry(page, snapshotId, ref) {
    if (!snapshotId) return null;
    const { snapshotHistory } = require('./ax-snapshot.cjs');
    const { current, previous } = snapshotHistory(page);
    const s = [current, previous].find(x => x && x.snapshotId === snapshotId);
    return s && Object.hasOwn(s.refs, ref) ? s.refs[ref] : null;
}

/**
 * `verify: true`: check the element on the live page. Gone, or another role
 * or name: `snapshot.ref-stale` whose message says what changed. The same
 * element with a minor text change (or a stale registry whose element is
 * verifiably unchanged) resolves with `note`. The result carries `current`,
 * the role and name the page reports now.
 */
async function resolveVerified(page, registry, normalized, options) {
    const { timeoutMs = native.DEFAULT_VERIFY_TIMEOUT_MS } = options;
    const refs = registry && registry.refs;
    let entry = refs && Object.hasOwn(refs, normalized) ? refs[normalized] : undefined;
    // invalidateRefsOnDomChange clears refs; the kept snapshot still knows what the ref was.
    entry = entry || keptEntry(page, registry && registry.snapshotId, normalized);
    if (!entry) throw notFound(normalized, registry);
    const { verifyRefLive } = require('./actions.cjs');
    // The core bounds every browser call of the check by timeoutMs.
    const live = await verifyRefLive(page, entry, timeoutMs).catch(err => {
        if (err && err.timedOut) throw webAiError('snapshot.timeout', `verifying ${normalized} exceeded ${timeoutMs} ms`, { ref: normalized, timeoutMs });
        const message = err && err.message ? err.message : String(err);
        throw webAiError('snapshot.capture-failed', `verifying ${normalized} failed: ${message}`, { ref: normalized, message });
    });
    const was = { role: entry.role, name: entry.name };
    if (live.verdict === 'gone' || live.verdict === 'changed') {
        throw webAiError('snapshot.ref-stale', live.message, { ref: normalized, snapshotId: (registry && registry.snapshotId) || null, was, now: live.now });
    }
    const stale = isRegistryStale(registry, options);
    const note = live.verdict === 'minor' || stale ? 'Note: Element may have changed. Using current state.' : null;
    return { ...entry, current: live.now, note };
}

async function resolveRef(page, registry, ref, options = {}) {
    const { expectedSnapshotId = null, currentDomHash = null, currentAxHash = null, allowStale = false, verify = false } = options || {};
    const normalized = native.normalizeRef(String(ref ?? ''));
    if (verify) return resolveVerified(page, registry, normalized, options || {});
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
    const entry = refs && Object.hasOwn(refs, normalized) ? refs[normalized] : undefined;
    if (!entry) throw notFound(normalized, registry);
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
