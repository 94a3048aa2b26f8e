// The agent CLI as a user runs it: `open` starts a kept browser, and new
// processes act on it by the refs an earlier one printed, until `close`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { root } from './helpers.mjs';

const run = promisify(execFile);
const bin = join(root, 'bin', 'web-ai-snapshot.mjs');

/** The JS CLI run with its state (the daemon's socket and record) in `state`: `{ out, code }`. */
function cliIn(state) {
    const env = { ...process.env, WEB_AI_SNAPSHOT_STATE_DIR: state };
    const cli = async (...args) => {
        try {
            const { stdout } = await run(process.execPath, [bin, ...args], { env, timeout: 60000 });
            return { out: stdout, code: 0 };
        } catch (err) {
            return { out: `${err.stdout}${err.stderr}`, code: err.code };
        }
    };
    return { env, cli };
}

test('open, then click, fill, press, tabs, screenshot and close from new processes, with the refs printed before', async () => {
    const state = mkdtempSync(join(tmpdir(), 'web-ai-agent-cli-'));
    const { env, cli } = cliIn(state);
    try {
        assert.match((await cli('click', '@e1')).out, /no kept browser is running: start one with `web-ai-snapshot open URL`/);
        let r = await cli('open', join(root, 'fixtures', 'agent', 'shop.html'));
        assert.equal(r.code, 0, r.out);
        const add = /button "Add Blue Mug to cart" \[ref=(@e\d+)\]/.exec(r.out)[1];
        const search = /searchbox "Search products" \[ref=(@e\d+)\]/.exec(r.out)[1];
        r = await cli('click', add);
        assert.equal(r.code, 0, r.out);
        assert.match(r.out, /^Clicked\./);
        assert.match(r.out, /Cart \(1\)/);
        r = await cli('fill', search, 'tea');
        assert.match(r.out, /^Filled/);
        r = await cli('press', 'Enter');
        assert.match(r.out, /^Pressed Enter\./);
        r = await cli('wait', '--timeout', '3000', '--stability-window', '100');
        assert.equal(r.code, 0, r.out);
        r = await cli('snapshot');
        assert.match(r.out, /Showing 1 product\b/);
        assert.match(r.out, /button "Add Tea Cup to cart"/);
        r = await cli('click', '@e999');
        assert.equal(r.code, 1);
        assert.match(r.out, /^Error ref_invalid/);
        r = await cli('tabs', 'new', join(root, 'fixtures', 'agent', 'table.html'));
        assert.match(r.out, /\n(?:Page [^\n]*\n)?- document "Employees"/);
        assert.match((await cli('tabs')).out, /^2 tabs:/);
        const shot = join(state, 'shot.png');
        r = await cli('screenshot', shot);
        assert.match(r.out, /Saved to/);
        assert.equal(readFileSync(shot).subarray(1, 4).toString(), 'PNG');
        assert.match((await cli('back')).out, /^Went back\./);
    } finally {
        const r = await cli('close');
        assert.match(r.out, /Closed the kept browser\.|No kept browser was running\./);
        assert.ok(!existsSync(join(state, 'agent.json')), 'the daemon removed its record');
        // With no kept browser, `snapshot` shows the bundled page, and says so where an agent reads it.
        const after = await new Promise(resolve => execFile(process.execPath, [bin, 'snapshot'], { env, timeout: 60000 }, (err, stdout, stderr) => resolve({ err, stdout, stderr })));
        assert.equal(after.err, null, after.stderr);
        assert.match(after.stderr, /^# no kept browser is running, so this is the bundled look-alike page; `web-ai-snapshot open URL` starts/m);
        assert.match(after.stdout, /- document "ChatGPT"/);
        rmSync(state, { recursive: true, force: true });
    }
});

test('a dialog the page opens is answered with `dialog`, which every reply names, not a tool the shell has not', async () => {
    const state = mkdtempSync(join(tmpdir(), 'web-ai-agent-cli-'));
    const { cli } = cliIn(state);
    try {
        let r = await cli('open', join(root, 'fixtures', 'agent', 'faults.html'));
        assert.equal(r.code, 0, r.out);
        const button = name => new RegExp(`button "${name}" \\[ref=(@e\\d+)\\]`).exec(r.out)[1];
        const [alert, confirm, prompt] = ['Show alert', 'Delete', 'Greet'].map(button);
        const named = /dialog is open; answer it with `web-ai-snapshot dialog accept \[TEXT\]` or `web-ai-snapshot dialog dismiss`\. Its message:\n<page \d{6}>\n"Saved!"/;
        const out = (await cli('click', alert)).out;
        assert.match(out, named);
        assert.doesNotMatch(out, /browser_handle_dialog/);
        // Until it is answered, every command says so (and fails).
        r = await cli('snapshot');
        assert.equal(r.code, 1);
        assert.match(r.out, named);
        assert.match((await cli('dialog', 'accept')).out, /^Accepted the alert dialog\./);
        await cli('click', confirm);
        assert.match((await cli('dialog', 'dismiss')).out, /kept/);
        await cli('click', prompt);
        assert.match((await cli('dialog', 'accept', 'Grace')).out, /hello Grace/);
        r = await cli('dialog', 'dismiss');
        assert.equal(r.code, 1);
        assert.match(r.out, /^Error invalid_params: no dialog is open/);
        r = await cli('dialog', 'maybe');
        assert.equal(r.code, 2);
        assert.match(r.out, /usage: dialog takes accept \[TEXT\] \(TEXT answers a prompt\) or dismiss/);
    } finally {
        await cli('close');
        rmSync(state, { recursive: true, force: true });
    }
});

test('the native client serves the kept browser without Node, prints what the JS CLI prints, and hands every other command to it', { skip: process.platform === 'win32' ? 'the native client is not installed on Windows' : false }, async () => {
    const state = mkdtempSync(join(tmpdir(), 'web-ai-agent-native-'));
    // As the install lays it out: the client in place of the bin, the JS CLI beside it.
    const binDir = join(state, 'bin');
    mkdirSync(binDir);
    const client = join(binDir, 'web-ai-snapshot');
    copyFileSync(join(root, 'target', 'debug', 'web-ai-snapshot-client'), client);
    chmodSync(client, 0o755);
    symlinkSync(bin, join(binDir, 'web-ai-snapshot.mjs'));
    const env = { ...process.env, WEB_AI_SNAPSHOT_STATE_DIR: join(state, 'daemon') };
    // No node on PATH: a command that needed Node would fail to start it.
    const withoutNode = { ...env, PATH: '' };
    const exec = async (file, args, opts) => {
        try {
            const { stdout, stderr } = await run(file, args, { timeout: 60000, ...opts });
            return { out: stdout, err: stderr, code: 0 };
        } catch (err) {
            return { out: err.stdout, err: err.stderr, code: err.code };
        }
    };
    const native = (args, opts = {}) => exec(client, args, { env: withoutNode, ...opts });
    const viaNode = (args, opts = {}) => exec(client, args, { env, ...opts });
    const js = (args, opts = {}) => exec(process.execPath, [bin, ...args], { env, ...opts });
    const sameText = s => s.replace(/<(\/?)page \d+>/g, '<$1page N>');
    const agent = join(root, 'fixtures', 'agent');
    try {
        // No daemon yet: the JS CLI answers, in its words.
        let r = await viaNode(['click', '@e1']);
        assert.equal(r.code, 2);
        assert.match(r.err, /no kept browser is running: start one with `web-ai-snapshot open URL`/);
        assert.equal((await viaNode(['--version'])).out.trim(), JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
        assert.match((await native(['--client-version'])).out, /^web-ai-snapshot-client \d+\.\d+\.\d+/);
        r = await viaNode(['open', join(agent, 'wizard.html')]);
        assert.equal(r.code, 0, r.err);
        const next = /button "Next" \[ref=(@e\d+)/.exec(r.out)[1];
        const first = /textbox "First name" \[ref=(@e\d+)/.exec(r.out)[1];

        r = await native(['click', next]);
        assert.equal(r.code, 0, r.err);
        assert.match(r.out, /^Clicked\./);
        assert.match(r.out, /alert: Enter your first and last name\./);
        r = await native(['fill', first, 'Ada']);
        // The field holds what was written and nothing else changed: the status line alone.
        assert.match(r.out, /^Filled\.\n?$/);
        assert.match((await native(['snapshot'])).out, /textbox "First name" \[ref=@e\d+ value="Ada"\]/);
        // The same page, the same words, whichever client asks.
        assert.equal(sameText((await native(['snapshot'])).out), sameText((await js(['snapshot'])).out));
        // Usage errors and failed actions: the JS CLI's messages and exit codes.
        for (const args of [['fill', first], ['scroll', '--amount', 'x'], ['tabs', 'pick', '1'], ['click', '@e1', '--nope']]) {
            const a = await native(args);
            const b = await js(args);
            assert.equal(a.code, 2, `${args.join(' ')}: ${a.err}`);
            assert.deepEqual([a.code, a.err, a.out], [b.code, b.err, b.out], args.join(' '));
        }
        r = await native(['click', '@e999']);
        assert.equal(r.code, 1);
        assert.match(r.out, /^Error ref_invalid/);
        // Files are the caller's: relative to the client's folder, not the daemon's.
        r = await native(['navigate', 'table.html'], { cwd: agent });
        assert.match(r.out, /\n(?:Page [^\n]*\n)?- document "Employees"/);
        r = await native(['screenshot', 'shot.png'], { cwd: state });
        assert.match(r.out, /Saved to /);
        assert.equal(readFileSync(join(state, 'shot.png')).subarray(1, 4).toString(), 'PNG');
        // Help, another browser and other commands are the JS CLI's.
        assert.match((await viaNode(['click', '--help'])).out, /--cdp ENDPOINT/);
        assert.match((await native(['click', '--help'])).err, /cannot start Node/);
        assert.match((await viaNode(['snapshot', '--help'])).out, /^Usage: web-ai-snapshot snapshot/);
        // The published shim runs the JS CLI too.
        assert.equal((await exec(process.execPath, [join(root, 'bin', 'web-ai-snapshot'), '--version'], { env })).code, 0);
        r = await native(['close']);
        assert.equal(r.out, 'Closed the kept browser.\n');
        assert.ok(!existsSync(join(state, 'daemon', 'agent.json')), 'the daemon removed its record');
        r = await viaNode(['close']);
        assert.match(r.out, /No kept browser was running\./);
    } finally {
        await js(['close']);
        rmSync(state, { recursive: true, force: true });
    }
});

test('a daemon that is exiting reads as no daemon: a connection ended without a word, or dropped', async () => {
    const { createServer } = await import('node:net');
    const { request } = await import('../lib/agent/daemon.mjs');
    const state = mkdtempSync(join(tmpdir(), 'web-ai-agent-exit-'));
    const previous = process.env.WEB_AI_SNAPSHOT_STATE_DIR;
    process.env.WEB_AI_SNAPSHOT_STATE_DIR = state;
    const serve = handler => new Promise(resolve => {
        const server = createServer(handler);
        server.listen(join(state, 'agent.sock'), () => resolve(server));
    });
    try {
        let server = await serve(conn => conn.resume().end());
        assert.equal(await request({ tool: 'close' }), null);
        await new Promise(resolve => server.close(resolve));
        server = await serve(conn => conn.destroy());
        assert.equal(await request({ tool: 'close' }), null);
        await new Promise(resolve => server.close(resolve));
        // A daemon that answers is read as before.
        server = await serve(conn => conn.on('data', () => conn.end('{"text":"Closed the kept browser."}')));
        assert.deepEqual(await request({ tool: 'close' }), { text: 'Closed the kept browser.' });
        await new Promise(resolve => server.close(resolve));
        // Not JSON is still an error, not silence.
        server = await serve(conn => conn.on('data', () => conn.end('oops')));
        await assert.rejects(request({ tool: 'close' }), /not JSON/);
        await new Promise(resolve => server.close(resolve));
    } finally {
        if (previous === undefined) delete process.env.WEB_AI_SNAPSHOT_STATE_DIR;
        else process.env.WEB_AI_SNAPSHOT_STATE_DIR = previous;
        rmSync(state, { recursive: true, force: true });
    }
});
