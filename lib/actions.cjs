'use strict';
// Actions by ref (seed 001 §1.1): click, fill, select, scroll. The action
// itself (its checks, the hit test, input events, seed 001's error codes,
// one deadline) runs in the Rust core over the same transport as capture,
// on a Playwright page, `{ cdp }` or `{ cdpEndpoint }` alike. This layer
// finds the ref's entry in the snapshot and takes the fresh snapshot after.
const native = require('./native.cjs');
const ax = require('./ax-snapshot.cjs');
const { adapt } = require('./transport.cjs');
const { runActionWith, targetOf } = require('./action-run.cjs');
const { webAiError, callNative } = require('./raise.cjs');

const ACTION_ERRORS = Object.freeze(native.actionErrorCodes());
const { DEFAULT_ACTION_TIMEOUT_MS } = native;

/**
 * Run one action against the refs of `snapshot` (the latest one: refs are
 * valid for one snapshot only) and take a fresh snapshot.
 *   action: 'click' | 'fill' | 'select' | 'scroll'
 *   args: { ref?, value?, clear_first?, direction?, amount?, snapshot_id? }
 *   options: { timeoutMs = 2000, snapshotOptions }
 */
async function runAction(source, snapshot, action, args = {}, options = {}) {
    const o = options || {};
    return runActionWith(source, snapshot, action, args, o, async () => ({ snapshot: await ax.buildWebAiSnapshot(source, o.snapshotOptions || {}) }));
}

/**
 * Check a ref's element on the live page: `{ verdict: 'same' | 'minor' |
 * 'changed' | 'gone', message, now: { role, name } | null }`.
 */
async function verifyRefLive(source, entry, timeoutMs = native.DEFAULT_TIMEOUT_MS) {
    const t = adapt(source);
    if (t.kind !== 'playwright' && t.kind !== 'cdp') throw webAiError('snapshot.invalid-input', 'verifying a ref needs a Playwright page or { cdp: { send } }', { what: 'page' });
    const r = await callNative(native.verifyOver, t.send, targetOf(entry) || {}, Math.max(1, Math.round(timeoutMs)));
    if (!r.verdict) throw Object.assign(new Error(r.failure || 'the element could not be checked'), { timedOut: r.timedOut === true });
    return { verdict: r.verdict.verdict, message: r.verdict.message ?? null, now: r.verdict.now ?? null };
}

module.exports = { ACTION_ERRORS, DEFAULT_ACTION_TIMEOUT_MS, runAction, verifyRefLive };
