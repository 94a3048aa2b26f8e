// The pages every benchmark measures, and how they summarise: the real
// pages of ../shared/pages (the bundled copies in fixtures/real-pages when
// that is absent) and generated pages of ~1k, 10k and 40k accessibility
// nodes, written to a temporary folder the caller removes.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, findChromium } from '../lib/chromium.mjs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePage } from './generate.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** SPEC §6's tier-1 roles, as Chrome's tree names them. */
export const TIER1 = new Set(['button', 'link', 'textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'switch', 'slider', 'spinbutton', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab']);

export const median = xs => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
export const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** `{ list: [{ name, path, real }], dir }`: the pages whose name contains `only`, and the folder to remove. */
export function benchPages(only = '') {
    const sibling = resolve(root, '..', 'shared', 'pages');
    const shared = existsSync(sibling) ? sibling : join(root, 'fixtures', 'real-pages');
    const list = readdirSync(shared).filter(f => f.endsWith('.html')).sort().map(f => ({ name: f.replace(/\.html$/, ''), path: join(shared, f), real: true }));
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-bench-'));
    for (const n of [1000, 10000, 40000]) {
        const name = `generated-${n / 1000}k`;
        if (!name.includes(only) && only) continue;
        const path = join(dir, `${name}.html`);
        writeFileSync(path, generatePage(n));
        list.push({ name, path, real: false });
    }
    return { list: list.filter(p => p.name.includes(only)), dir };
}

/**
 * Measure each page whose name contains `only` with `measure(browser, page)`
 * in one Chromium, printing `line(result)` as each finishes: the results and
 * the browser's version.
 */
export async function measurePages(only, measure, line) {
    const { list, dir } = benchPages(only);
    const browser = await chromium.launch({ executablePath: findChromium(), headless: true, args: CHROMIUM_FLAGS });
    const results = [];
    try {
        for (const p of list) {
            const r = await measure(browser, p);
            results.push(r);
            console.error(line(r));
        }
        return { results, version: browser.version() };
    } finally {
        await browser.close();
        rmSync(dir, { recursive: true, force: true });
    }
}

/** Put `md` between the README's `<!-- name:start -->` and `<!-- name:end -->`, or add it at the end under `heading`. */
export function writeReadmeBlock(name, heading, md) {
    const readmePath = join(root, 'README.md');
    const readme = readFileSync(readmePath, 'utf8');
    const block = `<!-- ${name}:start -->\n${md}<!-- ${name}:end -->`;
    const between = new RegExp(`<!-- ${name}:start -->[\\s\\S]*<!-- ${name}:end -->`);
    writeFileSync(readmePath, between.test(readme) ? readme.replace(between, () => block) : `${readme.trimEnd()}\n\n## ${heading}\n\n${block}\n`);
}
