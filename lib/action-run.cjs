'use strict';
// One action and the fresh snapshot after it: shared by \`runAction\` (whose
// snapshot numbers refs from 1) and a page session (which settles first and
// keeps refs stable). Not part of the public surface.
const native = require('./native.cjs');
const { adapt } = require('./transport.cjs');
const { callNative } = require('./raise.cjs');
const { WebAiError } = require('./errors.cjs');

const { DEFAULT_ACTION_TIMEOUT_MS } = native;

/** The fields of an ElementRef the core acts on. */
function targetOf(entry) {
    if (!entry || typeof entry !== 'object') return null;
    const { ref = '', role = '', name = '', backendNodeId = null, frameId = null, blockedBy = null } = entry;
    const target = { ref: String(ref), role: String(role), name: String(name ?? ''), backendNodeId, frameId };
    if (typeof blockedBy === 'string') target.blockedBy = blockedBy;
    return target;
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
    const entry = refs && key && Object.hasOwn(refs, key) ? refs[key] : null;
    return {
        action: String(action),
        args: a,
        snapshotId: refs ? String(snapshot.snapshotId ?? '') : undefined,
        refCount: refs ? Object.keys(refs).length : 0,
        target: targetOf(entry) ?? undefined,
        timeoutMs,
    };
}

/** Codes that say the tab (or the browser) is gone: nothing after them can succeed. */
const FATAL = new Set(['target.detached', 'target.crashed', 'connection.closed']);
/** Whether an error says the tab (or the browser) is gone. */
const isFatal = err => Boolean(err && FATAL.has(err.errorCode));

/** The fault an action outcome carries when the tab or the browser went away, or null. */
function fatalOf(outcome) {
    const e = outcome && outcome.evidence;
    return e && typeof e === 'object' && FATAL.has(e.errorCode) ? e.errorCode : null;
}

/**
 * Perform one action without the fresh snapshot: the core's outcome. `via`
 * (a page session's own connection) acts in place of `source`'s transport.
 */
async function act(source, snapshot, action, args, timeoutMs, via = null) {
    const input = actionInput(snapshot, action, args, timeoutMs);
    if (via) return via(input);
    const t = adapt(source);
    if (t.kind === 'playwright' || t.kind === 'cdp') return callNative(native.actOver, t.send, input);
    if (t.kind === 'endpoint') return callNative(native.actNative, t.endpoint, input);
    return { success: false, error: 'invalid_params', message: 'actions need a Playwright page, { cdp: { send } } or { cdpEndpoint }', actionMs: 0 };
}

const round1 = ms => Math.round(ms * 10) / 10;

/**
 * `runAction` with the fresh snapshot taken by `after()` (a page session
 * settles first and numbers refs its own way): `{ snapshot, settle? }`.
 */
async function runActionWith(source, snapshot, action, args, options, after) {
    const o = options || {};
    const timeoutMs = typeof o.timeoutMs === 'number' && o.timeoutMs > 0 ? Math.min(o.timeoutMs, 2 ** 31 - 1) : DEFAULT_ACTION_TIMEOUT_MS;
    const outcome = await act(source, snapshot, action, args, Math.round(timeoutMs), o.via || null);
    // A page session ends at once when the tab is gone: no settling, no snapshot of a page that is not there.
    const fatal = o.throwFatal ? fatalOf(outcome) : null;
    if (fatal) {
        const { errorPayload } = native;
        const inner = outcome.evidence.evidence;
        throw new WebAiError({ ...errorPayload(fatal, outcome.message || fatal, inner === undefined ? null : inner) });
    }
    const started = performance.now();
    let fresh = null;
    let settle = null;
    let snapshotError = null;
    try {
        // `lookError`: the look after a settle failed, and the settle is still reported.
        let lookError;
        ({ snapshot: fresh, settle = null, lookError } = await after(outcome));
        if (lookError) throw lookError;
    } catch (err) {
        snapshotError = err && err.message ? err.message : String(err);
    }
    const result = { success: outcome.success, snapshot: fresh, error: outcome.error ?? null, message: outcome.message ?? null };
    if (outcome.evidence) result.evidence = outcome.evidence;
    if (outcome.detail) Object.assign(result, outcome.detail);
    if (snapshotError) result.snapshotError = snapshotError;
    if (settle) result.settle = settle;
    result.timings = { actionMs: round1(outcome.actionMs), snapshotMs: round1(performance.now() - started) };
    if (settle) result.timings.settleMs = settle.waitedMs;
    return result;
}

module.exports = { runActionWith, targetOf, isFatal };
