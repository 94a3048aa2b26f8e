'use strict';
// Every browser call the package makes is raced against a deadline.

const TIMED_OUT = Symbol('timed out');

/** Resolve with the promise or TIMED_OUT after `ms`; a late rejection is swallowed. */
function withDeadline(promise, ms) {
    let timer;
    const deadline = new Promise(resolve => { timer = setTimeout(resolve, Math.max(0, ms), TIMED_OUT); });
    const guarded = Promise.resolve(promise);
    guarded.catch(() => undefined);
    return Promise.race([guarded, deadline]).finally(() => clearTimeout(timer));
}

module.exports = { TIMED_OUT, withDeadline };
