// A local Chromium for the CLI, tests, fixtures and the benchmark: found on this machine
// (CHROME_PATH first), launched headless by playwright-core with a fresh profile
// that is removed on close, and kept off the network for local files.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

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

export function findChromium() {
    const fromEnv = process.env.CHROME_PATH;
    if (fromEnv) {
        if (!existsSync(fromEnv)) throw new Error(`CHROME_PATH points at ${fromEnv}, which does not exist`);
        return fromEnv;
    }
    const found = CANDIDATES.find(p => existsSync(p));
    if (!found) {
        throw new Error('no Chromium found: set CHROME_PATH or install one (Debian: apt-get install -y chromium)');
    }
    return found;
}

export async function launchChromium() {
    let chromium;
    try {
        ({ chromium } = await import('playwright-core'));
    } catch {
        throw new Error('launching a local Chromium needs playwright-core (npm install playwright-core), or use --cdp with a running browser');
    }
    // Playwright gives every launch a fresh temporary profile and removes it on close.
    return chromium.launch({ executablePath: findChromium(), headless: true, args: CHROMIUM_FLAGS });
}

/** Abort every request that is not file:, data: or blob:, so results never depend on the network. */
export async function blockNetwork(page) {
    await page.route('**/*', route => {
        const url = route.request().url();
        if (/^(file|data|blob|about):/.test(url)) return route.continue();
        return route.abort();
    });
}

export async function openFile(browser, path, { viewport = { width: 1280, height: 900 } } = {}) {
    const page = await browser.newPage({ viewport });
    await blockNetwork(page);
    await page.goto(pathToFileURL(path).href, { waitUntil: 'load', timeout: 30000 });
    return page;
}
