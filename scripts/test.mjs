// The node half of `npm test`: each test file in its own `node --test`
// process, a few at once, each with one Chromium shared by its tests (one
// of them at a higher priority than the rest, below). Each file's output is printed whole when
// it ends, and a table of every file's time closes the run.
//
//   node scripts/test.mjs [files...]     default: every __test__/*.test.mjs
//   node scripts/test.mjs --with-cargo   also `cargo test`, as one job of the pool
//                                        (npm test: it overlaps the node files)
//   WEB_AI_TEST_FULL=1                   the long randomized tests at full length (CI)
//   WEB_AI_TEST_CONCURRENCY=N            files at once (default 3)
//
// Measured on this 2-core machine: the suite is CPU-bound (Chromium
// rendering real pages, TypeScript, npm), so 3 files at once is about as
// fast as it gets (5 at once was slower: 5m41s against 5m08s). One browser
// shared by all files over its DevTools endpoint was slower, not faster
// (every ref of every real page: 92 s with a browser per file, 117 s
// shared, in the same parallel run): each Playwright client that connects
// attaches to every tab of the browser.
//
// Why a pool here and not `node --test` over all files: the longest files
// must start first, or the one that started last runs on alone at the end,
// and which are longest is measured, not guessed: each run keeps every
// file's time in target/test-times.json (not committed) for the next.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// hostile.test.mjs measures how late Node's event loop answers during
// captures; beside other files on two cores the OS alone makes it late. It
// starts first, at normal priority, and every other job runs under `nice`
// (where there is one): the scheduler then answers its loop first, as it
// would on an idle machine, and the rest of the pool uses what it leaves
// (it ran alone after the pool before: 27-31 s of the run's wall time).
const FIRST = new Set(['hostile.test.mjs']);
const NICE = process.platform !== 'win32' && existsSync('/usr/bin/nice') ? '/usr/bin/nice' : null;
// Seconds a file took here (a warm debug build, 3 at once), for a first run
// with no times of its own.
const DEFAULT_TIMES = { 'install.test.mjs': 80, 'engine.test.mjs': 75, 'session-native.test.mjs': 60, 'incremental.test.mjs': 60, 'cli.test.mjs': 55, 'locate.test.mjs': 55, 'mcp.test.mjs': 45, 'capture.test.mjs': 40, 'native.test.mjs': 35, 'session.test.mjs': 35, 'packaging.test.mjs': 35 };
const timesFile = join(root, 'target', 'test-times.json');

function readTimes() {
    try {
        return { ...DEFAULT_TIMES, ...JSON.parse(readFileSync(timesFile, 'utf8')) };
    } catch {
        return { ...DEFAULT_TIMES };
    }
}

const withCargo = process.argv.includes('--with-cargo');
const given = process.argv.slice(2).filter(a => a !== '--with-cargo');
const times = readTimes();
const files = (given.length ? given : readdirSync(join(root, '__test__')).filter(f => f.endsWith('.test.mjs')).sort().map(f => join('__test__', f)))
    .sort((a, b) => (times[basename(b)] ?? 0) - (times[basename(a)] ?? 0));
const concurrency = Math.max(1, Number(process.env.WEB_AI_TEST_CONCURRENCY) || 3);

const children = new Set();
for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
        for (const child of children) child.kill(sig);
        process.exit(130);
    });
}

const CARGO = 'cargo test';

/**
 * `--target` and the host's triple, as `napi build` passes it: cargo keeps a
 * target's artifacts in a folder of its own (target/<triple>/), so `cargo test`
 * without it compiled every dependency again beside the addon's build (6m20s of
 * a clean clone's CI run, on the two cores the node files were using); with it,
 * only what the tests add. Nothing when rustc cannot say.
 */
function cargoTarget() {
    const r = spawnSync('rustc', ['-vV'], { encoding: 'utf8' });
    const host = /^host: (\S+)$/m.exec(r.stdout ?? '')?.[1];
    return host ? ['--target', host] : [];
}

/** One job (a test file in its own `node --test`, or `cargo test`): its exit status, output, counts and seconds. */
function runFile(file) {
    return new Promise(done => {
        const started = performance.now();
        let [cmd, args] = file === CARGO ? ['cargo', ['test', ...cargoTarget()]] : [process.execPath, ['--test', '--test-reporter=tap', file]];
        if (NICE && !FIRST.has(basename(file))) [cmd, args] = [NICE, ['-n', '10', cmd, ...args]];
        const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
        children.add(child);
        const out = [];
        child.stdout.on('data', d => out.push(d));
        child.stderr.on('data', d => out.push(d));
        const finish = (status, text) => {
            children.delete(child);
            const seconds = (performance.now() - started) / 1000;
            if (file === CARGO) {
                // test result: ok. 154 passed; 0 failed; 0 ignored; … (one line a test binary)
                const lines = [...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm)];
                const total = k => lines.reduce((n, m) => n + Number(m[k]), 0);
                done({ file, status, text, tests: total(1) + total(2), pass: total(1), fail: total(2), skipped: total(3), seconds });
                return;
            }
            const count = key => Number(new RegExp(`^# ${key} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
            done({ file, status, text, tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped'), seconds });
        };
        child.on('error', err => finish(1, `${cmd} could not start: ${err.message}`));
        child.on('close', (status, signal) => finish(status ?? (signal ? 1 : 0), Buffer.concat(out).toString('utf8')));
    });
}

async function pool(list, width) {
    const queue = [...list];
    const results = [];
    await Promise.all(Array.from({ length: Math.min(width, queue.length) }, async () => {
        while (queue.length) {
            const r = await runFile(queue.shift());
            process.stdout.write(`\n# ==== ${r.file} (${r.seconds.toFixed(1)} s, ${r.status === 0 ? 'ok' : 'FAILED'})\n${r.text}`);
            results.push(r);
        }
    }));
    return results;
}

const started = performance.now();
const results = await pool([...files.filter(f => FIRST.has(basename(f))), ...(withCargo ? [CARGO] : []), ...files.filter(f => !FIRST.has(basename(f)))], concurrency);
const wall = (performance.now() - started) / 1000;

if (!given.length) {
    mkdirSync(dirname(timesFile), { recursive: true });
    writeFileSync(timesFile, `${JSON.stringify(Object.fromEntries(results.filter(r => r.file !== CARGO).map(r => [basename(r.file), Math.round(r.seconds)])), null, 1)}\n`);
}
const sum = key => results.reduce((n, r) => n + r[key], 0);
const failed = results.filter(r => r.status !== 0);
console.log('\n# ==== every file, longest first (seconds with the others running beside it)');
for (const r of [...results].sort((a, b) => b.seconds - a.seconds)) {
    console.log(`# ${r.seconds.toFixed(1).padStart(6)} s  ${String(r.tests).padStart(3)} tests  ${r.status === 0 ? 'ok    ' : 'FAILED'}  ${basename(r.file)}`);
}
console.log(`# jobs ${results.length}\n# tests ${sum('tests')}\n# pass ${sum('pass')}\n# fail ${sum('fail')}\n# skipped ${sum('skipped')}\n# duration_ms ${Math.round(wall * 1000)}`);
if (failed.length) console.log(`# FAILED: ${failed.map(r => basename(r.file)).join(', ')}`);
// A file whose process failed without a failing test (a crash, a syntax error) fails the run too.
process.exitCode = failed.length || sum('fail') ? 1 : 0;
