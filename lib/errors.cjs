'use strict';

// The serialized shape of agbrowse's web-ai/errors.mjs (cli-jaw's twin writes
// the same keys): fields in this order, undefined ones left out.
const TO_JSON_KEYS = ['name', 'errorCode', 'stage', 'message', 'retryHint', 'vendor', 'mutationAllowed', 'selectorsTried', 'evidence', 'traceId', 'ruleId'];

class WebAiError extends Error {
    constructor(init = {}) {
        const i = init || {};
        super(i.message || i.errorCode || 'web-ai error');
        this.name = 'WebAiError';
        this.errorCode = i.errorCode || 'internal.unhandled';
        this.stage = i.stage || 'internal';
        this.retryHint = i.retryHint || 'report';
        // Own properties even when undefined, as the old module's constructor makes them.
        this.vendor = i.vendor;
        this.mutationAllowed = i.mutationAllowed === true;
        this.selectorsTried = Array.isArray(i.selectorsTried) ? i.selectorsTried : [];
        this.evidence = i.evidence ?? null;
        this.traceId = i.traceId;
        this.ruleId = i.ruleId;
        // As the old module: a falsy cause (0, '', false, null) is no cause.
        if (i.cause) this.cause = i.cause;
    }

    toJSON() {
        return toErrorJson(this);
    }
}

/** The JSON of an error (a WebAiError or anything shaped like one): set fields only, `name` defaulted. */
function toErrorJson(err) {
    const out = {};
    if (err && typeof err === 'object') {
        for (const key of TO_JSON_KEYS) {
            if (err[key] !== undefined) out[key] = err[key];
        }
    }
    if (!out.name) out.name = 'WebAiError';
    return out;
}

/**
 * Any thrown value as a WebAiError: a WebAiError passes through; an object
 * with a string `errorCode` keeps its fields; anything else is
 * internal.unhandled. `fallback` fields win; the original is the `cause`.
 */
function wrapError(err, fallback = {}) {
    if (err instanceof WebAiError) return err;
    if (err && typeof err === 'object' && typeof err.errorCode === 'string') {
        return new WebAiError({
            errorCode: err.errorCode,
            stage: err.stage,
            retryHint: err.retryHint,
            vendor: err.vendor,
            mutationAllowed: err.mutationAllowed,
            selectorsTried: err.selectorsTried,
            evidence: err.evidence,
            traceId: err.traceId,
            ruleId: err.ruleId,
            message: err.message,
            ...fallback,
            cause: err,
        });
    }
    return new WebAiError({
        errorCode: 'internal.unhandled',
        stage: 'internal',
        retryHint: 'report',
        message: (err && err.message) || String(err),
        ...fallback,
        cause: err,
    });
}

function providerError(vendor, init = {}) {
    return new WebAiError({ ...init, vendor });
}

function contextError(init = {}) {
    return new WebAiError(init);
}

/** cli-jaw's structured errors (WrongTargetError, BrowserCapabilityError, ProviderRuntimeDisabledError) as WebAiErrors; null for anything else. */
function fromCliJawStructuredError(err, fallbackStage = 'internal') {
    void fallbackStage;
    if (!err || typeof err !== 'object') return null;
    const e = err;
    if (e.name === 'WrongTargetError') {
        return new WebAiError({
            errorCode: 'cdp.target-mismatch',
            stage: 'session-target-verify',
            retryHint: 'tab-switch',
            message: e.message || 'wrong target',
            evidence: { expectedTargetId: e.expectedTargetId, actualTargetId: e.actualTargetId },
            cause: err,
        });
    }
    if (e.name === 'BrowserCapabilityError') {
        return new WebAiError({
            errorCode: 'capability.unsupported',
            stage: e.stage || 'capability-preflight',
            retryHint: 'feature-fallback',
            message: e.message || 'capability unsupported',
            mutationAllowed: e.mutationAllowed === true,
            evidence: { capabilityId: e.capabilityId, ownerPrd: e.ownerPrd },
            cause: err,
        });
    }
    if (e.name === 'ProviderRuntimeDisabledError') {
        const init = {
            errorCode: 'provider.runtime-disabled',
            stage: e.stage || 'provider-runtime-gate',
            retryHint: 'enable-or-skip',
            message: e.message || 'provider runtime disabled',
            cause: err,
        };
        if (e.vendor !== undefined) init.vendor = e.vendor;
        return new WebAiError(init);
    }
    return null;
}

module.exports = { WebAiError, wrapError, providerError, contextError, toErrorJson, fromCliJawStructuredError };
