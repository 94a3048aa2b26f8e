'use strict';
// What a user holds, adapted to what the addon drives: a Playwright page or
// a `{ cdp }` session becomes a `send(request)` the Rust core calls for each
// CDP command (capture, actions and tools all go through `adapt`); a
// `{ cdpEndpoint }` is handed to the core, which connects by itself.
const { cdpSessionFor, pageSend: playwrightSend, cdpSend, frameSessionSend } = require('./sessions.cjs');

function isPlaywrightPage(page) {
    return Boolean(page && typeof page.context === 'function' && typeof page.url === 'function');
}

function hasCdp(source) {
    return Boolean(source && source.cdp && typeof source.cdp.send === 'function');
}

function isEndpoint(source) {
    return Boolean(source && typeof source.cdpEndpoint === 'string');
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

/**
 * Keep only the keys named in `spec` (a tree of keys, `true` for "all of
 * it"), through arrays. The recursion follows `spec`, which is the addon's
 * and a few levels deep, never the page's data.
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

const projectors = new Map();

/**
 * A DOMSnapshot's strings with those that only the text of `rule.under`
 * elements uses (a page's inline scripts and styles, over a megabyte on
 * some news pages) and at least `rule.minChars` long, as ''. No rule of the
 * addon reads them, and serialising them again was most of the
 * projection's time (guardian-1: 1.2 of 1.5 MB). A string used anywhere
 * else is kept. Loops only, over the reply's flat arrays.
 */
function blankText(result, rule) {
    const strings = result && result.strings;
    const docs = result && result.documents;
    if (!Array.isArray(strings) || !Array.isArray(docs)) return strings;
    const under = new Set(rule.under);
    const candidates = new Set();
    const other = new Set();
    const use = x => { if (typeof x === 'number' && x >= 0) other.add(x); };
    const useAll = list => { if (Array.isArray(list)) for (let k = 0; k < list.length; k += 1) use(list[k]); };
    for (const d of docs) {
        if (d === null || typeof d !== 'object') continue;
        for (const key of ['documentURL', 'title', 'baseURL', 'contentLanguage', 'encodingName', 'publicId', 'systemId', 'frameId']) use(d[key]);
        const n = d.nodes;
        if (n && typeof n === 'object') {
            const parent = Array.isArray(n.parentIndex) ? n.parentIndex : [];
            const name = Array.isArray(n.nodeName) ? n.nodeName : [];
            const type = Array.isArray(n.nodeType) ? n.nodeType : [];
            const value = Array.isArray(n.nodeValue) ? n.nodeValue : [];
            for (let i = 0; i < value.length; i += 1) {
                const v = value[i];
                if (typeof v !== 'number' || v < 0) continue;
                const p = parent[i];
                const text = strings[v];
                if (type[i] === 3 && typeof text === 'string' && text.length >= rule.minChars && p >= 0 && under.has(strings[name[p]])) {
                    candidates.add(v);
                } else {
                    other.add(v);
                }
            }
            useAll(name);
            if (Array.isArray(n.attributes)) for (const a of n.attributes) useAll(a);
            for (const key of ['textValue', 'inputValue', 'currentSourceURL', 'originURL', 'pseudoIdentifier', 'shadowRootType', 'pseudoType']) {
                if (n[key] && typeof n[key] === 'object') useAll(n[key].value);
            }
        }
        const l = d.layout;
        if (l && typeof l === 'object') {
            if (Array.isArray(l.styles)) for (const s of l.styles) useAll(s);
            useAll(l.text);
        }
    }
    if (candidates.size === 0) return strings;
    const out = strings.slice();
    for (const i of candidates) if (!other.has(i)) out[i] = '';
    return out;
}

/**
 * Copy the columns the addon asked for out of a parsed CDP result, as JSON
 * text. Which fields matter is decided in Rust (`projection_spec`); this only
 * avoids re-serialising the parts of a huge answer that nobody reads.
 */
function project(result, spec) {
    if (spec.pick) {
        const picked = pick(result, spec.pick);
        if (spec.blankText && picked && typeof picked === 'object') picked.strings = blankText(result, spec.blankText);
        return JSON.stringify(picked);
    }
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

const NO_FRAME_SESSION = 'an out-of-process frame is reachable only through a Playwright page (its own CDP session)';

/**
 * The addon's `send(request)` over CDP senders: `pageSend(method, params)`
 * and, when given, `frameSend(frameId)` resolving the send of an
 * out-of-process frame's own session. `timings.project` (ms), when given,
 * collects the time spent turning replies into text.
 */
function requestSender(pageSend, frameSend = null, timings = null) {
    return async request => {
        let target = pageSend;
        if (request.session) {
            target = frameSend ? await frameSend(request.session) : null;
            if (!target) throw new Error(NO_FRAME_SESSION);
        }
        const result = await target(request.method, request.params);
        const t0 = timings ? performance.now() : 0;
        const text = request.project ? project(result, request.project) : JSON.stringify(result === undefined ? {} : result);
        if (timings) timings.project = (timings.project || 0) + (performance.now() - t0);
        return text;
    };
}

/**
 * What the addon needs to reach `source`:
 *   { kind: 'playwright' | 'cdp', send }  a session JS holds;
 *   { kind: 'endpoint', endpoint }        the core connects by itself;
 *   { kind: null }                        nothing it can drive.
 * A Playwright page's CDP session is opened on first use (`session()` waits for it).
 */
function adapt(source, timings = null) {
    if (isPlaywrightPage(source)) {
        const session = () => cdpSessionFor(source);
        return { kind: 'playwright', session, send: requestSender(playwrightSend(source), frameId => frameSessionSend(source, frameId), timings) };
    }
    if (hasCdp(source)) {
        const cdp = source.cdp;
        return { kind: 'cdp', send: requestSender(cdpSend(cdp), null, timings) };
    }
    if (isEndpoint(source)) {
        const { cdpEndpoint, targetId = null, urlIncludes = null, maxMessageBytes = null } = source;
        return {
            kind: 'endpoint',
            endpoint: {
                cdpEndpoint,
                targetId: targetId == null ? undefined : String(targetId),
                urlIncludes: urlIncludes == null ? undefined : String(urlIncludes),
                // Checked in Rust: a non-number becomes NaN and an invalid-input error.
                maxMessageBytes: maxMessageBytes == null ? undefined : typeof maxMessageBytes === 'number' ? maxMessageBytes : Number.NaN,
            },
        };
    }
    return { kind: null };
}

module.exports = { adapt, requestSender, blankText };
