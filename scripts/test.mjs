// The node half of `npm test`: the test files in parallel, each with one
// Chromium shared by its tests, then the files that must run alone.
//
//   node scripts/test.mjs [files...]     default: every __test__/*.test.mjs
//   WEB_AI_TEST_FULL=1                   the long randomized tests at full length (CI)
//   WEB_AI_TEST_CONCURRENCY=N            files at once (default 3)
//
// Measured on this 2-core machine: the suite is CPU-bound (Chromium
// rendering real pages, TypeScript, npm), so 3 files at once is about as
// fast as it gets. One browser shared by all files over its DevTools
// endpoint was slower, not faster (every ref of every real page: 92 s with a
// browser per file, 117 s shared, in the same parallel run): each Playwright
// client that connects attaches to every tab of the browser.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// hostile.test.mjs measures how late Node's event loop answers during
// captures; beside other files on two cores the OS alone makes it late.
const ALONE = new Set(['hostile.test.mjs']);
// The longest files start first (longest-first scheduling): one that started
// last would run on alone at the end. The rest follow in name order.
const LONGEST = ['install', 'incremental', 'engine', 'cli', 'packaging', 'locate', 'malformed', 'native', 'capture', 'session-native', 'mcp'].map(n => `${n}.test.mjs`);
const rank = f => (LONGEST.includes(basename(f)) ? LONGEST.indexOf(basename(f)) : LONGEST.length);
const given = process.argv.slice(2);
const files = given.length
    ? given
    : readdirSync(join(root, '__test__')).filter(f => f.endsWith('.test.mjs')).sort().sort((a, b) => rank(a) - rank(b)).map(f => join('__test__', f));
const concurrency = Math.max(1, Number(process.env.WEB_AI_TEST_CONCURRENCY) || 3);

function run(list, width) {
    if (!list.length) return Promise.resolve(0);
    return new Promise(done => {
        const child = spawn(process.execPath, ['--test', `--test-concurrency=${width}`, ...list], { cwd: root, stdio: 'inherit' });
        const forward = sig => child.kill(sig);
        process.on('SIGINT', forward);
        process.on('SIGTERM', forward);
        child.on('exit', (status, signal) => {
            process.off('SIGINT', forward);
            process.off('SIGTERM', forward);
            done(status ?? (signal ? 1 : 0));
        });
    });
}

const together = await run(files.filter(f => !ALONE.has(basename(f))), concurrency);
const alone = await run(files.filter(f => ALONE.has(basename(f))), 1);
process.exitCode = together || alone;
