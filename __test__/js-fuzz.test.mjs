// Every exported function of the package, called with hostile arguments:
// wrong types, huge values, cycles, getters that throw, proxies that throw
// on every trap, pages whose methods throw or reject. Each call must return
// or settle, or fail with an Error the caller can read (a WebAiError with an
// errorCode wherever the input is the package's to judge), within a bound,
// and the process must stay up. A seeded generator makes a failure
// reproducible: the message names the function, the seed and the arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { WebAiError } from '../lib/errors.mjs';
import { sized } from './helpers.mjs';

const require = createRequire(import.meta.url);
const api = require('../lib/index.cjs');

// 120 rounds in CI (WEB_AI_TEST_FULL=1), 60 in a developer's run.
const ROUNDS = Number(process.env.JS_FUZZ_ROUNDS || sized(120, 60));

// A seeded pick from a hand-chosen pool of hostile values is all this needs;
// a property-testing package (fast-check) generates values of its own, and
// none of the ones that matter here (throwing getters and proxies, fake pages).
function rng(seed) {
    let s = seed >>> 0;
    return () => {
        s = (s + 0x6d2b79f5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

function cyclic() {
    const a = { role: 'button', name: 'x', children: [] };
    a.children.push(a);
    a.self = a;
    return a;
}

function throwingGetters() {
    const o = {};
    for (const k of ['role', 'name', 'children', 'nodes', 'text', 'refs', 'snapshotId', 'cdp', 'send', 'url', 'then', 'length', 'ref', 'value', 'timeoutMs', 'rootSelector']) {
        Object.defineProperty(o, k, { enumerable: true, get() { throw new Error(`getter ${k} throws`); } });
    }
    return o;
}

function throwingProxy() {
    const boom = () => { throw new Error('proxy trap throws'); };
    return new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, getPrototypeOf: boom, apply: boom, construct: boom, set: boom });
}

/** Pages and sessions that answer badly, but always answer (no call may wait forever). */
function badPages() {
    return [
        { cdp: { send: async () => { throw new Error('Target crashed'); } } },
        { cdp: { send: async () => null } },
        { cdp: { send: async () => ({ nodes: 'not an array' }) } },
        { cdp: { send: () => { throw new TypeError('sync throw'); } } },
        { cdp: { send: async (m) => (m === 'Accessibility.getFullAXTree' ? { nodes: [cyclic()] } : {}) } },
        { accessibility: { snapshot: async () => cyclic() }, url: () => 'about:blank', title: async () => 't' },
        { accessibility: { snapshot: async () => { throw new Error('no'); } } },
        { context: () => { throw new Error('no context'); } },
        { cdpEndpoint: 'ws://127.0.0.1:9/devtools/browser/x' },
        { cdpEndpoint: 'http://[::1' },
        { cdpEndpoint: 'ws://127.0.0.1:9/x', maxMessageBytes: -5 },
    ];
}

function values(r) {
    const big = 'é'.repeat(1 << 20);
    const pool = [
        undefined, null, 0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 63), 10n ** 30n,
        '', 'x', big, '\u0000\ud800', '@e1', '@e999999999999', 'button', '<script>', 'a'.repeat(100000) + '(', '(a+)+$',
        true, false, Symbol('s'), () => {}, async () => { throw new Error('async fn'); },
        [], [null], new Array(100000).fill('@e1'), [cyclic()], { length: 2 ** 32 - 1 },
        {}, { text: 5, refs: 'x' }, { text: '- button "A" [ref=@e1]', refs: { '@e1': { ref: '@e1', role: 'button', name: 'A' } }, snapshotId: 's' },
        { nodes: [{ nodeId: '1', childIds: ['1'], role: { value: 'button' }, name: { value: 'loop' } }] },
        { maxDepth: -1, timeoutMs: -5, refPrefix: {}, rootSelector: 5, maxNameChars: 1e12, interactiveOnly: 'yes' },
        { timeoutMs: 50, maxDepth: 1e9 }, { vendor: 'chatgpt' }, { vendor: {} },
        cyclic(), throwingGetters(), throwingProxy(), Object.create(null), new Date(NaN), /x/g, new Map([[1, 2]]),
        Buffer.alloc(10), new Uint8Array(3), new Error('an error as input'), { then(_, reject) { reject(new Error('rejected')); } },
        ...badPages(),
    ];
    return () => pool[Math.floor(r() * pool.length)];
}

function describe(v) {
    try {
        if (typeof v === 'string') return v.length > 40 ? `string(${v.length})` : JSON.stringify(v);
        if (typeof v === 'symbol' || typeof v === 'bigint' || typeof v === 'function') return String(v).slice(0, 40);
        if (v && typeof v === 'object') return `${v.constructor?.name ?? 'Object'}{${Object.keys(v).slice(0, 4).join(',')}}`;
        return String(v);
    } catch {
        return '<unprintable>';
    }
}

const BOUND_MS = 15000;

async function settle(fn, args) {
    let result;
    try {
        result = fn(...args);
    } catch (err) {
        return { threw: err };
    }
    if (result && typeof result.then === 'function') {
        let timer;
        const bound = new Promise(resolve => { timer = setTimeout(() => resolve({ hung: true }), BOUND_MS); });
        try {
            return await Promise.race([result.then(value => ({ value }), err => ({ threw: err })), bound]);
        } finally {
            clearTimeout(timer);
        }
    }
    return { value: result };
}

test('every exported function survives hostile arguments: no crash, no hang, readable errors', async t => {
    const fns = Object.entries(api).filter(([, v]) => typeof v === 'function' && !/^[A-Z]/.test(v.name || ''));
    assert.ok(fns.length > 30, `${fns.length} functions`);
    const r = rng(20261123);
    const pick = values(r);
    let calls = 0;
    const plainErrors = new Map();
    for (const [name, fn] of fns) {
        for (let round = 0; round < ROUNDS; round += 1) {
            const args = Array.from({ length: Math.floor(r() * 4) }, pick);
            if (process.env.JS_FUZZ_TRACE) require('node:fs').appendFileSync(process.env.JS_FUZZ_TRACE, `${name}(${args.map(describe).join(', ')})\n`);
            const out = await settle(fn, args);
            calls += 1;
            const where = `${name}(${args.map(describe).join(', ')})`;
            assert.ok(!out.hung, `${where} did not settle within ${BOUND_MS} ms`);
            if ('threw' in out) {
                const err = out.threw;
                assert.ok(err instanceof Error, `${where} threw a non-Error: ${describe(err)}`);
                assert.ok(typeof err.message === 'string', where);
                // The addon's own conversion failures are not for users to read.
                assert.doesNotMatch(err.message, /napi|Failed to convert|InvalidArg|GenericFailure/i, `${where}: ${err.message}`);
                if (!(err instanceof WebAiError)) plainErrors.set(`${name}: ${err.constructor.name}: ${err.message.slice(0, 80)}`, where);
            }
        }
    }
    assert.ok(calls >= fns.length * ROUNDS);
    // Errors that are not WebAiErrors are JavaScript's own on the caller's
    // objects (a getter or proxy that throws, null where options go, as the
    // old modules did): listed for the record; none is the addon's.
    for (const [what, where] of plainErrors) {
        assert.ok(/^[^:]+: (TypeError|RangeError|Error): /.test(what), `${what} at ${where}`);
    }
    t.diagnostic(`${calls} calls of ${fns.length} functions; errors that are not WebAiErrors:\n${[...plainErrors.keys()].join('\n')}`);
});
