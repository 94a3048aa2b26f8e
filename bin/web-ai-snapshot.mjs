#!/usr/bin/env node
// web-ai-snapshot: compact accessibility snapshots with refs, from the shell.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AGENT_COMMANDS, UsageError, agentCall, agentOutput, keptBrowserCommand, parse, positiveInt, urlOf } from '../lib/agent/commands.mjs';
import { WebAiError } from '../lib/errors.mjs';
import nodeModule from 'node:module';

// Node 22.1+ keeps the compiled code of the modules loaded from here on (the MCP
// SDK and zod, the library) between runs: the MCP server's imports took 230-320 ms
// cold and 184-198 ms cached on Node 22.23 here. Earlier Nodes have no such cache.
nodeModule.enableCompileCache?.();

// The addon is loaded on first use, so that --help and --version work without it.
let loaded = null;
async function lib() {
    loaded ??= Promise.all([import('../lib/index.mjs'), import('../lib/native.cjs')]).then(([api, n]) => ({ ...api, native: n.default }));
    return loaded;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const VENDORS = ['chatgpt', 'gemini', 'grok'];

const MAIN_HELP = `Usage: web-ai-snapshot <command> [options]
       web-ai-snapshot --version

Commands:
  mcp                   Serve the agent tools over MCP (stdio, or HTTP with --port)
  open URL|FILE         Start (or reuse) a kept browser on URL and print its snapshot;
                        then snapshot, click, fill, select, type, press, hover, scroll,
                        wait, tabs, screenshot, navigate, back, forward, reload, dialog
                        act on it from new processes by the printed refs; close ends it
  snapshot [URL|FILE]   Print a compact accessibility snapshot with @eN refs
                        (the kept browser's page when one runs and no URL is given)
  doctor                Content-safe report: snapshot summary and vendor targets
  click REF             Act on a ref of the last snapshot of a --cdp tab, then
  fill REF VALUE        print the new snapshot (REF is @eN as printed; the
  select REF VALUE      element must still be what that snapshot named)
  scroll REF | scroll --direction up|down|top|bottom [--amount N]

Run \`web-ai-snapshot <command> --help\` for the options of a command.
Exit codes: 0 ok, 1 runtime failure, 2 usage error. With --json, errors are
printed as JSON too: { "error": { "errorCode", "message", … } }.`;

const SNAPSHOT_HELP = `Usage: web-ai-snapshot snapshot [URL|FILE] [options]
       web-ai-snapshot snapshot --cdp ENDPOINT [--target ID | --url-includes S] [options]

Opens URL or FILE in a local headless Chromium (CHROME_PATH, then the usual
install paths) and prints its snapshot. With neither, it snapshots a page
bundled with the package (the --vendor look-alike) with the network off.

Options:
  --vendor <chatgpt|gemini|grok>  provider of the page (default: chatgpt)
  --interactive / --no-interactive  drop uninteresting nodes (default: on)
  --compact / --no-compact        merge text, inline lone text (default: on)
  --max-depth <n>                 printed levels (default: 6; refs below are kept)
  --root-selector <css>           only the subtree of the first match
  --all-refs                      refs for list/grid items even past 100 refs
  --refs-only                     only the lines that carry refs
  --max-tokens <n>                at most n o200k tokens of text; the rest is counted
                                  on "- more:" lines (its refs stay resolvable)
  --urls                          print link targets (url="…")
  --engine <ax|dom>               where the tree comes from: computed from the DOM
                                  (dom, default, faster) or Chrome's accessibility tree (ax)
  --timeout <ms>                  deadline of the page load and of the capture (default: 10000)
  --cdp <endpoint>                snapshot a tab of a running browser instead
                                  (http(s)://host:port or ws(s)://…; the browser is left as it was)
  --target <id> | --url-includes <s>  which tab (default: the only one)
  --json                          print the whole WebAiSnapshot as JSON
  -h, --help                      this help

Example output:
  - textbox "Message ChatGPT" [ref=@e10]
  - button "Send prompt" [ref=@e12]`;

const DOCTOR_HELP = `Usage: web-ai-snapshot doctor [--vendor <chatgpt|gemini|grok>] [--snapshot interactive] [URL|FILE] [--cdp ENDPOINT] [--json]

Snapshots the page (the bundled look-alike of --vendor by default) and reports
a content-safe summary: hashes and counts of the snapshot, and the vendor's
semantic targets with nameHash/nameChars instead of names. It never prints
snapshot text or a raw accessible name. A page that cannot be snapshotted is
reported as a snapshot-failed warning, and the exit code is 1.

Options:
  --vendor <name>          chatgpt | gemini | grok (default: chatgpt)
  --snapshot interactive   the snapshot sections (the default and only mode)
  --timeout <ms>           deadline of the page load and of the capture (default: 10000)
  --cdp <endpoint>         a running browser's tab instead (with --target or --url-includes)
  --json                   print the report as JSON
  -h, --help               this help`;

const AGENT_HELP = `Usage: web-ai-snapshot open URL|FILE [--headed] [--executable-path P] [--user-data-dir D]
       web-ai-snapshot snapshot [--viewport]
       web-ai-snapshot click REF | fill REF VALUE [--submit] | type REF TEXT [--submit]
       web-ai-snapshot select REF VALUE | press KEY | hover REF
       web-ai-snapshot scroll (REF | --direction up|down|top|bottom [--amount N])
       web-ai-snapshot wait [--timeout MS] [--stability-window MS] | tabs [new URL | select N | close N]
       web-ai-snapshot screenshot [FILE] [--full-page] | navigate URL | back | forward | reload
       web-ai-snapshot dialog accept [TEXT] | dialog dismiss
       web-ai-snapshot close

\`open\` starts a browser that outlives the command (a small daemon holds it
and its page sessions) or reuses the running one, and prints the page. Every
other command acts on that browser's current tab by the refs printed before
(@eN: valid while their element exists) and prints what changed. \`close\`
ends the browser. An alert, confirm or prompt the page opens stops it until
\`dialog\` answers it (TEXT: a prompt's answer). Exit code 1 when the action
failed (the page is printed).
WEB_AI_SNAPSHOT_STATE_DIR moves the daemon's socket (default: the temp folder).`;

const ACT_HELP = `Usage: web-ai-snapshot click REF --cdp ENDPOINT [--target ID | --url-includes S] [options]
       web-ai-snapshot fill REF VALUE --cdp ENDPOINT [--append] [options]
       web-ai-snapshot select REF VALUE --cdp ENDPOINT [options]
       web-ai-snapshot scroll (REF | --direction up|down|top|bottom [--amount N]) --cdp ENDPOINT [options]

Acts on a tab of a running browser by a ref of the last snapshot this CLI
printed for that tab (\`snapshot --cdp\` with the same --target or
--url-includes, or the previous action). It snapshots the tab again, checks
that the ref's element is still there and still what that snapshot named
(exit 1 with snapshot.ref-stale otherwise), acts with real input events, and
prints the new snapshot, whose refs the next command uses.

Options:
  --cdp <endpoint>                 http(s)://host:port or ws(s)://… (required)
  --target <id> | --url-includes <s>  which tab (default: the only one)
  --append                         fill: add to the field instead of replacing
  --direction <d>, --amount <px>   scroll the page (default amount: 300)
  --timeout <ms>                   the action's deadline (default: 2000)
  --json                           print the whole result as JSON
  -h, --help                       this help`;

const MCP_HELP = `Usage: web-ai-snapshot mcp [options]

An MCP server (stdio by default) whose tools drive a browser by the refs of
its snapshots: get_snapshot, browser_navigate, browser_click, browser_fill,
browser_type, browser_select, browser_press_key, browser_hover,
browser_scroll, browser_tabs, browser_screenshot, browser_handle_dialog,
wait_for_ui_change, request_human_approval, complete_task.
It launches its own Chromium on the first tool call (closed when the server
ends), or attaches to a running one with --cdp.

Options:
  --headless                 no window (the default when there is no display)
  --headed                   a window, even without a display variable
  --executable-path <path>   the browser to launch (default: CHROME_PATH, the usual paths)
  --user-data-dir <dir>      a profile to keep (default: a temporary, isolated one)
  --isolated                 a temporary profile (the default)
  --cdp <endpoint>           attach to a running browser (http(s)://host:port or ws(s)://…)
  --port <n>                 streamable HTTP on 127.0.0.1:<n>/mcp instead of stdio (0: any free port, printed)
  --allow-evaluate           offer browser_evaluate (runs JavaScript in the page)
  --allow-file-urls          let the agent open file: URLs
  --allowed-origins <list>   only these origins may be opened (; or , separated)
  --blocked-origins <list>   these origins may not be opened
  --output-dir <dir>         downloads go here (default: downloads are refused)
  --navigation-timeout <ms>  how long a page may take to answer and load (default: 15000)
  -h, --help                 this help

Client configuration (Claude Desktop, Cursor, VS Code, …):
  { "mcpServers": { "web-ai-snapshot": { "command": "npx", "args": ["@agbrowse/web-ai-snapshot", "mcp"] } } }`;

function vendorOf(args) {
    const v = args.vendor ?? 'chatgpt';
    if (!VENDORS.includes(v)) throw new UsageError(`--vendor must be one of ${VENDORS.join(', ')}, got ${JSON.stringify(v)}`);
    return v;
}

async function hasPlaywright() {
    if (process.env.WEB_AI_SNAPSHOT_NATIVE_BROWSER === '1') return false;
    try {
        await import('playwright-core');
        return true;
    } catch {
        return false;
    }
}

/** A page load that failed, as the error a user can act on. */
function navigationError(url, err) {
    if (err instanceof WebAiError) return err;
    const message = err && err.message ? err.message.split('\n')[0] : String(err);
    const dns = /ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED/.test(message);
    return new WebAiError({
        errorCode: dns ? 'page.dns-failed' : 'page.navigation-failed',
        stage: 'page-navigate',
        retryHint: dns ? 'check-url-or-network' : 'check-url',
        message: `${url} could not be opened: ${message}`,
        evidence: { url },
    });
}

/**
 * Open the target in a fresh local Chromium; the bundled page when none is
 * given. Through playwright-core when it is installed, else through the
 * addon's own DevTools connection (a fresh install needs nothing else).
 */
async function openTarget(target, vendor, timeoutMs = 30000) {
    let url;
    let offline = false;
    if (!target) {
        url = pathToFileURL(join(root, 'fixtures', 'pages', `${vendor}.html`)).href;
        offline = true;
    } else if (/^[a-z][a-z0-9+.-]*:/i.test(target) && !/^[a-z]:\\/i.test(target)) {
        url = target;
    } else {
        if (!existsSync(target)) {
            const domain = /^[\w-]+(\.[\w-]+)+(:\d+)?(\/.*)?$/.test(target);
            throw new UsageError(`no such file: ${target}${domain ? ` (did you mean https://${target}?)` : ''}`);
        }
        url = pathToFileURL(resolve(target)).href;
        offline = true;
    }
    const { launchChromium, launchChromiumNative, blockNetwork } = await import('../lib/chromium.mjs');
    if (!(await hasPlaywright())) {
        const browser = await launchChromiumNative({ offline });
        try {
            const { native } = await lib();
            const outcome = await native.navigateNative({ cdpEndpoint: browser.endpoint }, url, timeoutMs);
            if (outcome.error) throw new WebAiError(outcome.error);
            return { browser, page: { cdpEndpoint: browser.endpoint }, native: true };
        } catch (err) {
            await browser.close();
            throw navigationError(url, err);
        }
    }
    const browser = await launchChromium();
    try {
        const page = await browser.newPage();
        if (offline) await blockNetwork(page);
        await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
        return { browser, page };
    } catch (err) {
        await browser.close().catch(() => {});
        throw navigationError(url, err);
    }
}

async function snapshotCommand(argv) {
    const args = parse(argv, {
        vendor: 'value', interactive: 'bool', 'no-interactive': 'bool', compact: 'bool', 'no-compact': 'bool', 'max-depth': 'value',
        'root-selector': 'value', 'all-refs': 'bool', 'refs-only': 'bool', 'max-tokens': 'value', urls: 'bool', engine: 'value', json: 'bool', timeout: 'value', cdp: 'value', target: 'value', 'url-includes': 'value',
    });
    if (args.help) return console.log(SNAPSHOT_HELP);
    if (args.engine !== undefined && !['ax', 'dom'].includes(args.engine)) throw new UsageError(`--engine must be ax or dom, got ${JSON.stringify(args.engine)}`);
    if (args._.length > 1) throw new UsageError(`snapshot takes one URL or FILE, got ${args._.length}`);
    const vendor = vendorOf(args);
    const { buildWebAiSnapshot } = await lib();
    const options = {
        provider: vendor,
        interactiveOnly: !args['no-interactive'],
        compact: !args['no-compact'],
        maxDepth: positiveInt(args['max-depth'], 'max-depth'),
        rootSelector: args['root-selector'],
        allRefs: Boolean(args['all-refs']),
        refsOnly: Boolean(args['refs-only']),
        maxTokens: positiveInt(args['max-tokens'], 'max-tokens', { min: 50 }),
        urls: Boolean(args.urls),
        engine: args.engine,
        timeoutMs: positiveInt(args.timeout, 'timeout', { min: 1 }),
    };
    const { browser, page } = await openSource(args, vendor);
    try {
        const snapshot = await buildWebAiSnapshot(page, options);
        if (!browser) saveTabState(args, snapshot);
        if (args.json) {
            console.log(JSON.stringify(snapshot, null, 2));
        } else {
            console.log(snapshot.text);
            for (const note of snapshot.notes) console.error(`# ${note}`);
        }
    } finally {
        if (browser) await browser.close().catch(() => {});
    }
}

/**
 * Where the snapshot comes from: a running browser's tab (--cdp, chosen by
 * --target or --url-includes, left as it was) or a local Chromium we start.
 */
async function openSource(args, vendor) {
    if (args.target && args['url-includes']) throw new UsageError('--target and --url-includes are alternatives; give one');
    if (!args.cdp) {
        if (args.target || args['url-includes']) throw new UsageError('--target and --url-includes need --cdp');
        return openTarget(args._[0], vendor, positiveInt(args.timeout, 'timeout', { min: 1 }));
    }
    if (args._.length) throw new UsageError('with --cdp the tab is chosen by --target or --url-includes, not by a URL');
    if (!/^(https?|wss?):\/\//.test(args.cdp)) throw new UsageError(`--cdp must be http(s)://host:port or a ws(s):// URL, got ${JSON.stringify(args.cdp)}`);
    return { browser: null, page: { cdpEndpoint: args.cdp, targetId: args.target ?? null, urlIncludes: args['url-includes'] ?? null } };
}

function contentSafeCandidate(c, hashDoctorField) {
    if (c.source !== 'snapshot-ref') return c;
    const { name, ...rest } = c;
    return { ...rest, nameHash: name ? hashDoctorField(name) : null, nameChars: name ? name.length : 0 };
}

async function doctorCommand(argv) {
    const args = parse(argv, { vendor: 'value', snapshot: 'value', json: 'bool', timeout: 'value', cdp: 'value', target: 'value', 'url-includes': 'value' });
    if (args.help) return console.log(DOCTOR_HELP);
    const vendor = vendorOf(args);
    const { buildWebAiSnapshot, summarizeSnapshotForDoctor, observeProviderTargets, editorContractForVendor, hashDoctorField } = await lib();
    if (args.snapshot !== undefined && args.snapshot !== 'interactive') throw new UsageError(`--snapshot supports only "interactive", got ${JSON.stringify(args.snapshot)}`);
    if (args._.length > 1) throw new UsageError(`doctor takes at most one URL or FILE, got ${args._.length}`);
    const report = { vendor, snapshot: null, semanticTargets: null, warnings: [] };
    let opened = null;
    try {
        if (args.cdp || args.target || args['url-includes']) opened = await openSource(args, vendor);
        else {
            try {
                opened = await openSource(args, vendor);
            } catch (err) {
                if (err instanceof UsageError || !(err instanceof WebAiError) || !err.errorCode.startsWith('page.')) throw err;
                report.warnings.push({ code: 'snapshot-failed', errorCode: err.errorCode, message: err.message });
            }
        }
        if (opened) {
            try {
                const snapshot = await buildWebAiSnapshot(opened.page, { provider: vendor, timeoutMs: positiveInt(args.timeout, 'timeout', { min: 1 }) });
                report.snapshot = summarizeSnapshotForDoctor(snapshot);
                // Over --cdp or the native browser there is no page object to count CSS fallbacks on: refs only.
                const countOn = opened.browser && !opened.native ? opened.page : null;
                const targets = await observeProviderTargets(countOn, { provider: vendor, featureMap: editorContractForVendor(vendor), snapshot });
                report.semanticTargets = Object.fromEntries(Object.entries(targets).map(([k, list]) => [k, list.map(c => contentSafeCandidate(c, hashDoctorField))]));
            } catch (err) {
                if (err instanceof UsageError) throw err;
                report.warnings.push({ code: 'snapshot-failed', errorCode: err.errorCode || 'internal.unhandled', message: err.message });
            }
        }
    } finally {
        if (opened && opened.browser) await opened.browser.close().catch(() => {});
    }
    // The report is printed either way; a page that could not be snapshotted fails the run.
    if (!report.snapshot) process.exitCode = 1;
    if (args.json) return console.log(JSON.stringify(report, null, 2));
    console.log(`vendor: ${vendor}`);
    if (report.snapshot) {
        const s = report.snapshot;
        console.log(`snapshot: ${s.interactiveCount} refs, ~${s.tokenEstimate} tokens, axHash ${s.axHash}, domHash ${s.domHash}`);
        for (const r of s.topRefs) console.log(`  ${r.ref} ${r.role} name ${r.nameHash ?? '-'} (${r.nameChars} chars)`);
    }
    for (const [feature, list] of Object.entries(report.semanticTargets || {})) {
        const best = list[0];
        const shown = !best ? 'not found' : best.source === 'css' ? `css ${best.selector} ×${best.count}` : `${best.ref} ${best.role} (confidence ${best.confidence})`;
        console.log(`target ${feature}: ${shown}`);
    }
    for (const w of report.warnings) console.log(`warning ${w.code}: ${w.errorCode}`);
}

// ----- acting on a --cdp tab by the refs of the last snapshot printed for it -----

/** Where the refs of the last snapshot printed for a tab are kept between commands. */
function tabStatePath(args) {
    const key = JSON.stringify([args.cdp, args.target ?? null, args['url-includes'] ?? null]);
    const dir = join(process.env.WEB_AI_SNAPSHOT_STATE_DIR || join(tmpdir(), 'web-ai-snapshot'), 'tabs');
    return join(dir, `${createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`);
}

function saveTabState(args, snapshot) {
    if (!snapshot) return;
    const path = tabStatePath(args);
    const refs = Object.fromEntries(Object.values(snapshot.refs).map(r => [r.ref, { role: r.role, name: r.name, backendNodeId: r.backendNodeId ?? null, frameId: r.frameId ?? null }]));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify({ endpoint: args.cdp, snapshotId: snapshot.snapshotId, url: snapshot.url, refs }));
}

function loadTabState(args) {
    const path = tabStatePath(args);
    if (!existsSync(path)) return null;
    try {
        return JSON.parse(readFileSync(path, 'utf8'));
    } catch {
        return null;
    }
}

function refError(native, code, message, evidence) {
    return new WebAiError(native.errorPayload(code, message, evidence));
}

/**
 * The ref of the fresh snapshot that is the element `ref` named in the last
 * snapshot printed for this tab: the same node (backend id and frame), still
 * with its role and name (a minor change is a note).
 */
function carryRef(native, previous, ref, fresh) {
    const was = previous.refs[ref];
    if (!was) {
        throw refError(native, 'snapshot.ref-not-found', `${ref} is not in the last snapshot of this tab (${Object.keys(previous.refs).length} refs)`, { ref });
    }
    const now = Object.values(fresh.refs).find(r => r.backendNodeId === was.backendNodeId && (r.frameId ?? null) === (was.frameId ?? null));
    if (!now || was.backendNodeId == null) {
        throw refError(native, 'snapshot.ref-stale', native.goneMessage(was.role, was.name, ref), { ref, was });
    }
    const v = native.verifyIdentity(was.role, was.name, now.role, now.name);
    if (v.verdict === 'changed') throw refError(native, 'snapshot.ref-stale', v.message, { ref, was, now: { role: now.role, name: now.name } });
    return { ref: now.ref, note: v.verdict === 'minor' ? v.message : null };
}

async function actCommand(action, argv) {
    const args = parse(argv, {
        cdp: 'value', target: 'value', 'url-includes': 'value', json: 'bool', timeout: 'value', append: 'bool', direction: 'value', amount: 'value',
    });
    if (args.help) return console.log(ACT_HELP);
    if (!args.cdp) throw new UsageError(`${action} acts on a running browser's tab: give --cdp ENDPOINT`);
    if (args.target && args['url-includes']) throw new UsageError('--target and --url-includes are alternatives; give one');
    if (!/^(https?|wss?):\/\//.test(args.cdp)) throw new UsageError(`--cdp must be http(s)://host:port or a ws(s):// URL, got ${JSON.stringify(args.cdp)}`);
    const needsValue = action === 'fill' || action === 'select';
    const [ref, value, ...extra] = args._;
    const pageScroll = action === 'scroll' && args.direction !== undefined;
    if (pageScroll ? args._.length : !ref) throw new UsageError(pageScroll ? 'scroll takes a REF or --direction, not both' : `${action} needs a REF (like @e3)${action === 'scroll' ? ' or --direction' : ''}`);
    if (!pageScroll && !/^@?e\d+$/.test(ref)) throw new UsageError(`REF must look like @e3, got ${JSON.stringify(ref)}`);
    if (needsValue && value === undefined) throw new UsageError(`${action} needs a VALUE after the REF`);
    if (extra.length || (!needsValue && value !== undefined && !pageScroll)) throw new UsageError(`too many arguments for ${action}`);
    if (action !== 'fill' && args.append) throw new UsageError('--append is for fill');
    if (action !== 'scroll' && (args.direction !== undefined || args.amount !== undefined)) throw new UsageError('--direction and --amount are for scroll');
    const source = { cdpEndpoint: args.cdp, targetId: args.target ?? null, urlIncludes: args['url-includes'] ?? null };
    const timeoutMs = positiveInt(args.timeout, 'timeout', { min: 1 });
    const { native, buildWebAiSnapshot, runAction } = await lib();
    const fresh = await buildWebAiSnapshot(source);
    const toolArgs = {};
    let note = null;
    if (pageScroll) {
        toolArgs.direction = args.direction;
        if (args.amount !== undefined) toolArgs.amount = positiveInt(args.amount, 'amount');
    } else {
        const previous = loadTabState(args);
        if (!previous) {
            throw refError(native, 'snapshot.ref-not-found', 'no earlier snapshot of this tab: run `web-ai-snapshot snapshot --cdp …` with the same --target or --url-includes first', { ref });
        }
        const carried = carryRef(native, previous, native.normalizeRef(ref), fresh);
        toolArgs.ref = carried.ref;
        note = carried.note;
        if (needsValue) toolArgs.value = value;
        if (args.append) toolArgs.clear_first = false;
    }
    const result = await runAction(source, fresh, action, toolArgs, { timeoutMs });
    saveTabState(args, result.snapshot);
    if (args.json) {
        console.log(JSON.stringify(result, null, 2));
    } else if (result.snapshot) {
        console.log(result.snapshot.text);
        for (const n of result.snapshot.notes) console.error(`# ${n}`);
    }
    if (note) console.error(`# ${note}`);
    if (!result.success) {
        const e = new Error(result.message);
        e.code = result.error;
        throw e;
    }
}

async function mcpCommand(argv) {
    const args = parse(argv, {
        headless: 'bool', headed: 'bool', 'executable-path': 'value', 'user-data-dir': 'value', isolated: 'bool', cdp: 'value', port: 'value',
        'allow-evaluate': 'bool', 'allow-file-urls': 'bool', 'allowed-origins': 'value', 'blocked-origins': 'value', 'output-dir': 'value',
        'navigation-timeout': 'value',
    });
    if (args.help) return console.log(MCP_HELP);
    if (args._.length) throw new UsageError(`mcp takes no positional arguments, got ${JSON.stringify(args._[0])}`);
    if (args.headless && args.headed) throw new UsageError('--headless and --headed are alternatives; give one');
    if (args.isolated && args['user-data-dir']) throw new UsageError('--isolated and --user-data-dir are alternatives; give one');
    if (args.cdp && !/^(https?|wss?):\/\//.test(args.cdp)) throw new UsageError(`--cdp must be http(s)://host:port or a ws(s):// URL, got ${JSON.stringify(args.cdp)}`);
    if (args.cdp && (args['executable-path'] || args['user-data-dir'] || args.headless || args.headed)) throw new UsageError('--cdp attaches to a running browser: --executable-path, --user-data-dir, --headless and --headed are for one the server launches');
    const port = positiveInt(args.port, 'port', { min: 0 });
    const navigationTimeoutMs = positiveInt(args['navigation-timeout'], 'navigation-timeout', { min: 1 });
    const { parseOriginRules } = await import('../lib/agent/host.mjs');
    for (const flag of ['allowed-origins', 'blocked-origins']) {
        try {
            parseOriginRules(args[flag]);
        } catch (err) {
            throw new UsageError(`--${flag}: ${err.message}`);
        }
    }
    const { runMcpServer } = await import('../lib/agent/mcp.mjs');
    const server = await runMcpServer({
        cdp: args.cdp,
        executablePath: args['executable-path'],
        headless: args.headed ? false : args.headless ? true : undefined,
        userDataDir: args['user-data-dir'] ? resolve(args['user-data-dir']) : undefined,
        allowEvaluate: Boolean(args['allow-evaluate']),
        allowFileUrls: Boolean(args['allow-file-urls']),
        allowedOrigins: args['allowed-origins'],
        blockedOrigins: args['blocked-origins'],
        outputDir: args['output-dir'] ? resolve(args['output-dir']) : undefined,
        navigationTimeoutMs,
        port,
    }, { version: version() });
    if (server) {
        console.error(`web-ai-snapshot MCP server on http://127.0.0.1:${server.address().port}/mcp`);
        await new Promise(() => {});
    }
}

// ----- the agent CLI: a kept browser, driven from new processes -----

async function daemonModule() {
    return import('../lib/agent/daemon.mjs');
}

async function callKept(tool, args) {
    const { request } = await daemonModule();
    const r = await request({ tool, args });
    if (!r) throw new UsageError('no kept browser is running: start one with `web-ai-snapshot open URL`');
    return r;
}

async function openCommand(argv) {
    const args = parse(argv, { headed: 'bool', 'executable-path': 'value', 'user-data-dir': 'value' });
    if (args.help) return console.log(AGENT_HELP);
    if (args._.length !== 1) throw new UsageError('open takes one URL or FILE');
    const url = urlOf(args._[0]);
    const { request, startDaemon } = await daemonModule();
    if (!(await request({ tool: 'ping' }))) {
        const extra = [];
        if (args.headed) extra.push('--headed');
        if (args['executable-path']) extra.push('--executable-path', args['executable-path']);
        if (args['user-data-dir']) extra.push('--user-data-dir', resolve(args['user-data-dir']));
        await startDaemon(fileURLToPath(import.meta.url), extra);
    }
    printKept({ tool: 'browser_navigate' }, await callKept('browser_navigate', { url }));
}

async function daemonCommand(argv) {
    const args = parse(argv, { headed: 'bool', 'executable-path': 'value', 'user-data-dir': 'value' });
    const { runDaemon } = await daemonModule();
    await runDaemon({ headless: args.headed ? false : undefined, executablePath: args['executable-path'], userDataDir: args['user-data-dir'] });
    await new Promise(() => {});
}

/** A command of the agent CLI, sent to the kept browser's daemon. */
async function agentCommand(command, argv) {
    const call = agentCall(command, argv);
    if (call.help) return console.log(AGENT_HELP);
    if (call.tool === 'close') {
        const { request } = await daemonModule();
        const r = await request({ tool: 'close' });
        return console.log(r ? r.text : 'No kept browser was running.');
    }
    printKept(call, await callKept(call.tool, call.args));
}

/** Print what a kept-browser command prints for its answer (a failed action exits 1). */
function printKept(call, r) {
    const out = agentOutput(call, r);
    process.stdout.write(out.stdout);
    if (out.code) process.exitCode = out.code;
}

/** Is a kept browser running (its daemon answers)? */
async function keptRunning() {
    const { request } = await daemonModule();
    return Boolean(await request({ tool: 'ping' }, { timeoutMs: 2000 }).catch(() => null));
}

function version() {
    return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
}

async function main(argv) {
    const [command, ...rest] = argv;
    if (!command || command === '-h' || command === '--help') return console.log(MAIN_HELP);
    if (command === '--version' || command === '-v') return console.log(version());
    if (command === 'mcp') return mcpCommand(rest);
    if (command === 'open') return openCommand(rest);
    if (command === 'agent-daemon') return daemonCommand(rest);
    const flagged = rest.some(a => a === '--cdp' || a.startsWith('--cdp='));
    if (command === 'snapshot') {
        if (keptBrowserCommand(command, rest)) {
            if (await keptRunning()) return agentCommand('snapshot', rest);
            // An agent whose kept browser went (`close`, a reboot) must not take the demo page for its own.
            console.error('# no kept browser is running, so this is the bundled look-alike page; `web-ai-snapshot open URL` starts a browser the next commands act on');
        }
        return snapshotCommand(rest);
    }
    if (command === 'doctor') return doctorCommand(rest);
    if (['click', 'fill', 'select', 'scroll'].includes(command) && (flagged || rest.includes('-h') || rest.includes('--help'))) return actCommand(command, rest);
    if (AGENT_COMMANDS.includes(command)) {
        return agentCommand(command, rest);
    }
    throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${MAIN_HELP}`);
}

const argv = process.argv.slice(2);
const asJson = argv.includes('--json');
main(argv).then(
    () => process.exit(process.exitCode ?? 0),
    err => {
        const usage = err instanceof UsageError;
        const code = usage ? 'usage' : err instanceof WebAiError ? err.errorCode : typeof err?.code === 'string' && /^[a-z_]+$/.test(err.code) ? err.code : 'internal.unhandled';
        const message = err && err.message ? (usage ? err.message : err.message.split('\n')[0]) : String(err);
        if (asJson) {
            const error = err instanceof WebAiError ? err.toJSON() : { errorCode: code, message };
            console.log(JSON.stringify({ error }, null, 2));
        } else {
            console.error(usage ? `usage: ${message}` : `${code}: ${message}`);
        }
        process.exit(usage ? 2 : 1);
    },
);
