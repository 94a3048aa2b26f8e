// The node half of `npm test`: the test files in parallel, each with one
// Chromium shared by its tests.
//
//   node scripts/test.mjs [files...]     default: every __test__/*.test.mjs
//   WEB_AI_TEST_FULL=1                   the long randomized tests at full length (CI)
//   WEB_AI_TEST_CONCURRENCY=N            files at once (default 3)
//
// Measured on this 2-core machine: the suite is CPU-bound (Chromium
// rendering real pages, TypeScript, npm pack), so 3 files at once is about
// as fast as it gets; one browser shared by all files over its DevTools
// endpoint was slower, not faster (every ref of every real page: 92 s with a
// browser per file, 117 s shared, in the same parallel run), because each
// Playwright client that connects attaches to every tab of the browser.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const given = process.argv.slice(2);
const files = given.length
    ? given
    : readdirSync(join(root, '__test__')).filter(f => f.endsWith('.test.mjs')).sort().map(f => join('__test__', f));
const concurrency = Math.max(1, Number(process.env.WEB_AI_TEST_CONCURRENCY) || 3);

const code = await new Promise(done => {
    const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...files], { cwd: root, stdio: 'inherit' });
    for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
    child.on('exit', (status, signal) => done(status ?? (signal ? 1 : 0)));
});
process.exitCode = code;
