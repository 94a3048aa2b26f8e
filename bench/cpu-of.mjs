// The CPU seconds a command and every process it starts spend (user and
// system), as the kernel counts them for a child once it has exited: how a
// test file's cost, Chromium's included, is compared before and after a
// change on a shared machine, whose other tenants do not count. Linux only.
// A process whose parent exits first is no longer counted there (Chromium's
// renderers can be, when the browser ends before them), so the machine's own
// busy time over the run (/proc/stat) is printed too: on an otherwise idle
// machine it holds every process (it read 42 CPU-s for mcp.test.mjs, where
// its children's counted 29).
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
/** CPU seconds every processor of the machine has been busy since boot (/proc/stat: all but idle and iowait). */
function machineBusy() {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) / 100;
}

const t0 = performance.now();
const busy0 = machineBusy();
const r = spawnSync(cmd, args, { stdio: 'inherit' });
const cpu = childrenCpu();
const busy = machineBusy() - busy0;
console.log(`${[cmd, ...args].join(' ')}: ${cpu.toFixed(1)} CPU-s in ${((performance.now() - t0) / 1000).toFixed(1)} s (exit ${r.status ?? r.signal}); the machine was busy ${busy.toFixed(1)} CPU-s`);
process.exitCode = r.status ?? 1;
