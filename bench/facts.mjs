// The walk's facts script (src/page/capture/subtree_facts.js) over whole
// documents, as it runs in our isolated world, against another version of
// it: the time it takes in the page (median of --runs, the two alternating
// in one page) and whether both give the same answer. With --as-list, the
// round trip of the answer sent as one JSON string against the same answer
// returned as a list (what DevTools converts item by item).
//
//   node bench/facts.mjs [--against REV] [--runs N] [--as-list] FILE...
//
// --against takes the script from a git revision (default HEAD~1); only the
// page's side is timed, never the engine. Used for the figures in
// src/incremental/fresh.rs (facts_in) and the 2026-11-27 closing note.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as ax from '../lib/ax-snapshot.cjs';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import { median, root, round } from './pages.mjs';

const { values, positionals } = parseArgs({ options: { against: { type: 'string', default: 'HEAD~1' }, runs: { type: 'string', default: '21' }, 'as-list': { type: 'boolean' } }, allowPositionals: true });
const RUNS = Math.max(1, Number(values.runs) || 21);
const STYLES = JSON.stringify(['cursor', 'display', 'visibility', 'content', 'text-transform']);
const current = readFileSync(resolve(root, 'src/page/capture/subtree_facts.js'), 'utf8');
const other = values['as-list']
    ? current.replace('return JSON.stringify(out);', 'return out;')
    : execFileSync('git', ['show', `${values.against}:src/page/capture/subtree_facts.js`], { cwd: root }).toString();
// In the page: its own time, and the answer to compare. As a round trip: the whole call.
const inPage = src => `(() => { const t = performance.now(); const r = (${src}).call(document, ${STYLES}); return [performance.now() - t, typeof r === 'string' ? r : JSON.stringify(r)]; })()`;
const whole = src => `(${src}).call(document, ${STYLES})`;

const browser = await launchChromium();
try {
    console.log(`| page | ${values['as-list'] ? 'as a list' : values.against} ms | now ms | same answer |\n| --- | --- | --- | --- |`);
    for (const file of positionals) {
        const page = await openFile(browser, resolve(file));
        const cdp = await ax.cdpSessionFor(page);
        const { frameTree } = await cdp.send('Page.getFrameTree');
        const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'web-ai-bench-facts' });
        const run = async expression => {
            const t = performance.now();
            const r = await cdp.send('Runtime.evaluate', { expression, contextId: executionContextId, returnByValue: true });
            if (r.exceptionDetails) throw new Error(`${file}: ${r.exceptionDetails.text}`);
            return { ms: performance.now() - t, value: r.result.value };
        };
        const a = [];
        const b = [];
        let same = true;
        for (let i = 0; i < RUNS; i += 1) {
            if (values['as-list']) {
                a.push((await run(whole(other))).ms);
                b.push((await run(whole(current))).ms);
            } else {
                const x = (await run(inPage(other))).value;
                const y = (await run(inPage(current))).value;
                a.push(x[0]);
                b.push(y[0]);
                same &&= x[1] === y[1];
            }
        }
        console.log(`| ${file.split('/').pop()} | ${round(median(a), 2)} | ${round(median(b), 2)} | ${values['as-list'] ? '' : same ? 'yes' : 'no'} |`);
        await page.close();
    }
} finally {
    await browser.close();
}
