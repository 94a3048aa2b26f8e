'use strict';
const { pumpCapture } = require('./pump.cjs');

// Each page's (or CDP session's) isolated world from its last capture: the
// next capture sends its page scripts there in its first batch, and keeps
// their answers only if the frame tree shows the same document (else it
// makes a new world, as it always did). Saves two round trips a capture.
const worlds = new WeakMap();

/**
 * A capture (`pumpCapture`) with the world `key`'s last capture made, remembering
 * the one this one used. `incremental`: a page session's mirror slot and
 * document token (`{ slot, token }`), for repeat captures of what changed.
 */
async function captureOverWith(key, send, opts, numbering = null, incremental = null) {
    const keyed = key !== null && (typeof key === 'object' || typeof key === 'function');
    const outcome = await pumpCapture(send, opts, numbering, keyed ? worlds.get(key) || null : null, incremental);
    if (keyed && outcome) {
        if (outcome.world) worlds.set(key, outcome.world);
        else worlds.delete(key);
    }
    return outcome;
}

module.exports = { captureOverWith };
