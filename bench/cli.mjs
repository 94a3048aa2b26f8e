// The agent CLI's cost per command as a user pays it: wall time of
// `web-ai-snapshot click REF` as a new process, process start included, on
// the kept browser `open` started, over a small page. Two commands: a click
// that changes nothing (the floor: the client's start, the socket, the
// action and a look) and a fill that changes the page (which also waits for
// the DOM to hold still). Each through both clients: the native one the
// install puts in place of the bin (client/, a release build) and the JS CLI
// under Node. Node's own start is measured beside them.
//
//   node bench/cli.mjs [--runs N]   (after `node scripts/setup.mjs --release`)
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' } } });
const RUNS = Math.max(3, Number(values.runs) || 15);
const bin = join(root, 'bin', 'web-ai-snapshot.mjs');
const state = mkdtempSync(join(tmpdir(), 'web-ai-bench-cli-'));
const env = { ...process.env, WEB_AI_SNAPSHOT_STATE_DIR: state };
const run = (...args) => execFileSync(process.execPath, args, { env, encoding: 'utf8' });
// The native client as installed: in place of the bin, with the JS CLI beside it.
const built = join(root, 'target', 'release', 'web-ai-snapshot-client');
if (!existsSync(built)) throw new Error('no release client: run `node scripts/setup.mjs --release` first');
mkdirSync(join(state, 'bin'));
const client = join(state, 'bin', 'web-ai-snapshot');
copyFileSync(built, client);
symlinkSync(bin, join(state, 'bin', 'web-ai-snapshot.mjs'));
const timedWith = (file, args) => {
    const t = performance.now();
    const out = execFileSync(file, args, { env, encoding: 'utf8' });
    return { ms: performance.now() - t, out };
};
const timed = (...args) => timedWith(process.execPath, args);
const timedNative = (...args) => timedWith(client, args);
const median = xs => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

try {
    const opened = run(bin, 'open', join(root, 'fixtures', 'agent', 'wizard.html'));
    // Next with the last name empty: an error line the first time, nothing new after.
    const next = /button "Next" \[ref=(@e\d+)/.exec(opened)[1];
    const first = /textbox "First name" \[ref=(@e\d+)/.exec(opened)[1];
    const node = [];
    const unchanged = [];
    const changing = [];
    const nativeUnchanged = [];
    const nativeChanging = [];
    run(bin, 'click', next);
    for (let i = 0; i < RUNS; i++) {
        node.push(timed('-e', '0').ms);
        unchanged.push(timed(bin, 'click', next).ms);
        nativeUnchanged.push(timedNative('click', next).ms);
        // A different value each time: the field and its line change.
        changing.push(timed(bin, 'fill', first, `Ada ${i}`).ms);
        nativeChanging.push(timedNative('fill', first, `Bea ${i}`).ms);
    }
    const r = v => Math.round(v);
    console.log(`native client: click (no change) ${r(median(nativeUnchanged))} ms; fill (a change) ${r(median(nativeChanging))} ms`);
    console.log(`JS CLI under Node: click (no change) ${r(median(unchanged))} ms; fill (a change) ${r(median(changing))} ms; node -e 0: ${r(median(node))} ms`);
    console.log(`(node bench/cli.mjs --runs ${RUNS}; medians of wall time per new process, process start included)`);
} finally {
    try {
        run(bin, 'close');
    } catch {
        // no daemon to close
    }
    rmSync(state, { recursive: true, force: true });
}
