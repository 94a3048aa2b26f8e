#!/usr/bin/env node
// The agent loop's benchmark (`npm run bench:loop`): on generated pages of
// ~1k/10k/40k accessibility nodes, in one Playwright Chromium, a page
// session's
//   delta   — tokens (o200k) of the delta after one card's text changes,
//             against the full snapshot's;
//   cache   — repeat snapshots of an unchanged page (cache hits, 50 ms
//             apart), against full captures (invalidate() first), medians;
//   wait    — waitForUiChange: a change made at a known moment, the time
//             until the wait saw it hold still (detectedMs) and until it
//             resolved with its snapshot, with stabilityWindowMs 300;
//   tools   — what the tools' get_snapshot hands the model: its text's
//             tokens and its elements (count, and tokens as JSON).
// Results go to bench/loop.json and the README's loop block.
//
//   node bench/loop.mjs [--runs N] [--no-readme]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import { createPageSession, createBrowserTools } from '../lib/index.mjs';
import { generatePage } from './generate.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const RUNS = Number(args.includes('--runs') ? args[args.indexOf('--runs') + 1] : 9);
const WINDOW = 300;
const median = xs => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

async function measure(browser, name, path) {
    const page = await openFile(browser, path);
    try {
        const session = createPageSession(page, { cacheTtlMs: 60_000 });
        const full = await session.snapshot();
        const fullTokens = encode(full.text).length;
        // One row's text changes.
        await page.evaluate(() => { document.querySelector('#card-3 h3').textContent = 'Item 3: changed title'; });
        const after = await session.snapshot();
        const deltaTokens = encode(after.delta.text).length;
        const cache = [];
        const capture = [];
        for (let i = 0; i < RUNS; i += 1) {
            session.invalidate();
            const t = performance.now();
            await session.snapshot();
            capture.push(performance.now() - t);
        }
        // Repeat looks at an unchanged page, as an agent makes them: not in
        // the garbage collection that follows a 40k-node capture.
        await new Promise(r => setTimeout(r, 500));
        for (let i = 0; i < RUNS; i += 1) {
            const t = performance.now();
            const hit = await session.snapshot();
            if (!hit.fromCache) throw new Error('expected a cache hit');
            cache.push(performance.now() - t);
            await new Promise(r => setTimeout(r, 50));
        }
        const detected = [];
        const resolved = [];
        for (let i = 0; i < Math.min(RUNS, 5); i += 1) {
            await session.snapshot();
            const startedAt = performance.now();
            const delay = 200;
            const changedAt = new Promise(r => setTimeout(async () => {
                await page.evaluate(k => { document.querySelector('#card-5 p').textContent = `changed ${k}`; }, i);
                r(performance.now());
            }, delay));
            const w = await session.waitForUiChange({ stabilityWindowMs: WINDOW, timeoutMs: 30_000 });
            const at = await changedAt;
            if (!w.success) throw new Error('waitForUiChange timed out');
            detected.push(startedAt + w.detectedMs - at);
            resolved.push(startedAt + w.waitedMs - at);
        }
        await session.close();
        const tools = createBrowserTools(page);
        const shot = (await tools.execute('get_snapshot', {})).snapshot;
        await tools.session.close();
        return {
            page: name,
            refs: Object.keys(full.refs).length,
            fullTokens,
            deltaTokens,
            deltaShare: round(deltaTokens / fullTokens, 4),
            cacheHitMs: round(median(cache), 2),
            captureMs: round(median(capture)),
            waitDetectedMs: round(median(detected)),
            waitResolvedMs: round(median(resolved)),
            toolsTextTokens: encode(shot.text).length,
            toolsElements: shot.elements.length,
            toolsElementsTokens: encode(JSON.stringify(shot.elements)).length,
        };
    } finally {
        await page.close();
    }
}

const dir = mkdtempSync(join(tmpdir(), 'web-ai-loop-'));
const browser = await launchChromium();
const rows = [];
try {
    for (const n of [1000, 10000, 40000]) {
        const path = join(dir, `generated-${n / 1000}k.html`);
        writeFileSync(path, generatePage(n));
        const row = await measure(browser, `generated-${n / 1000}k`, path);
        console.log(JSON.stringify(row));
        rows.push(row);
    }
} finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
}
const command = `node bench/loop.mjs --runs ${RUNS}`;
// A --no-readme run leaves the recorded results as they are.
if (!args.includes('--no-readme')) {
    writeFileSync(join(root, 'bench', 'loop.json'), `${JSON.stringify({ command, runs: RUNS, stabilityWindowMs: WINDOW, rows }, null, 2)}\n`);
    const lines = [
        `Measured with \`${command}\` (medians; a Playwright page; \`stabilityWindowMs\` ${WINDOW}):`,
        '',
        '| page | refs | full snapshot (tokens) | delta after one row (tokens) | share | cache hit | full capture | wait: change seen held still | wait: resolved with snapshot |',
        '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
        ...rows.map(r => `| ${r.page} | ${r.refs} | ${r.fullTokens} | ${r.deltaTokens} | ${(r.deltaShare * 100).toFixed(2)}% | ${r.cacheHitMs} ms | ${r.captureMs} ms | ${r.waitDetectedMs} ms | ${r.waitResolvedMs} ms |`),
        '',
        'What the tools\' `get_snapshot` hands the model (viewport only, marked untrusted text, `maxElements: 100`, `maxTokens: 2000`):',
        '',
        '| page | text (tokens) | elements | elements as JSON (tokens) |',
        '| --- | ---: | ---: | ---: |',
        ...rows.map(r => `| ${r.page} | ${r.toolsTextTokens} | ${r.toolsElements} | ${r.toolsElementsTokens} |`),
        '',
    ];
    const readmePath = join(root, 'README.md');
    const readme = readFileSync(readmePath, 'utf8');
    if (!readme.includes('<!-- loop:start -->')) throw new Error('README.md has no <!-- loop:start --> block');
    writeFileSync(readmePath, readme.replace(/<!-- loop:start -->[\s\S]*<!-- loop:end -->/, `<!-- loop:start -->\n${lines.join('\n')}<!-- loop:end -->`));
}
