// Repeat snapshots at the cost of the change: a page session's incremental
// snapshot (DOM engine) against full captures and Playwright, side by side
// in one process on every benchmark page.
//
//   node bench/incremental.mjs [--runs N] [--only NAME] [--no-readme]
//   node bench/incremental.mjs --kinds [--runs N] [--no-readme]   each kind of change on the 40k-node page
//   --agent          the sessions look as the MCP server and the agent CLI do
//                    (viewportOnly, maxTokens 3000: layout boxes on every look);
//                    its results are recorded apart from the plain looks'
//
//   full ax, full dom — a full capture with each engine (DOM pass on);
//   pw               — Playwright's page.ariaSnapshot({ mode: 'ai' }) (it has no incremental mode);
//   unchanged        — the session's snapshot of an unchanged page;
//   one change       — the session's snapshot after a script changed one
//                      text node (a different one each run) and the page
//                      painted it (two animation frames: the page's own frame
//                      is not the snapshot's cost, and without the wait only
//                      the first look would pay it): the time of the snapshot
//                      call alone, everything the session does (its watcher,
//                      the capture, the delta) included;
//   one change, always — the same look by a session with `incremental: 'always'`,
//                      which reads only what changed even on a page under
//                      REPEAT_MIN_NODES (where the default session captures in full);
//   session full     — the same look by a session with `incremental: false`
//                      (a full capture, and everything else the session does).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ax from '../lib/ax-snapshot.cjs';
import { createPageSession } from '../lib/session.cjs';
import native from '../lib/native.cjs';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import { generatePage } from './generate.mjs';
import { measurePages, median, root, round, writeReadmeBlock } from './pages.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, only: { type: 'string', default: '' }, kinds: { type: 'boolean' }, agent: { type: 'boolean' }, 'no-readme': { type: 'boolean' } } });
// The sessions' snapshot options: an agent's looks need layout boxes (`lib/agent/host.mjs`).
const LOOK = values.agent ? { engine: 'dom', timeoutMs: 60_000, viewportOnly: true, maxTokens: 3000 } : { engine: 'dom', timeoutMs: 60_000 };
const AGENT = values.agent ? '-agent' : '';
const AGENT_WORDS = values.agent ? ', every look as an agent\'s (`viewportOnly`, `maxTokens: 3000`, as the MCP server and the agent CLI look)' : '';
const RUNS = Number(values.runs);
const WARMUP = 1;

/** Change the `k`-th visible text node of some length (a row's text, a price, a count). */
function changeOneText(k) {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
        acceptNode: n => (n.data.trim().length > 3 && n.parentElement && n.parentElement.getClientRects().length
            && !n.parentElement.closest('script,style,noscript') ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP),
    });
    const texts = [];
    for (let n = walker.nextNode(); n && texts.length < 400; n = walker.nextNode()) texts.push(n);
    if (!texts.length) return false;
    const t = texts[(k * 37) % texts.length];
    t.data = `${t.data.trim()} (${k})`;
    return true;
}

async function measure(browser, p) {
    const page = await openFile(browser, p.path);
    const session = createPageSession(page, { cacheTtlMs: 0, snapshotOptions: LOOK });
    const whole = createPageSession(page, { cacheTtlMs: 0, incremental: false, snapshotOptions: LOOK });
    const always = createPageSession(page, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: LOOK });
    try {
        const cdp = await ax.cdpSessionFor(page);
        const send = (m, params) => cdp.send(m, params);
        await session.snapshot();
        await whole.snapshot();
        await always.snapshot();
        const modes = [];
        const notes = new Set();
        let k = 0;
        const methods = {
            fullAx: () => ax.captureOverCdp(send, { engine: 'ax', timeoutMs: 60_000 }),
            fullDom: () => ax.captureOverCdp(send, { engine: 'dom', timeoutMs: 60_000 }),
            pw: () => page.ariaSnapshot({ mode: 'ai' }),
            unchanged: async () => {
                const s = await session.snapshot();
                if (s.stats.captureMode !== 'incremental') modes.push(`unchanged:${s.stats.captureMode}`);
            },
            change: null,
        };
        const names = Object.keys(methods);
        const looks = ['sessionFull', 'changeAlways'];
        const times = Object.fromEntries([...names, ...looks].map(n => [n, []]));
        for (let i = 0; i < WARMUP + RUNS; i += 1) {
            for (let j = 0; j < names.length; j += 1) {
                const name = names[(i + j) % names.length];
                let t;
                if (name === 'change') {
                    // The sessions have seen the page as it is; the change comes, the page paints it, then the looks.
                    await session.snapshot();
                    await whole.snapshot();
                    await always.snapshot();
                    await page.evaluate(changeOneText, k++);
                    await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
                    // The sessions look at the same change, each first in turn.
                    const order = [['change', session], ['sessionFull', whole], ['changeAlways', always]];
                    const turn = i % order.length;
                    const looks = [...order.slice(turn), ...order.slice(0, turn)];
                    let s = null;
                    for (const [label, who] of looks) {
                        t = performance.now();
                        const got = await who.snapshot();
                        if (i >= WARMUP) times[label].push(performance.now() - t);
                        if (who === session) s = got;
                    }
                    modes.push(s.stats.captureMode);
                    const said = s.notes.filter(n => /full capture/.test(n));
                    for (const n of said) notes.add(n);
                    // A small page is captured in full by choice (no note).
                    if (s.stats.captureMode === 'full' && !said.length) notes.add(`under ${native.REPEAT_MIN_NODES} nodes: a full capture costs less`);
                    continue;
                }
                t = performance.now();
                await methods[name]();
                if (i >= WARMUP) times[name].push(performance.now() - t);
            }
        }
        const m = Object.fromEntries([...names, ...looks].map(n => [n, round(median(times[n]))]));
        const incremental = modes.filter(x => x === 'incremental').length;
        return {
            page: p.name,
            real: p.real,
            ...Object.fromEntries([...names, ...looks].map(n => [`${n}Ms`, m[n]])),
            changeVsSessionFull: round(m.change / m.sessionFull, 2),
            changeVsFullDom: round(m.change / m.fullDom, 2),
            changeVsFullAx: round(m.change / m.fullAx, 2),
            incrementalShare: `${incremental}/${modes.length}`,
            why: [...notes].map(n => n.replace(/^a full capture, not an incremental one: |^repeat snapshots of this page are full captures: /, '')).slice(0, 1).join(''),
        };
    } finally {
        await session.close();
        await whole.close();
        await always.close();
        await page.close();
    }
}

/**
 * Each kind of change on the 40k-node generated page (1,250 cards in one `main`: a feed, a
 * table of rows): a page session's look after it against a full-capture twin session's
 * (`incremental: false`) look at the same page, and whether the two say the same.
 * The change is made to a different card each run (k), then the page paints.
 */
const KINDS = {
    'a text node\'s data': k => { document.querySelector(`#card-${k} h3`).firstChild.data = `Item ${k}: changed`; },
    'an attribute': k => { document.querySelector(`#card-${k} p`).className = `seen-${k}`; },
    "a button's textContent": k => { document.querySelector(`#card-${k} button`).textContent = `Liked ${k}`; },
    'a row hidden': k => { document.querySelector(`#card-${k}`).hidden = true; },
    'a row shown': k => { document.querySelector(`#card-${k}`).hidden = false; },
    'a row added': k => {
        document.querySelector(`#card-${k}`).insertAdjacentHTML('afterend', `<article class="card" id="new-${k}"><h3>New ${k}</h3><p>Fresh row</p><button type="button">Like new ${k}</button></article>`);
    },
    'a row removed': k => { document.querySelector(`#card-${k}`).remove(); },
    'a row moved': k => { const c = document.querySelector(`#card-${k}`); c.parentElement.insertBefore(c, document.querySelector(`#card-${k + 400}`)); },
    "a row's innerHTML replaced": k => { document.querySelector(`#card-${k}`).innerHTML = `<h3>Replaced ${k}</h3><p>New body</p><a href="#r${k}">Open replaced ${k}</a>`; },
};

async function measureKinds(browser, path) {
    const page = await openFile(browser, path);
    const session = createPageSession(page, { cacheTtlMs: 0, snapshotOptions: LOOK });
    const twin = createPageSession(page, { cacheTtlMs: 0, incremental: false, snapshotOptions: LOOK });
    const out = [];
    try {
        await session.snapshot();
        await twin.snapshot();
        let card = 10;
        for (const [kind, change] of Object.entries(KINDS)) {
            const ours = [];
            const full = [];
            const modes = [];
            const notes = new Set();
            let same = true;
            for (let i = 0; i < WARMUP + RUNS; i += 1) {
                // 'a row shown' shows the row the run before hid: each run hides one, then shows it.
                const k = kind === 'a row shown' ? card - 1 : card;
                if (kind === 'a row shown') {
                    await page.evaluate(k => { document.querySelector(`#card-${k}`).hidden = true; }, k);
                    await session.snapshot();
                    await twin.snapshot();
                }
                await page.evaluate(`(${change})(${k})`);
                await page.evaluate(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))));
                const order = i % 2 ? [[twin, full], [session, ours]] : [[session, ours], [twin, full]];
                const got = new Map();
                for (const [who, times] of order) {
                    const t = performance.now();
                    got.set(who, await who.snapshot());
                    if (i >= WARMUP) times.push(performance.now() - t);
                }
                const s = got.get(session);
                modes.push(s.stats.captureMode);
                for (const n of s.notes.filter(n => /full capture/.test(n))) notes.add(n);
                if (s.text !== got.get(twin).text) same = false;
                card += 2;
            }
            const m = round(median(ours));
            const f = round(median(full));
            out.push({ kind, oursMs: m, fullMs: f, ratio: round(m / f, 2), incremental: `${modes.filter(x => x === 'incremental').length}/${modes.length}`, same, why: [...notes][0] || '' });
            console.error(`${kind}: ${m} ms against ${f} ms full (${round(m / f, 2)}x), ${out.at(-1).incremental} incremental, same as the twin: ${same} ${out.at(-1).why}`);
        }
        return { out, version: browser.version() };
    } finally {
        await session.close();
        await twin.close();
        await page.close();
    }
}

if (values.kinds) {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-kinds-'));
    const path = join(dir, 'generated-40k.html');
    writeFileSync(path, generatePage(40000));
    const browser = await launchChromium();
    let result;
    try {
        result = await measureKinds(browser, path);
    } finally {
        await browser.close();
        rmSync(dir, { recursive: true, force: true });
    }
    const command = `npm run bench:incremental -- --kinds${values.agent ? ' --agent' : ''}${values.runs !== '5' ? ` --runs ${values.runs}` : ''}`;
    const rows = result.out.map(r => `| ${r.kind} | ${r.oursMs} | ${r.fullMs} | ${r.ratio} | ${r.incremental} | ${r.same ? 'yes' : 'no'} | ${r.why.replace(/^a full capture, not an incremental one: /, '')} |`);
    const md = `Produced by \`${command}\` on ${new Date().toISOString().slice(0, 10)} (Chromium ${result.version}, Node ${process.version}, release addon; medians of ${RUNS} runs after ${WARMUP} warm-up, on a shared 2-core machine), on the generated 40k-node page (1,250 cards in one \`main\`)${AGENT_WORDS}. After each kind of change, made to a different card each run and painted, a page session's \`snapshot()\` (everything: the watcher, the capture, the delta) against its full-capture twin's (\`incremental: false\`) look at the same page, taken in alternating order; "same" says whether the two texts were equal after every change.\n\n| change | session ms | full-capture twin ms | ratio | incremental | same | why not |\n|${' --- |'.repeat(7)}\n${rows.join('\n')}\n`;
    console.log(md);
    // A --no-readme run leaves the recorded results as they are.
    if (!values['no-readme']) {
        writeFileSync(join(root, 'bench', `incremental-kinds${AGENT}.json`), `${JSON.stringify({ command, date: new Date().toISOString(), chromium: result.version, runs: RUNS, results: result.out }, null, 1)}\n`);
        writeReadmeBlock(`incremental-kinds${AGENT}`, 'Repeat snapshots by kind of change', md);
    }
    process.exit(0);
}

const { results, version } = await measurePages(values.only, measure, r => `${r.page}: one change ${r.changeMs} ms (${r.incrementalShare} incremental), always ${r.changeAlwaysMs}, session full ${r.sessionFullMs}, unchanged ${r.unchangedMs}, full dom ${r.fullDomMs}, full ax ${r.fullAxMs}, pw ${r.pwMs} ${r.why}`);

const head = "| page | full, ax ms | full, dom ms | Playwright ai ms | session, full ms | unchanged ms | one change ms | one change, 'always' ms | change / session full | change / full dom | change / full ax | incremental | why not |";
const sep = '|' + ' --- |'.repeat(13);
const rows = results.map(r => `| ${r.page} | ${r.fullAxMs} | ${r.fullDomMs} | ${r.pwMs} | ${r.sessionFullMs} | ${r.unchangedMs} | ${r.changeMs} | ${r.changeAlwaysMs} | ${r.changeVsSessionFull} | ${r.changeVsFullDom} | ${r.changeVsFullAx} | ${r.incrementalShare} | ${r.why || ''} |`);
const given = [values.agent ? '--agent' : '', values.runs !== '5' ? `--runs ${values.runs}` : '', values.only ? `--only ${values.only}` : ''].filter(Boolean).join(' ');
const command = `npm run bench:incremental${given ? ` -- ${given}` : ''}`;
const md = `Produced by \`${command}\` on ${new Date().toISOString().slice(0, 10)} (Chromium ${version}, Node ${process.version}, release addon; medians of ${RUNS} rotated runs after ${WARMUP} warm-up, on a shared 2-core machine)${AGENT_WORDS}. "unchanged" and "one change" are a page session's \`snapshot()\` (engine \`'dom'\`), all of it: the watcher, the capture, the delta; "one change" follows a script changing one text node and the page painting it (two animation frames; the page's own frame is not the snapshot's cost), "one change, 'always'" is the same look by a session with \`incremental: 'always'\` (it reads only what changed even under ${native.REPEAT_MIN_NODES} DOM nodes, where the default session captures in full), and "session, full" is the same look by a session with \`incremental: false\`. "full, ax" and "full, dom" are bare captures (\`captureOverCdp\`, no session). "incremental" counts the changed-page snapshots that were incremental; "why not" is the reason the others were full.\n\n${[head, sep, ...rows].join('\n')}\n`;
console.log(md);
// A partial run (--only, --no-readme) leaves the recorded results as they are.
if (!values['no-readme'] && !values.only) {
    writeFileSync(join(root, 'bench', `incremental${AGENT}.json`), `${JSON.stringify({ command, date: new Date().toISOString(), chromium: version, runs: RUNS, results }, null, 1)}\n`);
    writeReadmeBlock(`incremental${AGENT}`, 'Repeat snapshots', md);
}
