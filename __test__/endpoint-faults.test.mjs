// A fake DevTools endpoint that completes or botches the websocket handshake
// and then misbehaves in one way per case. Each case must end in its own
// error code within the deadline; the well-formed but unusual ones
// (fragmented frames, pings) must still give the recorded snapshot.
// The websocket framing is written here by hand, not taken from a package
// such as `ws`: a well-behaved server library will not send reserved bits,
// masked server frames, lying length headers or a wrong accept key, and
// those are the cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import net from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { buildWebAiSnapshot, WebAiError } from '../lib/index.mjs';
import { recording } from './helpers.mjs';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** A server frame (never masked): FIN flag, opcode, payload. */
function frame(opcode, payload, { fin = true, claimedLength = null } = {}) {
    const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
    const len = claimedLength ?? body.length;
    let head;
    if (len < 126) {
        head = Buffer.from([(fin ? 0x80 : 0) | opcode, len]);
    } else if (len < 65536) {
        head = Buffer.alloc(4);
        head[0] = (fin ? 0x80 : 0) | opcode;
        head[1] = 126;
        head.writeUInt16BE(len, 2);
    } else {
        head = Buffer.alloc(10);
        head[0] = (fin ? 0x80 : 0) | opcode;
        head[1] = 127;
        head.writeBigUInt64BE(BigInt(len), 2);
    }
    return Buffer.concat([head, body]);
}

/** Read the client's (masked) frames from `buf`: [{ opcode, text }], and the bytes left over. */
function readFrames(buf) {
    const out = [];
    let at = 0;
    for (;;) {
        if (buf.length - at < 2) break;
        const opcode = buf[at] & 0x0f;
        let len = buf[at + 1] & 0x7f;
        let off = at + 2;
        if (len === 126) { if (buf.length < off + 2) break; len = buf.readUInt16BE(off); off += 2; }
        else if (len === 127) { if (buf.length < off + 8) break; len = Number(buf.readBigUInt64BE(off)); off += 8; }
        if (buf.length < off + 4 + len) break;
        const mask = buf.subarray(off, off + 4);
        const data = Buffer.from(buf.subarray(off + 4, off + 4 + len));
        for (let i = 0; i < data.length; i += 1) data[i] ^= mask[i % 4];
        out.push({ opcode, text: data.toString('utf8') });
        at = off + 4 + len;
    }
    return { frames: out, rest: buf.subarray(at) };
}

/**
 * Start a fake endpoint. `handshake(key)` returns the raw HTTP answer;
 * `onMessage(msg, socket, state)` answers each client message.
 */
function fakeEndpoint({ handshake = okHandshake, onMessage = () => {}, onPong = () => {} } = {}) {
    const sockets = new Set();
    const server = net.createServer(socket => {
        sockets.add(socket);
        socket.on('error', () => {});
        let buf = Buffer.alloc(0);
        let upgraded = false;
        const state = {};
        socket.on('data', chunk => {
            buf = Buffer.concat([buf, chunk]);
            if (!upgraded) {
                const end = buf.indexOf('\r\n\r\n');
                if (end < 0) return;
                const head = buf.subarray(0, end).toString('latin1');
                buf = buf.subarray(end + 4);
                const key = /sec-websocket-key:\s*(\S+)/i.exec(head)?.[1] ?? '';
                const answer = handshake(key);
                if (answer === null) return;
                socket.write(answer);
                upgraded = true;
            }
            const { frames, rest } = readFrames(buf);
            buf = rest;
            for (const f of frames) {
                if (f.opcode === 0xA) { onPong(f.text); continue; }
                if (f.opcode !== 0x1) continue;
                onMessage(JSON.parse(f.text), socket, state);
            }
        });
    });
    return new Promise(resolve => server.listen(0, '127.0.0.1', () => {
        const url = `ws://127.0.0.1:${server.address().port}/devtools/browser/fake`;
        resolve({ url, close: () => { for (const s of sockets) s.destroy(); server.close(); } });
    }));
}

function accept(key) {
    return createHash('sha1').update(key + GUID).digest('base64');
}

function okHandshake(key) {
    return `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept(key)}\r\n\r\n`;
}

const send = (socket, obj, opts) => socket.write(frame(0x1, JSON.stringify(obj), opts));

/** The browser-level answers every case needs before the capture starts: one tab, attached. */
function browserLevel(msg, socket) {
    if (msg.method === 'Target.getTargets' && !msg.sessionId) {
        send(socket, { id: msg.id, result: { targetInfos: [{ targetId: 'TAB', type: 'page', url: 'https://fake.test/', title: 'Fake', attached: false }] } });
        return true;
    }
    if (msg.method === 'Target.attachToTarget') {
        send(socket, { id: msg.id, result: { sessionId: 'S1' } });
        return true;
    }
    if (msg.method === 'Target.detachFromTarget' || msg.method === 'DOM.disable') {
        send(socket, { id: msg.id, result: {} });
        return true;
    }
    return false;
}

/** Answers from a recording of real Chromium, each written by `write`. */
function replay(rec, write) {
    return (msg, socket) => {
        if (browserLevel(msg, socket)) return;
        const hit = rec.replies.find(r => r.method === msg.method && isDeepStrictEqual(r.params, msg.params ?? {}));
        const reply = hit ? { id: msg.id, result: hit.result, sessionId: msg.sessionId } : { id: msg.id, error: { code: -32000, message: `no recorded reply for ${msg.method}` }, sessionId: msg.sessionId };
        write(socket, JSON.stringify(reply));
    };
}

async function outcome(url, options = {}, endpointExtra = {}) {
    const started = performance.now();
    const r = await buildWebAiSnapshot({ cdpEndpoint: url, ...endpointExtra }, { timeoutMs: 3000, ...options }).catch(e => e);
    return { r, ms: performance.now() - started };
}

async function expectCode(fake, code, { options = {}, endpoint = {}, withinMs = 3000, message = null } = {}) {
    const f = await fakeEndpoint(fake);
    try {
        const { r, ms } = await outcome(f.url, options, endpoint);
        assert.ok(r instanceof WebAiError, `expected ${code}, got ${r && r.text ? 'a snapshot' : String(r)}`);
        assert.equal(r.errorCode, code, r.message);
        // In time, with room for a loaded machine (the other test files beside this one once
        // made a 1.5 s deadline answer after 2.6 s), but below the 3 s deadline where "at once" is meant.
        assert.ok(ms < withinMs + Math.max(1000, withinMs), `${code} took ${ms.toFixed(0)} ms`);
        if (message) assert.match(r.message, message);
        return r;
    } finally {
        f.close();
    }
}

test('a peer that closes the socket is cdp.connection-closed, at once', async () => {
    const e = await expectCode({ onMessage: (_msg, socket) => socket.destroy() }, 'cdp.connection-closed', { withinMs: 500 });
    assert.deepEqual([e.stage, e.retryHint], ['cdp-transport', 'reconnect']);
});

test('a close frame is cdp.connection-closed naming its code and reason', async () => {
    const closing = Buffer.concat([Buffer.from([0x03, 0xf3]), Buffer.from('going away')]); // 1011
    await expectCode({ onMessage: (_msg, socket) => socket.write(frame(0x8, closing)) }, 'cdp.connection-closed', { withinMs: 500, message: /1011: going away/ });
});

test('a botched handshake is cdp.protocol-violation: a wrong Sec-WebSocket-Accept, or an answer that is not HTTP', async () => {
    const wrongKey = () => `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept('not-the-key')}\r\n\r\n`;
    await expectCode({ handshake: wrongKey }, 'cdp.protocol-violation', { withinMs: 500, message: /handshake/ });
    await expectCode({ handshake: () => 'HELLO THERE\r\n\r\n' }, 'cdp.protocol-violation', { withinMs: 500 });
    // A server that is not a websocket at all (an HTTP page) cannot be reached as one.
    await expectCode({ handshake: () => 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n' }, 'cdp.unreachable', { withinMs: 500, message: /HTTP 404/ });
});

test('garbage after the handshake is cdp.protocol-violation', async () => {
    const garbage = [
        Buffer.from([0xf1, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f]), // reserved bits set
        Buffer.from([0x83, 0x01, 0x78]), // a reserved opcode
        Buffer.from([0x81, 0x81, 1, 2, 3, 4, 0x78]), // a masked frame from the server
        Buffer.from([0x80, 0x01, 0x78]), // a continuation with nothing to continue
    ];
    for (const bytes of garbage) {
        await expectCode({ onMessage: (_msg, socket) => socket.write(bytes) }, 'cdp.protocol-violation', { withinMs: 500 });
    }
    // Text that is not UTF-8.
    await expectCode({ onMessage: (_msg, socket) => socket.write(frame(0x1, Buffer.from([0xc3, 0x28]))) }, 'cdp.protocol-violation', { withinMs: 500 });
    // A control frame may not be fragmented.
    await expectCode({ onMessage: (_msg, socket) => socket.write(frame(0x9, 'x', { fin: false })) }, 'cdp.protocol-violation', { withinMs: 500 });
});

test('a frame whose header claims 2^62 bytes is cdp.message-too-large at once, with nothing allocated for it', async () => {
    const before = process.memoryUsage().rss;
    const e = await expectCode({ onMessage: (_msg, socket) => socket.write(frame(0x1, Buffer.alloc(0), { claimedLength: 2 ** 62 })) }, 'cdp.message-too-large', { withinMs: 500 });
    assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024);
    assert.deepEqual([e.retryHint, e.evidence.maxMessageBytes], ['raise-max-message-bytes', 64 * 1024 * 1024]);
});

test('maxMessageBytes is configurable: a 2 MiB reply over a 1 MiB limit is cdp.message-too-large; invalid limits are invalid input', async () => {
    const big = (msg, socket) => send(socket, { id: msg.id, result: { pad: 'x'.repeat(2 * 1024 * 1024) } });
    const e = await expectCode({ onMessage: big }, 'cdp.message-too-large', { endpoint: { maxMessageBytes: 1024 * 1024 }, withinMs: 1000 });
    assert.equal(e.evidence.maxMessageBytes, 1024 * 1024);
    for (const bad of [0, 10, -1, 1.5, Number.NaN, 'big', 2 ** 40]) {
        const r = await buildWebAiSnapshot({ cdpEndpoint: 'ws://127.0.0.1:9/x', maxMessageBytes: bad }).catch(x => x);
        assert.ok(r instanceof WebAiError && r.errorCode === 'snapshot.invalid-input', `${bad}: ${r && r.errorCode}`);
        assert.equal(r.evidence.what, 'maxMessageBytes');
    }
});

test('a message that is not JSON is cdp.invalid-json', async () => {
    const e = await expectCode({ onMessage: (_msg, socket) => socket.write(frame(0x1, 'this is {not json')) }, 'cdp.invalid-json', { withinMs: 500 });
    assert.equal(e.evidence.start, 'this is {not json');
});

test('the tab crashing or detaching mid-capture is target.crashed / target.detached, at once', async () => {
    const event = method => (msg, socket) => {
        if (browserLevel(msg, socket)) return;
        if (method === 'Inspector.targetCrashed') send(socket, { method, params: {}, sessionId: 'S1' });
        else send(socket, { method, params: { sessionId: 'S1', targetId: 'TAB' } });
    };
    await expectCode({ onMessage: event('Inspector.targetCrashed') }, 'target.crashed', { withinMs: 500 });
    await expectCode({ onMessage: event('Target.detachedFromTarget') }, 'target.detached', { withinMs: 500 });
});

test('a peer that says nothing after the handshake, or sends an enormous reply slowly, is snapshot.timeout at the deadline', async () => {
    const silent = (msg, socket) => { browserLevel(msg, socket); };
    await expectCode({ onMessage: silent }, 'snapshot.timeout', { options: { timeoutMs: 1500 }, withinMs: 1500 });
    const trickle = (msg, socket, state) => {
        if (browserLevel(msg, socket) || state.started) return;
        state.started = true;
        // A header for 32 MB, then 1 KB every 20 ms: it would take ten minutes.
        socket.write(frame(0x1, Buffer.alloc(0), { claimedLength: 32 * 1024 * 1024 }));
        const timer = setInterval(() => { if (socket.destroyed) clearInterval(timer); else socket.write(Buffer.alloc(1024, 0x20)); }, 20);
        socket.on('close', () => clearInterval(timer));
    };
    const before = process.memoryUsage().rss;
    await expectCode({ onMessage: trickle }, 'snapshot.timeout', { options: { timeoutMs: 1500 }, withinMs: 1500 });
    assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024);
});

test('fragmented frames and pings between them still give the recorded snapshot, and pings are answered', async () => {
    const rec = recording('chatgpt');
    const fragmented = (socket, text) => {
        const third = Math.ceil(text.length / 3);
        const parts = [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
        socket.write(frame(0x1, parts[0], { fin: false }));
        socket.write(frame(0x9, 'between fragments'));
        socket.write(frame(0x0, parts[1], { fin: false }));
        socket.write(frame(0x0, parts[2], { fin: true }));
    };
    const pongs = [];
    const f = await fakeEndpoint({ onMessage: replay(rec, fragmented), onPong: t => pongs.push(t) });
    try {
        const s = await buildWebAiSnapshot({ cdpEndpoint: f.url }, { ...rec.options, timeoutMs: 5000 });
        assert.equal(s.text, rec.expected.text);
        assert.ok(pongs.length > 0 && pongs.every(p => p === 'between fragments'), `pongs: ${pongs.length}`);
    } finally {
        f.close();
    }
});
