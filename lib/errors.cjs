'use strict';
const native = require('./native.cjs');

const TO_JSON_KEYS = ['name', 'errorCode', 'stage', 'message', 'retryHint', 'vendor', 'mutationAllowed', 'selectorsTried', 'evidence'];

class WebAiError extends Error {
    constructor(init = {}) {
        super(init.message || init.errorCode || 'web-ai error', init.cause ? { cause: init.cause } : undefined);
        this.name = 'WebAiError';
        this.errorCode = init.errorCode || 'internal.unhandled';
        this.stage = init.stage || 'internal';
        this.retryHint = init.retryHint || 'report';
        if (init.vendor !== undefined) this.vendor = init.vendor;
        this.mutationAllowed = init.mutationAllowed === true;
        this.selectorsTried = Array.isArray(init.selectorsTried) ? init.selectorsTried : [];
        this.evidence = init.evidence ?? null;
    }

    toJSON() {
        const out = {};
        for (const key of TO_JSON_KEYS) {
            if (this[key] !== undefined) out[key] = this[key];
        }
        return out;
    }
}

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

module.exports = { WebAiError, webAiError, fromNative, callNative, unwrapOutcome };
