#!/usr/bin/env node
// Paired A/B of two checkouts of this package in one process against one
// browser: native and Playwright captures of the generated 10k and 40k
// pages, and click/select/fill, interleaved (which one goes first
// alternates), medians. For "no regression beyond noise" between commits:
//
//   git worktree add /tmp/base <commit> && (cd /tmp/base && npm install && node scripts/setup.mjs --release)
//   node scripts/setup.mjs --release && node bench/ab.mjs /tmp/base [RUNS]
import { createRequire } from 'node:module';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import net from 'node:net';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, findChromium, openFile } from '../lib/chromium.mjs';
import { generatePage } from './generate.mjs';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
if (!process.argv[2]) {
    console.error('usage: node bench/ab.mjs <other checkout, built> [RUNS]');
    process.exit(2);
}
const NEW = require(join(root, 'lib', 'index.cjs'));
const OLD = require(join(resolve(process.argv[2]), 'lib', 'index.cjs'));
const median = xs => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const port = await new Promise(r => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)); }); });
const browser = await chromium.launch({ executablePath: findChromium(), args: [...CHROMIUM_FLAGS, `--remote-debugging-port=${port}`] });
const endpoint = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'ab-'));
const RUNS = Number(process.argv[3] || 9);
for (const n of [10000, 40000]) {
  const path = join(dir, `g${n}.html`); writeFileSync(path, generatePage(n));
  const page = await openFile(browser, path);
  const s = await page.context().newCDPSession(page);
  const { targetInfo } = await s.send('Target.getTargetInfo');
  const tab = { cdpEndpoint: endpoint, targetId: targetInfo.targetId };
  const t = { oldNative: [], newNative: [], oldPw: [], newPw: [] };
  for (let i = 0; i < RUNS + 2; i++) {
    const order = i % 2 ? ['newNative', 'oldNative', 'newPw', 'oldPw'] : ['oldNative', 'newNative', 'oldPw', 'newPw'];
    for (const k of order) {
      const lib = k.startsWith('old') ? OLD : NEW;
      const src = k.endsWith('Native') ? tab : page;
      const t0 = performance.now(); await lib.buildWebAiSnapshot(src, { timeoutMs: 60000 }); const ms = performance.now() - t0;
      if (i >= 2) t[k].push(ms);
    }
  }
  console.log(`generated ${n} (old = ${process.argv[2]}, new = this checkout)`, Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(median(v))])));
  await page.close();
}
const page = await openFile(browser, join(root, 'fixtures', 'pages', 'actions.html'));
const ref = (s, role, name) => Object.values(s.refs).find(r => r.role === role && r.name === name).ref;
const acts = { click: s => ({ ref: ref(s, 'button', 'Go') }), select: s => ({ ref: ref(s, 'combobox', 'Size'), value: 'Large' }), fill: s => ({ ref: ref(s, 'textbox', 'Email'), value: 'x@y.z' }) };
for (const [a, argsOf] of Object.entries(acts)) {
  const t = { old: [], new: [] };
  for (let i = 0; i < RUNS + 2; i++) {
    for (const k of i % 2 ? ['new', 'old'] : ['old', 'new']) {
      const lib = k === 'old' ? OLD : NEW;
      const snap = await lib.buildWebAiSnapshot(page);
      const r = await lib.runAction(page, snap, a, argsOf(snap));
      if (!r.success) throw new Error(`${k} ${a}: ${r.message}`);
      if (i >= 2) t[k].push(r.timings.actionMs);
    }
  }
  console.log(a, { old: median(t.old), new: median(t.new) });
}
await browser.close();
