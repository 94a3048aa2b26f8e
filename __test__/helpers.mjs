// Shared by the tests: the fixture paths, a replaying CDP session, one
// Chromium per test file, shared by its tests (a missing browser fails
// loudly, never skips), and the size of the long randomized tests.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import net from 'node:net';
import { launchChromium, newTab, openFile } from '../lib/chromium.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// The agent CLI's kept browser lives in a state folder shared by the user's shells
// (lib/agent/daemon.mjs); a test's CLI commands get one of their own, so that a browser a
// developer left open (`web-ai-snapshot open`) is not what `snapshot` with no URL shows.
const stateDir = mkdtempSync(join(tmpdir(), 'web-ai-test-state-'));
process.env.WEB_AI_SNAPSHOT_STATE_DIR = stateDir;
process.on('exit', () => rmSync(stateDir, { recursive: true, force: true }));
export const pagesDir = join(root, 'fixtures', 'pages');
export const recordedDir = join(root, 'fixtures', 'recorded');
// Real pages (readability's test corpus, Apache-2.0), copied from ../shared/pages so
// that a clone anywhere runs every test.
export const realPagesDir = join(root, 'fixtures', 'real-pages');

export function recording(name) {
    return JSON.parse(readFileSync(join(recordedDir, `${name}.json`), 'utf8'));
}

export function recordingNames() {
    return readdirSync(recordedDir).filter(f => f.endsWith('.json')).map(f => f.slice(0, -5)).sort();
}

/** A `{ send }` that answers from a recording, like a live CDP session would. */
export function replaySession(rec) {
    const calls = [];
    return {
        calls,
        async send(method, params) {
            calls.push(method);
            const hit = rec.replies.find(r => r.method === method && isDeepStrictEqual(r.params, params));
            if (!hit) throw new Error(`no recorded reply for ${method}`);
            return structuredClone(hit.result);
        },
    };
}

/** The tree result recorded for a fixture page (default options). */
export function recordedTree(name) {
    return recording(name).replies.find(r => r.method === 'Accessibility.getFullAXTree').result;
}

/** A free local TCP port. */
export function freePort() {
    return new Promise(resolve => {
        const s = net.createServer();
        s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
    });
}

/** A Playwright Chromium that also listens on a DevTools port: `{ browser, endpoint }`. */
export async function launchWithEndpoint() {
    const port = await freePort();
    const b = await launchChromium({ offline: true, args: [`--remote-debugging-port=${port}`] });
    return { browser: b, endpoint: `http://127.0.0.1:${port}` };
}

/**
 * The long, randomized tests run at full length when WEB_AI_TEST_FULL=1
 * (CI sets it), and at `quick` otherwise, so that developers run the suite
 * often. Every assertion runs either way; only the number of cases changes.
 */
export const FULL = process.env.WEB_AI_TEST_FULL === '1';
export const sized = (full, quick) => (FULL ? full : quick);
/**
 * A sweep's pages: every one at full length; in a developer's run every
 * other one (the first, the third, …). A sweep of real pages loads each in
 * Chromium and reads it two or three ways, and CI still visits them all.
 */
export const halved = list => (FULL ? list : list.filter((_, i) => i % 2 === 0));

let browserPromise = null;
export function browser() {
    browserPromise ??= launchChromium({ offline: true });
    return browserPromise;
}

export async function closeBrowser() {
    if (browserPromise) {
        const b = await browserPromise;
        browserPromise = null;
        await b.close();
    }
}

export async function openFixture(name) {
    return openFile(await browser(), join(pagesDir, name));
}

export { newTab, openFile };

/**
 * Visit each file in one tab, in turn: `fn(page, file, index)` for each. A sweep over
 * many pages navigates one page rather than opening a tab a page: a new tab
 * costs Chromium about 0.2 s of CPU more than a navigation (`node bench/tab-cost.mjs`:
 * 30 new tabs 9.5 CPU-s, one tab navigated 30 times 3.0, launch included),
 * and the suite is CPU-bound.
 */
export async function sweep(files, fn) {
    let page = null;
    try {
        for (const [index, file] of files.entries()) {
            if (page) await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 30000 });
            else page = await openFile(await browser(), file);
            await fn(page, file, index);
        }
    } finally {
        await page?.close();
    }
}
