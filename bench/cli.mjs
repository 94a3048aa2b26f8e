// The agent CLI's cost per command as a user pays it: wall time of
// `web-ai-snapshot click REF` as a new process, process start included, on
// the kept browser `open` started, over a small page. Two clicks: one that
// changes nothing (the floor: Node's start, the socket, the action and a
// look) and one that changes the page (which also waits for the DOM to hold
// still, 100 ms). Node's own start is measured beside them.
//
//   node bench/cli.mjs [--runs N]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
const timed = (...args) => {
    const t = performance.now();
    const out = run(...args);
    return { ms: performance.now() - t, out };
};
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
    run(bin, 'click', next);
    for (let i = 0; i < RUNS; i++) {
        node.push(timed('-e', '0').ms);
        unchanged.push(timed(bin, 'click', next).ms);
        // A different value each time: the field and its line change.
        changing.push(timed(bin, 'fill', first, `Ada ${i}`).ms);
    }
    const r = v => Math.round(v);
    console.log(`node -e 0: ${r(median(node))} ms; click (no change): ${r(median(unchanged))} ms; fill (a change): ${r(median(changing))} ms`);
    console.log(`(node bench/cli.mjs --runs ${RUNS}; medians of wall time per new process, process start included)`);
} finally {
    try {
        run(bin, 'close');
    } catch {
        // no daemon to close
    }
    rmSync(state, { recursive: true, force: true });
}
