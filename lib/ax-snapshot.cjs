'use strict';
const native = require('./native.cjs');
const { WebAiError, webAiError, callNative, fromNative } = require('./errors.cjs');
const { domHashAround } = require('./dom-hash.cjs');
const { TIMED_OUT, withDeadline } = require('./deadline.cjs');
const { cdpSessionFor, frameSessionSend, forgetSession } = require('./sessions.cjs');

const DEFAULT_SNAPSHOT_MAX_DEPTH = 6;
const DEFAULT_MAX_NAME_CHARS = 900;
const DEFAULT_INTERACTIVE_ROLES = new Set([
    'button', 'link', 'textbox', 'searchbox', 'combobox', 'checkbox', 'radio',
    'switch', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'tab',
    'slider', 'spinbutton', 'treeitem', 'listbox', 'gridcell', 'cell',
]);
const DEFAULT_TIMEOUT_MS = 10000;

function estimateSnapshotTokens(text) {
    return native.estimateSnapshotTokens(String(text || ''));
}

function hashAccessibilitySnapshot(text) {
    return native.hashAccessibilitySnapshot(String(text || ''));
}

function hashDoctorField(value) {
    return native.hashDoctorField(String(value));
}

/** Options as JSON for the addon, which validates them (`snapshot.invalid-input`). */
function optionsJson(options) {
    if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
        throw webAiError('snapshot.invalid-input', `options must be an object, got ${Array.isArray(options) ? 'an array' : typeof options}`, { what: 'options' });
    }
    const o = { ...(options || {}) };
    for (const [k, v] of Object.entries(o)) {
        if (v === undefined) delete o[k];
        // JSON would turn these into null and hide the mistake.
        if (typeof v === 'number' && !Number.isFinite(v)) {
            throw webAiError('snapshot.invalid-input', `option \`${k}\` must be a finite number, got ${v}`, { what: `options.${k}` });
        }
    }
    return JSON.stringify(o);
}

function timeoutOf(options) {
    const t = options && options.timeoutMs;
    return typeof t === 'number' && t > 0 ? t : DEFAULT_TIMEOUT_MS;
}

function messageOf(err) {
    return err && err.message ? String(err.message) : String(err);
}

/** An accessor for a dotted path (one or two levels), built once per spec. */
function getter(path) {
    const [a, b] = path.split('.');
    if (b === undefined) {
        return o => {
            const v = o[a];
            return v === undefined ? null : v;
        };
    }
    return o => {
        const x = o[a];
        if (x === null || typeof x !== 'object') return null;
        const v = x[b];
        return v === undefined ? null : v;
    };
}

const projectors = new Map();

/**
 * Keep only the keys named in `spec` (a tree of keys, `true` for "all of
 * it"), through arrays: what the addon reads of a column-oriented reply such
 * as DOMSnapshot's. The recursion follows `spec`, which is the addon's and
 * a few levels deep, never the page's data.
 */
function pick(value, spec) {
    if (spec === true || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(v => pick(v, spec));
    const out = {};
    for (const key of Object.keys(spec)) {
        if (value[key] !== undefined) out[key] = pick(value[key], spec[key]);
    }
    return out;
}

/**
 * Copy the columns the addon asked for out of a parsed CDP result, as JSON
 * text. Generic on purpose: which fields matter is decided in Rust
 * (`cdp_rows::projection_spec`); this only avoids re-serialising the parts of
 * a huge answer that nobody reads.
 */
function project(result, spec) {
    if (spec.pick) return JSON.stringify(pick(result, spec.pick));
    const key = JSON.stringify(spec);
    let projector = projectors.get(key);
    if (!projector) {
        const columns = spec.columns.map(getter);
        const width = columns.length;
        const pairs = spec.pairs;
        const pairKey = pairs ? getter(pairs.key) : null;
        const pairValue = pairs ? getter(pairs.value) : null;
        const wanted = pairs ? new Set(pairs.keys) : null;
        const dropColumn = spec.drop ? spec.drop.column : -1;
        const dropValues = new Set(spec.drop ? spec.drop.values : []);
        projector = items => {
            const rows = [];
            for (let i = 0; i < items.length; i += 1) {
                const item = items[i];
                if (item === null || typeof item !== 'object') {
                    rows.push(null);
                    continue;
                }
                const row = new Array(width + 1);
                for (let c = 0; c < width; c += 1) row[c] = columns[c](item);
                if (dropColumn >= 0 && dropValues.has(row[dropColumn])) continue;
                const flat = [];
                const list = pairs ? item[pairs.from] : null;
                if (Array.isArray(list)) {
                    for (let k = 0; k < list.length; k += 1) {
                        const entry = list[k];
                        if (entry === null || typeof entry !== 'object') continue;
                        const name = pairKey(entry);
                        if (wanted.has(name)) flat.push(name, pairValue(entry));
                    }
                }
                row[width] = flat;
                rows.push(row);
            }
            return rows;
        };
        projectors.set(key, projector);
    }
    const items = result && Array.isArray(result[spec.rows]) ? result[spec.rows] : [];
    return JSON.stringify(projector(items));
}

/**
 * Drive a capture over any CDP `send(method, params)`. The plan (which calls,
 * in which order) is the addon's; this loop moves JSON text, handing each
 * reply over as it arrives so the addon reads the tree while the page still
 * answers the rest of the batch.
 */
async function captureOverCdp(send, optsJson, timings = null, frameSend = null) {
    // `frameSend(frameId)`, when given, resolves a send for an out-of-process
    // frame's own session; commands the plan addresses to such a frame
    // (`cmd.session`) go through it.
    // `timings`, when given, collects how long our own work took (ms), apart
    // from waiting for the browser: the benchmark reports it.
    const clock = timings ? () => performance.now() : () => 0;
    const session = callNative(() => new native.CaptureSession(optsJson));
    let batch = JSON.parse(session.start());
    for (;;) {
        const remaining = session.remainingMs();
        let late = null;
        await Promise.all(batch.map(async cmd => {
            let result;
            try {
                let target = send;
                if (cmd.session) {
                    target = frameSend ? await withDeadline(frameSend(cmd.session), remaining) : null;
                    if (target === TIMED_OUT) target = null;
                    if (!target) throw new Error('an out-of-process frame is reachable only through a Playwright page (its own CDP session)');
                }
                result = remaining <= 0 ? TIMED_OUT : await withDeadline(target(cmd.method, cmd.params), session.remainingMs());
            } catch (err) {
                session.receive(cmd.id, null, messageOf(err));
                return;
            }
            if (result === TIMED_OUT) {
                if (cmd.optional) session.receive(cmd.id, null, `no answer within timeoutMs`);
                else late = late || cmd.method;
                return;
            }
            const t0 = clock();
            let text;
            try {
                text = cmd.project ? project(result, cmd.project) : JSON.stringify(result === undefined ? {} : result);
            } catch (err) {
                session.receive(cmd.id, null, `the reply could not be read: ${messageOf(err)}`);
                return;
            }
            const t1 = clock();
            session.receive(cmd.id, text, null);
            if (timings) {
                timings.project = (timings.project || 0) + (t1 - t0);
                timings.receive = (timings.receive || 0) + (clock() - t1);
            }
        }));
        if (late) throw new WebAiError(JSON.parse(session.timeoutError(late)));
        const t2 = clock();
        const step = JSON.parse(callNative(() => session.advance()));
        if (timings) timings.advance = (timings.advance || 0) + (clock() - t2);
        if (step.snapshot) {
            // Fire-and-forget (DOM.disable): nothing waits on it, failures do not matter.
            for (const cmd of step.cleanup || []) {
                Promise.resolve()
                    .then(async () => {
                        const target = cmd.session ? (frameSend ? await frameSend(cmd.session) : null) : send;
                        if (target) await target(cmd.method, cmd.params);
                    })
                    .catch(() => undefined);
            }
            return step.snapshot;
        }
        batch = step.commands;
    }
}

function isPlaywrightPage(page) {
    return page && typeof page.context === 'function' && typeof page.url === 'function';
}

function hasLegacyAccessibility(page) {
    return Boolean(page && page.accessibility && typeof page.accessibility.snapshot === 'function');
}

async function viaPlaywright(page, optsJson, options) {
    let session;
    try {
        const ctx = page.context();
        if (!ctx || typeof ctx.newCDPSession !== 'function') throw new Error('this Playwright page has no newCDPSession');
        session = await withDeadline(cdpSessionFor(page), timeoutOf(options));
        if (session === TIMED_OUT) {
            forgetSession(page);
            throw webAiError('snapshot.timeout', `opening a CDP session exceeded timeoutMs (${timeoutOf(options)} ms)`, { method: 'newCDPSession', timeoutMs: timeoutOf(options) });
        }
    } catch (err) {
        if (err instanceof WebAiError) throw err;
        // Firefox/WebKit pages have no CDP; old Playwright may still offer the legacy tree.
        if (hasLegacyAccessibility(page)) return viaLegacy(page, options);
        throw webAiError('snapshot.unavailable', `no way to read the page's accessibility tree: ${messageOf(err)}`, { reason: messageOf(err) });
    }
    try {
        return await captureOverCdp((method, params) => session.send(method, params), optsJson, null, frameId => frameSessionSend(page, frameId));
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
                : withDeadline(domHashAround(page, [rootSelector || 'body'], { maxChars: options.domHashMaxChars ?? 32768 }).catch(() => null), left),
            typeof page.title === 'function' ? withDeadline(Promise.resolve().then(() => page.title()).catch(() => null), left) : null,
        ]);
        const facts = {
            url: typeof page.url === 'function' ? (page.url() || null) : null,
            title: typeof title === 'string' ? title : null,
            domHash: typeof domHash === 'string' ? domHash : null,
        };
        const { rootSelector: _applied, ...rest } = options;
        const snapshot = JSON.parse(callNative(native.snapshotFromTree, 'legacy', flattenLegacyTree(tree), optionsJson(rest), JSON.stringify(facts)));
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
    const optsJson = optionsJson(options);
    const opts = JSON.parse(optsJson);
    if (isPlaywrightPage(page)) return viaPlaywright(page, optsJson, opts);
    if (page && page.cdp && typeof page.cdp.send === 'function') {
        const cdp = page.cdp;
        return captureOverCdp((method, params) => cdp.send(method, params), optsJson);
    }
    if (page && typeof page.cdpEndpoint === 'string') {
        const { cdpEndpoint, targetId = null, urlIncludes = null } = page;
        // The Rust core connects by itself, off the JS thread.
        const json = await native.captureNative(cdpEndpoint, targetId == null ? null : String(targetId), urlIncludes == null ? null : String(urlIncludes), optsJson)
            .catch(err => { throw fromNative(err); });
        return JSON.parse(json);
    }
    if (hasLegacyAccessibility(page)) return viaLegacy(page, opts);
    throw webAiError('snapshot.unavailable',
        'no way to read the page\'s accessibility tree: pass a Playwright page, { cdp: { send } }, or a page with accessibility.snapshot()',
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
    const optsJson = optionsJson(options);
    const [kind, json] = recordedInput(input);
    const facts = options && (options.url || options.title) ? JSON.stringify({ url: options.url ?? null, title: options.title ?? null }) : null;
    const { url: _u, title: _t, ...rest } = options || {};
    return JSON.parse(callNative(native.snapshotFromTree, kind, json, facts ? optionsJson(rest) : optsJson, facts));
}

function extractInteractiveRefs(snapshotOrTree, prefix = '@e') {
    const s = snapshotOrTree;
    if (s && typeof s === 'object' && s.refs && typeof s.refs === 'object' && !s.role) return { ...s.refs };
    if (s === null || s === undefined) return {};
    const snapshot = buildWebAiSnapshotFromAxTree(s, { refPrefix: String(prefix), allRefs: true, refsOnly: true, includeDomHash: false });
    return snapshot.refs;
}

function summarizeSnapshotForDoctor(snapshot, { maxRefs = 8 } = {}) {
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
    return JSON.parse(callNative(native.summarizeForDoctor, JSON.stringify(lean), Number(maxRefs)));
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
