'use strict';
// The CDP sessions the package opens on a Playwright page: one for the page,
// created on first use, and one per out-of-process frame.

const sessions = new WeakMap();

/** One CDP session per Playwright page, created on first use and dropped on failure. */
function cdpSessionFor(page) {
    let s = sessions.get(page);
    if (!s) {
        s = Promise.resolve().then(() => page.context().newCDPSession(page));
        sessions.set(page, s);
        s.catch(() => sessions.delete(page));
    }
    return s;
}

const frameSessions = new WeakMap();

/**
 * The CDP session of an out-of-process iframe, found by its frame id. Playwright
 * opens sessions only for such frames (same-process frames are answered by
 * the page's session and never get here).
 */
async function frameSessionSend(page, frameId) {
    let byId = frameSessions.get(page);
    if (!byId) {
        byId = new Map();
        frameSessions.set(page, byId);
    }
    if (!byId.has(frameId)) {
        for (const frame of page.frames()) {
            if (frame === page.mainFrame()) continue;
            let s;
            try {
                s = await page.context().newCDPSession(frame);
            } catch {
                continue; // a same-process frame has no session of its own
            }
            const tree = await s.send('Page.getFrameTree').catch(() => null);
            const id = tree && tree.frameTree && tree.frameTree.frame.id;
            if (id && !byId.has(id)) byId.set(id, s);
            else await s.detach().catch(() => {});
        }
    }
    const s = byId.get(frameId);
    if (!s) return null;
    return (method, params) => s.send(method, params).catch(err => {
        byId.delete(frameId);
        throw err;
    });
}

function forgetSession(page) {
    sessions.delete(page);
}

module.exports = { cdpSessionFor, frameSessionSend, forgetSession };
