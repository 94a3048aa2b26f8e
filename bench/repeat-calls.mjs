// What a session's repeat look costs, call by call, after one kind of change
// on the generated 40k-node page: each CDP call the look sends, when it was
// sent after the look began and how long its reply took, for the look whose
// total is the median of `--runs` (after one warm-up). Where `bench/calls.mjs`
// shows a first look's calls, this shows a repeat look's (issue 32): which
// reads a change costs the renderer, and which go one after another.
//
//   node bench/repeat-calls.mjs [--kind text|retext|add|hide|show|remove|move|inner] [--runs N] [--at K]
//                               [--nodes N] [--frame] [--shadow]
//   (the kinds of `bench:incremental -- --kinds`: a text's data, a button's textContent,
//   a row added, hidden, shown, removed, moved, its innerHTML replaced; `show` shows the
//   row hidden, and looked at, just before; `--at` is the first card changed, 10 by
//   default, near the top: the DOM hash reads the page's first 32,768 normalised
//   characters, about the first 300 cards, and a change after them keeps it)
//
// `--nodes` sizes the generated page (40,000 by default). `--frame` adds a
// cross-site iframe at its end, a frame in another process (on this offline
// machine its error page), and looks through the Playwright page, which can
// reach that frame's own session (a bare CDP session cannot): the calls are
// then not listed, only the looks' times. `--shadow` adds an element with an
// open shadow root at its end: such a page's DOM tree is patched from the
// mirror rather than made from it (`src/incremental/to_dom.rs`).
//
// `WEB_AI_TRACE=1` adds the core's phases on stderr. Use the release addon
// (`npm run build`); a debug addon makes every figure several times worse.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import { createPageSession } from '../lib/session.cjs';
import { generatePage } from './generate.mjs';
import { median, round } from './pages.mjs';

const KINDS = {
    text: k => { document.querySelector(`#card-${k} h3`).firstChild.data = `Item ${k}: changed`; },
    retext: k => { document.querySelector(`#card-${k} button`).textContent = `Liked ${k}`; },
    add: k => {
        document.querySelector(`#card-${k}`).insertAdjacentHTML('afterend', `<article class="card" id="new-${k}"><h3>New ${k}</h3><p>Fresh row</p><button type="button">Like new ${k}</button></article>`);
    },
    hide: k => { document.querySelector(`#card-${k}`).hidden = true; },
    show: k => { document.querySelector(`#card-${k}`).hidden = false; },
    remove: k => { document.querySelector(`#card-${k}`).remove(); },
    move: k => { const c = document.querySelector(`#card-${k}`); c.parentElement.insertBefore(c, document.querySelector(`#card-${k + 400}`)); },
    inner: k => { document.querySelector(`#card-${k}`).innerHTML = `<h3>Replaced ${k}</h3><p>New body</p><a href="#r${k}">Open replaced ${k}</a>`; },
};
const { values } = parseArgs({
    options: {
        kind: { type: 'string', default: 'retext' },
        runs: { type: 'string', default: '9' },
        at: { type: 'string', default: '10' },
        nodes: { type: 'string', default: '40000' },
        frame: { type: 'boolean' },
        shadow: { type: 'boolean' },
    },
});
const change = KINDS[values.kind];
if (!change) {
    console.error(`--kind is one of ${Object.keys(KINDS).join(', ')}`);
    process.exit(2);
}
const RUNS = Number(values.runs);
const AT = Number(values.at);

const dir = mkdtempSync(join(tmpdir(), 'web-ai-repeat-calls-'));
const browser = await launchChromium();
try {
    const file = join(dir, 'generated.html');
    const html = generatePage(Number(values.nodes));
    let written = values.frame ? html.replace('</body>', '<iframe title="Elsewhere" src="https://elsewhere.example.test/"></iframe></body>') : html;
    if (values.shadow) {
        written = written.replace('</body>', '<div id="shadow-host"></div><script>document.getElementById("shadow-host").attachShadow({ mode: "open" }).innerHTML = "<button>In a shadow tree</button>";</script></body>');
    }
    writeFileSync(file, written);
    const page = await openFile(browser, file);
    const cdp = await page.context().newCDPSession(page);
    let calls = null;
    const logged = {
        send: async (method, params) => {
            const sent = performance.now();
            try {
                return await cdp.send(method, params);
            } finally {
                const what = String((params && (params.functionDeclaration || params.expression)) || '').slice(0, 60).replace(/\s+/g, ' ');
                calls?.push({ method, what, sent, answered: performance.now() });
            }
        },
        on: (...a) => cdp.on(...a),
        off: (...a) => cdp.off(...a),
    };
    const session = createPageSession(values.frame ? page : { cdp: logged }, { cacheTtlMs: 0, snapshotOptions: { engine: 'dom', timeoutMs: 60000 } });
    await session.snapshot();
    const looks = [];
    for (let i = 0; i <= RUNS; i += 1) {
        if (values.kind === 'show') {
            await page.evaluate(`(${KINDS.hide})(${AT + 2 * i})`);
            await session.snapshot();
        }
        await page.evaluate(`(${change})(${AT + 2 * i})`);
        await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
        calls = [];
        const began = performance.now();
        const s = await session.snapshot();
        const ms = performance.now() - began;
        if (i > 0) looks.push({ ms, began, calls, mode: s.stats.captureMode });
        calls = null;
    }
    const mid = median(looks.map(l => l.ms));
    const look = looks.reduce((a, b) => (Math.abs(b.ms - mid) < Math.abs(a.ms - mid) ? b : a));
    console.log(`after '${values.kind}': median look ${round(mid)} ms of ${RUNS} (${look.mode}); the median look's calls:`);
    for (const c of look.calls) {
        console.log(`  +${round(c.sent - look.began).toFixed(1).padStart(6)} ms  ${round(c.answered - c.sent).toFixed(1).padStart(6)} ms  ${c.method} ${c.what}`);
    }
} finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
}
