// The DOM engine against Chrome's tree: both engines on one page, compared
// element by element through backendNodeId (SPEC: engine: 'dom').
//
//   node bench/agreement.mjs [--json] [--verbose] [--readme] [page.html …]
//
// --readme writes the distribution over the pages compared (pooled, median,
// the worst pages, each page under 99%) into the README.
// For each page: the ref'd elements of either engine, and for each, whether
// both ref it with the same role, name, states, value and level. Prints
// each disagreement with its element under --verbose.
import { basename, join } from 'node:path';
import { readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildWebAiSnapshot } from '../lib/ax-snapshot.mjs';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import { median, root, writeReadmeBlock } from './pages.mjs';

const OPTIONS = { allRefs: true, maxDepth: 100, includeElements: true, timeoutMs: 60_000 };

/** What is compared of one ref'd element. */
function facts(ref, element) {
    return {
        role: ref.role,
        name: ref.name,
        state: [...(element?.state ?? [])].sort().join(','),
        value: element?.value ?? null,
        level: element?.level ?? null,
    };
}

function byElement(snapshot) {
    const elements = new Map((snapshot.elements ?? []).map(e => [e.ref, e]));
    const out = new Map();
    for (const ref of Object.values(snapshot.refs)) {
        if (ref.backendNodeId == null) continue;
        out.set(`${ref.frameId ?? ''}:${ref.backendNodeId}`, { ref: ref.ref, selector: ref.selector, facts: facts(ref, elements.get(ref.ref)) });
    }
    return out;
}

/**
 * Wait until Chrome's own tree holds still: two captures in a row alike
 * (at most `tries`). Chrome's first accessibility tree of a page may lack
 * the media controls it adds a moment later, so the oracle is asked only
 * once it has settled. Returns the last capture (Chrome's engine, `OPTIONS`).
 */
async function settledAx(page, tries = 10) {
    let last = null;
    for (let k = 0; k < tries; k += 1) {
        const snapshot = await buildWebAiSnapshot(page, { ...OPTIONS, engine: 'ax' });
        if (snapshot.text === last?.text) return snapshot;
        last = snapshot;
        await new Promise(resolve => setTimeout(resolve, 50));
    }
    return last;
}

export async function settle(page, tries = 10) {
    await settledAx(page, tries);
}

/** Compare the two engines on an open page: `{ total, agreed, rate, disagreements }`. */
export async function compareEngines(page) {
    // The settled capture is Chrome's side: one capture fewer than settling, then asking again.
    const ax = byElement(await settledAx(page));
    const dom = byElement(await buildWebAiSnapshot(page, { ...OPTIONS, engine: 'dom' }));
    const keys = new Set([...ax.keys(), ...dom.keys()]);
    const disagreements = [];
    for (const key of keys) {
        const a = ax.get(key);
        const d = dom.get(key);
        const fields = !a || !d ? ['ref'] : Object.keys(a.facts).filter(f => a.facts[f] !== d.facts[f]);
        if (fields.length) disagreements.push({ element: (a ?? d).selector ?? key, fields, chrome: a?.facts ?? null, dom: d?.facts ?? null });
    }
    const total = keys.size;
    const agreed = total - disagreements.length;
    return { total, agreed, rate: total ? agreed / total : 1, disagreements };
}

export function defaultPages() {
    const fixtures = join(root, 'fixtures', 'pages');
    const real = join(root, 'fixtures', 'real-pages');
    return [
        ...readdirSync(fixtures).filter(f => f.endsWith('.html')).map(f => join(fixtures, f)),
        ...readdirSync(real).filter(f => f.endsWith('.html')).map(f => join(real, f)),
    ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
    const { values, positionals } = parseArgs({ options: { json: { type: 'boolean' }, verbose: { type: 'boolean' }, readme: { type: 'boolean' } }, allowPositionals: true });
    const files = positionals.length ? positionals : defaultPages();
    const browser = await launchChromium();
    const rows = [];
    try {
        for (const file of files) {
            let page;
            try {
                page = await openFile(browser, file);
            } catch (err) {
                // A saved page whose resources never finish loading is not compared, and says so.
                console.log(`${basename(file, '.html').padEnd(34)} not compared: ${err.message.split('\n')[0]}`);
                continue;
            }
            try {
                const r = await compareEngines(page);
                rows.push({ page: basename(file, '.html'), ...r });
                if (!values.json) {
                    console.log(`${basename(file, '.html').padEnd(34)} ${String(r.agreed).padStart(5)}/${String(r.total).padEnd(5)} ${(r.rate * 100).toFixed(1)}%`);
                    if (values.verbose) {
                        for (const d of r.disagreements) console.log(`   ${d.element}  [${d.fields.join(',')}]  chrome=${JSON.stringify(d.chrome)}  dom=${JSON.stringify(d.dom)}`);
                    }
                }
            } finally {
                await page.close();
            }
        }
    } finally {
        await browser.close();
    }
    if (values.json) console.log(JSON.stringify(rows.map(({ disagreements, ...r }) => ({ ...r, disagreements: disagreements.length })), null, 2));
    const agreed = rows.reduce((n, r) => n + r.agreed, 0);
    const total = rows.reduce((n, r) => n + r.total, 0);
    const pct = x => `${(x * 100).toFixed(2)}%`;
    const rated = rows.filter(r => r.total > 0);
    const under = rated.filter(r => r.rate < 0.99).sort((a, b) => a.rate - b.rate);
    const worst = [...rated].sort((a, b) => a.rate - b.rate).slice(0, 8).filter(r => r.rate < 1);
    const md = [
        `Over ${rows.length} pages (${files.length - rows.length} could not be loaded), \`node bench/agreement.mjs --readme\`, ${new Date().toISOString().slice(0, 10)}:`,
        '',
        `- pooled: ${agreed}/${total} ref'd elements agree (${pct(total ? agreed / total : 1)}); median page ${pct(median(rated.map(r => r.rate)))}; ${rated.length - worst.length} of ${rated.length} pages with refs agree on every element;`,
        `- lowest: ${worst.map(r => `${r.page} ${pct(r.rate)}`).join(', ') || 'none'};`,
        `- under 99%: ${under.map(r => `${r.page} (${r.total - r.agreed} of ${r.total})`).join(', ') || 'none'}.`,
        '',
    ].join('\n');
    if (!values.json) console.log(`\n${md}`);
    if (values.readme) writeReadmeBlock('agreement', 'Agreement with Chrome on real pages', md);
}
