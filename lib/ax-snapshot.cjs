'use strict';
const native = require('./native.cjs');
const { WebAiError } = require('./errors.cjs');
const { webAiError, callNative, unwrapOutcome } = require('./raise.cjs');
const { captureOverWith } = require('./worlds.cjs');
const { domHashAround } = require('./dom-hash.cjs');
const { TIMED_OUT, withDeadline } = require('./deadline.cjs');
const { cdpSessionFor, forgetSession } = require('./sessions.cjs');
const { adapt, requestSender } = require('./transport.cjs');
const { optionsOf } = require('./input.cjs');

const { DEFAULT_SNAPSHOT_MAX_DEPTH, DEFAULT_MAX_NAME_CHARS, DEFAULT_TIMEOUT_MS } = native;
const DEFAULT_INTERACTIVE_ROLES = new Set(native.defaultInteractiveRoles());

function estimateSnapshotTokens(text) {
    return native.estimateSnapshotTokens(String(text || ''));
}

function hashAccessibilitySnapshot(text) {
    return native.hashAccessibilitySnapshot(String(text || ''));
}

function hashDoctorField(value) {
    return native.hashDoctorField(String(value));
}

/** Options given as JSON text. */
function parseOptions(text) {
    try {
        return JSON.parse(text);
    } catch (err) {
        throw webAiError('snapshot.invalid-input', `options given as text must be JSON: ${err.message}`, { what: 'options' });
    }
}

function timeoutOf(options) {
    const t = options && options.timeoutMs;
    return typeof t === 'number' && t > 0 ? t : DEFAULT_TIMEOUT_MS;
}

function messageOf(err) {
    return err && err.message ? String(err.message) : String(err);
}

/** A finished capture outcome of the addon: the snapshot, or its error thrown. */
function snapshotOf(outcome, timings = null) {
    unwrapOutcome(outcome);
    if (timings) timings.rust = (timings.rust || 0) + outcome.processingMs;
    const snapshot = JSON.parse(outcome.snapshot);
    // The text comes as a string of its own (its place in the JSON is kept).
    if (typeof outcome.text === 'string') snapshot.text = outcome.text;
    return snapshot;
}

/**
 * Capture over any CDP `send(method, params)`. The plan (which calls, in
 * which order, with which deadline) is the addon's; it calls back for each
 * command. `frameSend(frameId)`, when given, resolves the send of an
 * out-of-process frame's own session. `timings`, when given, collects the
 * time spent in this package apart from waiting for the browser (ms):
 * `project` (JS, replies to text) and `rust` (reading, serializing).
 */
async function captureOverCdp(send, options, timings = null, frameSend = null) {
    const opts = optionsOf(typeof options === 'string' ? parseOptions(options) : options);
    const outcome = await captureOverWith(send, requestSender(send, frameSend, timings), opts);
    return snapshotOf(outcome, timings);
}

function hasLegacyAccessibility(page) {
    return Boolean(page && page.accessibility && typeof page.accessibility.snapshot === 'function');
}

async function viaPlaywright(page, opts) {
    let session;
    try {
        const ctx = page.context();
        if (!ctx || typeof ctx.newCDPSession !== 'function') throw new Error('this Playwright page has no newCDPSession');
        session = await withDeadline(cdpSessionFor(page), timeoutOf(opts));
        if (session === TIMED_OUT) {
            forgetSession(page);
            throw webAiError('snapshot.timeout', `opening a CDP session exceeded timeoutMs (${timeoutOf(opts)} ms)`, { method: 'newCDPSession', timeoutMs: timeoutOf(opts) });
        }
    } catch (err) {
        if (err instanceof WebAiError) throw err;
        // Firefox/WebKit pages have no CDP; old Playwright may still offer the legacy tree.
        if (hasLegacyAccessibility(page)) return viaLegacy(page, opts);
        throw webAiError('snapshot.unavailable', `no way to read the page's accessibility tree: ${messageOf(err)}`, { reason: messageOf(err) });
    }
    try {
        return snapshotOf(await captureOverWith(page, adapt(page).send, opts));
    } catch (err) {
        forgetSession(page);
        throw err;
    }
}

/**
 * Flatten a nested legacy tree into `{ legacyNodes }` with child indices,
 * iteratively, so arbitrarily deep or cyclic objects cannot overflow a stack.
 */
function flattenLegacyTree(tree) {
    if (tree === null || tree === undefined) return '{"legacyNodes":[]}';
    const parts = [];
    const seen = new Set();
    const stack = [tree];
    const order = new Map();
    // First pass: number nodes in document order.
    const queue = [];
    while (stack.length) {
        const node = stack.pop();
        if (node === null || typeof node !== 'object' || seen.has(node)) {
            queue.push(null);
            continue;
        }
        seen.add(node);
        order.set(node, queue.length);
        queue.push(node);
        const kids = Array.isArray(node.children) ? node.children : [];
        for (let i = kids.length - 1; i >= 0; i -= 1) stack.push(kids[i]);
    }
    for (const node of queue) {
        if (node === null) { parts.push('null'); continue; }
        const kids = Array.isArray(node.children) ? node.children : [];
        const children = [];
        for (const k of kids) {
            const idx = k !== null && typeof k === 'object' ? order.get(k) : undefined;
            // A child already placed elsewhere (a cycle or shared node) is dropped.
            if (idx !== undefined && idx > order.get(node)) children.push(idx);
        }
        const copy = {};
        for (const key of Object.keys(node)) {
            if (key !== 'children') copy[key] = node[key];
        }
        copy.children = children;
        let text;
        try {
            text = JSON.stringify(copy);
        } catch {
            text = 'null';
        }
        parts.push(text === undefined ? 'null' : text);
    }
    return `{"legacyNodes":[${parts.join(',')}]}`;
}

async function viaLegacy(page, options) {
    const timeoutMs = timeoutOf(options);
    const rootSelector = options.rootSelector || null;
    let root = null;
    try {
        if (rootSelector) {
            root = await withDeadline(page.locator(rootSelector).elementHandle({ timeout: timeoutMs }).catch(() => null), timeoutMs);
            if (!root || root === TIMED_OUT) {
                throw webAiError('snapshot.root-not-found', `rootSelector matched nothing: ${rootSelector}`, { rootSelector });
            }
        }
        const started = Date.now();
        const tree = await withDeadline(
            page.accessibility.snapshot({ interestingOnly: options.interactiveOnly !== false, ...(root ? { root } : {}) }),
            timeoutMs,
        ).catch(err => {
            throw webAiError('snapshot.capture-failed', `accessibility.snapshot() failed: ${messageOf(err)}`, { method: 'accessibility.snapshot', message: messageOf(err) });
        });
        if (tree === TIMED_OUT) {
            throw webAiError('snapshot.timeout', `accessibility.snapshot() exceeded timeoutMs (${timeoutMs} ms)`, { method: 'accessibility.snapshot', timeoutMs });
        }
        const left = Math.max(1, timeoutMs - (Date.now() - started));
        const [domHash, title] = await Promise.all([
            options.includeDomHash === false ? null
                : withDeadline(domHashAround(page, [rootSelector || 'body'], { maxChars: options.domHashMaxChars ?? native.DEFAULT_DOM_HASH_MAX_CHARS }).catch(() => null), left),
            typeof page.title === 'function' ? withDeadline(Promise.resolve().then(() => page.title()).catch(() => null), left) : null,
        ]);
        const facts = {
            url: typeof page.url === 'function' ? (page.url() || undefined) : undefined,
            title: typeof title === 'string' ? title : undefined,
            domHash: typeof domHash === 'string' ? domHash : undefined,
        };
        const { rootSelector: _applied, ...rest } = options;
        const snapshot = JSON.parse(callNative(native.snapshotFromTree, 'legacy', flattenLegacyTree(tree), optionsOf(rest), facts));
        snapshot.stats.captureMs = Math.round((Date.now() - started) * 1000) / 1000;
        return snapshot;
    } finally {
        if (root && root !== TIMED_OUT && typeof root.dispose === 'function') await root.dispose().catch(() => undefined);
    }
}

const histories = new WeakMap();

/** The latest snapshot of a page and the one before it (one, not a history), for stale-ref checks. */
function snapshotHistory(page) {
    return (page && typeof page === 'object' && histories.get(page)) || { current: null, previous: null };
}

async function buildWebAiSnapshot(page, options = {}) {
    const snapshot = await captureSnapshot(page, options);
    if (page && typeof page === 'object') histories.set(page, { current: snapshot, previous: snapshotHistory(page).current });
    return snapshot;
}

async function captureSnapshot(page, options = {}) {
    const opts = optionsOf(options);
    const source = adapt(page);
    if (source.kind === 'playwright') return viaPlaywright(page, opts);
    if (source.kind === 'cdp') return snapshotOf(await captureOverWith(page.cdp, source.send, opts));
    // The Rust core connects by itself; waiting on the browser holds no thread.
    if (source.kind === 'endpoint') return snapshotOf(await callNative(native.captureNative, source.endpoint, opts));
    if (hasLegacyAccessibility(page)) return viaLegacy(page, opts);
    throw webAiError('snapshot.unavailable',
        'no way to read the page\'s accessibility tree: pass a Playwright page, { cdp: { send } }, { cdpEndpoint }, or a page with accessibility.snapshot()',
        { received: page === null ? 'null' : typeof page });
}

/** Which reader a recorded input needs, and its JSON text. */
function recordedInput(input) {
    if (input === null || input === undefined) return ['legacy', '{"legacyNodes":[]}'];
    if (typeof input === 'string') {
        const t = input.trimStart();
        const cdp = t.startsWith('[') || /^\{\s*"nodes"\s*:/.test(t) || !/"role"\s*:\s*"/.test(t.slice(0, 4096));
        return [cdp ? 'cdp' : 'legacy', input];
    }
    if (typeof input !== 'object') {
        throw webAiError('snapshot.invalid-input', `a recorded accessibility tree must be an object, array or JSON text, got ${typeof input}`, { what: 'axTree' });
    }
    if (Array.isArray(input) || Array.isArray(input.nodes)) {
        try {
            return ['cdp', JSON.stringify(input)];
        } catch (err) {
            throw webAiError('snapshot.invalid-input', `the accessibility tree cannot be read: ${messageOf(err)}`, { what: 'axTree' });
        }
    }
    return ['legacy', flattenLegacyTree(input)];
}

function buildWebAiSnapshotFromAxTree(input, options = {}) {
    const opts = optionsOf(options);
    const [kind, json] = recordedInput(input);
    const facts = opts.url || opts.title ? { url: opts.url ?? undefined, title: opts.title ?? undefined } : undefined;
    const { url: _u, title: _t, ...rest } = opts;
    return JSON.parse(callNative(native.snapshotFromTree, kind, json, facts ? rest : opts, facts));
}

function extractInteractiveRefs(snapshotOrTree, prefix = '@e') {
    const s = snapshotOrTree;
    if (s && typeof s === 'object' && s.refs && typeof s.refs === 'object' && !s.role) return { ...s.refs };
    if (s === null || s === undefined) return {};
    const snapshot = buildWebAiSnapshotFromAxTree(s, { refPrefix: String(prefix), allRefs: true, refsOnly: true, includeDomHash: false });
    return snapshot.refs;
}

function summarizeSnapshotForDoctor(snapshot, { maxRefs = native.DEFAULT_DOCTOR_MAX_REFS } = {}) {
    const s = snapshot && typeof snapshot === 'object' ? snapshot : {};
    const lean = {
        snapshotId: s.snapshotId ?? null,
        axHash: s.axHash ?? null,
        domHash: s.domHash ?? null,
        stats: s.stats && typeof s.stats === 'object' ? { interactiveCount: s.stats.interactiveCount, tokenEstimate: s.stats.tokenEstimate } : {},
        refs: Object.values(s.refs && typeof s.refs === 'object' ? s.refs : {}).map(r => ({
            ref: r && r.ref, role: r && r.role, name: r && r.name ? String(r.name) : null,
        })),
    };
    return native.summarizeForDoctor(lean, Number(maxRefs));
}

module.exports = {
    DEFAULT_SNAPSHOT_MAX_DEPTH,
    DEFAULT_MAX_NAME_CHARS,
    DEFAULT_INTERACTIVE_ROLES,
    buildWebAiSnapshot,
    buildWebAiSnapshotFromAxTree,
    estimateSnapshotTokens,
    hashAccessibilitySnapshot,
    extractInteractiveRefs,
    summarizeSnapshotForDoctor,
    hashDoctorField,
    snapshotHistory,
    // for the benchmark and adapters that already hold a session
    cdpSessionFor,
    captureOverCdp,
};
