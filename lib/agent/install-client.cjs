'use strict';
// The package's postinstall: put the agent CLI's native client (client/,
// shipped in this platform's binary package) in place of the JS `bin` shim,
// so that `web-ai-snapshot click @e4` costs the action and not Node's start
// (README, "The agent CLI's cost per command").
//
// It never fails an install. It leaves the JS shim, which runs every
// command, when: the platform is Windows (the bin must be a .cmd there);
// Yarn installs (Plug'n'Play runs bins through Node); the platform package
// ships no client or is absent (a clone, --omit=optional); or the copied
// client does not answer its version check. `--ignore-scripts` skips this.
const { spawnSync } = require('node:child_process');
const { chmodSync, copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { platformPackage } = require('../platform-package.cjs');

const pkgRoot = join(__dirname, '..', '..');

function clientOf(pkg) {
    try {
        const dir = dirname(require.resolve(`${pkg}/package.json`, { paths: [pkgRoot] }));
        const file = join(dir, 'web-ai-snapshot-client');
        return existsSync(file) ? file : null;
    } catch {
        return null;
    }
}

/** Does the executable at `file` answer as the client of this package's version? */
function answers(file, version) {
    const r = spawnSync(file, ['--client-version'], { encoding: 'utf8', timeout: 10000 });
    return r.status === 0 && r.stdout.trim() === `web-ai-snapshot-client ${version}`;
}

function install() {
    if (process.platform === 'win32') return 'Windows runs the JS bin';
    if (String(process.env.npm_config_user_agent || '').startsWith('yarn')) return 'Yarn runs the JS bin';
    const client = clientOf(platformPackage());
    if (!client) return `${platformPackage()} ships no native client here`;
    const { version } = JSON.parse(readFileSync(join(pkgRoot, 'package.json'), 'utf8'));
    const bin = join(pkgRoot, 'bin', 'web-ai-snapshot');
    const shim = readFileSync(bin);
    const staged = join(pkgRoot, 'bin', '.web-ai-snapshot-client');
    copyFileSync(client, staged);
    chmodSync(staged, 0o755);
    if (!answers(staged, version)) {
        rmSync(staged, { force: true });
        return 'the native client did not answer its version check';
    }
    // rename is atomic: the bin is the shim or the client, never half of one.
    renameSync(staged, bin);
    if (!answers(bin, version)) {
        writeFileSync(bin, shim, { mode: 0o755 });
        return 'the native client did not run in place of the bin';
    }
    return null;
}

try {
    const kept = install();
    if (kept && process.env.WEB_AI_SNAPSHOT_INSTALL_DEBUG) console.error(`web-ai-snapshot: the JS bin stays: ${kept}`);
} catch (err) {
    if (process.env.WEB_AI_SNAPSHOT_INSTALL_DEBUG) console.error(`web-ai-snapshot: the JS bin stays: ${err && err.message}`);
}
