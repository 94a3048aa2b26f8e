// What a new tab costs Chromium against a navigation of one tab, and what a
// new browser context (Playwright's `browser.newPage()`) adds to a tab: the
// measured reasons `sweep` in `__test__/helpers.mjs` navigates one tab
// through a list of pages, and `newTab` in `lib/chromium.mjs` opens tabs in
// one kept context. Linux only: Chromium's CPU is read machine-wide from /proc/stat,
// so run it on an otherwise idle machine.
//
//   node bench/tab-cost.mjs [--pages N]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { launchChromium, newTab, openFile } from '../lib/chromium.mjs';
import { root } from './pages.mjs';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '30' } } });
const N = Number(values.pages);
const page = join(root, 'fixtures', 'pages', 'forms.html');

/** CPU seconds the whole machine spent (user, nice, system) so far. */
function cpu() {
    const [, user, nice, system] = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).map(Number);
    return (user + nice + system) / 100;
}

async function measure(label, run) {
    const c0 = cpu();
    const t0 = performance.now();
    const browser = await launchChromium();
    try {
        await run(browser);
    } finally {
        await browser.close();
    }
    console.log(`${label.padEnd(28)} ${(cpu() - c0).toFixed(1).padStart(5)} CPU-s  ${Math.round(performance.now() - t0)} ms (launch included)`);
}

await measure(`${N} new contexts and tabs`, async browser => {
    for (let i = 0; i < N; i += 1) {
        const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        await tab.goto(pathToFileURL(page).href, { waitUntil: 'load' });
        await tab.close();
    }
});
await measure(`${N} new tabs, one context`, async browser => {
    for (let i = 0; i < N; i += 1) await (await openFile(browser, page)).close();
});
await measure(`one tab, ${N} navigations`, async browser => {
    const tab = await openFile(browser, page);
    for (let i = 1; i < N; i += 1) await tab.goto(`${pathToFileURL(page).href}?${i}`, { waitUntil: 'load' });
    await tab.close();
});
// Tabs kept open together (a test of many tabs at once): a context each costs far more.
const OPEN = Math.min(N, 16);
await measure(`${OPEN} open tabs, a context each`, async browser => {
    for (let i = 0; i < OPEN; i += 1) await browser.newPage().then(p => p.goto(pathToFileURL(page).href, { waitUntil: 'load' }));
});
await measure(`${OPEN} open tabs, one context`, async browser => {
    for (let i = 0; i < OPEN; i += 1) await newTab(browser).then(p => p.goto(pathToFileURL(page).href, { waitUntil: 'load' }));
});
