#!/usr/bin/env node
// Re-record every fixture from real Chromium: for each page and option set,
// the raw CDP replies of a capture (replayable by `node --test` and
// `cargo test`) and the snapshot text and refs they produce.
//
//   npm run record-fixtures            # all
//   npm run record-fixtures -- forms   # names containing "forms"
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openFile } from '../lib/chromium.mjs';
import ax from '../lib/ax-snapshot.cjs';
import { settle } from '../bench/agreement.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pagesDir = join(root, 'fixtures', 'pages');
const outDir = join(root, 'fixtures', 'recorded');

/**
 * Extra option sets recorded beside the defaults. Every recording names its
 * engine: the plain ones are Chrome's tree (`engine: 'ax'`, whose reply is
 * the largest a capture reads); the `-dom` ones the DOM engine's.
 */
const VARIANTS = {
    'chatgpt.html': [{ name: 'chatgpt-root-form', options: { rootSelector: 'form' } }],
    'forms.html': [
        { name: 'forms-depth2', options: { maxDepth: 2 } },
        { name: 'forms-refs-only', options: { refsOnly: true } },
        { name: 'forms-full', options: { interactiveOnly: false, compact: false } },
    ],
    'widgets.html': [{ name: 'widgets-root-grid', options: { rootSelector: '[role=grid]' } }],
    'viewport.html': [{ name: 'viewport-only', options: { viewportOnly: true } }],
};
const DOM_ENGINE = ['forms.html', 'widgets.html', 'frames.html', 'shadow.html', 'media.html', 'clickable.html'];

const filter = process.argv[2] || '';
mkdirSync(outDir, { recursive: true });
const browser = await launchChromium();
const version = browser.version();
let count = 0;
try {
    for (const file of readdirSync(pagesDir).filter(f => f.endsWith('.html')).sort()) {
        const base = file.replace(/\.html$/, '');
        const variants = [
            ...[{ name: base, options: {} }, ...(VARIANTS[file] || [])].map(v => ({ ...v, options: { engine: 'ax', ...v.options } })),
            ...(DOM_ENGINE.includes(file) ? [{ name: `${base}-dom`, options: { engine: 'dom' } }] : []),
        ];
        for (const { name, options } of variants) {
            if (filter && !name.includes(filter)) continue;
            const page = await openFile(browser, join(pagesDir, file));
            // Chrome's own tree settled first (its first tree may lack media controls), as the live test does.
            await settle(page);
            const session = await page.context().newCDPSession(page);
            const replies = [];
            const send = async (method, params) => {
                const result = await session.send(method, params);
                // DOM.disable is the capture's fire-and-forget cleanup: its answer is never read.
                if (method !== 'DOM.disable') replies.push({ method, params, result });
                return result;
            };
            const snapshot = await ax.captureOverCdp(send, JSON.stringify(options));
            await page.close();
            const recording = {
                about: 'Recorded by scripts/record-fixtures.mjs; do not edit by hand.',
                page: file,
                chromium: version,
                options,
                replies,
                expected: {
                    text: snapshot.text,
                    notes: snapshot.notes,
                    title: snapshot.title,
                    refs: Object.values(snapshot.refs).map(r => [r.ref, r.role, r.name, r.occurrenceIndex, r.backendNodeId,
                        r.selector, r.framePath, r.shadowPath, r.shadowClosed, r.clickable]),
                },
            };
            writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(recording, null, 1)}\n`);
            writeFileSync(join(outDir, `${name}.txt`), `${snapshot.text}\n`);
            count += 1;
            console.log(`recorded ${name} (${replies.length} replies, ${Object.keys(snapshot.refs).length} refs)`);
        }
    }
} finally {
    await browser.close();
}
console.log(`${count} fixture(s) recorded with Chromium ${version}`);
