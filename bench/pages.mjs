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
import { generateAppPage, generatePage } from './generate.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** SPEC §6's tier-1 roles, as Chrome's tree names them. */
export const TIER1 = new Set(['button', 'link', 'textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'switch', 'slider', 'spinbutton', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab']);

export const median = xs => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
export const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Characters of inline `<script>` and `<style>` text in an HTML file (what DOMSnapshot carries whole). */
export function inlineScriptChars(html) {
    let n = 0;
    for (const m of html.matchAll(/<(script|style)\b([^>]*)>([\s\S]*?)<\/\1\s*>/gi)) {
        if (!/\bsrc\s*=/i.test(m[2])) n += m[3].length;
    }
    return n;
}

/** Pages with at least this much inline script and style text count as script-heavy. */
export const SCRIPT_HEAVY_CHARS = 100_000;

/**
 * `{ list: [{ name, path, real }], dir }`: the pages whose name contains
 * `only`, and the folder to remove. `scriptHeavy` measures instead the pages
 * a first look pays most for in inline text: a generated app page with 1.5 MB
 * of inline JSON state, and the shared pages (../shared/pages and
 * ../shared/pages-more) with at least SCRIPT_HEAVY_CHARS of inline script
 * and style. `all` measures every shared page of both folders and every
 * generated page.
 */
export function benchPages(only = '', { scriptHeavy = false, all = false } = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-bench-'));
    if (all) {
        // Every shared page (../shared/pages and ../shared/pages-more), the generated pages and the app page.
        const dirs = ['pages', 'pages-more'].map(d => resolve(root, '..', 'shared', d)).filter(existsSync);
        const list = dirs.flatMap(d => readdirSync(d).filter(f => f.endsWith('.html')).sort().map(f => join(d, f)))
            .map(path => ({ name: path.split('/').pop().replace(/\.html$/, ''), path, real: true }));
        for (const n of [1000, 10000, 40000]) {
            const path = join(dir, `generated-${n / 1000}k.html`);
            writeFileSync(path, generatePage(n));
            list.push({ name: `generated-${n / 1000}k`, path, real: false });
        }
        const app = join(dir, 'generated-app-1.5mb.html');
        writeFileSync(app, generateAppPage(1_500_000));
        list.push({ name: 'generated-app-1.5mb', path: app, real: false });
        return { list: list.filter(p => p.name.includes(only)), dir };
    }
    if (scriptHeavy) {
        const dirs = ['pages', 'pages-more'].map(d => resolve(root, '..', 'shared', d)).filter(existsSync);
        const list = dirs.flatMap(d => readdirSync(d).filter(f => f.endsWith('.html')).sort().map(f => join(d, f)))
            .filter(path => inlineScriptChars(readFileSync(path, 'utf8')) >= SCRIPT_HEAVY_CHARS)
            .map(path => ({ name: path.split('/').pop().replace(/\.html$/, ''), path, real: true }));
        const app = join(dir, 'generated-app-1.5mb.html');
        writeFileSync(app, generateAppPage(1_500_000));
        list.push({ name: 'generated-app-1.5mb', path: app, real: false });
        return { list: list.filter(p => p.name.includes(only)), dir };
    }
    const sibling = resolve(root, '..', 'shared', 'pages');
    const shared = existsSync(sibling) ? sibling : join(root, 'fixtures', 'real-pages');
    const list = readdirSync(shared).filter(f => f.endsWith('.html')).sort().map(f => ({ name: f.replace(/\.html$/, ''), path: join(shared, f), real: true }));
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
export async function measurePages(only, measure, line, options = {}) {
    const { list, dir } = benchPages(only, options);
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
