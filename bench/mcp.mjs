// `npm run bench:mcp`: this package's MCP server against the peers an agent
// builder would pick (@playwright/mcp, chrome-devtools-mcp, agent-browser),
// each driven through the official MCP client over stdio, on the same
// scripted tasks over bundled pages (fixtures/agent/, served on 127.0.0.1).
//
// Each task is one script written against a small driver per server: the
// driver knows the server's tool names and how its snapshot writes a ref;
// the script looks for the control it needs in the results it has read so
// far, newest first, as a model reads its context, and asks for a snapshot
// only when none shows it. Reported per task and server: done or not, the
// o200k tokens of every tool result, the number of tool calls, and the time
// from spawning the server to the end (the browser starts cold for all).
//
//   node bench/mcp.mjs [--runs N] [--servers ours,playwright,devtools,agent-browser] [--tasks shop,chat] [--json] [--no-readme]
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { findChromium } from '../lib/chromium.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({
    options: { verbose: { type: 'boolean' }, runs: { type: 'string', default: '3' }, servers: { type: 'string' }, tasks: { type: 'string' }, json: { type: 'boolean' }, 'no-readme': { type: 'boolean' } },
});
const RUNS = Math.max(1, Number(flags.runs) || 3);
const chrome = findChromium();

// ----- the pages, over HTTP (some peers refuse file: URLs) -----
const pages = join(root, 'fixtures', 'agent');
const http = createServer((req, res) => {
    const name = new URL(req.url, 'http://x').pathname.slice(1);
    const file = join(pages, name);
    if (!/^[\w-]+\.html$/.test(name) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(file));
});
await new Promise(r => http.listen(0, '127.0.0.1', r));
const pageUrl = name => `http://127.0.0.1:${http.address().port}/${name}`;

// ----- one driver per server -----
const esc = s => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const abBin = join(root, 'node_modules', 'agent-browser', 'bin', `agent-browser-${process.platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`);

const DRIVERS = {
    ours: {
        label: '@agbrowse/web-ai-snapshot mcp',
        spawn: () => ({ command: process.execPath, args: [join(root, 'bin', 'web-ai-snapshot.mjs'), 'mcp', '--headless', '--executable-path', chrome] }),
        open: url => ['browser_navigate', { url }],
        look: () => ['get_snapshot', { viewport_only: false }],
        find: (text, role, name) => new RegExp(`- ${role} "[^"\\n]*${esc(name)}[^"\\n]*"[^\\n]*\\[ref=(@e\\d+)`).exec(text)?.[1],
        click: ref => [['browser_click', { ref }]],
        fill: (ref, value, submit) => [['browser_fill', { ref, value, ...(submit ? { submit: true } : {}) }]],
        select: (ref, value) => [['browser_select', { ref, value }]],
        wait: () => ['wait_for_ui_change', { timeout_ms: 5000 }],
    },
    playwright: {
        label: '@playwright/mcp',
        spawn: () => ({ command: process.execPath, args: [join(root, 'node_modules', '@playwright', 'mcp', 'cli.js'), '--headless', '--isolated', '--no-sandbox', '--executable-path', chrome] }),
        open: url => ['browser_navigate', { url }],
        look: () => ['browser_snapshot', {}],
        find: (text, role, name) => new RegExp(`- ${role} "[^"\\n]*${esc(name)}[^"\\n]*"[^\\n]*\\[ref=(e\\d+)\\]`).exec(text)?.[1],
        click: ref => [['browser_click', { element: ref, target: ref }]],
        fill: (ref, value, submit) => [['browser_type', { element: ref, target: ref, text: value, ...(submit ? { submit: true } : {}) }]],
        select: (ref, value) => [['browser_select_option', { element: ref, target: ref, values: [value] }]],
        wait: text => ['browser_wait_for', { text }],
        waitsForText: true,
    },
    devtools: {
        label: 'chrome-devtools-mcp',
        spawn: () => ({ command: process.execPath, args: [join(root, 'node_modules', 'chrome-devtools-mcp', 'build', 'src', 'bin', 'chrome-devtools-mcp.js'), '--headless', '--isolated', '--no-page-id-routing', '--executable-path', chrome, '--chrome-arg=--no-sandbox'] }),
        open: url => ['navigate_page', { type: 'url', url }],
        look: () => ['take_snapshot', {}],
        find: (text, role, name) => new RegExp(`uid=(\\S+) ${role} "[^"\\n]*${esc(name)}[^"\\n]*"`).exec(text)?.[1],
        click: uid => [['click', { uid, includeSnapshot: true }]],
        fill: (uid, value, submit) => (submit ? [['fill', { uid, value }], ['press_key', { key: 'Enter', includeSnapshot: true }]] : [['fill', { uid, value, includeSnapshot: true }]]),
        select: (uid, value) => [['fill', { uid, value, includeSnapshot: true }]],
        wait: text => ['wait_for', { text: [text] }],
        waitsForText: true,
    },
    'agent-browser': {
        label: 'agent-browser mcp',
        spawn: () => ({
            command: abBin,
            args: ['mcp'],
            env: { ...process.env, AGENT_BROWSER_EXECUTABLE_PATH: chrome, AGENT_BROWSER_ARGS: '--no-sandbox', AGENT_BROWSER_SESSION: `bench-${process.pid}-${Date.now()}` },
        }),
        open: url => ['agent_browser_open', { url }],
        look: () => ['agent_browser_snapshot', {}],
        find: (text, role, name) => new RegExp(`- ${role} "[^"\\n]*${esc(name)}[^"\\n]*"[^\\n]*\\[(?:[^\\]]*, )?ref=(e\\d+)`).exec(text)?.[1],
        click: ref => [['agent_browser_click', { selector: `@${ref}` }]],
        fill: (ref, value, submit) => [['agent_browser_fill', { selector: `@${ref}`, text: value }], ...(submit ? [['agent_browser_press', { key: 'Enter' }]] : [])],
        select: (ref, value) => [['agent_browser_select', { selector: `@${ref}`, values: [value] }]],
        wait: text => ['agent_browser_wait_for_text', { text }],
        waitsForText: true,
    },
};

/** An agent's context: every result read so far, and the counts. */
class Agent {
    constructor(driver, client) {
        this.d = driver;
        this.client = client;
        this.results = [];
        this.calls = 0;
        this.tokens = 0;
    }

    async call([name, args]) {
        this.calls += 1;
        const t0 = performance.now();
        const r = await this.client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
        const text = (r.content || []).filter(c => c.type === 'text').map(c => c.text).join('\n');
        this.tokens += encode(text).length;
        this.results.push(text);
        if (flags.verbose) console.error(`>> ${name} ${JSON.stringify(args)} (${Math.round(performance.now() - t0)} ms, ${encode(text).length} tok)\n${text}\n`);
        if (r.isError) throw new Error(`${name} failed: ${text.slice(0, 300)}`);
        return text;
    }

    /** The ref of a control, from the newest result that shows it (a snapshot when none does). */
    async ref(role, name) {
        for (let i = this.results.length - 1; i >= 0; i--) {
            const ref = this.d.find(this.results[i], role, name);
            if (ref) return ref;
        }
        const ref = this.d.find(await this.call(this.d.look()), role, name);
        if (!ref) throw new Error(`no ${role} "${name}" on the page`);
        return ref;
    }

    async steps(list) {
        let text = '';
        for (const s of list) text = await this.call(s);
        return text;
    }

    /**
     * Act on a control by its ref; when the server says the ref is no
     * longer valid (some servers renumber on every change), read a fresh
     * snapshot and act once more, as a model would.
     */
    async act(role, name, build) {
        const ref = await this.ref(role, name);
        try {
            return await this.steps(build(ref));
        } catch (err) {
            if (!/not found|stale|no longer|snapshot|unknown ref|invalid/i.test(err.message)) throw err;
            const fresh = this.d.find(await this.call(this.d.look()), role, name);
            if (!fresh) throw err;
            return this.steps(build(fresh));
        }
    }

    click = (role, name) => this.act(role, name, ref => this.d.click(ref));
    fill = (role, name, value, submit = false) => this.act(role, name, ref => this.d.fill(ref, value, submit));
    select = (role, name, value) => this.act(role, name, ref => this.d.select(ref, value));
    open = async page => this.call(this.d.open(pageUrl(page)));

    /** Until `pattern` shows: in the last result, after the server's wait, or in a fresh snapshot. */
    async until(pattern, text) {
        if (pattern.test(this.results.at(-1) ?? '')) return true;
        const waited = await this.call(this.d.wait(text)).then(() => true, () => false);
        // A wait for the text itself that succeeded has seen it on the page.
        if (waited && this.d.waitsForText) return true;
        if (pattern.test(this.results.at(-1) ?? '')) return true;
        return pattern.test(await this.call(this.d.look()));
    }
}

// The table's data, as the page makes it: the 11th oldest is the first row of page 2 sorted by age.
const ages = Array.from({ length: 50 }, (_, i) => 21 + ((i * 37) % 44)).sort((a, b) => b - a);

const TASKS = {
    shop: async a => {
        await a.open('shop.html');
        await a.fill('searchbox', 'Search products', 'travel', true);
        await a.until(/Showing 1 product\b/, 'Showing 1 product');
        await a.click('button', 'Add Travel Mug to cart');
        await a.click('button', 'Cart (1)');
        await a.fill('textbox', 'Full name', 'Ada Lovelace');
        await a.fill('textbox', 'Email', 'ada@example.com');
        await a.select('combobox', 'Shipping', 'Express');
        await a.click('checkbox', 'I accept the terms');
        await a.click('button', 'Place order');
        return a.until(/1 item\(s\) ship by Express/, '1 item(s) ship by Express');
    },
    wizard: async a => {
        await a.open('wizard.html');
        await a.fill('textbox', 'First name', 'Ada');
        await a.fill('textbox', 'Last name', 'Lovelace');
        await a.click('button', 'Next');
        await a.click('radio', 'Pro');
        await a.select('combobox', 'Country', 'Japan');
        await a.click('button', 'Next');
        await a.click('checkbox', 'Send me news');
        await a.click('button', 'Create account');
        return a.until(/Welcome, Ada!/, 'Welcome, Ada!');
    },
    chat: async a => {
        await a.open('chat.html');
        await a.fill('textbox', 'Message', 'What is the weather tomorrow?', true);
        return a.until(/high of 24 degrees\./, 'high of 24 degrees.');
    },
    table: async a => {
        await a.open('table.html');
        await a.click('button', 'Age');
        await a.until(/Page 1 of 5/, 'Page 1 of 5');
        await a.click('button', 'Next');
        await a.until(/Page 2 of 5/, 'Page 2 of 5');
        return new RegExp(`\\b${ages[10]}\\b`).test(a.results.at(-1)) || new RegExp(`\\b${ages[10]}\\b`).test(await a.call(a.d.look()));
    },
    'cookie+modal': async a => {
        await a.open('news.html');
        await a.click('button', 'Accept all');
        await a.until(/Subscribe\?/, 'Subscribe?');
        await a.click('button', 'No thanks');
        await a.click('button', 'Read more');
        return a.until(/Analysts expect the pause/, 'Analysts expect the pause');
    },
};

async function runTask(serverName, taskName) {
    const driver = DRIVERS[serverName];
    const cwd = mkdtempSync(join(tmpdir(), 'web-ai-bench-mcp-'));
    const started = performance.now();
    const client = new Client({ name: 'bench-mcp', version: '1.0.0' });
    const transport = new StdioClientTransport({ ...driver.spawn(), cwd, stderr: 'ignore' });
    const out = { server: serverName, task: taskName, done: false, tokens: 0, calls: 0, ms: 0, error: null };
    let agent = null;
    try {
        await client.connect(transport);
        agent = new Agent(driver, client);
        out.done = (await TASKS[taskName](agent)) === true;
    } catch (err) {
        out.error = err.message.split('\n')[0].slice(0, 200);
    } finally {
        out.ms = Math.round(performance.now() - started);
        if (agent) Object.assign(out, { tokens: agent.tokens, calls: agent.calls });
        if (serverName === 'agent-browser' && agent) await agent.call(['agent_browser_close', {}]).catch(() => null);
        await client.close().catch(() => undefined);
        rmSync(cwd, { recursive: true, force: true });
    }
    return out;
}

async function toolListChars(serverName) {
    const driver = DRIVERS[serverName];
    const cwd = mkdtempSync(join(tmpdir(), 'web-ai-bench-mcp-'));
    const client = new Client({ name: 'bench-mcp', version: '1.0.0' });
    try {
        await client.connect(new StdioClientTransport({ ...driver.spawn(), cwd, stderr: 'ignore' }));
        return JSON.stringify((await client.listTools()).tools).length;
    } finally {
        await client.close().catch(() => undefined);
        rmSync(cwd, { recursive: true, force: true });
    }
}

const median = xs => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (existsSync(abBin)) {
    try {
        chmodSync(abBin, 0o755); // installed with --ignore-scripts, which leaves it without its mode
    } catch {
        // a read-only install: it either runs or is reported as failing
    }
}
const taskNames = flags.tasks ? flags.tasks.split(',').filter(t => TASKS[t]) : Object.keys(TASKS);
for (const t of Object.keys(TASKS)) if (!taskNames.includes(t)) delete TASKS[t];
const servers = (flags.servers ? flags.servers.split(',') : Object.keys(DRIVERS)).filter(s => DRIVERS[s]);
const results = [];
const lists = {};
for (const s of servers) lists[s] = await toolListChars(s).catch(() => null);
for (let run = 0; run < RUNS; run++) {
    for (const task of Object.keys(TASKS)) {
        for (const s of servers) {
            const r = await runTask(s, task);
            results.push(r);
            if (!flags.json) console.error(`run ${run + 1} ${task.padEnd(13)} ${s.padEnd(14)} ${r.done ? 'done' : 'NOT DONE'} ${String(r.tokens).padStart(6)} tok ${String(r.calls).padStart(3)} calls ${String(r.ms).padStart(6)} ms${r.error ? `  ${r.error}` : ''}`);
        }
    }
}
http.close();

// Per task and server: done in every run, the median tokens, calls and time.
const summary = {};
for (const task of Object.keys(TASKS)) {
    summary[task] = {};
    for (const s of servers) {
        const rs = results.filter(r => r.task === task && r.server === s);
        summary[task][s] = { done: rs.every(r => r.done), doneRuns: rs.filter(r => r.done).length, tokens: median(rs.map(r => r.tokens)), calls: median(rs.map(r => r.calls)), ms: median(rs.map(r => r.ms)) };
    }
}
const sumOf = (s, k) => Object.values(summary).reduce((n, t) => n + t[s][k], 0);
const totals = Object.fromEntries(servers.map(s => [s, { tokens: sumOf(s, 'tokens'), ms: sumOf(s, 'ms'), calls: sumOf(s, 'calls') }]));
const command = `node bench/mcp.mjs --runs ${RUNS}${flags.servers ? ` --servers ${flags.servers}` : ''}`;
const report = { command, runs: RUNS, node: process.version, chromium: chrome, toolListChars: lists, summary, totals, results };
// A partial run (--no-readme, --tasks, some --servers) leaves the recorded results as they are.
const whole = !flags['no-readme'] && !flags.tasks && servers.length === Object.keys(DRIVERS).length;
if (whole) writeFileSync(join(root, 'bench', 'mcp.json'), `${JSON.stringify(report, null, 2)}\n`);

const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : '—');
const lines = [];
lines.push(`| task | ${servers.map(s => DRIVERS[s].label).join(' | ')} |`);
lines.push(`| --- | ${servers.map(() => '---').join(' | ')} |`);
for (const task of Object.keys(TASKS)) {
    lines.push(`| ${task} | ${servers.map(s => {
        const v = summary[task][s];
        return `${v.done ? 'done' : `**${v.doneRuns}/${RUNS} done**`}, ${v.tokens} tok, ${v.calls} calls, ${v.ms} ms`;
    }).join(' | ')} |`);
}
lines.push(`| all five | ${servers.map(s => `${totals[s].tokens} tok, ${totals[s].calls} calls, ${totals[s].ms} ms`).join(' | ')} |`);
if (servers.includes('ours')) {
    lines.push(`| ours ÷ peer | ${servers.map(s => (s === 'ours' ? '1' : `tokens ${ratio(totals.ours.tokens, totals[s].tokens)}×, time ${ratio(totals.ours.ms, totals[s].ms)}×`)).join(' | ')} |`);
}
lines.push(`| tool list (chars of JSON) | ${servers.map(s => lists[s] ?? '—').join(' | ')} |`);
const table = lines.join('\n');
if (flags.json) console.log(JSON.stringify(report, null, 2));
else console.log(`${table}\n\n(${command}; medians of ${RUNS} runs; time from spawning the server, browser started cold)`);

if (whole) {
    const readme = join(root, 'README.md');
    const text = readFileSync(readme, 'utf8');
    const block = `<!-- bench:mcp -->\n${table}\n\nMedians of ${RUNS} runs of \`${command}\` (${new Date().toISOString().slice(0, 10)}, Node ${process.version}); time is from spawning the server, with the browser started cold for every server.\n<!-- /bench:mcp -->`;
    if (text.includes('<!-- bench:mcp -->')) writeFileSync(readme, text.replace(/<!-- bench:mcp -->[\s\S]*<!-- \/bench:mcp -->/, block));
}
