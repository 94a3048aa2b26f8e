// A local Chromium for the CLI, tests, fixtures and the benchmark: found on this machine
// (CHROME_PATH, then PATH, the usual install paths and Playwright's downloaded browsers),
// launched headless with a fresh profile that is removed on close, and kept off the
// network for local files. `launchChromium` drives it with playwright-core;
// `launchChromiumNative` needs nothing but the addon (a DevTools port).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebAiError } from './errors.mjs';

const CANDIDATES = [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/snap/bin/chromium',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
];

export const CHROMIUM_FLAGS = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
];

const ON_PATH = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'];

// Raised before (or without) the addon, so its fields are written here; a
// test checks them against the addon's error table.
function browserError(errorCode, message, evidence) {
    const retryHint = errorCode === 'browser.not-found' ? 'install-chromium-or-set-chrome-path' : 'check-browser';
    return new WebAiError({ errorCode, stage: 'browser-launch', retryHint, message, evidence });
}

function onPath() {
    const exts = process.platform === 'win32' ? ['.exe', ''] : [''];
    for (const dir of String(process.env.PATH || '').split(delimiter).filter(Boolean)) {
        for (const name of ON_PATH) {
            for (const ext of exts) {
                const p = join(dir, name + ext);
                if (existsSync(p)) return p;
            }
        }
    }
    return null;
}

/** Chromium builds Playwright downloaded (`npx playwright install chromium`), newest first. */
function playwrightBrowsers() {
    const roots = [
        process.env.PLAYWRIGHT_BROWSERS_PATH,
        join(homedir(), '.cache', 'ms-playwright'),
        join(homedir(), 'Library', 'Caches', 'ms-playwright'),
        process.env.LOCALAPPDATA && join(process.env.LOCALAPPDATA, 'ms-playwright'),
    ].filter(Boolean);
    const inside = [
        ['chrome-linux', 'chrome'], ['chrome-linux64', 'chrome'], ['chrome-win', 'chrome.exe'], ['chrome-win64', 'chrome.exe'],
        ['chrome-mac', 'Chromium.app', 'Contents', 'MacOS', 'Chromium'], ['chrome-mac-arm64', 'Chromium.app', 'Contents', 'MacOS', 'Chromium'],
    ];
    const out = [];
    for (const root of roots) {
        let dirs = [];
        try {
            dirs = readdirSync(root).filter(d => /^chromium-\d+$/.test(d)).sort((a, b) => Number(b.split('-')[1]) - Number(a.split('-')[1]));
        } catch {
            continue;
        }
        for (const d of dirs) for (const parts of inside) out.push(join(root, d, ...parts));
    }
    return out;
}

export function findChromium() {
    const fromEnv = process.env.CHROME_PATH;
    if (fromEnv) {
        if (!existsSync(fromEnv)) throw browserError('browser.not-found', `CHROME_PATH points at ${fromEnv}, which does not exist`, { CHROME_PATH: fromEnv });
        return fromEnv;
    }
    const found = onPath() || [...CANDIDATES, ...playwrightBrowsers()].find(p => existsSync(p));
    if (!found) {
        throw browserError('browser.not-found',
            'no Chromium found (CHROME_PATH, PATH, the usual install paths, Playwright\'s browsers): install one (Debian: apt-get install -y chromium) or set CHROME_PATH', null);
    }
    return found;
}

/**
 * A Chromium of our own with a DevTools port, on about:blank, for the native
 * path: `{ endpoint, executable, pid, close() }`. `offline` sends every
 * request to a dead proxy, so local files never reach the network.
 *   executablePath  the browser to run (default: findChromium())
 *   headless        default true; false shows a window (needs a display)
 *   userDataDir     a profile to keep (default: a fresh one, removed on close)
 *   windowSize      [width, height] of the window (and of a headless viewport)
 */
export async function launchChromiumNative({ offline = false, timeoutMs = 15000, executablePath, headless = true, userDataDir, windowSize } = {}) {
    const exe = executablePath || findChromium();
    if (executablePath && !existsSync(executablePath)) throw browserError('browser.not-found', `--executable-path points at ${executablePath}, which does not exist`, { executablePath });
    const profile = userDataDir || mkdtempSync(join(tmpdir(), 'web-ai-snapshot-chromium-'));
    const ownProfile = !userDataDir;
    // A kept profile remembers the last port: the fresh one is read below.
    if (!ownProfile) rmSync(join(profile, 'DevToolsActivePort'), { force: true });
    const flags = headless ? CHROMIUM_FLAGS : CHROMIUM_FLAGS.filter(f => f !== '--headless');
    const args = [...flags, '--remote-debugging-port=0', '--remote-debugging-address=127.0.0.1', `--user-data-dir=${profile}`];
    if (windowSize) args.push(`--window-size=${windowSize[0]},${windowSize[1]}`);
    if (offline) args.push('--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=<-loopback>');
    // Tethered: Chromium ends its own life when the debugging pipe (fds 3
    // and 4) closes, which happens however this process ends, SIGKILL
    // included. Without it, a server its MCP client killed left its browser
    // running, orphaned, with nobody to close it. The pipe carries nothing:
    // every call goes over the port.
    args.push('--remote-debugging-pipe', 'about:blank');
    const child = spawn(exe, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    child.stdio[4]?.resume();
    let stderr = '';
    child.stderr.on('data', d => { stderr = (stderr + d).slice(-4000); });
    let exited = null;
    child.on('exit', code => { exited = code ?? 'signal'; });
    child.on('error', err => { exited = err.message; });
    const close = async () => {
        if (exited === null) {
            const gone = new Promise(resolve => child.once('exit', resolve));
            child.kill();
            await Promise.race([gone, new Promise(resolve => setTimeout(resolve, 3000))]);
        }
        if (!ownProfile) return;
        // Chromium's helper processes may still be writing into the profile
        // for a moment after the browser exits (ENOTEMPTY): retry, and leave a
        // temp folder behind rather than fail the caller's work over it.
        try {
            rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
        } catch {
            // the OS cleans temp folders; the caller's result stands
        }
    };
    // Chromium writes the port it took to DevToolsActivePort in the profile.
    const deadline = Date.now() + timeoutMs;
    const portFile = join(profile, 'DevToolsActivePort');
    for (;;) {
        if (exited !== null) {
            await close();
            throw browserError('browser.launch-failed', `${exe} exited (${exited}) before it opened a DevTools port: ${stderr.trim().split('\n').pop() || 'no output'}`, { executable: exe });
        }
        if (existsSync(portFile)) {
            const port = Number(readFileSync(portFile, 'utf8').split('\n')[0]);
            if (port > 0) return { endpoint: `http://127.0.0.1:${port}`, executable: exe, pid: child.pid, exited: () => exited !== null, close };
        }
        if (Date.now() > deadline) {
            await close();
            throw browserError('browser.launch-failed', `${exe} opened no DevTools port within ${timeoutMs} ms`, { executable: exe });
        }
        await new Promise(resolve => setTimeout(resolve, 25));
    }
}

/**
 * What an offline launch adds: every host but localhost and 127.0.0.1 (IP
 * literals included) fails to resolve, in Chromium's own network stack. `openFile` routes every request of a tab through Playwright
 * instead when its browser was not launched offline; that costs each request
 * a round trip through this process: the 16 real pages of fixtures/ took
 * 7.0–7.1 CPU-s routed against 4.5–6.4 offline (`node bench/tab-cost.mjs`).
 */
export const OFFLINE_FLAG = '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1';
const offlineBrowsers = new WeakSet();

/**
 * Chromium through playwright-core. `offline` keeps it off the network but
 * for localhost and 127.0.0.1 (tests serve pages there); `args` are added
 * to the usual flags.
 */
export async function launchChromium({ offline = false, args = [] } = {}) {
    let chromium;
    try {
        ({ chromium } = await import('playwright-core'));
    } catch {
        throw new Error('launchChromium needs playwright-core (npm install playwright-core); launchChromiumNative needs only the addon');
    }
    // Playwright gives every launch a fresh temporary profile and removes it on close.
    const browser = await chromium.launch({ executablePath: findChromium(), headless: true, args: [...CHROMIUM_FLAGS, ...(offline ? [OFFLINE_FLAG] : []), ...args] });
    if (offline) offlineBrowsers.add(browser);
    return browser;
}

/** Abort every request that is not file:, data: or blob:, so results never depend on the network. */
export async function blockNetwork(page) {
    await page.route('**/*', route => {
        const url = route.request().url();
        if (/^(file|data|blob|about):/.test(url)) return route.continue();
        return route.abort();
    });
}

/** Playwright's viewport for a page it opens without one. */
const DEFAULT_VIEWPORT = { width: 1280, height: 720 };
const contexts = new WeakMap();

/**
 * A new tab of `browser` (Playwright), in one browser context kept for all
 * the tabs opened here. `browser.newPage()` makes a browser context (a fresh
 * profile) for every tab, and that is most of what a tab costs Chromium:
 * 16 open tabs took 7.2 CPU-s that way against 3.6 in one context (`node
 * bench/tab-cost.mjs` measures it). Tabs here share cookies and storage;
 * what needs its own profile makes its own context.
 */
export async function newTab(browser, { viewport = DEFAULT_VIEWPORT } = {}) {
    let context = contexts.get(browser);
    if (!context) {
        context = browser.newContext({ viewport: DEFAULT_VIEWPORT });
        contexts.set(browser, context);
        context.then(c => c.once('close', () => contexts.delete(browser)), () => contexts.delete(browser));
    }
    const page = await (await context).newPage();
    if (viewport && (viewport.width !== DEFAULT_VIEWPORT.width || viewport.height !== DEFAULT_VIEWPORT.height)) await page.setViewportSize(viewport);
    return page;
}

export async function openFile(browser, path, { viewport = { width: 1280, height: 900 } } = {}) {
    const page = await newTab(browser, { viewport });
    if (!offlineBrowsers.has(browser)) await blockNetwork(page);
    try {
        await page.goto(pathToFileURL(path).href, { waitUntil: 'load', timeout: 30000 });
    } catch (err) {
        // A page whose load never ends (something it waits for is offline here) is
        // taken as it stands once its document is parsed; anything else is an error.
        const parsed = err && err.name === 'TimeoutError' && (await page.evaluate(() => document.readyState).catch(() => 'loading')) !== 'loading';
        if (!parsed) throw err;
    }
    return page;
}
