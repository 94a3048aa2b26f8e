import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WebAiError } from '../lib/errors.mjs';
import errorsCjs from '../lib/errors.cjs';
import raise from '../lib/raise.cjs';

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
    'cdp.connection-closed': ['cdp-transport', 'reconnect'],
    'cdp.protocol-violation': ['cdp-transport', 'check-endpoint'],
    'cdp.message-too-large': ['cdp-transport', 'raise-max-message-bytes'],
    'cdp.invalid-json': ['cdp-transport', 'check-endpoint'],
    'target.crashed': ['page-target', 'reload-page'],
    'target.detached': ['page-target', 'tab-switch'],
};

test('the error table in docs/SPEC.md and the TypeScript union list exactly the addon\'s codes', async () => {
    const native = (await import('../lib/native.cjs')).default;
    const spec = readFileSync(new URL('../docs/SPEC.md', import.meta.url), 'utf8');
    const rows = Object.fromEntries([...spec.matchAll(/^\| ([a-z]+\.[a-z-]+) \| ([a-z-]+) \| ([a-z-]+) \|/gm)].map(m => [m[1], [m[2], m[3]]]));
    const table = Object.fromEntries(native.errorTable().map(([code, stage, hint]) => [code, [stage, hint]]));
    assert.deepEqual(rows, table);
    const dts = readFileSync(new URL('../lib/errors.d.ts', import.meta.url), 'utf8');
    const union = dts.slice(0, dts.indexOf(';'));
    assert.deepEqual([...union.matchAll(/'([a-z]+\.[a-z-]+)'/g)].map(m => m[1]).sort(), Object.keys(table).sort());
    for (const [code, fields] of Object.entries(TABLE)) assert.deepEqual(table[code], fields, code);
});

test('every error code of the table has its stage and retry hint', () => {
    for (const [code, [stage, retryHint]] of Object.entries(TABLE)) {
        const e = raise.webAiError(code, `about ${code}`, { x: 1 });
        assert.ok(e instanceof WebAiError && e instanceof Error);
        assert.deepEqual([e.name, e.errorCode, e.stage, e.retryHint, e.message], ['WebAiError', code, stage, retryHint, `about ${code}`]);
        assert.deepEqual(e.evidence, { x: 1 });
        assert.equal(e.mutationAllowed, false);
        assert.deepEqual(e.selectorsTried, []);
    }
    assert.throws(() => raise.webAiError('made.up', 'x'), /unknown errorCode/);
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

test('the old modules\' error helpers: wrapError, providerError, contextError, toErrorJson, fromCliJawStructuredError', async () => {
    const { wrapError, providerError, contextError, toErrorJson, fromCliJawStructuredError, WebAiError: W } = await import('../lib/errors.mjs');
    const original = new W({ errorCode: 'provider.poll-timeout', stage: 'poll', message: 'late' });
    assert.equal(wrapError(original), original, 'a WebAiError passes through');
    const plain = new Error('boom');
    const wrapped = wrapError(plain);
    assert.deepEqual([wrapped.errorCode, wrapped.stage, wrapped.retryHint, wrapped.message, wrapped.cause], ['internal.unhandled', 'internal', 'report', 'boom', plain]);
    const shaped = wrapError({ errorCode: 'cdp.unreachable', stage: 'connect', message: 'down', evidence: { port: 9 } }, { vendor: 'grok' });
    assert.deepEqual([shaped.errorCode, shaped.stage, shaped.vendor, shaped.evidence], ['cdp.unreachable', 'connect', 'grok', { port: 9 }]);
    assert.equal(wrapError('text').message, 'text');
    assert.equal(providerError('gemini', { errorCode: 'provider.composer-not-visible' }).vendor, 'gemini');
    assert.equal(contextError({ errorCode: 'context.over-budget' }).vendor, undefined);
    const json = toErrorJson({ errorCode: 'provider.composer-not-visible', message: 'x', selectorsTried: ['.a'] });
    assert.deepEqual(json, { name: 'WebAiError', errorCode: 'provider.composer-not-visible', message: 'x', selectorsTried: ['.a'] }, 'only the fields that are set');
    assert.deepEqual(toErrorJson(null), { name: 'WebAiError' });
    assert.deepEqual(Object.keys(new W({ errorCode: 'a', traceId: 't' }).toJSON()), ['name', 'errorCode', 'stage', 'message', 'retryHint', 'mutationAllowed', 'selectorsTried', 'evidence', 'traceId']);
    // The old module's own properties: vendor, traceId and ruleId always (undefined when not given), a cause only when truthy.
    const KEYS = ['name', 'errorCode', 'stage', 'retryHint', 'vendor', 'mutationAllowed', 'selectorsTried', 'evidence', 'traceId', 'ruleId'];
    assert.deepEqual(Object.keys(new W({})), KEYS);
    assert.deepEqual(Object.keys(new W({ errorCode: 'a', cause: plain })), [...KEYS, 'cause']);
    for (const falsy of [0, '', false, null, undefined]) assert.equal(Object.hasOwn(new W({ cause: falsy }), 'cause'), false, `cause ${String(falsy)} is dropped`);
    assert.equal(Object.hasOwn(new W({}), 'vendor') && Object.hasOwn(new W({}), 'traceId') && Object.hasOwn(new W({}), 'ruleId'), true);
    class WrongTargetError extends Error { constructor() { super('expected A got B'); this.name = 'WrongTargetError'; this.expectedTargetId = 'A'; this.actualTargetId = 'B'; } }
    const mapped = fromCliJawStructuredError(new WrongTargetError());
    assert.deepEqual([mapped.errorCode, mapped.retryHint, mapped.evidence], ['cdp.target-mismatch', 'tab-switch', { expectedTargetId: 'A', actualTargetId: 'B' }]);
    const cap = fromCliJawStructuredError(Object.assign(new Error('no'), { name: 'BrowserCapabilityError', capabilityId: 'x', stage: 'capability-preflight' }));
    assert.deepEqual([cap.errorCode, cap.stage, cap.evidence.capabilityId], ['capability.unsupported', 'capability-preflight', 'x']);
    const off = fromCliJawStructuredError(Object.assign(new Error('off'), { name: 'ProviderRuntimeDisabledError', vendor: 'gemini', stage: 'status' }));
    assert.deepEqual([off.errorCode, off.vendor, off.stage], ['provider.runtime-disabled', 'gemini', 'status']);
    assert.equal(fromCliJawStructuredError(new Error('plain')), null);
    assert.equal(fromCliJawStructuredError(null), null);
});

test('errors raised without the addon (no browser, no binary) carry the fields of the addon\'s table', async () => {
    const native = (await import('../lib/native.cjs')).default;
    const table = Object.fromEntries(native.errorTable().map(([code, stage, hint]) => [code, [stage, hint]]));
    for (const code of ['browser.not-found', 'browser.launch-failed', 'page.navigation-failed', 'page.dns-failed', 'addon.binary-missing']) {
        assert.ok(table[code], `${code} is in the table`);
    }
    const { findChromium } = await import('../lib/chromium.mjs');
    const saved = process.env.CHROME_PATH;
    process.env.CHROME_PATH = '/nonexistent/chrome';
    try {
        assert.throws(() => findChromium(), err => {
            assert.ok(err instanceof WebAiError);
            assert.deepEqual([err.stage, err.retryHint], table[err.errorCode]);
            return err.errorCode === 'browser.not-found';
        });
    } finally {
        if (saved === undefined) delete process.env.CHROME_PATH; else process.env.CHROME_PATH = saved;
    }
    const loader = readFileSync(new URL('../lib/native.cjs', import.meta.url), 'utf8');
    assert.ok(loader.includes(`stage: '${table['addon.binary-missing'][0]}'`) && loader.includes(`retryHint: '${table['addon.binary-missing'][1]}'`));
    const launcher = readFileSync(new URL('../lib/chromium.mjs', import.meta.url), 'utf8');
    assert.ok(launcher.includes(`'${table['browser.launch-failed'][1]}'`) && launcher.includes(`stage: '${table['browser.not-found'][0]}'`));
    const cli = readFileSync(new URL('../bin/web-ai-snapshot.mjs', import.meta.url), 'utf8');
    assert.ok(cli.includes(`'${table['page.dns-failed'][1]}'`) && cli.includes(`'${table['page.navigation-failed'][1]}'`));
});
