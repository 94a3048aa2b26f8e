#!/usr/bin/env node
// What filling a token budget costs (`npm run bench:budget`): on each page,
// our processing (replies turned into text in JS, Rust parse, serialization
// and filling; not the browser's time) with `includeElements: true`
// against the same with `maxTokens: 2000` too, run back to back in
// alternating order. Both read the layout boxes the budget ranks by, so the
// difference is the filling itself, the way the tools run it.
//
// A page's first budgeted snapshot counts every line it keeps; later ones
// find most lines counted (an agent's repeat snapshots share most lines):
// "first" is that first snapshot, measured once, before any other.
//
//   node bench/budget.mjs [--runs N] [--only SUBSTRING] [--no-readme]
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, findChromium, openFile } from '../lib/chromium.mjs';
import ax from '../lib/ax-snapshot.cjs';
import { benchPages, median, round, root } from './pages.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const RUNS = Number(opt('--runs', 9));
const ONLY = opt('--only', '');
const WARMUP = 2;

const { list, dir } = benchPages(ONLY);

const BOXES = { includeElements: true };
const BUDGET = { includeElements: true, maxTokens: 2000 };

const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_FLAGS });
const version = browser.version();
const rows = [];
try {
    // The o200k table loads once per process; not part of any page's cost.
    {
        const page = await openFile(browser, join(root, 'fixtures', 'pages', 'forms.html'));
        await ax.buildWebAiSnapshot(page, { maxTokens: 50 });
        await page.close();
    }
    for (const p of list) {
        const page = await openFile(browser, p.path);
        try {
            const session = await ax.cdpSessionFor(page);
            const own = async options => {
                const timings = {};
                const s = await ax.captureOverCdp((m, params) => session.send(m, params), options, timings);
                return { ms: (timings.project || 0) + (timings.rust || 0), s };
            };
            await own(BOXES);
            const first = await own(BUDGET);
            const a = [];
            const b = [];
            const ratios = [];
            for (let i = 0; i < WARMUP + RUNS; i += 1) {
                const order = i % 2 ? [BUDGET, BOXES] : [BOXES, BUDGET];
                const pair = new Map();
                for (const o of order) pair.set(o, (await own(o)).ms);
                if (i < WARMUP) continue;
                a.push(pair.get(BOXES));
                b.push(pair.get(BUDGET));
                ratios.push(pair.get(BUDGET) / pair.get(BOXES));
            }
            const row = {
                page: p.name,
                boxesMs: round(median(a), 2),
                budgetMs: round(median(b), 2),
                adds: round(median(ratios) - 1, 3),
                firstMs: round(first.ms, 2),
                tokens: first.s.stats.tokens,
            };
            rows.push(row);
            console.error(`${row.page}: ${row.boxesMs} -> ${row.budgetMs} ms (${round(row.adds * 100)}%), first ${row.firstMs} ms, ${row.tokens} tokens`);
        } finally {
            await page.close();
        }
    }
} finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
}

const table = [
    '| page | processing ms, includeElements | with maxTokens 2000 | filling adds | first budgeted snapshot ms | tokens |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(r => `| ${r.page} | ${r.boxesMs} | ${r.budgetMs} | ${round(r.adds * 100, 1)}% | ${r.firstMs} | ${r.tokens} |`),
].join('\n');
const md = `Produced by \`node bench/budget.mjs\` on ${new Date().toISOString().slice(0, 10)} (Chromium ${version}, Node ${process.version}, release addon; medians of ${RUNS} back-to-back pairs after ${WARMUP} warm-ups, on a shared 2-core machine). "filling adds" is the median, over the pairs, of the budgeted processing over the other.\n\n${table}\n`;
console.log(md);
// A partial run (--only, --no-readme) leaves the recorded results as they are.
if (!args.includes('--no-readme') && !ONLY) {
    writeFileSync(join(root, 'bench', 'budget.json'), JSON.stringify(rows, null, 2) + '\n');
    const readmePath = join(root, 'README.md');
    const readme = readFileSync(readmePath, 'utf8');
    const block = `<!-- budget:start -->\n${md}<!-- budget:end -->`;
    if (readme.includes('<!-- budget:start -->')) writeFileSync(readmePath, readme.replace(/<!-- budget:start -->[\s\S]*<!-- budget:end -->/, block));
}
