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
    if (err instanceof WebAiError || !err) return err;
    if (typeof err.errorCode === 'string') {
        return new WebAiError({ errorCode: err.errorCode, stage: err.stage, retryHint: err.retryHint, message: err.message, evidence: err.evidence });
    }
    if (isConversionError(err)) {
        return webAiError('snapshot.invalid-input', `an argument could not be read: ${err.message}`, { what: 'arguments', status: err.code });
    }
    return err;
}

/** napi-rs's statuses for a JS value that does not fit the Rust type it was given for. */
const CONVERSION_STATUSES = new Set([
    'InvalidArg', 'ObjectExpected', 'StringExpected', 'NameExpected', 'FunctionExpected', 'NumberExpected', 'BooleanExpected',
    'ArrayExpected', 'BigintExpected', 'DateExpected', 'ArrayBufferExpected', 'DetachableArraybufferExpected',
]);

function isConversionError(err) {
    if (typeof err.code !== 'string') return false;
    if (CONVERSION_STATUSES.has(err.code)) return true;
    // serde_json::Value conversion reports a function, symbol or cycle as a generic failure.
    return err.code === 'GenericFailure' && /cannot be represented|Failed to convert|serde_json/i.test(String(err.message));
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
