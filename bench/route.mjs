// What incremental capture would pay per route, on the generated 40k-node
// page (issue 15 item 3): a DOM mirror, AX subtree reads, style reads for one
// changed list item, and the full reads they would replace. Medians.
//
//   node bench/route.mjs
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as ax from '../lib/ax-snapshot.cjs';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import { benchPages, median, round } from './pages.mjs';

const { dir } = benchPages('generated-40k');
const browser = await launchChromium();
try {
    const page = await openFile(browser, join(dir, 'generated-40k.html'));
    const s = await ax.cdpSessionFor(page);
    const time = async (label, fn, runs = 5) => {
        const xs = [];
        let r;
        for (let i = 0; i < runs; i += 1) {
            const t = performance.now();
            r = await fn();
            xs.push(performance.now() - t);
        }
        console.log(`${label}: ${round(median(xs))} ms`);
        return r;
    };
    const doc = await time('DOM.getDocument({ depth: -1, pierce: true })', () => s.send('DOM.getDocument', { depth: -1, pierce: true }), 3);
    const { nodeIds } = await s.send('DOM.querySelectorAll', { nodeId: doc.root.nodeId, selector: 'tr, li' });
    const k = Math.floor(nodeIds.length / 2);
    const { node } = await s.send('DOM.describeNode', { nodeId: nodeIds[k] });
    await time('Accessibility.queryAXTree (one item)', () => s.send('Accessibility.queryAXTree', { backendNodeId: node.backendNodeId }));
    await time('Accessibility.getPartialAXTree (one item, fetchRelatives)', () => s.send('Accessibility.getPartialAXTree', { backendNodeId: node.backendNodeId, fetchRelatives: true }));
    await s.send('CSS.enable');
    await time('CSS.getComputedStyleForNode (one item)', () => s.send('CSS.getComputedStyleForNode', { nodeId: nodeIds[k] }));
    await time('Runtime.evaluate: styles of one item\'s subtree', () => s.send('Runtime.evaluate', {
        expression: `(() => { const r = document.querySelectorAll('tr, li')[${k}]; return [r, ...r.querySelectorAll('*')].map(e => { const c = getComputedStyle(e); return [c.display, c.visibility, c.cursor]; }).length; })()`,
        returnByValue: true,
    }));
    await time('DOMSnapshot.captureSnapshot (the DOM engine\'s styles)', () => s.send('DOMSnapshot.captureSnapshot', { computedStyles: ['cursor', 'display', 'visibility', 'content', 'text-transform'] }), 3);
    await time('Accessibility.getFullAXTree', () => s.send('Accessibility.getFullAXTree', {}), 3);
} finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
}

