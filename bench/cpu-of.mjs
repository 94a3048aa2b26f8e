// The CPU seconds a command and every process it starts spend (user and
// system), as the kernel counts them for a child once it has exited: how a
// test file's cost, Chromium's included, is compared before and after a
// change on a shared machine, whose other tenants do not count. Linux only.
//
//   node bench/cpu-of.mjs COMMAND [ARGS...]
//   node bench/cpu-of.mjs node --test __test__/incremental.test.mjs
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** CPU seconds of this process's ended children so far (/proc/self/stat: cutime, cstime). */
function childrenCpu() {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const [cutime, cstime] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(13, 15).map(Number);
    return (cutime + cstime) / 100;
}

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
    console.error('usage: node bench/cpu-of.mjs COMMAND [ARGS...]');
    process.exit(2);
}
const t0 = performance.now();
const r = spawnSync(cmd, args, { stdio: 'inherit' });
const cpu = childrenCpu();
console.log(`${[cmd, ...args].join(' ')}: ${cpu.toFixed(1)} CPU-s in ${((performance.now() - t0) / 1000).toFixed(1)} s (exit ${r.status ?? r.signal})`);
process.exitCode = r.status ?? 1;
