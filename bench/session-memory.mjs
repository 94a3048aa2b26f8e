// What a page session holds, in bytes: the process's resident memory after a
// session's first look at a generated page (its mirror, numbering and the
// refs it was last sent stay in Rust; its latest snapshot in JS), against
// the same process after the session is closed and collected, for N
// sessions on one page so that one session's share stands out of the noise.
//
//   node --expose-gc bench/session-memory.mjs [--nodes 40000] [--sessions 4]
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import { createPageSession } from '../lib/session.cjs';
import { generatePage } from './generate.mjs';

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '40000' }, sessions: { type: 'string', default: '4' } } });
const nodes = Number(values.nodes);
const count = Number(values.sessions);
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

const settle = async () => {
    for (let i = 0; i < 3; i += 1) {
        globalThis.gc();
        await new Promise(r => setTimeout(r, 50));
    }
    return process.memoryUsage();
};

const dir = mkdtempSync(join(tmpdir(), 'web-ai-memory-'));
const path = join(dir, `g${nodes}.html`);
writeFileSync(path, generatePage(nodes));
const browser = await launchChromium();
try {
    const page = await openFile(browser, path);
    // A first session warms every lazy table (the o200k count, regexes) so they are not counted.
    const warm = createPageSession(page, { incremental: 'always' });
    await warm.snapshot();
    await warm.close();
    const before = await settle();
    const sessions = [];
    let sizes = null;
    for (let i = 0; i < count; i += 1) {
        const s = createPageSession(page, { incremental: 'always' });
        await s.snapshot();
        sizes = s._native.sizes();
        sessions.push(s);
    }
    const held = await settle();
    for (const s of sessions) await s.close();
    sessions.length = 0;
    const after = await settle();
    const per = key => Math.round((held[key] - before[key]) / count);
    const freed = key => Math.round((held[key] - after[key]) / count);
    console.log(JSON.stringify({
        nodes,
        sessions: count,
        mirrorNodes: sizes[0],
        refsSent: sizes[1],
        numbered: sizes[2],
        perSession: { rssBytes: per('rss'), jsHeapBytes: per('heapUsed'), externalBytes: per('external') },
        freedOnClose: { rssBytes: freed('rss'), jsHeapBytes: freed('heapUsed') },
    }, null, 2));
} finally {
    await browser.close();
}
