// The first look at a document, as an agent takes one after each navigation:
// the page is reloaded before every look, so neither side has anything of the
// document yet (our isolated world and the read it chose, Playwright's
// injected script in its utility world). `bench:engine` measures repeated
// looks at one document instead, where both have.
//
//   node bench/first-look.mjs [--runs N] [--only NAME] [--script-heavy] [--no-readme]
//
//   ours — `captureOverCdp` with the DOM engine (the default) over a CDP
//          session kept across reloads, as a page session keeps one;
//   pw   — Playwright's `page.ariaSnapshot({ mode: 'ai' })`.
// Each run reloads and looks with one, then reloads and looks with the
// other, alternating which goes first; medians and their ratio.
import { parseArgs } from 'node:util';
import * as ax from '../lib/ax-snapshot.cjs';
import { openFile } from '../lib/chromium.mjs';
import { measurePages, median, round, writeReadmeBlock } from './pages.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' }, only: { type: 'string', default: '' }, 'script-heavy': { type: 'boolean' }, 'no-readme': { type: 'boolean' } } });
const RUNS = Math.max(1, Number(values.runs) || 7);
const SCRIPT_HEAVY = Boolean(values['script-heavy']);

async function measure(browser, p) {
    const page = await openFile(browser, p.path);
    try {
        const session = await ax.cdpSessionFor(page);
        const send = (m, params) => session.send(m, params);
        const looks = {
            ours: () => ax.captureOverCdp(send, { engine: 'dom', timeoutMs: 60_000 }),
            pw: () => page.ariaSnapshot({ mode: 'ai', timeout: 60_000 }),
        };
        const times = { ours: [], pw: [] };
        for (let i = 0; i < RUNS; i += 1) {
            for (const name of i % 2 ? ['pw', 'ours'] : ['ours', 'pw']) {
                await page.reload({ waitUntil: 'load', timeout: 60_000 });
                const t = performance.now();
                await looks[name]();
                times[name].push(performance.now() - t);
            }
        }
        const ours = median(times.ours);
        const pw = median(times.pw);
        return { page: p.name, runs: RUNS, oursMs: round(ours), pwMs: round(pw), ratio: round(ours / pw, 2) };
    } finally {
        await page.close();
    }
}

const { results, version } = await measurePages(values.only, measure, r => `${r.page}: ours ${r.oursMs} ms, pw ${r.pwMs} ms (${r.ratio}x)`, { scriptHeavy: SCRIPT_HEAVY });
const given = [values.runs !== '7' ? `--runs ${values.runs}` : '', values.only ? `--only ${values.only}` : '', SCRIPT_HEAVY ? '--script-heavy' : ''].filter(Boolean).join(' ');
const command = `node bench/first-look.mjs${given ? ` ${given}` : ''}`;
const ratios = results.map(r => r.ratio);
const rows = results.map(r => `| ${r.page} | ${r.oursMs} | ${r.pwMs} | ${r.ratio} |`);
const md = `Produced by \`${command}\` on ${new Date().toISOString().slice(0, 10)} (Chromium ${version}, Node ${process.version}, release addon; medians of ${RUNS} runs, the page reloaded before every look, on a shared 2-core machine).\n\n| page | ours ms | Playwright ai ms | ratio |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n\nFirst look ÷ Playwright's: median ${round(median(ratios), 2)}, worst ${round(Math.max(...ratios), 2)}.\n`;
console.log(md);
if (!values['no-readme'] && !values.only) writeReadmeBlock(SCRIPT_HEAVY ? 'first-look-script-heavy' : 'first-look', 'First look after a navigation', md);
