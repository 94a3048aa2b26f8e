'use strict';
// The CDP sessions the package opens on a Playwright page: one for the page,
// created on first use, and one per out-of-process frame.

const { webAiError } = require('./raise.cjs');

const sessions = new WeakMap();

/** One CDP session per Playwright page, created on first use and dropped on failure. */
function cdpSessionFor(page) {
    if (!page || (typeof page !== 'object' && typeof page !== 'function') || typeof page.context !== 'function') {
        return Promise.reject(webAiError('snapshot.invalid-input', 'cdpSessionFor needs a Playwright page (with context())', { what: 'page' }));
    }
    let s = sessions.get(page);
    if (!s) {
        s = Promise.resolve().then(() => page.context().newCDPSession(page));
        sessions.set(page, s);
        s.catch(() => sessions.delete(page));
    }
    return s;
}

// Chromium does not answer the commands in flight to a renderer that
// crashed, nor later ones: without this, every call would wait out its
// deadline (a 60 s capture timeout by default) and say only that. The
// crash fails them at once, worded as Playwright words a crashed target,
// which the addon turns into `target.crashed`.
const CRASHED = "Target crashed: the page's renderer crashed; open the page again in a new tab";
const crashes = new WeakMap();

/**
 * Whether the renderer behind `key` crashed, and the calls waiting on it.
 * `listen(crashed, recovered)` subscribes to the source's own signals.
 */
function crashWatch(key, listen) {
    let w = crashes.get(key);
    if (w) return w;
    w = { crashed: false, waiting: new Set() };
    crashes.set(key, w);
    try {
        listen(() => {
            w.crashed = true;
            for (const fail of w.waiting) fail();
            w.waiting.clear();
        }, () => {
            w.crashed = false;
        });
    } catch {
        // A source whose `on` refuses these events: its calls wait for their deadlines, as before.
    }
    return w;
}

/** `send(method, params)` through `send`, failed at once while `w`'s renderer is crashed or when it crashes. */
function guarded(w, send) {
    return (method, params) => {
        if (w.crashed) return Promise.reject(new Error(CRASHED));
        return new Promise((resolve, reject) => {
            const fail = () => reject(new Error(CRASHED));
            w.waiting.add(fail);
            Promise.resolve()
                .then(() => send(method, params))
                .then(resolve, reject)
                .finally(() => w.waiting.delete(fail));
        });
    };
}

/** A Playwright page's send over its CDP session, aware of its 'crash' event. */
function pageSend(page) {
    const w = crashWatch(page, (crashed, recovered) => {
        if (typeof page.on !== 'function') return;
        page.on('crash', () => {
            // The session went with the renderer: the page's next one is new.
            sessions.delete(page);
            frameSessions.delete(page);
            crashed();
        });
        // A navigation brings a new renderer.
        page.on('framenavigated', frame => {
            if (typeof page.mainFrame !== 'function' || frame === page.mainFrame()) recovered();
        });
    });
    return guarded(w, async (method, params) => (await cdpSessionFor(page)).send(method, params));
}

/** A `{ cdp }` session's send, aware of Chrome's `Inspector.targetCrashed` when the session emits events. */
function cdpSend(cdp) {
    const w = crashWatch(cdp, (crashed, recovered) => {
        if (typeof cdp.on !== 'function') return;
        cdp.on('Inspector.targetCrashed', crashed);
        cdp.on('Inspector.targetReloadedAfterCrash', recovered);
    });
    return guarded(w, (method, params) => cdp.send(method, params));
}

const frameSessions = new WeakMap();

/**
 * The CDP session of an out-of-process iframe, found by its frame id. Playwright
 * opens sessions only for such frames (same-process frames are answered by
 * the page's session and never get here).
 */
async function frameSessionSend(page, frameId) {
    let known = frameSessions.get(page);
    if (!known) {
        // byId: frame id → { session, frame }; tried: frames already asked, so
        // that a lookup (every action asks, main-frame refs too) only opens
        // sessions for frames it has not seen.
        known = { byId: new Map(), tried: new WeakSet() };
        frameSessions.set(page, known);
    }
    const { byId, tried } = known;
    const untried = () => page.frames().filter(f => f !== page.mainFrame() && !tried.has(f));
    // Concurrent lookups (a capture asks for one frame several times at once)
    // share one scan instead of finding its frames already taken.
    while (!byId.has(frameId) && (known.scan || untried().length)) {
        known.scan ??= scanFrames(page, known).finally(() => { known.scan = null; });
        await known.scan;
    }
    const entry = byId.get(frameId);
    if (!entry) return null;
    const send = (method, params) => entry.session.send(method, params).catch(err => {
        // The frame navigated or went away: look again next time.
        for (const [id, e] of byId) if (e.session === entry.session) byId.delete(id);
        tried.delete(entry.frame);
        throw err;
    });
    // The out-of-process frame whose session this is: `frameId` itself, or
    // the one a same-process frame nested inside it belongs to.
    send.rootFrameId = entry.root;
    return send;
}

async function scanFrames(page, { byId, tried }) {
    for (const frame of page.frames()) {
        if (frame === page.mainFrame() || tried.has(frame)) continue;
        tried.add(frame);
        let s;
        try {
            s = await page.context().newCDPSession(frame);
        } catch {
            continue; // a same-process frame has no session of its own
        }
        const tree = await s.send('Page.getFrameTree').catch(() => null);
        const id = tree && tree.frameTree && tree.frameTree.frame.id;
        if (!id || byId.has(id)) {
            await s.detach().catch(() => {});
            continue;
        }
        // The frame and the same-process frames nested in it: one session answers for all.
        const stack = [tree.frameTree];
        while (stack.length) {
            const node = stack.pop();
            const fid = node && node.frame && node.frame.id;
            if (fid && !byId.has(fid)) byId.set(fid, { session: s, frame, root: id });
            for (const child of (node && node.childFrames) || []) stack.push(child);
        }
    }
}

function forgetSession(page) {
    sessions.delete(page);
}

module.exports = { cdpSessionFor, pageSend, cdpSend, frameSessionSend, forgetSession };
