'use strict';
const { pumpCapture } = require('./pump.cjs');

// Each page's (or CDP session's) isolated world: the one cache of it, kept
// by its last capture or made by a page session's watcher. The next capture
// sends its page scripts there in its first batch, and keeps their answers
// only if the frame tree shows the same document (else it makes a new world,
// as it always did): two round trips saved a capture. The watcher runs in
// the same world (it is named: src/page/mod.rs), so a session's first look
// makes it once, not once for the watcher and once for the capture.
const worlds = new WeakMap();

const keyed = key => key !== null && (typeof key === 'object' || typeof key === 'function');

/** The world `key` was last seen to have (`{ frameId, loaderId, contextId }`), or null. */
function worldOf(key) {
    return keyed(key) ? worlds.get(key) || null : null;
}

/** Remember `world` for `key` (a page session's watcher made it in the main frame). */
function keepWorld(key, world) {
    if (keyed(key) && world) worlds.set(key, world);
}

/**
 * A capture (`pumpCapture`) with the world `key`'s last capture made, remembering
 * the one this one used. `incremental`: a page session's mirror slot and
 * document token (`{ slot, token }`), for repeat captures of what changed.
 */
async function captureOverWith(key, send, opts, numbering = null, incremental = null) {
    const outcome = await pumpCapture(send, opts, numbering, worldOf(key), incremental);
    if (keyed(key) && outcome) {
        if (outcome.world) worlds.set(key, outcome.world);
        else worlds.delete(key);
    }
    return outcome;
}

module.exports = { captureOverWith, worldOf, keepWorld };
