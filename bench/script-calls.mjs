// What sending one of our page scripts whole costs against calling it by name
// once it is kept in our world (`src/page/mod.rs`, FACTS_FN): the page facts
// on a small page (their call opens every capture), and the changed-subtree
// script on one card of the generated 40k-node page (once per changed
// subtree of a repeat look; called by name since 2026-11-29, with the repeat
// look's first question, `take_changes.js`). Medians of `--runs` calls
// over a Playwright CDP session, in an isolated world of our own.
//
//   node bench/script-calls.mjs [--runs N] [FILE]
//
// Without FILE, the bundled `fixtures/pages/hidden.html`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import { generatePage } from './generate.mjs';
import { median, root, round } from './pages.mjs';

const { values, positionals } = parseArgs({ options: { runs: { type: 'string', default: '60' } }, allowPositionals: true });
const RUNS = Math.max(5, Number(values.runs) || 60);
const script = name => readFileSync(join(root, 'src', 'page', 'capture', name), 'utf8');
const facts = script('page_facts.js');
const subtree = script('subtree_facts.js');
const STYLES = ['cursor', 'display', 'visibility', 'content', 'text-transform'];

async function world(page) {
    const cdp = await page.context().newCDPSession(page);
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'web-ai-bench' });
    return { cdp, context: executionContextId };
}

async function timed(call) {
    const times = [];
    for (let i = 0; i < RUNS; i += 1) {
        const t = performance.now();
        await call();
        times.push(performance.now() - t);
    }
    return round(median(times), 2);
}

const dir = mkdtempSync(join(tmpdir(), 'web-ai-script-calls-'));
const browser = await launchChromium();
try {
    const small = positionals[0] || join(root, 'fixtures', 'pages', 'hidden.html');
    {
        const page = await openFile(browser, small);
        const { cdp, context } = await world(page);
        const args = '(["body"], true, 32768, true, false)';
        await cdp.send('Runtime.evaluate', { expression: `globalThis.__benchFacts = (${facts}); 0`, contextId: context });
        const whole = await timed(() => cdp.send('Runtime.evaluate', { expression: `(${facts})${args}`, contextId: context, returnByValue: true }));
        const named = await timed(() => cdp.send('Runtime.evaluate', { expression: `globalThis.__benchFacts${args}`, contextId: context, returnByValue: true }));
        console.log(`page facts on ${small.split('/').pop()}: sent whole ${whole} ms, called by name ${named} ms (medians of ${RUNS})`);
        await page.close();
    }
    {
        const file = join(dir, 'generated-40k.html');
        writeFileSync(file, generatePage(40000));
        const page = await openFile(browser, file);
        const { cdp, context } = await world(page);
        const { result } = await cdp.send('Runtime.evaluate', { expression: 'document.querySelector("#card-20")', contextId: context });
        await cdp.send('Runtime.evaluate', { expression: `globalThis.__benchSubtree = (${subtree}); 0`, contextId: context });
        const call = functionDeclaration => () => cdp.send('Runtime.callFunctionOn', { objectId: result.objectId, functionDeclaration, arguments: [{ value: STYLES }], returnByValue: true });
        const whole = await timed(call(subtree));
        const named = await timed(call('function (styles) { return globalThis.__benchSubtree.call(this, styles); }'));
        console.log(`changed-subtree script on one card of generated-40k: sent whole ${whole} ms, called by name ${named} ms (medians of ${RUNS})`);
        await page.close();
    }
} finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
}
