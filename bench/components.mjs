// What web components (open shadow roots) cost a look, side by side in one run:
//
//   node bench/components.mjs first-look [--nodes N] [--runs N]
//     A first look (a session's full capture, engine 'dom') at the generated page of
//     N nodes (40,000 by default) with and without one open shadow root at its end,
//     against Playwright's `page.ariaSnapshot({ mode: 'ai' })` on the same tab: the
//     DOM pass asks each shadow host for its element tree (`DOM.describeNode`) where it
//     once asked for the whole document (`DOM.getDocument`).
//   node bench/components.mjs many [--runs N]
//     A page of 1,000 components sharing one adopted style sheet: a session's look after
//     a component was added (incremental), against a full-capture twin's.
//
// Medians of --runs (7 by default) after one warm-up. Use the release addon (`npm run
// build`); `NAPI_RS_NATIVE_LIBRARY_PATH=/path/to.node` compares another build.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import { createPageSession } from '../lib/session.cjs';
import { generatePage } from './generate.mjs';
import { median, round } from './pages.mjs';

const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { nodes: { type: 'string', default: '40000' }, runs: { type: 'string', default: '7' } },
});
const mode = positionals[0] ?? 'first-look';
if (!['first-look', 'many'].includes(mode)) {
    console.error('usage: node bench/components.mjs first-look|many [--nodes N] [--runs N]');
    process.exit(2);
}
const RUNS = Number(values.runs);
const timed = async f => {
    const t = performance.now();
    await f();
    return performance.now() - t;
};

const dir = mkdtempSync(join(tmpdir(), 'web-ai-components-'));
const browser = await launchChromium();
try {
    if (mode === 'first-look') {
        const html = generatePage(Number(values.nodes));
        const host = '<div id="shadow-host"></div><script>document.getElementById("shadow-host").attachShadow({ mode: "open" }).innerHTML = "<button>In a shadow tree</button>";</script>';
        for (const [name, text] of [['without a shadow root', html], ['with one open shadow root', html.replace('</body>', `${host}</body>`)]]) {
            const file = join(dir, 'page.html');
            writeFileSync(file, text);
            const page = await openFile(browser, file);
            const ours = [];
            const playwright = [];
            for (let i = 0; i <= RUNS; i += 1) {
                const session = createPageSession(page, { cacheTtlMs: 0, incremental: false, snapshotOptions: { engine: 'dom' } });
                const a = await timed(() => session.snapshot());
                await session.close();
                const b = await timed(() => page.ariaSnapshot({ mode: 'ai' }));
                if (i > 0) {
                    ours.push(a);
                    playwright.push(b);
                }
            }
            console.log(`${values.nodes} nodes, ${name}: ours ${round(median(ours))} ms, Playwright ai ${round(median(playwright))} ms, ratio ${(median(ours) / median(playwright)).toFixed(2)}`);
            await page.close();
        }
    } else {
        const rules = `${Array.from({ length: 60 }, (_, k) => `.c${k} { color: red }`).join('\n')}\n.menu .sub{display:none} .menu:hover .sub{display:block} .a + .b {display:block} :host(:hover)::before{content:"h"}`;
        const html = `<!doctype html><title>Many</title><main><h1>Many</h1><div id=list></div></main><script>
const sheet = new CSSStyleSheet(); sheet.replaceSync(${JSON.stringify(rules)});
customElements.define('x-item', class extends HTMLElement { constructor() { super(); const r = this.attachShadow({ mode: 'open' }); r.adoptedStyleSheets = [sheet]; r.innerHTML = '<div class="menu"><button>Item</button><div class="sub"><a href="#">Sub</a></div></div><slot></slot>'; } });
const list = document.getElementById('list');
for (let i = 0; i < 1000; i++) { const x = document.createElement('x-item'); x.textContent = 'Row ' + i; list.append(x); }
</script>`;
        const file = join(dir, 'many.html');
        writeFileSync(file, html);
        for (const incremental of ['always', false]) {
            const page = await openFile(browser, file);
            const session = createPageSession(page, { cacheTtlMs: 0, incremental, snapshotOptions: { engine: 'dom' } });
            await session.snapshot();
            const looks = [];
            const modes = new Set();
            for (let i = 0; i <= RUNS; i += 1) {
                await page.evaluate(k => {
                    const x = document.createElement('x-item');
                    x.textContent = `New ${k}`;
                    document.getElementById('list').prepend(x);
                }, i);
                let look = null;
                const ms = await timed(async () => { look = await session.snapshot(); });
                if (i > 0) looks.push(ms);
                modes.add(look.stats.captureMode);
            }
            console.log(`1,000 components, a look after one was added (${incremental ? 'session' : 'full-capture twin'}): ${round(median(looks))} ms (${[...modes].join(', ')})`);
            await session.close();
            await page.close();
        }
    }
} finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
}
