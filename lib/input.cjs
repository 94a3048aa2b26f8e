'use strict';
// Lists given by callers, read the way the old modules read them (arrays,
// any iterable, null as empty) but without trusting an array-like's length:
// `{ length: 2 ** 32 - 1 }` would have `Array.from` allocate until the
// process dies.
const { webAiError } = require('./raise.cjs');

/** The most entries an array-like (not an array, not iterable) may claim. */
const MAX_ARRAY_LIKE = 1_000_000;

/** `value` as an array; `what` names it in the invalid-input error. */
function listOf(value, what) {
    if (value == null) return [];
    if (Array.isArray(value)) return value;
    if (typeof value[Symbol.iterator] === 'function') return Array.from(value);
    if (typeof value === 'object' && Number.isSafeInteger(value.length) && value.length >= 0 && value.length <= MAX_ARRAY_LIKE) return Array.from(value);
    throw webAiError('snapshot.invalid-input', `${what} must be a list (an array or an iterable)`, { what });
}

/** Options for the addon, which validates them (`snapshot.invalid-input`). */
function optionsOf(options) {
    if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
        throw webAiError('snapshot.invalid-input', `options must be an object, got ${Array.isArray(options) ? 'an array' : typeof options}`, { what: 'options' });
    }
    const o = { ...(options || {}) };
    for (const [k, v] of Object.entries(o)) {
        if (v === undefined) delete o[k];
        // As a number the addon would see null and hide the mistake.
        if (typeof v === 'number' && !Number.isFinite(v)) {
            throw webAiError('snapshot.invalid-input', `option \`${k}\` must be a finite number, got ${v}`, { what: `options.${k}` });
        }
    }
    return o;
}

module.exports = { listOf, optionsOf };
