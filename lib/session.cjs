'use strict';
// A page session: the agent's loop (look, act, wait, look again) as one
// object. Within a session refs are stable (an element keeps its ref for as
// long as it exists; a new one gets a number never used before), every
// snapshot carries a revision that moves only on a meaningful change and a
// delta from the one before, `waitForUiChange` waits for the page to change
// and hold still, actions wait for the page to settle, and a repeat look at
// an unchanged page is answered from cache.
//
// The session's state and rules (stable numbering, the mirror, when the
// revision moves, the latest text of each shape, the cache, the loading
// state, the delta) are the Rust core's, in the session's NativeSession
// (src/page_session/). This layer keeps what must be JS: the snapshot and
// ref objects it hands back, the timers of its waits and settling, and
// Playwright's request events.
const crypto = require('node:crypto');
const native = require('./native.cjs');
const { adapt } = require('./transport.cjs');
const { pageSend, cdpSend } = require('./sessions.cjs');
const { webAiError, unwrapOutcome } = require('./raise.cjs');
const { optionsOf } = require('./input.cjs');
// isFatal: the codes that say the tab or the browser is gone (a session's calls end at once with them).
const { runActionWith, isFatal } = require('./action-run.cjs');
const { captureOverWith, worldOf, keepWorld } = require('./worlds.cjs');
const { TIMED_OUT, withDeadline } = require('./deadline.cjs');

/** The watcher (src/page/watch.js, embedded in the addon) without its opening comment. */
const WATCH_SOURCE = native.WATCH_SOURCE.replace(/^(\s*\/\/[^\n]*\n)+/, '').trim();

/** Where the watcher function lives in the isolated world (src/page/mod.rs names our world's globals). */
const WATCH_GLOBAL = native.WATCH_GLOBAL;
/**
 * The page's loading signals as the snapshot shows the page: a repeat capture
 * that reads changed subtrees evaluates this (in our world, where the watcher
 * is) with its reads, so the session needs no look of its own after it.
 */
const LOADING_LOOK = `globalThis.${WATCH_GLOBAL}.apply(null, ${JSON.stringify([{ loading: true, light: true }])})`;
const DEFAULT_CACHE_TTL_MS = 5000;
const DEFAULT_SETTLE_MS = 1500;
const DEFAULT_QUIET_MS = 100;
const DEFAULT_WAIT_TIMEOUT_MS = 5000;
const DEFAULT_STABILITY_WINDOW_MS = 300;
const CHANGE_KINDS = Object.freeze(['hierarchy_diff', 'text_change', 'state_change']);
/** Above this many remembered elements the oldest are forgotten (their numbers are never given again). */
const MAX_REMEMBERED_REFS = 50000;
/** Request types that never finish and say nothing about the page settling. */
const ENDLESS = new Set(['websocket', 'eventsource', 'WebSocket', 'EventSource']);

/** The page's text of a snapshot: without the untrusted-content boundaries (a new nonce each time). */
function bodyOf(snapshot) {
    const text = snapshot.fullText ?? snapshot.text;
    return snapshot.untrusted ? native.unwrapUntrusted(text) : text;
}

/** The core's comparison of two snapshots; the delta text inside boundaries when `b`'s text has them. */
function compareTexts(a, b, from, to) {
    const c = native.compareSnapshots(bodyOf(a), a.url ?? null, bodyOf(b), b.url ?? null, from, to);
    if (b.untrusted) c.delta.text = native.markUntrusted(c.delta.text, b.untrusted.nonce, b.untrusted.origin);
    return c;
}

/**
 * A ref object of its own: its only arrays, `framePath` and `shadowPath`
 * (the core's `RefJson`), copied too. Not `structuredClone`, which copies
 * anything and runs on every ref of every session snapshot.
 */
function copyRef(r) {
    const c = { ...r };
    if (Array.isArray(r.framePath)) c.framePath = r.framePath.slice();
    if (Array.isArray(r.shadowPath)) c.shadowPath = r.shadowPath.slice();
    return c;
}

/**
 * A held ref whose only change is its signatureHash (the core sends that hash alone:
 * src/text/sent_refs.rs), written in place: the session's own copy, which no snapshot
 * shares (each gets copies). A row added near the top of the 40k-node page changes the
 * hash of most of its 3,751 refs, one object copy each when made anew.
 */
const resigned = (ref, signatureHash) => {
    ref.signatureHash = signatureHash;
    return ref;
};

const sleep = ms => new Promise(r => setTimeout(r, ms));
const messageOf = err => (err && err.message ? String(err.message) : String(err));

function positive(value, name, fallback) {
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw webAiError('snapshot.invalid-input', `${name} must be a finite number >= 0, got ${String(value)}`, { what: name });
    }
    return value;
}

/**
 * Requests in flight, for settling after an action: from Playwright's
 * request events, the Network domain of a `{ cdp }` session that emits
 * events (`on`/`off`), or for a `{ cdpEndpoint }` the Network domain over the
 * session's own connection, followed in Rust (`refresh` reads it). A `{ cdp }`
 * without events settles on the DOM only, and says so.
 */
function requestTracker(source, kind, state = null) {
    const pending = new Map(); // key -> { url, startedAt }
    const off = [];
    if (kind === 'endpoint' && state) {
        const t = adapt(source);
        const tracker = { tracked: true, pending, close: () => undefined };
        // An action waits for this before it starts (`ready`): a request it
        // started before the Network domain was on would be missed. Settling
        // says whether requests were followed after all.
        const enabled = state.trackRequests(t.endpoint, native.DEFAULT_TIMEOUT_MS).then(r => !(r && r.error), () => false);
        tracker.ready = enabled.then(ok => { tracker.tracked = ok; });
        tracker.refresh = async () => {
            if (!(await enabled)) return;
            const list = await state.requestsInFlight();
            // Ages are counted when the list is made, so "now" is taken after
            // the call, never before it: a loaded machine that is slow to run
            // the call must not push a request's start back before the action
            // that started it (which would then settle without waiting for it).
            const now = performance.now();
            pending.clear();
            for (const [i, r] of list.entries()) pending.set(i, { url: r.url, startedAt: now - r.ageMs });
        };
        return tracker;
    }
    if (kind === 'playwright' && typeof source.on === 'function') {
        const started = r => {
            if (!ENDLESS.has(r.resourceType())) pending.set(r, { url: r.url(), startedAt: performance.now() });
        };
        const done = r => pending.delete(r);
        source.on('request', started);
        source.on('requestfinished', done);
        source.on('requestfailed', done);
        off.push(() => {
            source.off('request', started);
            source.off('requestfinished', done);
            source.off('requestfailed', done);
        });
        return { tracked: true, pending, close: () => { for (const f of off) f(); } };
    }
    const cdp = kind === 'cdp' ? source.cdp : null;
    if (cdp && typeof cdp.on === 'function' && typeof cdp.send === 'function') {
        const started = e => {
            if (e && e.requestId && !ENDLESS.has(e.type)) pending.set(e.requestId, { url: e.request && e.request.url, startedAt: performance.now() });
        };
        const done = e => e && pending.delete(e.requestId);
        Promise.resolve().then(() => cdp.send('Network.enable', {})).catch(() => undefined);
        cdp.on('Network.requestWillBeSent', started);
        cdp.on('Network.loadingFinished', done);
        cdp.on('Network.loadingFailed', done);
        off.push(() => {
            const remove = typeof cdp.off === 'function' ? cdp.off.bind(cdp) : typeof cdp.removeListener === 'function' ? cdp.removeListener.bind(cdp) : null;
            if (!remove) return;
            remove('Network.requestWillBeSent', started);
            remove('Network.loadingFinished', done);
            remove('Network.loadingFailed', done);
        });
        return { tracked: true, pending, close: () => { for (const f of off) f(); } };
    }
    return { tracked: false, pending, close: () => undefined };
}


/**
 * What the session drives: capture, page-side calls and actions, per source
 * kind. `state` is the session's NativeSession: over an endpoint it holds
 * the session's own connection, so each of these goes over that one socket.
 */
function pageAccess(source, state) {
    const t = adapt(source);
    if (t.kind === null) {
        throw webAiError('snapshot.unavailable', 'a page session needs a Playwright page (Chromium), { cdp: { send } } or { cdpEndpoint }', {
            received: source === null ? 'null' : typeof source,
        });
    }
    if (t.kind === 'endpoint') {
        return {
            kind: t.kind,
            capture: (opts, _numbering, incremental = null) => state.captureEndpoint(t.endpoint, opts, incremental),
            evaluate: async (args, timeoutMs) => {
                const r = await state.evaluateEndpoint(t.endpoint, WATCH_SOURCE, WATCH_GLOBAL, args, Math.max(1, Math.round(timeoutMs || native.DEFAULT_TIMEOUT_MS)));
                unwrapOutcome(r);
                return JSON.parse(r.value);
            },
            act: input => state.actEndpoint(t.endpoint, input),
            send: async (method, params, timeoutMs) => {
                const r = await state.send(t.endpoint, method, params ?? {}, Math.max(1, Math.round(timeoutMs)));
                unwrapOutcome(r);
                return JSON.parse(r.value);
            },
            watchDialogs: async timeoutMs => unwrapOutcome(await state.watchDialogs(t.endpoint, Math.max(1, Math.round(timeoutMs)))),
            dialog: () => state.dialog(),
        };
    }
    const raw = t.kind === 'playwright'
        ? pageSend(source)
        : cdpSend(source.cdp);
    // Our world is the captures' (lib/worlds.cjs): asked of that one cache at each call, so a
    // world a capture made after a navigation is the watcher's too, and one made here the captures'.
    const key = t.kind === 'playwright' ? source : source.cdp;
    async function world(fresh) {
        const known = fresh ? null : worldOf(key);
        if (known) return known.contextId;
        const tree = await raw('Page.getFrameTree', {});
        const frame = (tree && tree.frameTree && tree.frameTree.frame) || {};
        const made = await raw('Page.createIsolatedWorld', { frameId: frame.id, worldName: native.WORLD_NAME });
        if (typeof frame.id === 'string' && typeof frame.loaderId === 'string') keepWorld(key, { frameId: frame.id, loaderId: frame.loaderId, contextId: made.executionContextId });
        return made.executionContextId;
    }
    async function watch(args) {
        const json = JSON.stringify(JSON.stringify(args));
        // The watcher is compiled once per document (a global of our world);
        // each poll after that sends one short call.
        const call = `globalThis.${WATCH_GLOBAL}.apply(null, JSON.parse(${json}))`;
        const install = `(globalThis.${WATCH_GLOBAL} = (${WATCH_SOURCE})).apply(null, JSON.parse(${json}))`;
        // The world goes with its document: after a navigation ask for it again.
        for (let attempt = 0; attempt < 3; attempt += 1) {
            try {
                const context = await world(attempt === 2);
                const r = await raw('Runtime.evaluate', { expression: attempt === 0 ? call : install, contextId: context, returnByValue: true });
                if (r && r.exceptionDetails) throw new Error(`the watcher threw: ${r.exceptionDetails.text}`);
                return r.result.value;
            } catch (err) {
                // A tab that is gone (closed, crashed) is not asked twice more: its code, at once.
                const fault = native.faultOfMessage(messageOf(err));
                if (fault) throw webAiError(fault, `the tab's CDP session is gone: ${messageOf(err)}`, { message: messageOf(err) });
                if (attempt === 2) throw err;
            }
        }
        return null;
    }
    return {
        kind: t.kind,
        act: null,
        send: async (method, params, timeoutMs) => {
            const r = await withDeadline(raw(method, params ?? {}), Math.max(1, Math.round(timeoutMs)));
            if (r === TIMED_OUT) throw webAiError('snapshot.timeout', `${method} got no answer within ${Math.round(timeoutMs)} ms`, { method });
            return r;
        },
        // Playwright and { cdp } callers see dialogs through their own events.
        watchDialogs: async () => undefined,
        dialog: async () => null,
        capture: (opts, numbering, incremental = null) => captureOverWith(key, t.send, opts, numbering, incremental),
        // Bounded like every browser call: a renderer that stops answering must not hold the session.
        evaluate: async (args, timeoutMs) => {
            const ms = Math.max(1, Math.round(timeoutMs || native.DEFAULT_TIMEOUT_MS));
            const r = await withDeadline(watch(args), ms);
            if (r === TIMED_OUT) throw new Error(`the page's watcher did not answer within ${ms} ms`);
            return r;
        },
    };
}

/** A look's answer as the core passed it on (JSON), or null. */
function parseLook(text) {
    try {
        return JSON.parse(text);
    } catch {
        return null;
    }
}

/** Options that shape the text, as a key: snapshots compare only within one. */
function shapeKey(opts) {
    const { timeoutMs: _t, delta: _d, ...rest } = opts;
    return JSON.stringify(Object.keys(rest).sort().map(k => [k, rest[k]]));
}

class PageSession {
    constructor(source, options = {}) {
        const o = options && typeof options === 'object' ? options : {};
        this._source = source;
        /** The session's state in Rust: numbering, mirror, sent refs, and over an endpoint its connection. */
        this._native = new native.NativeSession();
        this._access = pageAccess(source, this._native);
        // A session shows the active layer: an open modal, and one line for what is behind it.
        this._defaults = { activeLayerOnly: true, ...(o.snapshotOptions || {}) };
        this._cacheTtlMs = positive(o.cacheTtlMs, 'cacheTtlMs', DEFAULT_CACHE_TTL_MS);
        this._settleMs = positive(o.settleMs, 'settleMs', DEFAULT_SETTLE_MS);
        this._quietMs = positive(o.quietMs, 'quietMs', DEFAULT_QUIET_MS);
        this._actionTimeoutMs = positive(o.timeoutMs, 'timeoutMs', native.DEFAULT_ACTION_TIMEOUT_MS);
        this._requests = o.trackRequests === false ? requestTracker(null, null) : requestTracker(source, this._access.kind, this._native);
        /** Per text shape: the latest snapshot object and the page's watch state (the core's book decides; these are what it hands back). */
        this._latest = new Map();
        this._last = null;
        /** Every ref seen in the session, so an action can use a ref the latest snapshot left out. */
        this._known = new Map();
        this._closed = false;
        // Repeat snapshots with the DOM engine read only what changed (the
        // mirror of the page stays in Rust, in the session's NativeSession).
        if (o.incremental !== undefined && typeof o.incremental !== 'boolean' && o.incremental !== 'always') {
            throw webAiError('snapshot.invalid-input', `incremental must be true, false or 'always', got ${JSON.stringify(o.incremental)}`, { what: 'incremental' });
        }
        this._incremental = o.incremental !== false;
        // 'always': read only what changed even on a small page, where a full capture costs less.
        this._always = o.incremental === 'always';
        /** The last snapshot the core sent whole or in part, and the session's own copy of its refs (see `_takeRefs`). */
        this._sent = null;
        /** This session's key in the page's watcher, which keeps a record of changes per session. */
        this._key = crypto.randomUUID();
        this._tracked = false;
    }

    /** The latest revision (0 before the first snapshot). */
    get revision() {
        return this._native.revision;
    }

    /** The latest snapshot of the session, or null. */
    get latest() {
        return this._last;
    }

    _checkOpen() {
        if (this._closed) throw webAiError('snapshot.invalid-input', 'this page session is closed', { what: 'session' });
    }

    /** The page's watch state, installing the watcher on first use (null when the page cannot answer). */
    async _watch(loading = false, timeoutMs = 2000, track = false, light = false) {
        if (track) this._tracked = true;
        try {
            return await this._access.evaluate([{ loading, track: track ? this._key : undefined, light }], timeoutMs);
        } catch (err) {
            // A page that cannot answer this once is looked at again; a tab that is gone ends the call.
            if (isFatal(err)) throw err;
            return null;
        }
    }

    /** Drop the cache and the page's mirror: the next snapshot captures the whole page. */
    invalidate() {
        this._native.markDirty();
        this._native.forget();
        this._sent = null;
    }

    async snapshot(options = {}) {
        this._checkOpen();
        if (options !== null && options !== undefined && (typeof options !== 'object' || Array.isArray(options))) {
            throw webAiError('snapshot.invalid-input', 'options must be an object', { what: 'options' });
        }
        const o = { ...this._defaults, ...(options || {}) };
        const wantDelta = o.delta === true;
        delete o.delta;
        const key = shapeKey(o);
        const prev = this._latest.get(key) || null;
        const bypass = o.allRefs === true;
        // allRefs looks past the session's snapshots: a full capture that leaves the mirror as it was.
        const incremental = this._incremental && o.engine !== 'ax' && !bypass;
        // An incremental session's capture is itself the check: a short round trip when nothing changed.
        if (!incremental && !bypass && prev && this._native.mayAnswerFromCache(key, this._cacheTtlMs)) {
            const state = await this._watch(false);
            if (this._native.unchangedSince(key, state ?? null)) {
                return { ...prev.snapshot, fromCache: true };
            }
        }
        // The watch state before capturing: a mutation during the capture
        // makes the next look capture again.
        // An incremental session asks for the page's loading signals only
        // when it has a new snapshot to give (the unchanged answer needs none).
        // For an incremental session this look opens the capture, and it is given time as the
        // capture is: half the snapshot's deadline, 2-5 s (twenty sessions looking at once on a
        // loaded machine once took over 2 s). If the watcher still does not answer, the capture
        // is full, and says why.
        const watchMs = incremental ? Math.min(5000, Math.max(2000, Math.round((Number(o.timeoutMs) || native.DEFAULT_TIMEOUT_MS) / 2))) : 2000;
        const watchStarted = performance.now();
        const state = await this._watch(!incremental, watchMs, incremental, incremental);
        const token = incremental && state && typeof state.token === 'string' ? state.token : null;
        // A watcher that did not answer spent the look's time: the capture has what is left of
        // `timeoutMs` (at least a second), so the look ends by its deadline. (A tab that holds every
        // question, for a load its server does not answer, took the watcher's wait and then the
        // capture's whole deadline: 7.5 s for a `timeoutMs` of 5 s.)
        const capturing = state === null
            ? { ...o, timeoutMs: Math.max(1000, Math.round((Number(o.timeoutMs) || native.DEFAULT_TIMEOUT_MS) - (performance.now() - watchStarted))) }
            : o;
        // reuse: the last snapshot of this shape, of this document, can answer for an unchanged page.
        // sawChange: the look saw mutations or input since the last capture's look: the capture asks
        // for the changed subtrees at once.
        const [reuseOk, sawChange] = this._native.beforeCapture(key, state ?? null, token ?? undefined);
        const reuse = Boolean(prev && !bypass && reuseOk);
        const { snapshot, after, recorded: recordedByCore, progress } = await this._capture(capturing, token, reuse, sawChange, incremental && state, key).catch(err => {
            if (capturing !== o && err && err.errorCode === 'snapshot.timeout') {
                const asked = Number(o.timeoutMs) || native.DEFAULT_TIMEOUT_MS;
                err.message = `${err.message.replace(/\(\d+ ms\)/, `(${asked} ms)`)}: the page's watcher did not answer within ${watchMs} ms, and the capture had the ${capturing.timeoutMs} ms left`;
            }
            throw err;
        });
        if (incremental && state === null && Array.isArray(snapshot.notes)) {
            snapshot.notes.push(`${native.FULL_CAPTURE_NOTE}the page's watcher did not answer within ${watchMs} ms`);
        }
        // Requests the last action started say the page is still loading; an endpoint's are read from Rust.
        if (this._requests.refresh && this._actedAt !== undefined) await this._requests.refresh();
        if (snapshot.unchanged) {
            prev.state = state;
            prev.snapshot.capturedAtMs = Date.now();
            this._native.recordUnchanged(key, state ?? null);
            const stats = { ...prev.snapshot.stats, captureMode: 'incremental', subtreesReread: 0, captureMs: snapshot.captureMs };
            // The notes that explained how the last one was read do not explain this one.
            const notes = prev.snapshot.notes.filter(n => !n.startsWith(native.FULL_CAPTURE_NOTE));
            const same = { ...prev.snapshot, stats, notes, fromCache: true };
            // The page's own loading signals are in its DOM, which did not change; requests in flight may have.
            const kept = prev.snapshot.loadingState && prev.snapshot.loadingState.source !== 'network' ? prev.snapshot.loadingState : null;
            const loading = kept || this._loadingState(prev.snapshot.text, null, prev.progress);
            if (loading) same.loadingState = loading;
            else delete same.loadingState;
            return same;
        }
        // The core numbers it against the last snapshot of this shape, which it holds (allRefs looks past them).
        const u = snapshot.untrusted;
        // A session's incremental capture recorded it where the text is (the core); else it is recorded here.
        const recorded = recordedByCore || this._native.record(key, {
            snapshotId: snapshot.snapshotId,
            text: snapshot.text,
            url: snapshot.url ?? undefined,
            nonce: u ? u.nonce : undefined,
            origin: u ? u.origin : undefined,
        }, state ?? null, !bypass);
        snapshot.revision = recorded.revision;
        snapshot.capturedAtMs = Date.now();
        snapshot.fromCache = false;
        if (recorded.delta) {
            snapshot.delta = recorded.delta;
            snapshot.observedChange = recorded.observedChange;
        }
        if (after) {
            const watched = await after;
            state.loading = watched ? watched.loading : null;
        }
        const loading = this._loadingState(snapshot.text, state ? state.loading : null, progress);
        if (loading) snapshot.loadingState = loading;
        if (!bypass) this._latest.set(key, { snapshot, state, progress });
        this._last = snapshot;
        if (wantDelta && snapshot.delta) return deltaView(snapshot);
        return snapshot;
    }

    /**
     * Capture; with the page's watcher `token`, incrementally when the
     * session's mirror is of that document. With `reuse` (the session holds
     * its last snapshot of these options) an unchanged page comes back as
     * `{ unchanged: true, captureMs }`. With `lookAfter`, `after` is the
     * page's watch state (its loading signals) asked once the capture's reads are done.
     */
    async _capture(opts, token = null, reuse = false, changed = false, lookAfter = false, shape = undefined) {
        let incremental = null;
        if (token !== null) {
            // (`lookAfter` is the look's state: how many changed subtrees its record held.)
            const held = lookAfter && typeof lookAfter.held === 'number' ? lookAfter.held : undefined;
            incremental = { token, session: this._key, reuse, always: this._always, changed, held, base: this._sent ? this._sent.id : undefined, after: lookAfter ? LOADING_LOOK : undefined };
            // With the options' shape, the core records a new snapshot in the session's book itself.
            if (shape !== undefined) Object.assign(incremental, { shape, state: lookAfter || null });
        }
        // The refs the core compares with are those of `base`, whatever another capture does meanwhile.
        const base = this._sent;
        const outcome = await this._access.capture(optionsOf(opts), this._native, incremental);
        unwrapOutcome(outcome);
        if (outcome.unchanged) return { snapshot: { unchanged: true, captureMs: Math.round(outcome.processingMs * 1000) / 1000 }, after: null };
        // The capture looked with its reads when it read subtrees; else the look is asked now, before
        // the outcome is read: the page answers while this process parses it and compares the texts.
        const after = !lookAfter ? null : typeof outcome.after === 'string' ? Promise.resolve(parseLook(outcome.after)) : this._watch(true, 2000, false, true);
        const snapshot = JSON.parse(outcome.snapshot);
        // A session's capture sends the text as a string of its own (its place in the JSON is kept).
        if (typeof outcome.text === 'string') snapshot.text = outcome.text;
        // The refs sent whole (with a slot, the others are as the session holds them, and known already).
        let fresh = null;
        if (incremental) {
            try {
                ({ refs: snapshot.refs, fresh } = outcome.refsChangedOnly === true
                    ? this._updateRefs(snapshot, base)
                    : this._takeRefs(snapshot, outcome.refsReused === true ? base : null));
            } catch (err) {
                // The core recorded this look in the book already, and the caller does not get it:
                // the next look of this shape is compared with none, not with this text.
                if (typeof outcome.recorded === 'string' && shape !== undefined) this._native.forgetLatest(shape);
                throw err;
            }
        }
        // Every session snapshot says how it was read (the core says so when it kept a mirror).
        snapshot.stats.captureMode ??= 'full';
        snapshot.stats.subtreesReread ??= 0;
        for (const r of fresh || Object.values(snapshot.refs)) {
            this._known.delete(r.ref);
            this._known.set(r.ref, r);
        }
        while (this._known.size > MAX_REMEMBERED_REFS) this._known.delete(this._known.keys().next().value);
        const recorded = typeof outcome.recorded === 'string' ? JSON.parse(outcome.recorded) : null;
        return { snapshot, after, recorded, progress: typeof outcome.progress === 'boolean' ? outcome.progress : undefined };
    }

    /** The session's numbering so far, as arrays (what a capture without the session's object takes). */
    _numbering() {
        return this._native.toNumbering();
    }

    /**
     * The refs of a snapshot from the session's slot. The core writes a ref
     * that is as it was in the last snapshot from the slot as `0` (on large
     * pages most of them, which JS would otherwise parse again on every look;
     * src/text/sent_refs.rs), and one changed in its signatureHash alone as
     * that hash; the rest comes from the session's own copy.
     * The snapshot gets copies, so no two snapshots share a ref object.
     */
    _takeRefs(snapshot, base) {
        const held = base ? base.refs : null;
        const kept = Object.create(null);
        const out = {};
        const fresh = [];
        for (const id of Object.keys(snapshot.refs)) {
            let r = snapshot.refs[id];
            if (r === 0 || typeof r === 'string') {
                const was = held ? held[id] : undefined;
                if (!was) throw this._refsLost(`the capture reused ref ${id}, which the session does not hold`, id);
                // A string is the ref's new signatureHash, its only change (it moved among its siblings).
                // Such a ref is the object `_known` holds, as one unchanged is: neither is fresh.
                r = r === 0 ? was : resigned(was, r);
            } else {
                fresh.push(r);
            }
            kept[id] = r;
            out[id] = copyRef(r);
        }
        this._sent = { id: snapshot.snapshotId, refs: kept, ids: null };
        return { refs: out, fresh };
    }

    /** The session's copy of the refs no longer matches the core's: forget it (the next snapshot sends every ref). */
    _refsLost(why, ref) {
        this._sent = null;
        return webAiError('snapshot.capture-failed', `${why}; the next snapshot sends every ref`, ref === undefined ? {} : { ref });
    }

    /**
     * The refs of a snapshot from the session's slot that has the same refs,
     * in the same order, as `base`: the core sent only those that changed.
     * The session's copy is brought up to date in place (no other capture
     * can be answered against `base` after this one: the slot moved on).
     */
    _updateRefs(snapshot, base) {
        const held = base ? base.refs : null;
        if (!held) throw this._refsLost('the capture sent only changed refs, but the session holds no snapshot to take the others from');
        const fresh = [];
        for (const id of Object.keys(snapshot.refs)) {
            const r = snapshot.refs[id];
            if (!(id in held)) throw this._refsLost(`the capture changed ref ${id}, which the session does not hold`, id);
            if (typeof r === 'string') {
                // The object `_known` holds, written in place (see `_takeRefs`).
                resigned(held[id], r);
                continue;
            }
            held[id] = r;
            fresh.push(r);
        }
        // The same refs in the same order as `base`: its ids, listed once for every look that
        // keeps them (a `for…in` over 3,751 keys was most of this function on the 40k-node page).
        const ids = base.ids || Object.keys(held);
        const out = {};
        for (let i = 0; i < ids.length; i += 1) out[ids[i]] = copyRef(held[ids[i]]);
        this._sent = { id: snapshot.snapshotId, refs: held, ids };
        return { refs: out, fresh };
    }

    /** Seed 004 §4.4: the first loading signal, or null (never partial): the core's rule, with the requests in flight. */
    _loadingState(text, pageLoading, progress) {
        const pending = this._pendingSince(this._actedAt ?? Infinity);
        // `progress`: the capture said whether the text shows a progressbar (the text stays in JS).
        if (typeof progress === 'boolean') return native.loadingStateGiven(progress, pageLoading ?? null, pending);
        return native.loadingState(text, pageLoading ?? null, pending);
    }

    _pendingSince(since) {
        const out = [];
        for (const { url, startedAt } of this._requests.pending.values()) if (startedAt >= since) out.push(String(url));
        return out;
    }

    /**
     * Wait until the DOM has been quiet for `quietMs` and the requests that
     * started since `since` have finished, at most `settleMs`.
     */
    async _settle(since, settleMs) {
        const started = performance.now();
        let state = null;
        for (;;) {
            // A question the tab holds (a load the server does not answer holds every call) is
            // waited for no longer than the settle has left: the settle's cap is its whole wait.
            const left = settleMs - (performance.now() - started);
            state = await this._watch(false, Math.min(2000, Math.max(100, left)));
            // A JavaScript dialog stops the page's scripts: nothing settles until it is answered.
            if (state === null && (await this._access.dialog())) {
                return { waitedMs: Math.round(performance.now() - started), settled: false, pending: { requests: [], domQuietMs: null, readyState: null, dialog: true }, requestsTracked: this._requests.tracked };
            }
            if (this._requests.refresh) await this._requests.refresh();
            const requests = this._pendingSince(since);
            const waited = performance.now() - started;
            // The rule is the core's (src/page_session/settle.rs); the waiting is here.
            const verdict = native.settleVerdict({
                answered: state !== null,
                quietMs: state !== null && Number.isFinite(state.quietMs) ? state.quietMs : -1,
                loading: state !== null && state.readyState === 'loading',
                requests: requests.length,
                waitedMs: waited,
                actedMs: started - since,
            }, this._quietMs, settleMs);
            if (verdict.settled) return { waitedMs: Math.round(waited), settled: true, pending: null, requestsTracked: this._requests.tracked };
            if (verdict.gaveUp) {
                return {
                    waitedMs: Math.round(waited),
                    settled: false,
                    pending: { requests, domQuietMs: state ? state.quietMs : null, readyState: state ? state.readyState : null },
                    requestsTracked: this._requests.tracked,
                };
            }
            await sleep(verdict.lookAgainInMs);
        }
    }

    /**
     * Run an action of `runAction` ('click' | 'fill' | 'select' | 'scroll')
     * against the session's refs, let the page settle, and take the next
     * session snapshot. `options.settleMs` overrides the session's cap;
     * `options.snapshotOptions` apply to the fresh snapshot.
     */
    async act(action, args = {}, options = {}) {
        this._checkOpen();
        const o = options || {};
        const settleMs = positive(o.settleMs, 'settleMs', this._settleMs);
        if (!this._last) await this.snapshot();
        const input = args && typeof args === 'object' ? { ...args } : {};
        // Refs are stable within the session: any of its snapshots is current enough.
        if (typeof input.snapshot_id === 'string' && this._native.knowsSnapshot(input.snapshot_id)) delete input.snapshot_id;
        const refs = Object.fromEntries(this._known);
        Object.assign(refs, this._last.refs);
        const view = { snapshotId: this._last.snapshotId, refs };
        await this._watch(false);
        if (this._requests.ready) await this._requests.ready;
        this._actedAt = performance.now();
        const timeoutMs = typeof o.timeoutMs === 'number' && o.timeoutMs > 0 ? o.timeoutMs : this._actionTimeoutMs;
        const result = await runActionWith(this._source, view, action, input, { timeoutMs, via: this._access.act, throwFatal: true }, async outcome => {
            this._native.markDirty();
            const settle = await this._settle(this._actedAt, settleMs);
            // The action ran out of time and the page answered no question while it settled: the
            // tab is held (a script that never returns, a load its server does not answer), and a
            // look would wait out its own deadline too (5 s more on a page frozen by a click).
            if (outcome && outcome.error === 'timeout' && !settle.settled && settle.pending && settle.pending.domQuietMs === null && !settle.pending.dialog) {
                return { snapshot: null, settle, lookError: new Error(`the page did not answer during the action, nor at the end of the ${settle.waitedMs} ms it was given to settle, so it was not looked at`) };
            }
            try {
                return { snapshot: await this.snapshot({ ...(o.snapshotOptions || {}) }), settle };
            } catch (err) {
                // The action's result says how the settle went either way.
                return { snapshot: null, settle, lookError: err };
            }
        });
        result.revision = this._native.revision;
        return result;
    }

    /**
     * Run `fn` (a step of the caller's own, such as key presses or a mouse
     * move sent with `send`) as an action of the session: the page is
     * watched from before it, left to settle after it, and looked at again.
     * Resolves to `{ value, snapshot, settle, revision }`.
     */
    async perform(fn, options = {}) {
        this._checkOpen();
        const o = options || {};
        const settleMs = positive(o.settleMs, 'settleMs', this._settleMs);
        if (!this._last) await this.snapshot();
        await this._watch(false);
        if (this._requests.ready) await this._requests.ready;
        this._actedAt = performance.now();
        const value = await fn();
        this._native.markDirty();
        const settle = await this._settle(this._actedAt, settleMs);
        const snapshot = await this.snapshot({ ...(o.snapshotOptions || {}) });
        return { value, snapshot, settle, revision: this._native.revision };
    }

    /**
     * Seed 004 §4.3: resolve once a meaningful change (of `expectedChange`,
     * when given) has held still for `stabilityWindowMs`, or time out. The
     * page is watched by its mutation count; a snapshot is taken only when
     * it reports mutations, to tell a change from churn.
     */
    async waitForUiChange(options = {}) {
        this._checkOpen();
        const o = options || {};
        const expected = o.expectedChange ?? o.expected_change ?? null;
        if (expected !== null && !CHANGE_KINDS.includes(expected)) {
            throw webAiError('snapshot.invalid-input', `expectedChange must be one of ${CHANGE_KINDS.join(', ')}, got ${JSON.stringify(expected)}`, { what: 'expectedChange' });
        }
        const timeoutMs = positive(o.timeoutMs ?? o.timeout_ms, 'timeoutMs', DEFAULT_WAIT_TIMEOUT_MS);
        const windowMs = positive(o.stabilityWindowMs ?? o.stability_window_ms, 'stabilityWindowMs', DEFAULT_STABILITY_WINDOW_MS);
        const started = performance.now();
        // The caller's shape: the change is judged against the last snapshot the caller saw.
        const shape = { ...(o.snapshotOptions || {}) };
        delete shape.delta;
        const key = shapeKey({ ...this._defaults, ...shape });
        if (!this._latest.get(key)) await this.snapshot(shape);
        const base = this._latest.get(key);
        const baseSnapshot = base.snapshot;
        // What each watch and look means is the core's (src/page_session/ui_wait.rs); the
        // watching, the snapshots, the candidate snapshot and the sleeping are here.
        const wait = new native.UiChangeWait(timeoutMs, windowMs, base.state ?? null);
        let candidate = null;
        const compare = s => compareTexts(baseSnapshot, s, baseSnapshot.revision, s.revision);
        const wanted = c => c.change && (expected === null || c.kinds.includes(expected));
        const success = (snapshot, c, detectedMs) => ({
            success: true,
            observedChange: expected ?? c.observedChange,
            snapshotRevision: snapshot.revision,
            timeout: false,
            snapshot,
            delta: { fromRevision: baseSnapshot.revision, toRevision: snapshot.revision, ...c.delta },
            waitedMs: Math.round(performance.now() - started),
            detectedMs,
        });
        for (;;) {
            const t = performance.now() - started;
            if (wait.timedOut(t)) {
                return { success: false, observedChange: null, snapshotRevision: this._native.revision, timeout: true, snapshot: null, delta: null, waitedMs: Math.round(t) };
            }
            const state = (await this._watch(false)) ?? null;
            const next = wait.watched(state, t);
            if (next === 'candidate') return success(candidate.snapshot, candidate.comparison, Math.round(t));
            if (next === 'look') {
                const detectedMs = Math.round(performance.now() - started);
                const snapshot = await this.snapshot({ ...shape, timeoutMs: Math.max(1, Math.round(timeoutMs - t)) }).catch(err => {
                    if (isFatal(err)) throw err;
                    return null;
                });
                const after = (await this._watch(false)) ?? null;
                const c = snapshot ? compare(snapshot) : null;
                const isWanted = Boolean(c && wanted(c));
                const asCandidate = Boolean(isWanted && candidate && !compareTexts(candidate.snapshot, snapshot, 0, 0).change);
                const verdict = wait.looked(state, after, performance.now() - started, snapshot !== null, isWanted, asCandidate);
                if (verdict === 'done') return success(snapshot, c, detectedMs);
                if (verdict === 'again') {
                    if (!wait.hasCandidate) candidate = null;
                    continue;
                }
                candidate = { snapshot, comparison: c };
                await sleep(Math.min(native.UI_WAIT_POLL_MS, Math.max(1, timeoutMs - (performance.now() - started))));
                continue;
            }
            await sleep(next);
        }
    }

    /**
     * One CDP command on the session's tab (over a `{ cdpEndpoint }`, the
     * session's own connection), bounded by `timeoutMs` (default: the
     * action deadline). Resolves to the command's result.
     */
    async send(method, params = {}, { timeoutMs } = {}) {
        this._checkOpen();
        if (typeof method !== 'string' || !/^[A-Z]\w*\.\w+$/.test(method)) {
            throw webAiError('snapshot.invalid-input', `method must be a CDP method name such as Page.navigate, got ${JSON.stringify(method)}`, { what: 'method' });
        }
        return this._access.send(method, params, positive(timeoutMs, 'timeoutMs', this._actionTimeoutMs));
    }

    /** Over a `{ cdpEndpoint }`: follow the tab's JavaScript dialogs (then `dialog()` says which is open). */
    async watchDialogs() {
        this._checkOpen();
        await this._access.watchDialogs(native.DEFAULT_TIMEOUT_MS);
    }

    /** The JavaScript dialog open in the tab (`{ type, message, defaultPrompt, url }`), or null. */
    async dialog() {
        return (await this._access.dialog()) ?? null;
    }

    async close() {
        if (this._closed) return;
        this._closed = true;
        this._native.forget();
        this._sent = null;
        this._requests.close();
        this._latest.clear();
        this._known.clear();
        // The watcher stops recording for this session (best effort: the page may be gone).
        if (this._tracked) {
            this._tracked = false;
            try {
                await this._access.evaluate([{ untrack: this._key, light: true }], 1000);
            } catch {
                // A closed page keeps no record.
            }
        }
        await this._native.close();
    }
}

/** A session snapshot whose `text` is its delta, when that is under 70% of the full text. */
function deltaView(snapshot) {
    if (!native.deltaIsShorter(snapshot.text, snapshot.delta.text)) return { ...snapshot, textIsDelta: false };
    return { ...snapshot, fullText: snapshot.text, text: snapshot.delta.text, textIsDelta: true };
}

/**
 * A page session over a Playwright page (Chromium), `{ cdp: { send } }` or
 * `{ cdpEndpoint, targetId?, urlIncludes? }`.
 *   options.snapshotOptions  defaults for every snapshot of the session
 *   options.cacheTtlMs       a session that captures in full reuses the last snapshot within this when nothing changed (5000)
 *   options.settleMs         how long an action waits for the page to settle at most (1500)
 *   options.quietMs          how long the DOM must be quiet to be settled (100)
 *   options.timeoutMs        each action's deadline (2000)
 *   options.trackRequests    follow the page's requests to settle (true)
 *   options.incremental      with the DOM engine (the default), a repeat snapshot reads only what changed (true);
 *                            'always': even on a page under REPEAT_MIN_NODES nodes, which is otherwise captured in full after a change
 */
function createPageSession(source, options = {}) {
    if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
        throw webAiError('snapshot.invalid-input', 'options must be an object', { what: 'options' });
    }
    return new PageSession(source, options || {});
}

module.exports = {
    createPageSession,
    PageSession,
    DEFAULT_CACHE_TTL_MS,
    DEFAULT_SETTLE_MS,
    DEFAULT_STABILITY_WINDOW_MS,
    DEFAULT_WAIT_TIMEOUT_MS,
};
