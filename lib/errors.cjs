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

const MARKER = 'WEBAI_ERROR:';

/** A WebAiError for `code`, with stage and retryHint from the one table in Rust. */
function webAiError(code, message, evidence, extra = {}) {
    const payload = JSON.parse(native.errorPayload(code, message, evidence === undefined ? null : JSON.stringify(evidence)));
    return new WebAiError({ ...payload, ...extra });
}

/** Turn an error thrown by the addon into a WebAiError; anything else passes through. */
function fromNative(err) {
    const msg = err && typeof err.message === 'string' ? err.message : '';
    const at = msg.indexOf(MARKER);
    if (at < 0) return err;
    try {
        return new WebAiError(JSON.parse(msg.slice(at + MARKER.length)));
    } catch {
        return err;
    }
}

/** Call into the addon, converting its deliberate failures. */
function callNative(fn, ...args) {
    try {
        return fn(...args);
    } catch (err) {
        throw fromNative(err);
    }
}

module.exports = { WebAiError, webAiError, fromNative, callNative };
