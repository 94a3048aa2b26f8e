// The agent CLI's command lines (`click @e4`, `fill @e7 Ada`, `tabs new URL`,
// …) as tool calls of the kept browser, and the tools' answers as what the
// command prints. The JS CLI uses these before it sends a call, and the
// daemon uses them for the native client, which sends the raw command line:
// a command reads and prints the same whichever client ran it.
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** A command line the CLI cannot run as written (exit code 2). */
export class UsageError extends Error {}

/**
 * Parse `argv` with node:util's parseArgs: `spec` maps each long option to
 * 'bool' or 'value'; -h/--help is always known. Parse errors are usage errors.
 */
export function parse(argv, spec) {
    const options = { help: { type: 'boolean', short: 'h' } };
    for (const [name, kind] of Object.entries(spec)) options[name] = { type: kind === 'bool' ? 'boolean' : 'string' };
    let parsed;
    try {
        parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    } catch (err) {
        throw new UsageError(err.message.split('\n')[0].split('. To specify')[0]);
    }
    return { ...parsed.values, _: parsed.positionals };
}

export function positiveInt(v, flag, { min = 0 } = {}) {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v) || Number(v) < min) throw new UsageError(`--${flag} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
    return Number(v);
}

/** A URL as typed, a file (relative to `cwd`) or a bare host name, as a URL. */
export function urlOf(target, cwd = process.cwd()) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) && !/^[a-z]:\\/i.test(target)) return target;
    const file = resolve(cwd, target);
    if (existsSync(file)) return pathToFileURL(file).href;
    if (/^[\w-]+(\.[\w-]+)+(:\d+)?(\/.*)?$/.test(target)) return `https://${target}`;
    throw new UsageError(`no such file: ${target}`);
}

/** The commands that act on the kept browser (`open` starts it; `snapshot` only without a target). */
export const AGENT_COMMANDS = ['snapshot', 'click', 'fill', 'select', 'type', 'press', 'hover', 'scroll', 'wait', 'tabs', 'screenshot', 'navigate', 'back', 'forward', 'reload', 'dialog', 'close'];

/**
 * The next steps the daemon's replies name, as commands (the host names
 * tools by default: `TOOL_STEPS` in `host.mjs`).
 */
export const CLI_STEPS = {
    dialog: '`web-ai-snapshot dialog accept [TEXT]` or `web-ai-snapshot dialog dismiss`',
    newTab: '`web-ai-snapshot tabs new [URL]`',
    selectTab: '`web-ai-snapshot tabs select N`',
    reload: '`web-ai-snapshot reload`',
    navigate: '`web-ai-snapshot navigate URL`',
    snapshot: '`web-ai-snapshot snapshot`',
};

const HELP_OR_OTHER_BROWSER = a => a === '-h' || a === '--help' || a === '--json' || a === '--cdp' || a.startsWith('--cdp=');

/**
 * Does this command line act on the kept browser, as the daemon serves it?
 * Not with --help (the JS CLI prints it), --cdp (another browser) or --json;
 * `snapshot` only with no target and no option but --viewport.
 */
export function keptBrowserCommand(command, rest) {
    if (!AGENT_COMMANDS.includes(command) || rest.some(HELP_OR_OTHER_BROWSER)) return false;
    if (command === 'snapshot') return rest.every(a => a === '--viewport');
    return true;
}

/**
 * The tool call a command line makes: `{ tool, args }` (and `file` for a
 * screenshot), or `{ help: true }`. Usage errors throw a UsageError.
 */
export function agentCall(command, argv, cwd = process.cwd()) {
    const args = parse(argv, { viewport: 'bool', submit: 'bool', direction: 'value', amount: 'value', timeout: 'value', 'stability-window': 'value', 'full-page': 'bool' });
    if (args.help) return { help: true };
    const [a, b, ...extra] = args._;
    const need = (n, what) => {
        if (args._.length !== n) throw new UsageError(`${command} takes ${what}`);
    };
    switch (command) {
        case 'snapshot':
            need(0, 'no arguments when it shows the kept browser');
            return { tool: 'get_snapshot', args: { viewport_only: Boolean(args.viewport) } };
        case 'click':
        case 'hover':
            need(1, 'one REF');
            return { tool: `browser_${command}`, args: { ref: a } };
        case 'fill':
        case 'select':
            need(2, 'a REF and a VALUE');
            return { tool: `browser_${command}`, args: { ref: a, value: b, ...(args.submit ? { submit: true } : {}) } };
        case 'type':
            need(2, 'a REF and a TEXT');
            return { tool: 'browser_type', args: { ref: a, text: b, ...(args.submit ? { submit: true } : {}) } };
        case 'press':
            need(1, 'one KEY (Enter, Tab, Control+a, …)');
            return { tool: 'browser_press_key', args: { key: a } };
        case 'scroll':
            if (args.direction === undefined) need(1, 'a REF or --direction');
            else need(0, 'a REF or --direction, not both');
            return { tool: 'browser_scroll', args: a ? { ref: a } : { direction: args.direction, ...(args.amount ? { amount: positiveInt(args.amount, 'amount', { min: 1 }) } : {}) } };
        case 'wait':
            need(0, 'no arguments');
            return {
                tool: 'wait_for_ui_change',
                args: {
                    ...(args.timeout ? { timeout_ms: positiveInt(args.timeout, 'timeout') } : {}),
                    ...(args['stability-window'] ? { stability_window_ms: positiveInt(args['stability-window'], 'stability-window') } : {}),
                },
            };
        case 'tabs': {
            if (!a) return { tool: 'browser_tabs', args: { action: 'list' } };
            if (a === 'new') return { tool: 'browser_tabs', args: { action: 'new', ...(b ? { url: urlOf(b, cwd) } : {}) } };
            if (a === 'select' || a === 'close') {
                need(2, `${a} N`);
                return { tool: 'browser_tabs', args: { action: a, index: positiveInt(b, 'index', { min: 1 }) } };
            }
            throw new UsageError('tabs takes nothing (list), new [URL], select N or close N');
        }
        case 'screenshot':
            if (extra.length || b !== undefined) throw new UsageError('screenshot takes at most one FILE');
            return { tool: 'browser_screenshot', args: args['full-page'] ? { full_page: true } : {}, file: a };
        case 'navigate':
            need(1, 'one URL');
            return { tool: 'browser_navigate', args: { url: urlOf(a, cwd) } };
        case 'back':
        case 'forward':
        case 'reload':
            need(0, 'no arguments');
            return { tool: 'browser_navigate', args: { url: command } };
        case 'dialog':
            // accept [TEXT] (a prompt's answer) | dismiss
            if (a === 'accept' && args._.length <= 2) return { tool: 'browser_handle_dialog', args: { accept: true, ...(b !== undefined ? { prompt_text: b } : {}) } };
            if (a === 'dismiss' && args._.length === 1) return { tool: 'browser_handle_dialog', args: { accept: false } };
            throw new UsageError('dialog takes accept [TEXT] (TEXT answers a prompt) or dismiss');
        case 'close':
            return { tool: 'close', args: {} };
        default:
            throw new UsageError(`unknown command ${command}`);
    }
}

/**
 * What a command prints for a tool's answer `r`: `{ stdout, code }` (a
 * failed action exits 1). A screenshot is saved to its file (relative to
 * `cwd`; a new name when none was given) and the line says where.
 */
export function agentOutput(call, r, cwd = process.cwd()) {
    if (call.tool === 'browser_screenshot' && r.image) {
        const file = resolve(cwd, call.file || `screenshot-${Date.now()}.png`);
        writeFileSync(file, Buffer.from(r.image.data, 'base64'));
        return { stdout: `${r.text} Saved to ${file}\n`, code: 0 };
    }
    return { stdout: `${r.text}\n`, code: r.isError ? 1 : 0 };
}
