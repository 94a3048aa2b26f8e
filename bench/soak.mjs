#!/usr/bin/env node
// Soak: 1,000 snapshots of one real page in one process, through a Playwright
// page and through the native endpoint, and this process's memory after the
// first 100 and at the end (goal: RSS growth at most 10%). A leak in the
// addon (a reply kept, a session never dropped, a tokio task left behind)
// shows as growth here long before it shows anywhere else.
//
// node --expose-gc bench/soak.mjs [--count N] [--page NAME] [--no-readme]
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, findChromium, openFile } from '../lib/chromium.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: flags } = parseArgs({ options: { count: { type: 'string', default: '1000' }, page: { type: 'string', default: 'theverge' }, 'no-readme': { type: 'boolean', default: false } } });
const COUNT = Number(flags.count);
const WINDOW = 100;
const ax = (await import('../lib/index.mjs'));

const mb = bytes => Math.round(bytes / 1024 / 1024 * 10) / 10;
function memory() {
    globalThis.gc?.();
    const m = process.memoryUsage();
    return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
}

async function soak(label, capture) {
    let first = null;
    let nodes = 0;
    const started = performance.now();
    for (let i = 1; i <= COUNT; i += 1) {
        const s = await capture();
        nodes = s.stats.nodeCount;
        if (i === WINDOW) first = memory();
    }
    const last = memory();
    const row = {
        path: label,
        snapshots: COUNT,
        nodes,
        msPerSnapshot: Math.round((performance.now() - started) / COUNT * 10) / 10,
        rssAfter100Mb: mb(first.rss),
        rssAtEndMb: mb(last.rss),
        rssGrowthPct: Math.round((last.rss / first.rss - 1) * 1000) / 10,
        heapAfter100Mb: mb(first.heapUsed),
        heapAtEndMb: mb(last.heapUsed),
    };
    console.error(JSON.stringify(row));
    return row;
}

const port = await new Promise(resolve => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
const browser = await chromium.launch({ executablePath: findChromium(), args: [...CHROMIUM_FLAGS, `--remote-debugging-port=${port}`] });
const rows = [];
let chromiumVersion;
try {
    chromiumVersion = browser.version();
    const page = await openFile(browser, join(root, 'fixtures', 'real-pages', `${flags.page}.html`));
    const s = await page.context().newCDPSession(page);
    const { targetInfo } = await s.send('Target.getTargetInfo');
    await s.detach();
    rows.push(await soak('Playwright page', () => ax.buildWebAiSnapshot(page)));
    rows.push(await soak('native `{ cdpEndpoint }`', () => ax.buildWebAiSnapshot({ cdpEndpoint: `http://127.0.0.1:${port}`, targetId: targetInfo.targetId })));
} finally {
    await browser.close();
}

const command = `node --expose-gc bench/soak.mjs${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}`;
const md = `Produced by \`${command}\` on ${new Date().toISOString().slice(0, 10)} (Chromium ${chromiumVersion}, Node ${process.version}, release addon): ${COUNT} snapshots of \`fixtures/real-pages/${flags.page}.html\` in one process, memory measured after a forced GC.\n\n| path | snapshots | AX nodes | ms / snapshot | RSS after ${WINDOW} (MB) | RSS at end (MB) | RSS growth | JS heap after ${WINDOW} → end (MB) |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n${rows.map(r => `| ${r.path} | ${r.snapshots} | ${r.nodes} | ${r.msPerSnapshot} | ${r.rssAfter100Mb} | ${r.rssAtEndMb} | ${r.rssGrowthPct}% | ${r.heapAfter100Mb} → ${r.heapAtEndMb} |`).join('\n')}\n`;
console.log(md);
// A --no-readme run leaves the recorded results as they are.
if (!flags['no-readme']) {
    writeFileSync(join(root, 'bench', 'soak.json'), `${JSON.stringify({ command, date: new Date().toISOString(), chromium: chromiumVersion, node: process.version, page: flags.page, rows }, null, 1)}\n`);
    const readmePath = join(root, 'README.md');
    const readme = readFileSync(readmePath, 'utf8');
    const block = `<!-- soak:start -->\n${md}<!-- soak:end -->`;
    if (!readme.includes('<!-- soak:start -->')) throw new Error('README.md has no <!-- soak:start --> block');
    writeFileSync(readmePath, readme.replace(/<!-- soak:start -->[\s\S]*<!-- soak:end -->/, block));
}
