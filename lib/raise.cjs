'use strict';
// Raising WebAiErrors from inside the package: from an error code (fields
// from the one table in Rust), and from what the addon throws or resolves.
const native = require('./native.cjs');
const { WebAiError } = require('./errors.cjs');

/** A WebAiError for `code`, with stage and retryHint from the one table in Rust. */
function webAiError(code, message, evidence, extra = {}) {
    const payload = native.errorPayload(code, message, evidence === undefined ? null : evidence);
    return new WebAiError({ ...payload, ...extra });
}

/**
 * The addon throws its deliberate failures as errors carrying `errorCode`,
 * `stage`, `retryHint` and `evidence`: make them WebAiErrors. Anything else
 * passes through.
 */
function fromNative(err) {
    if (err instanceof WebAiError || !err || typeof err.errorCode !== 'string') return err;
    return new WebAiError({ errorCode: err.errorCode, stage: err.stage, retryHint: err.retryHint, message: err.message, evidence: err.evidence });
}

/** Call into the addon, converting its deliberate failures. */
function callNative(fn, ...args) {
    try {
        return fn(...args);
    } catch (err) {
        throw fromNative(err);
    }
}

/** An async outcome of the addon (`{ error }` or its value): throw its error as a WebAiError. */
function unwrapOutcome(outcome) {
    if (outcome && outcome.error) throw new WebAiError(outcome.error);
    return outcome;
}

module.exports = { webAiError, fromNative, callNative, unwrapOutcome };
