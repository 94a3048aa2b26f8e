// The agent CLI as a user runs it: `open` starts a kept browser, and new
// processes act on it by the refs an earlier one printed, until `close`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { root } from './helpers.mjs';

const run = promisify(execFile);
const bin = join(root, 'bin', 'web-ai-snapshot.mjs');

test('open, then click, fill, press, tabs, screenshot and close from new processes, with the refs printed before', async () => {
    const state = mkdtempSync(join(tmpdir(), 'web-ai-agent-cli-'));
    const env = { ...process.env, WEB_AI_SNAPSHOT_STATE_DIR: state };
    const cli = async (...args) => {
        try {
            const { stdout } = await run(process.execPath, [bin, ...args], { env, timeout: 60000 });
            return { out: stdout, code: 0 };
        } catch (err) {
            return { out: `${err.stdout}${err.stderr}`, code: err.code };
        }
    };
    try {
        assert.match((await cli('click', '@e1')).out, /no kept browser is running: start one with `web-ai-snapshot open URL`/);
        let r = await cli('open', join(root, 'fixtures', 'agent', 'shop.html'));
        assert.equal(r.code, 0, r.out);
        const add = /button "Add Blue Mug to cart" \[ref=(@e\d+)\]/.exec(r.out)[1];
        const search = /searchbox "Search products" \[ref=(@e\d+)\]/.exec(r.out)[1];
        r = await cli('click', add);
        assert.equal(r.code, 0, r.out);
        assert.match(r.out, /^Clicked @e\d+\./);
        assert.match(r.out, /Cart \(1\)/);
        r = await cli('fill', search, 'tea');
        assert.match(r.out, /^Filled/);
        r = await cli('press', 'Enter');
        assert.match(r.out, /^Pressed Enter\./);
        r = await cli('wait', '--timeout', '3000');
        r = await cli('snapshot');
        assert.match(r.out, /Showing 1 product\b/);
        assert.match(r.out, /button "Add Tea Cup to cart"/);
        r = await cli('click', '@e999');
        assert.equal(r.code, 1);
        assert.match(r.out, /^Error ref_invalid/);
        r = await cli('tabs', 'new', join(root, 'fixtures', 'agent', 'table.html'));
        assert.match(r.out, /Page: "Employees"/);
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
        rmSync(state, { recursive: true, force: true });
    }
});
