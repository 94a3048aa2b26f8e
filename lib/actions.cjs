'use strict';
// Actions by ref (seed 001 §1.1): click, fill, select, scroll. The action
// itself (its checks, the hit test, input events, seed 001's error codes,
// one deadline) runs in the Rust core over the same transport as capture,
// on a Playwright page, `{ cdp }` or `{ cdpEndpoint }` alike. This layer
// finds the ref's entry in the snapshot and takes the fresh snapshot after.
const native = require('./native.cjs');
const ax = require('./ax-snapshot.cjs');
const { adapt } = require('./transport.cjs');
const { webAiError, callNative } = require('./raise.cjs');

const ACTION_ERRORS = Object.freeze(native.actionErrorCodes());
const { DEFAULT_ACTION_TIMEOUT_MS } = native;

/** The fields of an ElementRef the core acts on. */
function targetOf(entry) {
    if (!entry || typeof entry !== 'object') return null;
    const { ref = '', role = '', name = '', backendNodeId = null, frameId = null } = entry;
    return { ref: String(ref), role: String(role), name: String(name ?? ''), backendNodeId, frameId };
}

/** A tool call's arguments as plain data (undefined members dropped, like JSON would). */
function plainArgs(args) {
    const out = {};
    if (!args || typeof args !== 'object') return out;
    for (const [k, v] of Object.entries(args)) {
        if (v !== undefined && typeof v !== 'function' && typeof v !== 'symbol' && typeof v !== 'bigint') out[k] = v;
    }
    return out;
}

function actionInput(snapshot, action, args, timeoutMs) {
    const a = plainArgs(args);
    const refs = snapshot && snapshot.refs && typeof snapshot.refs === 'object' ? snapshot.refs : null;
    const key = typeof a.ref === 'string' ? native.normalizeRef(a.ref) : null;
    const entry = refs && key && Object.prototype.hasOwnProperty.call(refs, key) ? refs[key] : null;
    return {
        action: String(action),
        args: a,
        snapshotId: refs ? String(snapshot.snapshotId ?? '') : undefined,
        refCount: refs ? Object.keys(refs).length : 0,
        target: targetOf(entry) ?? undefined,
        timeoutMs,
    };
}

/** Perform one action without the fresh snapshot: the core's outcome. */
async function act(source, snapshot, action, args, timeoutMs) {
    const input = actionInput(snapshot, action, args, timeoutMs);
    const t = adapt(source);
    if (t.kind === 'playwright' || t.kind === 'cdp') return callNative(native.actOver, t.send, input);
    if (t.kind === 'endpoint') return callNative(native.actNative, t.endpoint, input);
    return { success: false, error: 'invalid_params', message: 'actions need a Playwright page, { cdp: { send } } or { cdpEndpoint }', actionMs: 0 };
}

const round1 = ms => Math.round(ms * 10) / 10;

/**
 * Run one action against the refs of `snapshot` (the latest one: refs are
 * valid for one snapshot only) and take a fresh snapshot.
 *   action: 'click' | 'fill' | 'select' | 'scroll'
 *   args: { ref?, value?, clear_first?, direction?, amount?, snapshot_id? }
 *   options: { timeoutMs = 2000, snapshotOptions }
 */
async function runAction(source, snapshot, action, args = {}, options = {}) {
    const o = options || {};
    const timeoutMs = typeof o.timeoutMs === 'number' && o.timeoutMs > 0 ? Math.min(o.timeoutMs, 2 ** 31 - 1) : DEFAULT_ACTION_TIMEOUT_MS;
    const outcome = await act(source, snapshot, action, args, Math.round(timeoutMs));
    const started = performance.now();
    let fresh = null;
    let snapshotError = null;
    try {
        fresh = await ax.buildWebAiSnapshot(source, o.snapshotOptions || {});
    } catch (err) {
        snapshotError = err && err.message ? err.message : String(err);
    }
    const result = { success: outcome.success, snapshot: fresh, error: outcome.error ?? null, message: outcome.message ?? null };
    if (outcome.evidence) result.evidence = outcome.evidence;
    if (outcome.detail) Object.assign(result, outcome.detail);
    if (snapshotError) result.snapshotError = snapshotError;
    result.timings = { actionMs: round1(outcome.actionMs), snapshotMs: round1(performance.now() - started) };
    return result;
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
