// What a new tab costs Chromium against a navigation of one tab, what a
// new browser context (Playwright's `browser.newPage()`) adds to a tab, and
// what routing a tab's requests through Playwright costs against a browser
// launched offline: the measured reasons `sweep` in `__test__/helpers.mjs`
// navigates one tab through a list of pages, `newTab` in `lib/chromium.mjs`
// opens tabs in one kept context, and the tests' browsers are launched
// offline (`launchChromium({ offline: true })`). Linux only: the CPU is read
// from /proc/self/stat, Chromium's with it once Chromium has exited (other
// tenants of a shared machine do not count).
//
//   node bench/tab-cost.mjs [--pages N]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { launchChromium, newTab, openFile } from '../lib/chromium.mjs';
import { root } from './pages.mjs';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '30' } } });
const N = Number(values.pages);
const page = join(root, 'fixtures', 'pages', 'forms.html');

/**
 * CPU seconds this process and its ended children spent so far (user and
 * system, from /proc/self/stat): Chromium, once closed, is such a child, and
 * its helpers were its children. Other tenants of a shared machine do not count.
 */
function cpu() {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const [utime, stime, cutime, cstime] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 15).map(Number);
    return (utime + stime + cutime + cstime) / 100;
}

async function measure(label, run, launch = {}) {
    const c0 = cpu();
    const t0 = performance.now();
    const browser = await launchChromium(launch);
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
// Real pages (many requests each, none of which may reach the network), one tab through
// them all: every request routed through Playwright and refused there, or refused by
// Chromium itself in a browser launched offline.
const realDir = join(root, 'fixtures', 'real-pages');
const real = readdirSync(realDir).filter(f => f.endsWith('.html')).sort().map(f => join(realDir, f));
const visit = async browser => {
    const tab = await openFile(browser, real[0]);
    for (const path of real.slice(1)) await tab.goto(pathToFileURL(path).href, { waitUntil: 'load' });
    await tab.close();
};
await measure(`${real.length} real pages, routed`, visit);
await measure(`${real.length} real pages, offline`, visit, { offline: true });
