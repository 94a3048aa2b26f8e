#!/usr/bin/env node
// Seeds the fuzz corpus (fuzz/corpus/<target>/) from the recorded fixtures:
// each recorded CDP reply goes to the target that reads its method's
// answer, deduplicated by content. Findings of `tests/fuzz.rs` are added by
// hand to fuzz/regressions/<target>/ and replayed by every `cargo test`.
// Re-run after `npm run record-fixtures`.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const recorded = join(root, 'fixtures', 'recorded');
const corpus = join(root, 'fuzz', 'corpus');
const TARGET = {
    'Accessibility.getFullAXTree': 'ax_tree',
    'DOMSnapshot.captureSnapshot': 'dom_snapshot',
    'DOM.getDocument': 'dom_document',
};

/** A recorded tree in the legacy `accessibility.snapshot()` shape, for the legacy reader. */
function legacyOf(result) {
    const byId = new Map(result.nodes.map(n => [n.nodeId, n]));
    const build = (node, depth) => {
        const out = { role: node.role?.value ?? 'generic', name: node.name?.value ?? '' };
        if (depth < 40) {
            const children = (node.childIds || []).map(id => byId.get(id)).filter(Boolean).map(c => build(c, depth + 1));
            if (children.length) out.children = children;
        }
        return out;
    };
    return result.nodes.length ? build(result.nodes[0], 0) : { role: 'WebArea', name: '' };
}

rmSync(corpus, { recursive: true, force: true });
const seen = new Set();
let written = 0;
function put(target, name, text) {
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 12);
    if (seen.has(hash)) return;
    seen.add(hash);
    mkdirSync(join(corpus, target), { recursive: true });
    writeFileSync(join(corpus, target, `${name}-${hash}.json`), text);
    written += 1;
}
for (const file of readdirSync(recorded).filter(f => f.endsWith('.json')).sort()) {
    const rec = JSON.parse(readFileSync(join(recorded, file), 'utf8'));
    const name = file.slice(0, -5);
    for (const r of rec.replies) {
        const text = JSON.stringify(r.result);
        put(TARGET[r.method] ?? 'json', name, text);
        if (r.method === 'Accessibility.getFullAXTree') put('legacy', name, JSON.stringify(legacyOf(r.result)));
    }
    put('options', name, JSON.stringify(rec.options ?? {}));
}
console.log(`${written} corpus file(s) in fuzz/corpus`);
