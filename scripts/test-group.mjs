// Several test files in one Node process, one after another: their tests
// share the process's modules, and so the one Chromium of
// `__test__/helpers.mjs`. scripts/test.mjs runs a few of these side by side.
// A file that cannot be imported fails the run and the rest still run.
// Node 22's `node --test --experimental-test-isolation=none` does this
// itself; Node 20, which this package supports and this machine runs, runs
// every file of `node --test` in a process of its own (see scripts/test.mjs
// for what sharing saves).
//
//   node --test-reporter=tap scripts/test-group.mjs FILE...
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) {
    try {
        await import(pathToFileURL(resolve(file)).href);
    } catch (err) {
        console.log(`# import failed: ${file}: ${err?.stack ?? err}`);
        process.exitCode = 1;
    }
}
