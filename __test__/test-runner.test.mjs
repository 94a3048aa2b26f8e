// The suite's own runner (scripts/test.mjs): files that share a process
// must still fail the run one by one. A failing test, a file that cannot be
// imported and a crash between files each fail it, name their file, and
// leave the other files' results as they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './helpers.mjs';

/** Run scripts/test.mjs over files written to a fresh folder: its exit status and the closing table's rows by file. */
function runner(files, lanes) {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-runner-'));
    try {
        const paths = Object.entries(files).map(([name, text]) => {
            writeFileSync(join(dir, name), text);
            return join(dir, name);
        });
        const r = spawnSync(process.execPath, [join(root, 'scripts', 'test.mjs'), ...paths], {
            cwd: root,
            encoding: 'utf8',
            env: { ...process.env, WEB_AI_TEST_CONCURRENCY: String(lanes) },
            timeout: 60000,
        });
        const table = r.stdout.slice(r.stdout.lastIndexOf('# ==== every file'));
        const rows = Object.fromEntries([...table.matchAll(/^# +[\d.]+ s +(\d+) tests +(ok|FAILED) +(\S+)$/gm)].map(m => [m[3], { tests: Number(m[1]), ok: m[2].trim() === 'ok' }]));
        const total = key => Number(new RegExp(`^# ${key} (\\d+)$`, 'm').exec(table)?.[1]);
        return { status: r.status, rows, tests: total('tests'), pass: total('pass'), fail: total('fail'), skipped: total('skipped'), out: r.stdout + r.stderr };
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

const PASSING = "import { test } from 'node:test';\ntest('passes', () => {});\ntest('passes too', () => {});\n";
const FAILING = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('passes', () => {});\ntest('fails', () => assert.equal(1, 2));\ntest('skipped', { skip: 'on purpose' }, () => {});\n";
const BROKEN = "import { test } from 'node:test';\nthis is not JavaScript\n";

for (const lanes of [1, 3]) {
    test(`in ${lanes === 1 ? 'one process' : 'three lanes'}: a failing test and a file that cannot be imported fail the run and name their files; the passing file stays ok`, () => {
        const r = runner({ 'a.test.mjs': PASSING, 'b.test.mjs': FAILING, 'c.test.mjs': BROKEN }, lanes);
        assert.equal(r.status, 1, r.out);
        assert.deepEqual(r.rows['a.test.mjs'], { tests: 2, ok: true }, r.out);
        assert.deepEqual(r.rows['b.test.mjs'], { tests: 3, ok: false }, r.out);
        assert.deepEqual(r.rows['c.test.mjs'], { tests: 0, ok: false }, r.out);
        assert.deepEqual([r.tests, r.pass, r.fail, r.skipped], [5, 3, 1, 1], r.out);
        assert.match(r.out, /# FAILED: .*b\.test\.mjs/);
        assert.match(r.out, /# FAILED: .*c\.test\.mjs/);
    });
}

test('a process that dies before its report fails the run, though every test it reported passed, and names all its files', () => {
    const r = runner({ 'a.test.mjs': PASSING, 'd.test.mjs': "import { test } from 'node:test';\ntest('passes, then the process dies', () => { setTimeout(() => process.exit(7), 50); });\n" }, 1);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /# FAILED: a\.test\.mjs, d\.test\.mjs$/m);
});

test('a process that ends with a failing status though every test passed fails the run', () => {
    const r = runner({ 'a.test.mjs': PASSING, 'f.test.mjs': "import { test } from 'node:test';\nprocess.exitCode = 3;\ntest('passes', () => {});\n" }, 1);
    assert.equal(r.status, 1, r.out);
    assert.equal(r.fail, 0, r.out);
    assert.ok(Object.values(r.rows).some(row => !row.ok), r.out);
});

test('files that all pass: exit 0, every file ok', () => {
    const r = runner({ 'a.test.mjs': PASSING, 'e.test.mjs': PASSING }, 1);
    assert.equal(r.status, 0, r.out);
    assert.deepEqual(r.rows, { 'a.test.mjs': { tests: 2, ok: true }, 'e.test.mjs': { tests: 2, ok: true } });
});
