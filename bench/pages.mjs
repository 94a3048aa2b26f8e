// The pages every benchmark measures, and how they summarise: the real
// pages of ../shared/pages (the bundled copies in fixtures/real-pages when
// that is absent) and generated pages of ~1k, 10k and 40k accessibility
// nodes, written to a temporary folder the caller removes.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePage } from './generate.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const median = xs => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
export const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** `{ list: [{ name, path, real }], dir }`: the pages whose name contains `only`, and the folder to remove. */
export function benchPages(only = '') {
    const sibling = resolve(root, '..', 'shared', 'pages');
    const shared = existsSync(sibling) ? sibling : join(root, 'fixtures', 'real-pages');
    const list = readdirSync(shared).filter(f => f.endsWith('.html')).sort().map(f => ({ name: f.replace(/\.html$/, ''), path: join(shared, f), real: true }));
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-bench-'));
    for (const n of [1000, 10000, 40000]) {
        const name = `generated-${n / 1000}k`;
        if (!name.includes(only) && only) continue;
        const path = join(dir, `${name}.html`);
        writeFileSync(path, generatePage(n));
        list.push({ name, path, real: false });
    }
    return { list: list.filter(p => p.name.includes(only)), dir };
}
