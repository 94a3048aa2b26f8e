// What the incremental tests share (__test__/incremental.test.mjs, its
// behaviours; __test__/incremental-random.test.mjs, its randomized proofs):
// a session on a page, a full capture with the session's numbering, the
// first difference between the two, and the random runs that shorten a
// failure to a few seeds. Two files so that scripts/test.mjs can put them in
// two lanes: one file of both was the longest of the suite.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { browser, openFile, root, newTab } from './helpers.mjs';

const require = createRequire(import.meta.url);
const { createPageSession } = require('../lib/session.cjs');
const { pumpCapture } = require('../lib/pump.cjs');
const { adapt } = require('../lib/transport.cjs');

export const MUTATE = readFileSync(join(root, 'bench', 'mutations.js'), 'utf8').replace(/^(\s*\/\/[^\n]*\n)+/, '');
export const OPTIONS = { engine: 'dom', timeoutMs: 60000 };

/** The tab the last `run` closed its session on, for the next to navigate (a navigation costs Chromium less than a new tab). */
let spare = null;

export async function open(path, options = OPTIONS, { reuse = false } = {}) {
    let page = reuse ? spare : null;
    spare = null;
    if (page) await page.goto(pathToFileURL(path).href, { waitUntil: 'load', timeout: 30000 });
    else page = await openFile(await browser(), path);
    const session = createPageSession(page, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: options });
    const close = async () => {
        await session.close();
        if (reuse && !spare && !page.isClosed()) spare = page;
        else await page.close();
    };
    return { page, session, close };
}

export const mutate = (page, seed, only = null) => page.evaluate(([src, s, k]) => (0, eval)(`(${src})`)(s, k), [MUTATE, seed, only]);

/**
 * Wait for the frame after a change to be drawn. Chrome lays out its own controls (a video's,
 * shown again) in a resize observer of theirs, a frame after the change: a look before it and
 * a full capture after it would see two pages. An agent's settle waits for this frame too.
 * Bounded, for a tab that draws no frames.
 */
export const rest = page => page.evaluate(() => new Promise(resolve => {
    setTimeout(resolve, 200);
    requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
}));

/** A full capture of the page with the session's numbering as it stands. */
export async function fullCapture(page, numbering, options = OPTIONS) {
    const outcome = await pumpCapture(adapt(page).send, { activeLayerOnly: true, ...options }, numbering, null, null);
    assert.ok(!outcome.error, outcome.error && outcome.error.message);
    // The text comes beside the JSON, as `snapshotOf` puts it back.
    return { ...JSON.parse(outcome.snapshot), text: outcome.text };
}

/** The first difference between two snapshots' text, refs and DOM hash, or null. */
export function difference(a, b) {
    if (a.domHash !== b.domHash) return `domHash:\n  incremental: ${a.domHash}\n  full:        ${b.domHash}`;
    if (a.text !== b.text) {
        const x = a.text.split('\n');
        const y = b.text.split('\n');
        const i = x.findIndex((line, k) => line !== y[k]);
        const at = i < 0 ? x.length : i;
        return `text line ${at + 1}:\n  incremental: ${x[at]}\n  full:        ${y[at]}`;
    }
    const ra = Object.values(a.refs);
    const rb = Object.values(b.refs);
    for (let k = 0; k < Math.max(ra.length, rb.length); k += 1) {
        if (JSON.stringify(ra[k]) !== JSON.stringify(rb[k])) return `ref ${k + 1}:\n  incremental: ${JSON.stringify(ra[k])}\n  full:        ${JSON.stringify(rb[k])}`;
    }
    return null;
}

/** An HTTP server on 127.0.0.1 answering each request with `body(url)` as HTML (frames of other origins: other ports, or `localhost`). */
export async function serveHtml(body) {
    const http = await import('node:http');
    return new Promise(resolve => {
        const server = http.createServer((req, res) => { res.setHeader('content-type', 'text/html'); res.end(body(req.url)); });
        server.listen(0, '127.0.0.1', () => resolve(server));
    });
}

/**
 * A shop page on 127.0.0.1 whose payment frame comes from `host` (127.0.0.1 on another port:
 * another origin in the page's process; localhost: another site, a process of its own),
 * loaded, with an incremental session on it.
 */
export async function framedShop(host, options = OPTIONS) {
    const child = await serveHtml(() => '<!doctype html><title>Card</title><p id=t>Card number</p><input id=card name=card aria-label=Card><button>Pay now</button>');
    const top = await serveHtml(() => `<!doctype html><title>Shop</title><h1>Checkout</h1><button>Top</button><iframe title="Payment" src="http://${host}:${child.address().port}/"></iframe>`);
    const page = await newTab(await browser());
    const session = createPageSession(page, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: options });
    const close = async () => {
        await session.close();
        await page.close();
        top.close();
        child.close();
    };
    try {
        await page.goto(`http://127.0.0.1:${top.address().port}/`, { waitUntil: 'load' });
    } catch (err) {
        await close();
        throw err;
    }
    return { page, session, close };
}

/** A session's snapshot, checked against a full capture with the numbering the session had. */
export async function checkedLook(session, page) {
    const numbering = session._numbering();
    const s = await session.snapshot();
    assert.equal(difference(s, await fullCapture(page, numbering)), null);
    return s;
}

/**
 * Apply `seeds` one by one on a fresh page (each of the kind `kindOf(seed)`; null: any); the first
 * step whose snapshots differ, or null. `options` are the snapshots' (both sides'); `change` makes
 * each step's change (a random mutation).
 */
export async function run(path, seeds, onStep = () => {}, kindOf = () => null, { options = OPTIONS, change = mutate } = {}) {
    const { page, session, close } = await open(path, options, { reuse: true });
    try {
        await session.snapshot();
        const done = [];
        for (let k = 0; k < seeds.length; k += 1) {
            done.push(await change(page, seeds[k], kindOf(seeds[k])));
            await rest(page);
            const numbering = session._numbering();
            let inc;
            let full;
            try {
                inc = await session.snapshot();
                full = await fullCapture(page, numbering, options);
            } catch (err) {
                // A capture that fails outright says where, and how to get there again.
                err.message = `${path}: after mutation ${k + 1} (seeds ${JSON.stringify(seeds.slice(0, k + 1))}): ${err.message}\nMutations:\n${done.map((d, i) => `  ${i + 1}. ${d}`).join('\n')}`;
                throw err;
            }
            onStep(inc);
            const diff = difference(inc, full);
            if (diff) return { step: k, done, diff, mode: inc.stats.captureMode };
        }
        return null;
    } finally {
        await close();
    }
}

/** Fewer seeds that still fail (greedy, a bounded number of retries). */
export async function shorten(path, seeds, kindOf) {
    let best = seeds;
    let failure = await run(path, best, undefined, kindOf);
    for (let i = best.length - 2, tries = 0; i >= 0 && tries < 12 && failure; i -= 1, tries += 1) {
        const fewer = best.filter((_, k) => k !== i);
        const f = await run(path, fewer, undefined, kindOf);
        if (f) {
            best = fewer.slice(0, f.step + 1);
            failure = f;
            i = Math.min(i, best.length - 1);
        }
    }
    return { seeds: best, failure };
}

/** Fail with a minimal reproduction: the page, the fewest seeds found that still fail, what each did. */
export async function failMinimal(path, seeds, failure, kindOf = () => null, kinds = '') {
    const short = await shorten(path, seeds.slice(0, failure.step + 1), kindOf);
    const f = short.failure || failure;
    assert.fail([
        `${path}: after mutation ${f.step + 1} the ${f.mode} snapshot differs from a full capture.`,
        `Reproduce: open the page, take a session snapshot (engine 'dom'), then for each seed run bench/mutations.js in the page${kinds} and snapshot again.`,
        `Seeds: ${JSON.stringify(short.failure ? short.seeds : seeds.slice(0, failure.step + 1))}`,
        'Mutations:',
        ...f.done.map((d, k) => `  ${k + 1}. ${d}`),
        f.diff,
    ].join('\n'));
}

/**
 * A page of web components with open shadow roots: hosts with named and default slots, a light
 * child no slot takes, a host inside a shadow tree, one declared in the markup, and plain rows
 * beside them (`rows` of them).
 */
export function componentsPage(rows) {
    const list = Array.from({ length: rows }, (_, k) => `<li id="row-${k}"><button>Row ${k}</button> <span>note ${k}</span></li>`).join('');
    const cards = Array.from({ length: 4 }, (_, k) => `<x-card id="card-${k}"><span slot="title">Card ${k}</span><p>Body ${k} <a href="#card-${k}">Read ${k}</a></p><b slot="nowhere">Unslotted ${k}</b></x-card>`).join('');
    return `<!doctype html><title>Components</title>
<script>
customElements.define('x-card', class extends HTMLElement {
    constructor() {
        super();
        this.attachShadow({ mode: 'open' }).innerHTML = '<section><header><slot name="title">No title</slot></header><slot></slot><x-badge></x-badge><button>Card action</button>'
            + '<ul class="tags"><li>Red</li><li>Green</li><li><a href="#blue">Blue</a></li></ul><div class="meta"><span>By someone</span> <a href="#more">More</a><label>Rate <input type="range"></label></div></section>';
    }
});
customElements.define('x-badge', class extends HTMLElement {
    constructor() {
        super();
        this.attachShadow({ mode: 'open' }).innerHTML = '<span role="status">New</span>';
    }
});
</script>
<main><h1>Components</h1><p id="intro">Cards and rows</p>${cards}
<x-menu><template shadowrootmode="open"><nav aria-label="Menu"><slot></slot></nav></template><a href="#home">Home</a><a href="#about">About</a></x-menu>
<ul id="rows">${list}</ul></main>`;
}

// An agent's looks (the MCP server's, the agent CLI's): only what is in the viewport, within a
// token budget. Boxes move with any change and with none (a scroll): each such repeat look
// measures them again by script (src/incremental/layout.rs) instead of a full capture.
export const AGENT_OPTIONS = { ...OPTIONS, viewportOnly: true, maxTokens: 3000 };
