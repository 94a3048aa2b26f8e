// The agent surface's browser: one it launched (headless where there is no
// display, a throwaway profile unless --user-data-dir) or one it attached to
// (--cdp), and its tabs, through the DevTools HTTP API (/json/*). Each tab
// the agent touches gets a page session over its own kept connection, so
// refs stay stable and looks are incremental; nothing here needs
// playwright-core.
import { launchChromiumNative } from '../chromium.mjs';
import { WebAiError } from '../errors.mjs';

/** The http(s):// base of a DevTools endpoint given as http(s) or ws(s). */
export function httpBase(endpoint) {
    const u = new URL(endpoint);
    const scheme = u.protocol === 'wss:' || u.protocol === 'https:' ? 'https:' : 'http:';
    return `${scheme}//${u.host}`;
}

function unreachable(endpoint, why) {
    return new WebAiError({
        errorCode: 'cdp.unreachable',
        stage: 'cdp-connect',
        retryHint: 'check-endpoint',
        message: `cannot reach the DevTools endpoint ${endpoint}: ${why}`,
        evidence: { endpoint },
    });
}

export class AgentBrowser {
    /**
     * options.cdp             attach to this endpoint instead of launching
     * options.executablePath  the browser to launch
     * options.headless        default: true when there is no display
     * options.userDataDir     a profile to keep
     */
    constructor(options = {}) {
        this.options = options;
        this.endpoint = options.cdp || null;
        this.launched = null;
        /** Each tab's place in `list()`: the order tabs were first seen in (see `list`). */
        this.seen = new Map();
    }

    async start() {
        if (this.endpoint) {
            await this.list();
            return this;
        }
        const noDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
        this.launched = await launchChromiumNative({
            executablePath: this.options.executablePath,
            headless: this.options.headless ?? noDisplay,
            userDataDir: this.options.userDataDir,
            windowSize: [1280, 900],
        });
        this.endpoint = this.launched.endpoint;
        return this;
    }

    async _json(path, method = 'GET') {
        const base = httpBase(this.endpoint);
        let res;
        try {
            res = await fetch(`${base}${path}`, { method, signal: AbortSignal.timeout(5000) });
        } catch (err) {
            throw unreachable(this.endpoint, err.cause?.message || err.message);
        }
        const body = await res.text();
        if (!res.ok) throw unreachable(this.endpoint, `${path} answered HTTP ${res.status}: ${body.slice(0, 200)}`);
        try {
            return JSON.parse(body);
        } catch {
            return body;
        }
    }

    /**
     * The browser's tabs (page targets, `{ id, url, title }`), each keeping its place: the order they were first
     * seen in, a new tab last. `/json/list` orders tabs by their last
     * activity, so a tab opened or brought to the front would renumber the
     * others between an agent's `browser_tabs list` and its `select` (tabs
     * first seen together are taken least recently active first).
     */
    async list() {
        const targets = await this._json('/json/list');
        const pages = (Array.isArray(targets) ? targets : []).filter(t => t.type === 'page');
        for (const t of [...pages].reverse()) if (!this.seen.has(t.id)) this.seen.set(t.id, this.seen.size);
        // Closed tabs are forgotten once they are most of what is remembered.
        if (this.seen.size > 2 * pages.length + 64) {
            const open = new Set(pages.map(t => t.id));
            this.seen = new Map([...this.seen].filter(([id]) => open.has(id)).map(([id], k) => [id, k]));
        }
        return pages.sort((a, b) => this.seen.get(a.id) - this.seen.get(b.id)).map(t => ({ id: t.id, url: t.url, title: t.title }));
    }

    /** Open a tab on `url` (about:blank by default); its target id. */
    async open(url = 'about:blank') {
        const t = await this._json(`/json/new?${encodeURI(url)}`, 'PUT');
        return t.id;
    }

    async activate(id) {
        await this._json(`/json/activate/${id}`);
    }

    /** Close a tab, and wait (up to 2 s) until the browser no longer lists it: the close is asynchronous. */
    async closeTab(id) {
        await this._json(`/json/close/${id}`);
        const until = Date.now() + 2000;
        while (Date.now() < until && (await this.list()).some(t => t.id === id)) {
            await new Promise(resolve => setTimeout(resolve, 25));
        }
    }

    /** Whether the browser this launched has exited (crashed, killed, closed by hand). */
    get exited() {
        return Boolean(this.launched && this.launched.exited());
    }

    /** Close the browser if this launched it; an attached browser is left as it was. */
    async close() {
        if (this.launched) await this.launched.close();
        this.launched = null;
    }

    /** After a launched browser exited: the next start launches another. */
    async reset() {
        await this.close();
        this.endpoint = this.options.cdp || null;
    }
}
