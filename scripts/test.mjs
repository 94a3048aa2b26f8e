// The node half of `npm test`: the test files in a few Node processes side
// by side (lanes), each process running its files one after another with
// one Chromium shared by their tests (scripts/test-group.mjs). Each
// process's output is printed whole when it ends, and a table of every
// file's time closes the run.
//
//   node scripts/test.mjs [files...]     default: every __test__/*.test.mjs
//   node scripts/test.mjs --with-cargo   also `cargo test`, first in a lane of its own
//                                        (npm test: it overlaps the node files)
//   WEB_AI_TEST_FULL=1                   the long randomized tests at full length (CI)
//   WEB_AI_TEST_CONCURRENCY=N            lanes (default 3)
//
// Measured on this 2-core machine: the suite is CPU-bound (Chromium
// rendering real pages, TypeScript, npm), so 3 lanes is about as fast as it
// gets (5 at once was slower: 5m41s against 5m08s). One browser shared by
// all processes over its DevTools endpoint was slower, not faster (every
// ref of every real page: 92 s with a browser per file, 117 s shared, in the
// same parallel run): each Playwright client that connects attaches to
// every tab of the browser. Files that share a process share its browser
// without that cost.
//
// Why lanes planned here and not `node --test` over all files: the longest
// files must start first and the lanes must end together, or one runs on
// alone at the end; which files are longest is measured, not guessed: each
// run keeps every file's time in target/test-times.json (not committed)
// for the next.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
// Files that run in a process of their own: the loop-timing file above, and
// one that measures its process's memory across a capture (another file's
// garbage would be counted).
const SOLO = new Set([...FIRST, 'endpoint-faults.test.mjs']);
const NICE = process.platform !== 'win32' && existsSync('/usr/bin/nice') ? '/usr/bin/nice' : null;
// Seconds each took in a clean clone's CI run (.ci/run, WEB_AI_TEST_FULL=1,
// 2026-11-28, files sharing processes; the incremental file's, split since,
// shared by its two halves), for a first run with no times of its own: that
// is CI's case, where `cargo test` compiles its tests first (with 30 s
// assumed for it, its lane also got a third of the files and ended 2.5
// minutes after the others).
const DEFAULT_TIMES = {
    'incremental-random.test.mjs': 180, 'cargo test': 189, 'incremental.test.mjs': 110, 'hostile.test.mjs': 77, 'mcp.test.mjs': 74, 'walk.test.mjs': 50,
    'session.test.mjs': 45, 'locate.test.mjs': 41, 'cli.test.mjs': 34, 'install.test.mjs': 34, 'engine.test.mjs': 28,
    'actions.test.mjs': 18, 'native.test.mjs': 18, 'agent-cli.test.mjs': 18, 'malformed.test.mjs': 15, 'capture.test.mjs': 13,
    'session-native.test.mjs': 12, 'budget.test.mjs': 11, 'js-fuzz.test.mjs': 10, 'frames.test.mjs': 8, 'targets.test.mjs': 8,
    'packaging.test.mjs': 6, 'endpoint-faults.test.mjs': 5, 'layer.test.mjs': 3, 'elements.test.mjs': 2, 'untrusted.test.mjs': 2,
};
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

/**
 * One job's command: `cargo test`, or files in one process
 * (scripts/test-group.mjs; a SOLO file alone), whose files' counts and times
 * its reporter writes to `report`.
 */
function commandOf(job, report) {
    if (job.cargo) return ['cargo', ['test', ...cargoTarget()]];
    const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${join(root, 'scripts', 'test-files-reporter.mjs')}`, `--test-reporter-destination=${report}`];
    return [process.execPath, [...reporters, join(root, 'scripts', 'test-group.mjs'), ...job.files]];
}

/** Run one job: its exit status, output, and a row for each of its files (or for cargo): counts and seconds. */
function runJob(job) {
    return new Promise(done => {
        const started = performance.now();
        const report = join(reportDir, `${reports++}.json`);
        let [cmd, args] = commandOf(job, report);
        if (NICE && !(job.files?.length === 1 && FIRST.has(basename(job.files[0])))) [cmd, args] = [NICE, ['-n', '10', cmd, ...args]];
        // Run from inside a test (NODE_TEST_CONTEXT set), node:test would answer in its child protocol, not TAP.
        const env = { ...process.env };
        delete env.NODE_TEST_CONTEXT;
        const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
        children.add(child);
        const out = [];
        child.stdout.on('data', d => out.push(d));
        child.stderr.on('data', d => out.push(d));
        const finish = (status, text) => {
            children.delete(child);
            const seconds = (performance.now() - started) / 1000;
            const name = job.cargo ? CARGO : job.files.map(f => basename(f)).join(', ');
            if (job.cargo) {
                // test result: ok. 154 passed; 0 failed; 0 ignored; … (one line a test binary)
                const lines = [...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm)];
                const total = k => lines.reduce((n, m) => n + Number(m[k]), 0);
                done({ name, status, text, seconds, rows: [{ file: CARGO, status, tests: total(1) + total(2), pass: total(1), fail: total(2), skipped: total(3), seconds }] });
                return;
            }
            let rows;
            if (existsSync(report)) {
                const files = JSON.parse(readFileSync(report, 'utf8') || '{}');
                // A file with no row ran no test (it could not be imported: the group says which).
                rows = job.files.map(f => {
                    const r = files[resolve(root, f)] ?? { tests: 0, pass: 0, fail: 0, skipped: 0, seconds: 0 };
                    const failed = r.fail > 0 || r.tests === 0 || text.includes(`# import failed: ${f}:`);
                    return { file: f, ...r, status: failed ? 1 : 0 };
                });
            } else {
                // No report: the process ended before its reporter could write (a crash, an exit).
                // One row for all its files, with the counts its TAP output had come to.
                const count = key => Number(new RegExp(`^# ${key} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
                const failed = status !== 0 || count('fail') > 0 || count('tests') === 0;
                rows = [{ file: job.files.join(', '), status: failed ? status || 1 : 0, tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped'), seconds }];
            }
            // A process that ended failed though every file's tests passed (a file set a failing exit status) fails its last file.
            if (status !== 0 && rows.every(r => r.status === 0)) rows[rows.length - 1].status = status;
            done({ name, status, text, seconds, rows });
        };
        child.on('error', err => finish(1, `${cmd} could not start: ${err.message}`));
        child.on('close', (status, signal) => finish(status ?? (signal ? 1 : 0), Buffer.concat(out).toString('utf8')));
    });
}

/**
 * The plan: `width` lanes, each one process after another. The loop-timing
 * file and `cargo test` run alone, each first in a lane of its own; every
 * other file joins one group a lane, the longest first to the lane with the
 * least work so far (the lanes end close together). A group shares one
 * Chromium and one Node start among its files: 13 of the files that use the
 * helpers' browser kept the machine busy 125.7 CPU-s each in its own process,
 * 107.0 in one (`node bench/cpu-of.mjs node --test --test-concurrency=1 FILES…`
 * against `node bench/cpu-of.mjs node --test-reporter=tap
 * scripts/test-group.mjs FILES…`, 2026-11-28).
 */
function plan(list, width) {
    const lanes = Array.from({ length: width }, () => ({ load: 0, solo: [], files: [] }));
    const least = () => lanes.reduce((a, b) => (b.load < a.load ? b : a));
    const solo = list.filter(f => f === CARGO || SOLO.has(basename(f))).sort((a, b) => (FIRST.has(basename(b)) ? 1 : 0) - (FIRST.has(basename(a)) ? 1 : 0));
    for (const f of solo) {
        const lane = least();
        lane.solo.push(f === CARGO ? { cargo: true } : { files: [f] });
        lane.load += times[f === CARGO ? CARGO : basename(f)] ?? 10;
    }
    for (const f of list.filter(f => f !== CARGO && !SOLO.has(basename(f)))) {
        const lane = least();
        lane.files.push(f);
        lane.load += times[basename(f)] ?? 10;
    }
    return lanes.map(l => [...l.solo, ...(l.files.length ? [{ files: l.files }] : [])]).filter(l => l.length);
}

const reportDir = mkdtempSync(join(tmpdir(), 'web-ai-test-'));
let reports = 0;
const started = performance.now();
const lanes = plan([...(withCargo ? [CARGO] : []), ...files], concurrency);
const jobs = [];
await Promise.all(lanes.map(async lane => {
    for (const job of lane) {
        const r = await runJob(job);
        process.stdout.write(`\n# ==== ${r.name} (${r.seconds.toFixed(1)} s, ${r.status === 0 ? 'ok' : 'FAILED'})\n${r.text}`);
        jobs.push(r);
    }
}));
rmSync(reportDir, { recursive: true, force: true });
const wall = (performance.now() - started) / 1000;
const results = jobs.flatMap(j => j.rows);

if (!given.length) {
    mkdirSync(dirname(timesFile), { recursive: true });
    const timed = results.filter(r => !r.file.includes(', '));
    writeFileSync(timesFile, `${JSON.stringify(Object.fromEntries(timed.map(r => [r.file === CARGO ? CARGO : basename(r.file), Math.round(r.seconds)])), null, 1)}\n`);
}
/** A row's file, or the files of a process that ended without its report, by their names. */
const label = file => file.split(', ').map(f => basename(f)).join(', ');
const sum = key => results.reduce((n, r) => n + r[key], 0);
const failed = results.filter(r => r.status !== 0);
console.log('\n# ==== every file, longest first (seconds of its tests, with the others running beside it)');
for (const r of [...results].sort((a, b) => b.seconds - a.seconds)) {
    console.log(`# ${r.seconds.toFixed(1).padStart(6)} s  ${String(r.tests).padStart(3)} tests  ${r.status === 0 ? 'ok    ' : 'FAILED'}  ${label(r.file)}`);
}
console.log(`# processes ${jobs.length}\n# files ${results.length}\n# tests ${sum('tests')}\n# pass ${sum('pass')}\n# fail ${sum('fail')}\n# skipped ${sum('skipped')}\n# duration_ms ${Math.round(wall * 1000)}`);
if (failed.length) console.log(`# FAILED: ${failed.map(r => label(r.file)).join(', ')}`);
// A file whose process failed without a failing test (a crash, a syntax error) fails the run too.
process.exitCode = failed.length || sum('fail') ? 1 : 0;
