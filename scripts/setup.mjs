#!/usr/bin/env node
// Everything the quick-start commands need, done only when missing or stale:
// npm dependencies, a local Chromium (Debian's package when absent), the
// native addon (rebuilt when a Rust source is newer than the binary) and the
// agent CLI's native client.
//
//   node scripts/setup.mjs             # debug addon is fine
//   node scripts/setup.mjs --release   # the benchmark wants a release addon
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const release = process.argv.includes('--release');
const wantBrowser = !process.argv.includes('--no-browser');

function run(cmd, args, opts = {}) {
    console.error(`[setup] ${cmd} ${args.join(' ')}`);
    const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], ...opts });
    if (r.error) throw new Error(`${cmd} could not start: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`);
}

function has(cmd) {
    return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function ensureNodeModules() {
    const needed = ['playwright-core', '@napi-rs/cli', 'typescript', 'gpt-tokenizer'];
    if (needed.every(p => existsSync(join(root, 'node_modules', p, 'package.json')))) return;
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    run(npm, ['install', '--no-audit', '--no-fund']);
}

async function ensureChromium() {
    const { findChromium } = await import('../lib/chromium.mjs');
    try {
        findChromium();
        return;
    } catch (err) {
        if (process.env.CHROME_PATH || process.platform !== 'linux' || !has('apt-get')) throw err;
    }
    const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const sudo = asRoot ? [] : has('sudo') ? ['sudo'] : null;
    if (!sudo) throw new Error('Chromium is missing and apt-get needs root: install it with `apt-get install -y chromium` or set CHROME_PATH');
    const apt = (args) => (sudo.length ? run('sudo', ['apt-get', ...args]) : run('apt-get', args));
    apt(['update', '-qq']);
    apt(['install', '-y', '-qq', 'chromium']);
    findChromium();
}

function newestMtime(paths) {
    let newest = 0;
    const stack = [...paths];
    while (stack.length) {
        const p = stack.pop();
        if (!existsSync(p)) continue;
        const st = statSync(p);
        if (st.isDirectory()) for (const e of readdirSync(p)) stack.push(join(p, e));
        else newest = Math.max(newest, st.mtimeMs);
    }
    return newest;
}

function ensureAddon() {
    const binaries = readdirSync(root).filter(f => /^web-ai-snapshot\..+\.node$/.test(f));
    const stampPath = join(root, 'target', 'web-ai-snapshot-build.json');
    const stamp = existsSync(stampPath) ? JSON.parse(readFileSync(stampPath, 'utf8')) : null;
    const built = binaries.length ? Math.min(...binaries.map(b => statSync(join(root, b)).mtimeMs)) : 0;
    const sources = newestMtime(['src', 'Cargo.toml', 'Cargo.lock', 'build.rs'].map(p => join(root, p)));
    // The stamp records the binary it describes: one rebuilt outside this
    // script (`npm run build:debug`) is of an unknown profile.
    const foreign = !stamp || stamp.binaryMtimeMs !== built;
    const stale = !binaries.length || sources > built || foreign || (release && stamp.profile !== 'release');
    if (!stale) return;
    const napi = join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js');
    const args = [napi, 'build', '--platform', '--features', 'napi', '--js', 'native.cjs', '--dts', 'index.d.ts'];
    if (release) args.splice(3, 0, '--release');
    run(process.execPath, args);
    mkdirSync(join(root, 'target'), { recursive: true });
    const binaryMtimeMs = Math.min(...readdirSync(root).filter(f => /^web-ai-snapshot\..+\.node$/.test(f)).map(b => statSync(join(root, b)).mtimeMs));
    writeFileSync(stampPath, JSON.stringify({ profile: release ? 'release' : 'debug', binaryMtimeMs, at: new Date().toISOString() }));
}

/**
 * The agent CLI's native client (client/), at target/<profile>/: the agent
 * CLI tests run it, and bench/cli.mjs times it. cargo rebuilds only when stale.
 */
function ensureClient() {
    const exe = join(root, 'target', release ? 'release' : 'debug', process.platform === 'win32' ? 'web-ai-snapshot-client.exe' : 'web-ai-snapshot-client');
    const built = existsSync(exe) ? statSync(exe).mtimeMs : 0;
    if (built && newestMtime(['client', 'Cargo.lock'].map(p => join(root, p))) <= built) return;
    run('cargo', ['build', '-p', 'web-ai-snapshot-client', ...(release ? ['--release'] : [])]);
}

try {
    ensureNodeModules();
    if (wantBrowser) await ensureChromium();
    ensureAddon();
    ensureClient();
} catch (err) {
    console.error(`[setup] failed: ${err.message}`);
    process.exit(1);
}
