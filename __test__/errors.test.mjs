import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebAiError } from '../lib/errors.mjs';
import errorsCjs from '../lib/errors.cjs';

const TABLE = {
    'snapshot.unavailable': ['snapshot-capture', 'pin-playwright-or-add-cdp-fallback'],
    'snapshot.root-not-found': ['snapshot-capture', 'fix-root-selector'],
    'snapshot.capture-failed': ['snapshot-capture', 'retry'],
    'snapshot.timeout': ['snapshot-capture', 'retry'],
    'snapshot.invalid-input': ['snapshot-input', 'fix-input'],
    'snapshot.ref-not-found': ['snapshot-ref-resolve', 're-snapshot'],
    'snapshot.ref-stale': ['snapshot-ref-resolve', 're-snapshot'],
    'cdp.unreachable': ['cdp-connect', 'check-endpoint'],
    'cdp.target-mismatch': ['cdp-connect', 'tab-switch'],
};

test('every error code of the table has its stage and retry hint', () => {
    for (const [code, [stage, retryHint]] of Object.entries(TABLE)) {
        const e = errorsCjs.webAiError(code, `about ${code}`, { x: 1 });
        assert.ok(e instanceof WebAiError && e instanceof Error);
        assert.deepEqual([e.name, e.errorCode, e.stage, e.retryHint, e.message], ['WebAiError', code, stage, retryHint, `about ${code}`]);
        assert.deepEqual(e.evidence, { x: 1 });
        assert.equal(e.mutationAllowed, false);
        assert.deepEqual(e.selectorsTried, []);
    }
    assert.throws(() => errorsCjs.webAiError('made.up', 'x'), /unknown errorCode/);
});

test('WebAiError defaults and toJSON', () => {
    const e = new WebAiError({ errorCode: 'snapshot.timeout', message: 'slow', vendor: 'gemini', selectorsTried: ['a'], mutationAllowed: true });
    assert.equal(e.evidence, null);
    assert.deepEqual(e.toJSON(), {
        name: 'WebAiError', errorCode: 'snapshot.timeout', stage: 'internal', message: 'slow', retryHint: 'report',
        vendor: 'gemini', mutationAllowed: true, selectorsTried: ['a'], evidence: null,
    });
    assert.equal(JSON.parse(JSON.stringify(e)).errorCode, 'snapshot.timeout');
    const bare = new WebAiError();
    assert.equal(bare.message, 'web-ai error');
    assert.equal('vendor' in bare.toJSON(), false);
});

test('ESM and CJS share one WebAiError class', () => {
    assert.equal(errorsCjs.WebAiError, WebAiError);
});
