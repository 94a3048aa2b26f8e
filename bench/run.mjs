#!/usr/bin/env node
// The benchmark (`npm run bench`). For each real page of ../shared/pages and
// generated pages of ~1k/10k/40k accessibility nodes, loaded in Chromium with
// the network blocked, it measures side by side, interleaved, in one process:
//   floor  — a bare Accessibility.getFullAXTree over the same CDP session;
//   pw     — Playwright's page.ariaSnapshot({ mode: 'ai' });
//   ours   — the capture buildWebAiSnapshot(page) runs, over that same
//            session, and our own processing inside it;
//   native — buildWebAiSnapshot({ cdpEndpoint }): the Rust core connecting
//            by itself, beside its own floor: connect, attach and one bare
//            getFullAXTree over a websocket, its JSON not parsed;
// and compares tokens (o200k) and the named tier-1 controls of Chrome's tree
// that appear in our refs. Results go to bench/results.json and the README.
//
//   node bench/run.mjs [--runs N] [--only SUBSTRING] [--no-readme]
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import net from 'node:net';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, findChromium, openFile } from '../lib/chromium.mjs';
import native from '../native.cjs';
import ax from '../lib/ax-snapshot.cjs';
import actions from '../lib/actions.cjs';
import { benchPages, median, round, root } from './pages.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const RUNS = Number(opt('--runs', 9));
const ONLY = opt('--only', '');
const WARMUP = 2;
import { TIER1 } from './pages.mjs';



async function measurePage(browser, endpoint, p) {
    const page = await openFile(browser, p.path);
    try {
        const session = await ax.cdpSessionFor(page);
        const { targetInfo } = await session.send('Target.getTargetInfo');
        const tab = { cdpEndpoint: endpoint, targetId: targetInfo.targetId };
        const methods = {
            nativeFloor: async () => native.nativeBareTree(tab, 60000),
            native: async () => ax.buildWebAiSnapshot(tab, { timeoutMs: 60000, engine: 'ax' }),
            floor: async () => { await session.send('Accessibility.getFullAXTree', {}); },
            pw: async () => page.ariaSnapshot({ mode: 'ai' }),
            ours: async () => {
                const timings = {};
                const s = await ax.captureOverCdp((m, params) => session.send(m, params), { engine: 'ax' }, timings);
                return { s, own: (timings.project || 0) + (timings.rust || 0) };
            },
            // The same capture without the DOM pass (selectors, clickable refs): what that pass costs.
            oursNoDom: async () => ax.captureOverCdp((m, params) => session.send(m, params), { domPass: false, engine: 'ax' }),
            // With a 2,000-token budget: what filling it (and reading the boxes it ranks by) adds to our processing.
            oursBudget: async () => {
                const timings = {};
                const s = await ax.captureOverCdp((m, params) => session.send(m, params), { maxTokens: 2000, engine: 'ax' }, timings);
                return { s, own: (timings.project || 0) + (timings.rust || 0) };
            },
        };
        const times = { floor: [], pw: [], ours: [], own: [], native: [], nativeFloor: [], oursNoDom: [], oursBudget: [], ownBudget: [] };
        // `ours` and `oursNoDom` run back to back (which one first alternates),
        // and the DOM pass cost is the median of their per-pair ratios: on a
        // shared machine the load drifts more between pairs than within one.
        const order = ['floor', 'pw', 'ours+oursNoDom+oursBudget', 'nativeFloor', 'native'];
        const domRatios = [];
        const budgetRatios = [];
        let budgeted = null;
        let pwText = '';
        let ours = null;
        for (let i = 0; i < WARMUP + RUNS; i += 1) {
            // Rotate the order so that no method always runs on a warmer page.
            for (let k = 0; k < order.length; k += 1) {
                const group = order[(i + k) % order.length].split('+');
                if (i % 2) group.reverse();
                const pair = {};
                for (const name of group) {
                    const t = performance.now();
                    const r = await methods[name]();
                    const ms = performance.now() - t;
                    pair[name] = ms;
                    if (name === 'pw') pwText = r;
                    if (name === 'ours') ours = r.s;
                    if (name === 'oursBudget') budgeted = r.s;
                    if (name === 'ours' || name === 'oursBudget') pair[`${name}Own`] = r.own;
                    if (i < WARMUP) continue;
                    times[name].push(ms);
                    if (name === 'ours') times.own.push(r.own);
                    if (name === 'oursBudget') times.ownBudget.push(r.own);
                }
                if (i >= WARMUP && pair.ours && pair.oursNoDom) domRatios.push(pair.ours / pair.oursNoDom);
                if (i >= WARMUP && pair.oursOwn && pair.oursBudgetOwn) budgetRatios.push(pair.oursBudgetOwn / pair.oursOwn);
            }
        }
        const tree = await session.send('Accessibility.getFullAXTree', {});
        const named = tree.nodes.filter(n => !n.ignored && TIER1.has(n.role?.value) && String(n.name?.value || '').trim() && n.backendDOMNodeId);
        const ids = new Set(Object.values(ours.refs).map(r => r.backendNodeId));
        const covered = named.filter(n => ids.has(n.backendDOMNodeId)).length;
        return {
            page: p.name,
            real: p.real,
            axNodes: tree.nodes.length,
            floorMs: round(median(times.floor)),
            playwrightMs: round(median(times.pw)),
            oursMs: round(median(times.ours)),
            ownMs: round(median(times.own)),
            oursVsFloor: round(median(times.ours) / median(times.floor), 2),
            oursNoDomMs: round(median(times.oursNoDom)),
            domPassCost: round(median(domRatios) - 1, 3),
            nativeMs: round(median(times.native)),
            nativeFloorMs: round(median(times.nativeFloor)),
            nativeVsFloor: round(median(times.native) / median(times.nativeFloor), 2),
            ownBudgetMs: round(median(times.ownBudget)),
            budgetCost: round(median(budgetRatios) - 1, 3),
            budgetTokens: encode(budgeted.text).length,
            oursTokens: encode(ours.text).length,
            playwrightTokens: encode(pwText).length,
            refs: Object.keys(ours.refs).length,
            namedTier1: named.length,
            namedTier1WithRefs: covered,
            missing: named.filter(n => !ids.has(n.backendDOMNodeId)).slice(0, 5).map(n => `${n.role.value} "${String(n.name.value).slice(0, 40)}"`),
        };
    } finally {
        await page.close();
    }
}

function table(results) {
    const head = '| page | AX nodes | floor ms | Playwright ai ms | ours ms | ours / floor | without DOM pass ms | DOM pass adds | our processing ms | maxTokens 2000: processing ms | budget adds | budgeted tokens | native floor ms | native ms | native / floor | our tokens | Playwright tokens | tokens ratio | named tier-1 with refs |';
    const sep = '|' + ' --- |'.repeat(19);
    const rows = results.map(r => `| ${r.page} | ${r.axNodes} | ${r.floorMs} | ${r.playwrightMs} | ${r.oursMs} | ${r.oursVsFloor} | ${r.oursNoDomMs} | ${round(r.domPassCost * 100, 1)}% | ${r.ownMs} | ${r.ownBudgetMs} | ${round(r.budgetCost * 100, 1)}% | ${r.budgetTokens} | ${r.nativeFloorMs} | ${r.nativeMs} | ${r.nativeVsFloor} | ${r.oursTokens} | ${r.playwrightTokens} | ${round(r.oursTokens / r.playwrightTokens, 2)} | ${r.namedTier1WithRefs}/${r.namedTier1} |`);
    const real = results.filter(r => r.real);
    const sum = k => real.reduce((a, r) => a + r[k], 0);
    const totals = real.length
        ? `\nReal pages, total: our tokens ${sum('oursTokens')} vs Playwright ${sum('playwrightTokens')} (ratio ${round(sum('oursTokens') / sum('playwrightTokens'), 3)}); named tier-1 controls with refs ${sum('namedTier1WithRefs')}/${sum('namedTier1')}.`
        : '';
    return [head, sep, ...rows].join('\n') + '\n' + totals;
}

/** Each action of seed 001 on the actions fixture: median time of the action itself, fresh snapshot excluded. */
async function measureActions(browser) {
    const page = await openFile(browser, join(root, 'fixtures', 'pages', 'actions.html'));
    try {
        const out = [];
        const cases = [
            ['click', s => ({ ref: refOf(s, 'button', 'Go') })],
            ['fill', s => ({ ref: refOf(s, 'textbox', 'Email'), value: 'someone@example.com' })],
            ['select', s => ({ ref: refOf(s, 'combobox', 'Size'), value: 'Large' })],
            ['scroll', () => ({ direction: 'down', amount: 200 })],
            ['scroll', s => ({ ref: refOf(s, 'button', 'Bottom button') })],
        ];
        for (const [action, argsOf] of cases) {
            const ms = [];
            let snapshot = await ax.buildWebAiSnapshot(page, { engine: 'ax' });
            for (let i = 0; i < WARMUP + RUNS; i += 1) {
                const r = await actions.runAction(page, snapshot, action, argsOf(snapshot));
                if (!r.success) throw new Error(`${action} failed in the benchmark: ${r.error} ${r.message}`);
                snapshot = r.snapshot;
                if (i >= WARMUP) ms.push(r.timings.actionMs);
                if (action === 'scroll') await page.evaluate(() => window.scrollTo(0, 0));
            }
            out.push({ action: action === 'scroll' && argsOf(snapshot).ref ? 'scroll to ref' : action, medianMs: round(median(ms)), maxMs: round(Math.max(...ms)) });
        }
        return out;
    } finally {
        await page.close();
    }
}

/**
 * Native captures of TABS tabs at once against one capture alone, the same
 * page in every tab: waiting on the browser holds no thread, so the total
 * is bounded by the browser's work, not by a thread pool.
 */
const TABS = 16;
async function measureConcurrent(browser, endpoint, p) {
    const pages = [];
    try {
        for (let i = 0; i < TABS; i += 1) pages.push(await openFile(browser, p.path));
        const ids = await Promise.all(pages.map(async page => {
            const s = await page.context().newCDPSession(page);
            const { targetInfo } = await s.send('Target.getTargetInfo');
            await s.detach();
            return targetInfo.targetId;
        }));
        const capture = targetId => ax.buildWebAiSnapshot({ cdpEndpoint: endpoint, targetId }, { timeoutMs: 60000, engine: 'ax' });
        const one = [];
        const all = [];
        for (let i = 0; i < WARMUP + RUNS; i += 1) {
            let t = performance.now();
            await capture(ids[i % TABS]);
            const oneMs = performance.now() - t;
            t = performance.now();
            await Promise.all(ids.map(capture));
            const allMs = performance.now() - t;
            if (i >= WARMUP) { one.push(oneMs); all.push(allMs); }
        }
        return { page: p.name, tabs: TABS, oneMs: round(median(one)), allMs: round(median(all)), ratio: round(median(all) / median(one), 2) };
    } finally {
        await Promise.all(pages.map(page => page.close()));
    }
}

function refOf(snapshot, role, name) {
    const r = Object.values(snapshot.refs).find(x => x.role === role && x.name === name);
    if (!r) throw new Error(`no ${role} ${name} on the actions fixture`);
    return r.ref;
}

const { list, dir } = benchPages(ONLY);
const port = await new Promise(resolve => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
const browser = await chromium.launch({ executablePath: findChromium(), headless: true, args: [...CHROMIUM_FLAGS, `--remote-debugging-port=${port}`] });
const endpoint = `http://127.0.0.1:${port}`;
const results = [];
let actionResults = [];
let concurrent = null;
try {
    if (!ONLY || 'actions'.includes(ONLY)) actionResults = await measureActions(browser);
    const concurrentPage = list.find(p => p.name === 'generated-1k');
    if (concurrentPage) concurrent = await measureConcurrent(browser, endpoint, concurrentPage);
    for (const p of list) {
        const r = await measurePage(browser, endpoint, p);
        results.push(r);
        console.error(`${r.page}: ours ${r.oursMs} ms (own ${r.ownMs}) floor ${r.floorMs} pw ${r.playwrightMs}; native ${r.nativeMs} floor ${r.nativeFloorMs}; tokens ${r.oursTokens}/${r.playwrightTokens}; tier-1 ${r.namedTier1WithRefs}/${r.namedTier1}`);
    }
} finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
}

const meta = {
    command: `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`,
    date: new Date().toISOString(),
    chromium: await (async () => { const b = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_FLAGS }); const v = b.version(); await b.close(); return v; })(),
    node: process.version,
    runs: RUNS,
    warmup: WARMUP,
};
const concurrentTable = concurrent
    ? `\nConcurrent native captures (\`buildWebAiSnapshot({ cdpEndpoint, targetId })\`, ${concurrent.page} in ${concurrent.tabs} tabs of one browser):\n\n| tabs | one capture ms | ${concurrent.tabs} at once, total ms | total / one |\n| --- | --- | --- | --- |\n| ${concurrent.tabs} | ${concurrent.oneMs} | ${concurrent.allMs} | ${concurrent.ratio} |\n`
    : '';
const actionTable = actionResults.length
    ? `\nActions on \`fixtures/pages/actions.html\` (\`runAction\`, the action itself with its checks, hit test and deadline; the fresh snapshot excluded):\n\n| action | median ms | max ms |\n| --- | --- | --- |\n${actionResults.map(a => `| ${a.action} | ${a.medianMs} | ${a.maxMs} |`).join('\n')}\n`
    : '';
const md = `Produced by \`${meta.command}\` on ${meta.date.slice(0, 10)} (Chromium ${meta.chromium}, Node ${meta.node}, release addon; medians of ${RUNS} interleaved runs after ${WARMUP} warm-ups, on a shared 2-core machine). Every capture here is Chrome's tree (\`engine: 'ax'\`; the DOM engine, the default, is measured in [The DOM engine](#the-dom-engine)). "floor" is a bare \`Accessibility.getFullAXTree\` over the same CDP session; "our processing" is the part of "ours" spent in this package apart from waiting for the browser (replies turned into text in JS, Rust parse and serialization). "native" is \`buildWebAiSnapshot({ cdpEndpoint })\`, the Rust core connecting by itself (connect, pick the tab, attach, capture, detach); "native floor" is the same connection and attach plus one bare \`getFullAXTree\` over the websocket, its JSON not parsed. "without DOM pass" is the same capture with \`domPass: false\` (no selectors, no clickable refs); "DOM pass adds" is the median, over the runs, of ours over it run back to back. "maxTokens 2000" is the same capture with a 2,000-token budget (which also reads layout boxes to rank by the viewport); "budget adds" is the median, over the runs, of its processing over ours, run back to back; "budgeted tokens" is its text's o200k count.\n\n${table(results)}\n${actionTable}${concurrentTable}`;
console.log(md);
// A partial run (--only, --no-readme) leaves the recorded results as they are.
if (!args.includes('--no-readme') && !ONLY) {
    writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify({ meta, results, actions: actionResults, concurrent }, null, 1)}\n`);
    const readmePath = join(root, 'README.md');
    const readme = readFileSync(readmePath, 'utf8');
    const block = `<!-- bench:start -->\n${md}<!-- bench:end -->`;
    const next = readme.includes('<!-- bench:start -->')
        ? readme.replace(/<!-- bench:start -->[\s\S]*<!-- bench:end -->/, block)
        : `${readme.trimEnd()}\n\n## Benchmark results\n\n${block}\n`;
    writeFileSync(readmePath, next);
}
