// What an agent's repeat look pays for its layout boxes (`src/incremental/layout.rs`):
// the script that measures every laid-out element and text of the page
// (`src/page/capture/layout_boxes.js`, in an isolated world, as the session
// runs it) against a bare `DOMSnapshot.captureSnapshot` with the layout the
// DOM pass asks for (what a full look pays for the same boxes, and more),
// side by side on every benchmark page; and how many of the script's boxes
// equal the snapshot's bounds (less the document's scroll offset), to the bit
// and within 0.02 px. The page is scrolled by 300 px first, so that the
// scroll offset is part of what is compared.
//
//   node bench/layout-boxes.mjs [--runs N] [--only NAME]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ax from '../lib/ax-snapshot.cjs';
import { openFile } from '../lib/chromium.mjs';
import { measurePages, median, root, round } from './pages.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' }, only: { type: 'string', default: '' } } });
const RUNS = Number(values.runs);
const SCRIPT = readFileSync(join(root, 'src', 'page', 'capture', 'layout_boxes.js'), 'utf8');

/** The snapshot's element and text nodes of the page's document in the script's order, with their bounds (none: no layout). */
function snapshotOrder(snap) {
    const doc = snap.documents[0];
    const nodes = doc.nodes;
    const bounds = new Map(doc.layout.nodeIndex.map((n, k) => [n, doc.layout.bounds[k]]));
    const skip = new Set(nodes.pseudoType ? nodes.pseudoType.index : []);
    const out = [];
    for (let i = 0; i < nodes.nodeType.length; i += 1) {
        const p = nodes.parentIndex[i];
        if (skip.has(i) || skip.has(p) || nodes.nodeType[i] === 11) {
            skip.add(i);
            continue;
        }
        if (nodes.nodeType[i] === 1 || nodes.nodeType[i] === 3) out.push(bounds.get(i) || null);
    }
    return { out, scroll: [doc.scrollOffsetX || 0, doc.scrollOffsetY || 0] };
}

async function measure(browser, p) {
    const page = await openFile(browser, p.path);
    try {
        const cdp = await ax.cdpSessionFor(page);
        await page.evaluate(() => window.scrollTo(0, 300));
        const { frameTree } = await cdp.send('Page.getFrameTree');
        const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: '__web_ai_layout_bench__' });
        const snapshot = () => cdp.send('DOMSnapshot.captureSnapshot', { computedStyles: ['cursor', 'overflow-y'], includeDOMRects: false });
        // Measure every element and text of the page's document (frames are left out of the comparison).
        const first = snapshotOrder(await snapshot());
        // One character a node the script meets: the document first (never measured), then its elements and texts.
        const laid = `0${first.out.map(b => (b ? '1' : '0')).join('')}`;
        const expression = `(${SCRIPT})(${JSON.stringify(laid)})`;
        const boxes = () => cdp.send('Runtime.evaluate', { expression, contextId: executionContextId, returnByValue: true });
        const times = { script: [], snapshot: [] };
        let answer = null;
        for (let i = 0; i < RUNS + 1; i += 1) {
            for (const [name, call] of i % 2 ? [['snapshot', snapshot], ['script', boxes]] : [['script', boxes], ['snapshot', snapshot]]) {
                const t = performance.now();
                const r = await call();
                if (i > 0) times[name].push(performance.now() - t);
                if (name === 'script') answer = r;
            }
        }
        const [, , , rects] = JSON.parse(answer.result.value);
        const mine = [];
        for (let k = 0; k + 3 < rects.length; k += 4) mine.push(rects.slice(k, k + 4));
        const theirs = first.out.filter(Boolean).map(([x, y, w, h]) => [x - first.scroll[0], y - first.scroll[1], w, h]);
        let same = 0;
        let near = 0;
        const compared = Math.min(mine.length, theirs.length);
        for (let k = 0; k < compared; k += 1) {
            const d = Math.max(...mine[k].map((v, j) => Math.abs(v - theirs[k][j])));
            if (d === 0) same += 1;
            else if (d <= 0.02) near += 1;
        }
        return {
            page: p.name,
            boxes: theirs.length,
            scriptMs: round(median(times.script)),
            snapshotMs: round(median(times.snapshot)),
            ratio: round(median(times.script) / median(times.snapshot), 2),
            same,
            near,
            aligned: mine.length === theirs.length,
        };
    } finally {
        await page.close();
    }
}

const { results, version } = await measurePages(values.only, measure, r => `${r.page}: script ${r.scriptMs} ms, snapshot ${r.snapshotMs} ms, ${r.same}+${r.near} of ${r.boxes} boxes equal${r.aligned ? '' : ' (NOT ALIGNED)'}`);
const total = results.reduce((a, r) => ({ boxes: a.boxes + r.boxes, same: a.same + r.same, near: a.near + r.near }), { boxes: 0, same: 0, near: 0 });
const rows = results.map(r => `| ${r.page} | ${r.boxes} | ${r.scriptMs} | ${r.snapshotMs} | ${r.ratio} | ${r.same} | ${r.near} |`);
console.log(`Produced by \`node bench/layout-boxes.mjs${values.runs !== '7' ? ` --runs ${values.runs}` : ''}\` on ${new Date().toISOString().slice(0, 10)} (Chromium ${version}, Node ${process.version}; medians of ${RUNS} alternating runs after 1 warm-up, the page scrolled by 300 px, on a shared 2-core machine).

| page | boxes | script ms | DOMSnapshot ms | ratio | equal to the bit | within 0.02 px |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

Over all pages: ${total.same} of ${total.boxes} boxes equal to the bit, ${total.near} more within 0.02 px.`);
