// The DOM engine (`engine: 'dom'`) against Chrome's tree and Playwright, side
// by side in one process on every benchmark page, with its agreement with
// Chrome beside the times.
//
//   node bench/engine.mjs [--runs N] [--only NAME] [--script-heavy | --all] [--no-readme]
//
// --all measures every shared page (../shared/pages and ../shared/pages-more,
// 116 pages) and every generated page, into a README block of its own.
// --script-heavy measures the pages with heavy inline script and style text
// instead (a generated app page with 1.5 MB of inline JSON state, and the
// shared pages with at least 100k characters of it), into their own README block.
// Each page gets at least N rotated rounds (5), and more while its rounds
// so far took under ROUND_BUDGET_MS in all (at most MAX_RUNS): a median of
// five 3 ms samples on a shared machine is mostly noise.
//
//   floor      — a bare Accessibility.getFullAXTree over the same CDP session;
//   dom floor  — a bare DOMSnapshot.captureSnapshot with the styles the engine asks for;
//   pw         — Playwright's page.ariaSnapshot({ mode: 'ai' });
//   ax, dom    — buildWebAiSnapshot over the same session with each engine (DOM pass on),
//                reading frames in other processes through their own sessions, as a
//                Playwright page's capture does (and as Playwright's snapshot does too).
//                (Before 2026-11-29 they were left out, with a note: on pages with such
//                frames, cnn and bbc-1 among them, earlier figures are not comparable.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ax from '../lib/ax-snapshot.cjs';
import { openFile } from '../lib/chromium.mjs';
import { frameSessionSend } from '../lib/sessions.cjs';
import { measurePages, median, root, round, writeReadmeBlock } from './pages.mjs';
import { compareEngines } from './agreement.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, only: { type: 'string', default: '' }, 'script-heavy': { type: 'boolean' }, all: { type: 'boolean' }, 'no-readme': { type: 'boolean' } } });
const SCRIPT_HEAVY = Boolean(values['script-heavy']);
const ALL = Boolean(values.all);
const RUNS = Number(values.runs);
const WARMUP = 1;
const ROUND_BUDGET_MS = 3000;
const MAX_RUNS = 40;
// What the engine's capture asks DOMSnapshot for (the DOM pass's `cursor` and the engine's styles).
const DOM_FLOOR_PARAMS = { computedStyles: ['cursor', 'display', 'visibility', 'content', 'text-transform'], includePaintOrder: false, includeDOMRects: false };

async function measure(browser, p) {
    const page = await openFile(browser, p.path);
    try {
        const session = await ax.cdpSessionFor(page);
        // What a capture sent, while `spy` is a list.
        let spy = null;
        const send = (m, params) => {
            spy?.push(m);
            return session.send(m, params);
        };
        const frameSend = frameId => frameSessionSend(page, frameId);
        const methods = {
            floor: () => session.send('Accessibility.getFullAXTree', {}),
            domFloor: () => session.send('DOMSnapshot.captureSnapshot', DOM_FLOOR_PARAMS),
            pw: () => page.ariaSnapshot({ mode: 'ai' }),
            ax: () => ax.captureOverCdp(send, { engine: 'ax', timeoutMs: 60_000 }, null, frameSend),
            dom: () => ax.captureOverCdp(send, { engine: 'dom', timeoutMs: 60_000 }, null, frameSend),
        };
        // With --script-heavy, both of the DOM engine's reads forced, beside its own choice ('auto', `dom`).
        if (SCRIPT_HEAVY) {
            methods.snapshot = () => ax.captureOverCdp(send, { engine: 'dom', domRead: 'snapshot', timeoutMs: 60_000 }, null, frameSend);
            methods.walk = () => ax.captureOverCdp(send, { engine: 'dom', domRead: 'walk', timeoutMs: 60_000 }, null, frameSend);
        }
        const names = Object.keys(methods);
        const times = Object.fromEntries(names.map(n => [n, []]));
        const rotation = async (i, keep) => {
            for (let k = 0; k < names.length; k += 1) {
                // Rotate the order so that no method always runs on a warmer page.
                const name = names[(i + k) % names.length];
                const t = performance.now();
                await methods[name]();
                if (keep) times[name].push(performance.now() - t);
            }
        };
        for (let i = 0; i < WARMUP; i += 1) await rotation(i, false);
        const began = performance.now();
        let runs = 0;
        while (runs < RUNS || (runs < MAX_RUNS && performance.now() - began < ROUND_BUDGET_MS)) {
            await rotation(WARMUP + runs, true);
            runs += 1;
        }
        // Which read 'auto' took, seen in what the capture sent.
        let route = '';
        if (SCRIPT_HEAVY) {
            spy = [];
            await ax.captureOverCdp(send, { engine: 'dom', timeoutMs: 60_000 });
            route = spy.includes('DOMSnapshot.captureSnapshot') ? 'snapshot' : 'walk';
            spy = null;
        }
        const agreement = await compareEngines(page);
        const m = Object.fromEntries(names.map(n => [n, round(median(times[n]))]));
        const tree = await session.send('Accessibility.getFullAXTree', {});
        return {
            page: p.name,
            real: p.real,
            axNodes: tree.nodes.length,
            runs,
            ...Object.fromEntries(names.map(n => [`${n}Ms`, m[n]])),
            domVsFloor: round(m.dom / m.floor, 2),
            domVsPlaywright: round(m.dom / m.pw, 2),
            domVsAx: round(m.dom / m.ax, 2),
            ...(SCRIPT_HEAVY ? { route } : {}),
            agreed: agreement.agreed,
            compared: agreement.total,
            agreement: round(agreement.rate * 100, 2),
        };
    } finally {
        await page.close();
    }
}

const { results, version } = await measurePages(values.only, measure, r => `${r.page}: dom ${r.domMs} ms, ax ${r.axMs}, floor ${r.floorMs}, dom floor ${r.domFloorMs}, pw ${r.pwMs}; agreement ${r.agreement}%`, { scriptHeavy: SCRIPT_HEAVY, all: ALL });

const walkCols = SCRIPT_HEAVY ? ' read \'snapshot\' ms | read \'walk\' ms | \'auto\' took |' : '';
const walkSep = SCRIPT_HEAVY ? ' --- | --- | --- |' : '';
const head = `| page | AX nodes | runs | floor ms | DOMSnapshot ms | Playwright ai ms | ours, ax ms | ours, dom ms |${walkCols} dom / floor | dom / Playwright | dom / ax | agreement with Chrome |`;
const sep = `|${' --- |'.repeat(12)}${walkSep}`;
const rows = results.map(
    r =>
        `| ${r.page} | ${r.axNodes} | ${r.runs} | ${r.floorMs} | ${r.domFloorMs} | ${r.pwMs} | ${r.axMs} | ${r.domMs} |${SCRIPT_HEAVY ? ` ${r.snapshotMs} | ${r.walkMs} | ${r.route} |` : ''} ${r.domVsFloor} | ${r.domVsPlaywright} | ${r.domVsAx} | ${r.agreement}% (${r.agreed}/${r.compared}) |`,
);
const all = results.reduce((a, r) => ({ agreed: a.agreed + r.agreed, compared: a.compared + r.compared }), { agreed: 0, compared: 0 });
const command = `npm run bench:engine${values.only || SCRIPT_HEAVY || ALL ? ' --' : ''}${SCRIPT_HEAVY ? ' --script-heavy' : ''}${ALL ? ' --all' : ''}${values.only ? ` --only ${values.only}` : ''}`;
const md = `Produced by \`${command}\` on ${new Date().toISOString().slice(0, 10)} (Chromium ${version}, Node ${process.version}, release addon; medians of at least ${RUNS} rotated runs after ${WARMUP} warm-up, more on fast pages: as many as fit in ${ROUND_BUDGET_MS / 1000} s, up to ${MAX_RUNS} (the \`runs\` column); on a shared 2-core machine). "floor" is a bare \`Accessibility.getFullAXTree\`; "DOMSnapshot" a bare \`DOMSnapshot.captureSnapshot\` with the styles the DOM engine asks for; both engines' captures include the DOM pass (selectors, clickable refs). "Agreement" is the share of ref'd elements (either engine's, matched by \`backendNodeId\`) that both engines ref with the same role, name, states, value and level (\`node bench/agreement.mjs --verbose\` prints each disagreement). Over all pages: ${all.agreed}/${all.compared} (${round((all.agreed / Math.max(all.compared, 1)) * 100, 2)}%).${SCRIPT_HEAVY ? ' "ours, dom" reads the page as the engine chooses (`domRead: \'auto\'`; what it took is the "\'auto\' took" column, seen in the calls it sent); the two columns after it force each read: one DOMSnapshot, or `DOM.getDocument` and a walk in our world that never reads a script\'s or style\'s text.' : ''}\n\n${[head, sep, ...rows].join('\n')}\n`;
console.log(md);
const over = results.filter(r => r.domVsPlaywright > 1);
const summary = `\nDOM engine ÷ Playwright: median ${round(median(results.map(r => r.domVsPlaywright)), 2)}, worst ${round(Math.max(...results.map(r => r.domVsPlaywright)), 2)}; slower than Playwright on ${over.length} of ${results.length} page(s)${over.length ? `: ${over.map(r => `${r.page} ${r.domVsPlaywright}×`).join(', ')}` : ''}.\n`;
console.log(summary);
// A partial run (--only, --no-readme) leaves the recorded results as they are.
if (!values['no-readme'] && !values.only) {
    writeFileSync(join(root, 'bench', SCRIPT_HEAVY ? 'engine-script-heavy.json' : ALL ? 'engine-all.json' : 'engine.json'), `${JSON.stringify({ command, date: new Date().toISOString(), chromium: version, runs: RUNS, results }, null, 1)}\n`);
    if (SCRIPT_HEAVY) writeReadmeBlock('engine-script-heavy', 'The first look on script-heavy pages', `${md}${summary}`);
    else if (ALL) writeReadmeBlock('engine-all', 'Every page', `${md}${summary}`);
    else writeReadmeBlock('engine', 'The DOM engine', md);
}
