// Bad input of any kind gives a WebAiError or a valid snapshot: never a
// crash, a stack overflow or a hang in the Node process. Each case also runs
// in a child process so that an abort would fail the test rather than end it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildWebAiSnapshotFromAxTree as fromTree, buildWebAiSnapshot, extractInteractiveRefs, WebAiError } from '../lib/index.mjs';
import { sized } from './helpers.mjs';

const lib = fileURLToPath(new URL('../lib/index.mjs', import.meta.url));

function validOrInvalidInput(fn) {
    try {
        const s = fn();
        assert.match(s.text, /^- document/);
        assert.equal(typeof s.axHash, 'string');
        return s;
    } catch (err) {
        assert.ok(err instanceof WebAiError, `expected WebAiError, got ${err && err.stack}`);
        assert.equal(err.errorCode, 'snapshot.invalid-input');
        return null;
    }
}

const cdpNode = (id, role, name, childIds = [], extra = {}) => ({ nodeId: String(id), ignored: false, role: { type: 'role', value: role }, name: { type: 'computedString', value: name }, childIds: childIds.map(String), ...extra });

test('cycles in childIds are shown once with a note', () => {
    const s = validOrInvalidInput(() => fromTree({ nodes: [cdpNode(1, 'RootWebArea', 'T', [2]), cdpNode(2, 'button', 'A', [3]), cdpNode(3, 'group', 'G', [2, 1])] }));
    assert.equal(Object.keys(s.refs).length, 1);
    assert.ok(s.notes.some(n => n.includes('reachable more than once')), s.notes.join('|'));
});

test('a node shared by many parents does not blow up (no exponential walk)', () => {
    const nodes = [cdpNode(0, 'RootWebArea', 'T', [1])];
    for (let i = 1; i < 60; i += 1) nodes.push(cdpNode(i, 'group', `g${i}`, [i + 1, i + 1]));
    nodes.push(cdpNode(60, 'button', 'leaf'));
    const s = validOrInvalidInput(() => fromTree({ nodes }));
    assert.equal(Object.keys(s.refs).length, 1);
});

test('dangling child ids and duplicate ids are ignored with a note', () => {
    const s = validOrInvalidInput(() => fromTree({ nodes: [cdpNode(1, 'RootWebArea', 'T', [2, 99, 'x']), cdpNode(2, 'link', 'L'), cdpNode(2, 'button', 'dup')] }));
    assert.deepEqual(Object.values(s.refs).map(r => r.name), ['L']);
    assert.ok(s.notes.some(n => n.includes('pointed at no node')));
    assert.ok(s.notes.some(n => n.includes('repeated nodeId')));
});

test('non-object nodes and wrongly typed fields keep the good nodes', () => {
    const s = validOrInvalidInput(() => fromTree({ nodes: [cdpNode(1, 'RootWebArea', 'T', [2, 3]), 7, null, 'x', [1], cdpNode(2, 'button', 'Ok'), { nodeId: '3', role: 5, name: { value: { deep: 1 } }, childIds: 'nope', properties: 'bad' }] }));
    assert.ok(s.text.includes('button "Ok"'));
    assert.ok(s.notes.some(n => n.includes('malformed')));
    for (const bad of [5, true, { nodes: 5 }, { nodes: 'x' }, '{', 'not json', { nodes: [cdpNode(1, 'RootWebArea', 'T')], extra: 1n }]) {
        validOrInvalidInput(() => fromTree(bad));
    }
});

// CI nests 200,000 deep (300,000 in the spawned process); a developer's run
// 100,000, still deeper than any recursion over it could go on Node's stack.
const DEPTH = sized(200000, 100000);
test(`${DEPTH.toLocaleString('en-US')}-deep nesting: CDP chains and nested legacy objects`, () => {
    const depth = DEPTH;
    const nodes = new Array(depth);
    for (let i = 0; i < depth; i += 1) nodes[i] = cdpNode(i, i === 0 ? 'RootWebArea' : 'group', i % 1000 ? '' : `g${i}`, i + 1 < depth ? [i + 1] : []);
    nodes[depth - 1] = cdpNode(depth - 1, 'button', 'bottom');
    const s = validOrInvalidInput(() => fromTree({ nodes }));
    assert.ok(Object.values(s.refs).some(r => r.name === 'bottom'), 'the deep button keeps its ref through the depth cut');

    let legacy = { role: 'button', name: 'deepest' };
    for (let i = 0; i < depth; i += 1) legacy = { role: 'group', children: [legacy] };
    const l = validOrInvalidInput(() => fromTree({ role: 'WebArea', children: [legacy] }));
    assert.deepEqual(Object.values(l.refs).map(r => r.name), ['deepest']);
    assert.equal(Object.keys(extractInteractiveRefs({ role: 'WebArea', children: [legacy] })).length, 1);
    // Deeply nested JSON text cannot be parsed without recursion: invalid-input, not a crash.
    validOrInvalidInput(() => fromTree('{"role":"WebArea","children":['.repeat(5000) + ']}'.repeat(5000)));
});

test('a cyclic legacy object and a 10 MB name are handled', () => {
    const a = { role: 'WebArea', name: 'T', children: [] };
    const b = { role: 'group', name: 'B', children: [a] };
    a.children.push(b, { role: 'button', name: 'x'.repeat(10 * 1024 * 1024) });
    const s = validOrInvalidInput(() => fromTree(a));
    assert.equal(Object.keys(s.refs).length, 1);
    assert.ok(s.text.length < 5000, 'the huge name is truncated');
    assert.equal(s.refs['@e1'].name.length, 901);
    const cdp = validOrInvalidInput(() => fromTree({ nodes: [cdpNode(1, 'RootWebArea', 'y'.repeat(10 * 1024 * 1024), [2]), cdpNode(2, 'link', 'ok')] }));
    assert.ok(cdp.text.length < 5000);
});

test('odd Unicode: lone surrogates, NUL, RTL marks, combining characters', () => {
    const names = ['\ud800', 'a\udc00b', '\u0000nul', '\u202eevil', 'e\u0301\u0301\u0301', '\ufeff\u2028\u2029', '😀'.repeat(1000)];
    const s = validOrInvalidInput(() => fromTree({ role: 'WebArea', children: names.map(name => ({ role: 'button', name })) }));
    assert.equal(Object.keys(s.refs).length, names.length);
    const cdp = validOrInvalidInput(() => fromTree(JSON.stringify({ nodes: [cdpNode(1, 'RootWebArea', 'T', [2]), cdpNode(2, 'button', 'x\ud800y')] })));
    assert.ok(cdp.text.includes('x\ufffdy'));
});

test('a CDP session that answers garbage gives a WebAiError', async () => {
    for (const answer of [null, 42, 'text', { nodes: 'x' }, { nodes: [1, 2] }]) {
        const page = { cdp: { send: async method => (method === 'Accessibility.getFullAXTree' ? answer : {}) } };
        try {
            const s = await buildWebAiSnapshot(page);
            assert.match(s.text, /^- document/);
        } catch (err) {
            assert.ok(err instanceof WebAiError, String(err && err.stack));
        }
    }
});

test("a session's numbering with a number missing for a key is snapshot.invalid-input", async () => {
    const { createRequire } = await import('node:module');
    const { pumpCapture } = createRequire(import.meta.url)('../lib/pump.cjs');
    const outcome = await pumpCapture(async () => ({}), { engine: 'dom' }, { keys: ['L#1', 'L#2'], numbers: [1], next: 3 });
    assert.equal(outcome.error && outcome.error.errorCode, 'snapshot.invalid-input');
    assert.match(outcome.error.message, /same length/);
});

test('the process survives every malformed input when run in isolation', () => {
    const script = `
        const { buildWebAiSnapshotFromAxTree: f } = await import(${JSON.stringify(lib)});
        const tries = [
            () => { let n = { role: 'button', name: 'b' }; for (let i = 0; i < ${DEPTH * 1.5}; i++) n = { role: 'group', children: [n] }; return f({ role: 'WebArea', children: [n] }); },
            () => { const nodes = []; for (let i = 0; i < ${DEPTH * 1.5}; i++) nodes.push({ nodeId: String(i), role: { value: 'group' }, childIds: [String(i + 1)] }); return f({ nodes }); },
            () => f('[' + '['.repeat(100000) + ']'.repeat(100000) + ']'),
            () => f({ nodes: [{ nodeId: '1', role: { value: 'RootWebArea' }, name: { value: 'x'.repeat(20 * 1024 * 1024) } }] }),
        ];
        for (const t of tries) { try { t(); } catch (e) { if (e.name !== 'WebAiError') throw e; } }
        console.log('survived');
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /survived/);
});
