#!/usr/bin/env node
// Checks a Linux addon binary the way users' machines will see it:
//   - glibc builds need no GLIBC_ symbol version newer than --max-glibc (2.17,
//     the oldest glibc napi-rs targets: RHEL 7, Amazon Linux 2);
//   - the binary is stripped (no .symtab).
// Reads the ELF with binutils (`objdump -T`, `readelf -S`).
//
//   node scripts/check-binary.mjs web-ai-snapshot.linux-x64-gnu.node [--max-glibc 2.17] [--no-strip-check]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
    options: { 'max-glibc': { type: 'string', default: '2.17' }, 'no-strip-check': { type: 'boolean' } },
    allowPositionals: true,
});
const file = positionals[0];
if (!file || !existsSync(file)) {
    console.error('usage: node scripts/check-binary.mjs <file.node> [--max-glibc 2.17] [--no-strip-check]');
    process.exit(2);
}

const version = v => v.split('.').map(Number);
const newer = (a, b) => {
    const [x, y] = [version(a), version(b)];
    for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
        if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) > (y[i] || 0);
    }
    return false;
};

function tool(cmd, args) {
    const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) {
        console.error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.error}`);
        process.exit(1);
    }
    return r.stdout;
}

const problems = [];
const glibc = [...new Set([...tool('objdump', ['-T', file]).matchAll(/GLIBC_([\d.]+)/g)].map(m => m[1]))];
const tooNew = glibc.filter(v => newer(v, values['max-glibc']));
const newest = glibc.sort((a, b) => (newer(a, b) ? 1 : newer(b, a) ? -1 : 0)).pop() || 'none';
if (tooNew.length) problems.push(`needs glibc ${tooNew.join(', ')} (newer than ${values['max-glibc']})`);
if (!values['no-strip-check'] && /\.symtab/.test(tool('readelf', ['-S', '-W', file]))) problems.push('is not stripped (has a .symtab)');
if (problems.length) {
    console.error(`${file} ${problems.join('; ')}`);
    process.exit(1);
}
console.log(`${file}: newest glibc symbol ${newest} (<= ${values['max-glibc']})${values['no-strip-check'] ? '' : ', stripped'}`);
