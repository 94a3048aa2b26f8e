// This package's own share of one capture, without the browser: each
// benchmark page's capture (DOM engine) is recorded once from Chromium, then
// its replies are handed back through the pump, as they arrived, RUNS times
// in this process. What is timed is the addon's work (reading, the engine,
// the DOM pass, serializing) and the pump's, and JS parsing the outcome:
// the part a change to the core can move. Medians and bests, as the
// machine is shared.
//
//   node bench/replay.mjs [--runs N] [--only NAME]
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { openFile } from '../lib/chromium.mjs';
import { measurePages, median, round } from './pages.mjs';

const require = createRequire(import.meta.url);
const { pumpCapture } = require('../lib/pump.cjs');
const { adapt } = require('../lib/transport.cjs');

const { values } = parseArgs({ options: { runs: { type: 'string', default: '50' }, only: { type: 'string', default: '' } } });
const RUNS = Number(values.runs);
const OPTIONS = { engine: 'dom', timeoutMs: 60_000 };
const keyOf = request => `${request.session || ''} ${request.method} ${JSON.stringify(request.params)}`;

async function measure(browser, p) {
    const page = await openFile(browser, p.path);
    const replies = new Map();
    try {
        const send = adapt(page).send;
        const recorded = await pumpCapture(async request => {
            const text = await send(request);
            replies.set(keyOf(request), text);
            return text;
        }, OPTIONS);
        if (recorded.error) throw new Error(`${p.name}: ${recorded.error.message}`);
    } finally {
        await page.close();
    }
    const replay = async request => {
        const text = replies.get(keyOf(request));
        if (text === undefined) throw new Error(`not recorded: ${request.method}`);
        return text;
    };
    const times = [];
    for (let i = 0; i < RUNS + 1; i += 1) {
        const t = performance.now();
        const outcome = await pumpCapture(replay, OPTIONS);
        if (outcome.error) throw new Error(`${p.name}: replay: ${outcome.error.message}`);
        JSON.parse(outcome.snapshot).text = outcome.text;
        if (i > 0) times.push(performance.now() - t);
    }
    return { page: p.name, medianMs: round(median(times), 2), bestMs: round(Math.min(...times), 2), runs: RUNS };
}

const { results } = await measurePages(values.only, measure, r => `${r.page}: median ${r.medianMs} ms, best ${r.bestMs} ms (${r.runs} replays)`);
console.log(JSON.stringify(results, null, 1));
