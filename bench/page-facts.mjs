// What the DOM hash costs a capture in the page: `src/page/capture/page_facts.js`
// (the page written and normalised a chunk at a time, up to `domHashMaxChars`)
// against the page's whole outerHTML written and normalised with the same four
// regexes, then cut (what the script did before it worked in chunks, on a page
// without long inline script or style text), side by side in one tab; and
// whether the two normalised strings are equal. Times are in-page medians
// (`performance.now()` around each call, no DevTools round trip).
//
//   node bench/page-facts.mjs [--runs N] [--only NAME] [--max-chars N] [--all]
//   (--all: every shared page, ../shared/pages-more too, and every generated page)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openFile } from '../lib/chromium.mjs';
import { measurePages, root, round } from './pages.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' }, only: { type: 'string', default: '' }, 'max-chars': { type: 'string', default: '32768' }, all: { type: 'boolean' } } });
const RUNS = Math.max(1, Number(values.runs) || 15);
const MAX = Math.max(1, Number(values['max-chars']) || 32768);
const SCRIPT = readFileSync(join(root, 'src', 'page', 'capture', 'page_facts.js'), 'utf8');

/** In the page: the median ms of `runs` calls of each way, and whether they normalise alike. */
function inPage({ script, runs, max }) {
    const facts = (0, eval)(script);
    const whole = () => document.documentElement.outerHTML
        .replace(/<!--[\s\S]*?-->/g, '')
        .replace(/<(\w+)\s[^>]*>/g, '<$1>')
        .replace(/>([^<]+)</g, '><')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, max);
    const time = fn => {
        const ts = [];
        for (let i = 0; i <= runs; i += 1) {
            const t = performance.now();
            fn();
            if (i > 0) ts.push(performance.now() - t);
        }
        ts.sort((a, b) => a - b);
        return ts[ts.length >> 1];
    };
    const chunked = () => facts(['html'], true, max, false, false).normalizedHtml;
    return { chunkedMs: time(chunked), wholeMs: time(whole), same: chunked() === whole(), elements: document.getElementsByTagName('*').length };
}

async function measure(browser, p) {
    const page = await openFile(browser, p.path);
    try {
        const r = await page.evaluate(inPage, { script: SCRIPT, runs: RUNS, max: MAX });
        return { page: p.name, elements: r.elements, chunkedMs: round(r.chunkedMs, 2), wholeMs: round(r.wholeMs, 2), ratio: r.wholeMs > 0 ? round(r.chunkedMs / r.wholeMs, 2) : "–", same: r.same };
    } finally {
        await page.close();
    }
}

const { results, version } = await measurePages(values.only, measure, r => `${r.page}: page facts ${r.chunkedMs} ms, whole outerHTML ${r.wholeMs} ms${r.same ? '' : ' (NOT EQUAL)'}`, { all: Boolean(values.all) });
const flags = `${values.runs !== '15' ? ` --runs ${values.runs}` : ''}${values['max-chars'] !== '32768' ? ` --max-chars ${values['max-chars']}` : ''}`;
console.log(`Produced by \`node bench/page-facts.mjs${flags}\` on ${new Date().toISOString().slice(0, 10)} (Chromium ${version}, Node ${process.version}; in-page medians of ${RUNS} calls after 1 warm-up, cut at ${MAX} characters, on a shared 2-core machine).

| page | elements | page facts ms | whole outerHTML ms | ratio | same string |
| --- | --- | --- | --- | --- | --- |
${results.map(r => `| ${r.page} | ${r.elements} | ${r.chunkedMs} | ${r.wholeMs} | ${r.ratio} | ${r.same ? 'yes' : 'NO'} |`).join('\n')}`);
if (results.some(r => !r.same)) process.exitCode = 1;
