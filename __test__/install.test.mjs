// The package as a user gets it: `npm pack` of the root and of this
// platform's binary package, installed into an empty folder with no Rust on
// PATH and no playwright-core, then used from there: every subpath by import
// and require, the CLI (the native client in place of its bin; --help,
// --version, a snapshot of the bundled page through the JS CLI),
// TypeScript consumers under each module resolution, and the package linters.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { root } from './helpers.mjs';

const SUBPATHS = ['', '/ax-snapshot', '/ref-registry', '/observe-targets', '/vendor-editor-contract', '/dom-hash', '/errors', '/actions', '/tools', '/session'];
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const binary = readdirSync(root).find(f => /^web-ai-snapshot\.linux-x64-gnu\.node$/.test(f));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let work;
let app;
let env;

function run(cmd, args, opts = {}) {
    const r = spawnSync(cmd, args, { encoding: 'utf8', env, timeout: 120000, ...opts });
    return { status: r.status, stdout: r.stdout || '', stderr: (r.stderr || '') + (r.error ? String(r.error) : '') };
}

function ok(r, what) {
    assert.equal(r.status, 0, `${what}\n${r.stdout}\n${r.stderr}`);
    return r;
}

before(() => {
    work = mkdtempSync(join(tmpdir(), 'web-ai-install-'));
    app = join(work, 'app');
    // No Rust (cargo, rustc) on PATH: an install must not build anything.
    const path = String(process.env.PATH || '').split(delimiter).filter(d => !/\.cargo|rustup/.test(d)).join(delimiter);
    env = { ...process.env, PATH: path, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
    delete env.CARGO_HOME;
    delete env.RUSTUP_HOME;
});

after(() => { if (work) rmSync(work, { recursive: true, force: true }); });

test('npm pack and install into an empty folder, then import, require, run the CLI and type-check', { skip: process.platform !== 'linux' || process.arch !== 'x64' ? 'the binary package tested here is linux-x64-gnu' : false }, () => {
    assert.ok(binary, 'the addon is built (npm test builds it first)');
    // The platform package, as the release pipeline assembles it.
    const platformDir = join(work, 'linux-x64-gnu');
    cpSync(join(root, 'npm', 'linux-x64-gnu'), platformDir, { recursive: true });
    copyFileSync(join(root, binary), join(platformDir, binary));
    // The agent CLI's native client (the release pipeline puts a release build here).
    copyFileSync(join(root, 'target', 'debug', 'web-ai-snapshot-client'), join(platformDir, 'web-ai-snapshot-client'));
    const packs = join(work, 'packs');
    mkdirSync(packs);
    ok(run(npm, ['pack', '--pack-destination', packs], { cwd: root }), 'npm pack (root)');
    ok(run(npm, ['pack', '--pack-destination', packs], { cwd: platformDir }), 'npm pack (linux-x64-gnu)');
    const tarballs = readdirSync(packs).map(f => join(packs, f));
    assert.equal(tarballs.length, 2, tarballs.join(', '));
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
    ok(run(npm, ['install', '--no-save', ...tarballs], { cwd: app }), 'npm install of the two tarballs');
    assert.ok(!readdirSync(join(app, 'node_modules')).includes('playwright-core'), 'playwright-core is an optional peer, not installed');

    // Every subpath, both ways, each in a fresh process (none leans on another's loading):
    // require, then import.
    for (const sub of SUBPATHS) {
        const name = JSON.stringify(`${pkg.name}${sub}`);
        const script = `const c = require(${name}); if (!Object.keys(c).length) process.exit(3);
import(${name}).then(m => { if (!Object.keys(m).length) process.exit(4); }, e => { console.error(e); process.exit(5); });`;
        ok(run(process.execPath, ['-e', script], { cwd: app }), `require and import ${pkg.name}${sub}`);
    }

    // The install put the native client in place of the JS bin (lib/agent/install-client.cjs);
    // it hands the commands below to the JS CLI beside it.
    const installedBin = realpathSync(join(app, 'node_modules', '.bin', 'web-ai-snapshot'));
    assert.equal(readFileSync(installedBin).subarray(0, 4).toString('latin1'), '\x7fELF', 'the bin is the native client');
    assert.equal(ok(run(installedBin, ['--client-version'], { cwd: app }), 'the client').stdout.trim(), `web-ai-snapshot-client ${pkg.version}`);

    // The CLI as installed (npm exec once below, as a user runs it: each npm start costs about a CPU-second).
    const help = ok(run(installedBin, ['--help'], { cwd: app }), 'web-ai-snapshot --help');
    assert.match(help.stdout, /Usage: web-ai-snapshot/);
    const version = ok(run(installedBin, ['--version'], { cwd: app }), 'web-ai-snapshot --version');
    assert.equal(version.stdout.trim(), pkg.version);
    const snap = ok(run(npm, ['exec', '--', 'web-ai-snapshot', 'snapshot'], { cwd: app }), 'web-ai-snapshot snapshot (no playwright-core: the native browser path)');
    assert.match(snap.stdout, /^- document "ChatGPT":/);
    assert.match(snap.stdout, /textbox "Message ChatGPT" \[ref=@e\d+\]/);

    // TypeScript consumers under each module resolution, against the installed types.
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const esmConsumer = `import { buildWebAiSnapshot, WebAiError, type WebAiSnapshot } from '${pkg.name}';
import { createRefRegistry, type RefRegistry } from '${pkg.name}/ref-registry';
import { wrapError } from '${pkg.name}/errors';
import { runAction } from '${pkg.name}/actions';
import { createBrowserTools } from '${pkg.name}/tools';
import { normalizeDomForHash } from '${pkg.name}/dom-hash';
import { observeProviderTargets } from '${pkg.name}/observe-targets';
import { editorContractForVendor } from '${pkg.name}/vendor-editor-contract';
import { estimateSnapshotTokens } from '${pkg.name}/ax-snapshot';
export async function go(page: unknown): Promise<number> {
    const s: WebAiSnapshot = await buildWebAiSnapshot({ cdpEndpoint: 'http://127.0.0.1:9222' });
    const r: RefRegistry = createRefRegistry(s);
    void [r.refs, wrapError(new Error('x')) instanceof WebAiError, runAction, createBrowserTools, normalizeDomForHash('<p>'), observeProviderTargets, editorContractForVendor('gemini'), page];
    return estimateSnapshotTokens(s.text);
}
`;
    const cjsConsumer = esmConsumer.replace("import { buildWebAiSnapshot, WebAiError, type WebAiSnapshot } from '" + pkg.name + "';",
        `import { buildWebAiSnapshot, WebAiError, type WebAiSnapshot } from '${pkg.name}';`);
    const configs = [
        ['node16', { module: 'Node16', moduleResolution: 'Node16' }, 'consumer.mts', esmConsumer],
        ['nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext' }, 'consumer.mts', esmConsumer],
        ['bundler', { module: 'ESNext', moduleResolution: 'Bundler' }, 'consumer.ts', esmConsumer],
        ['commonjs/node10', { module: 'CommonJS', moduleResolution: 'Node10' }, 'consumer.ts', cjsConsumer],
        ['node16 from CommonJS', { module: 'Node16', moduleResolution: 'Node16' }, 'consumer.cts', cjsConsumer],
    ];
    const projects = [];
    for (const [label, options, file, source] of configs) {
        const dir = join(app, `ts-${label.replace(/\W+/g, '-')}`);
        mkdirSync(dir);
        writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
        writeFileSync(join(dir, file), source);
        writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
            // Our declaration files are checked (skipLibCheck off); TypeScript's own lib files are not ours to check.
            compilerOptions: { target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false, skipDefaultLibCheck: true, types: [], ...options },
            files: [file],
        }));
        projects.push(dir);
    }
    // One compiler for every project (build mode): each is checked under its own options, and
    // TypeScript's lib files are read once, not once a project as five `tsc -p` would.
    const r = run(process.execPath, [tsc, '-b', ...projects], { cwd: app });
    assert.equal(r.status, 0, `tsc -b (${configs.map(c => c[0]).join(', ')})\n${r.stdout}\n${r.stderr}`);

    // The package linters, on the tarball users get.
    const rootTarball = tarballs.find(t => !t.includes('linux-x64-gnu'));
    const attw = run(process.execPath, [join(root, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js'), rootTarball], { cwd: root });
    assert.equal(attw.status, 0, `attw\n${attw.stdout}\n${attw.stderr}`);
    assert.match(attw.stdout, /No problems found/);
    const publint = run(process.execPath, [join(root, 'node_modules', 'publint', 'src', 'cli.js'), root], { cwd: root });
    assert.equal(publint.status, 0, `publint\n${publint.stdout}\n${publint.stderr}`);
    assert.match(publint.stdout, /All good/);
});
