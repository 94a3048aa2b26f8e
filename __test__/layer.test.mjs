// The active layer: with a modal open, a session (and the tools) show the
// modal and one line for what is behind it; refs behind are blocked.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildWebAiSnapshot, createPageSession, createBrowserTools } from '../lib/index.mjs';
import { browser, closeBrowser, openFile, pagesDir } from './helpers.mjs';

after(closeBrowser);

const open = async () => openFile(await browser(), join(pagesDir, 'loop', 'modal.html'));
const refOf = (s, re) => s.text.match(re)[1];

test('a session shows the open modal and what is behind it; an action behind it is element_obscured naming the modal', async () => {
    const page = await open();
    try {
        const session = createPageSession(page);
        const s = await session.snapshot();
        assert.deepEqual(s.text.split('\n'), [
            '- document "Modal":',
            '  - inert: behind the modal dialog "Cookies": 1 button, 1 link (blocked; activeLayerOnly: false shows them)',
            '  - dialog "Cookies":',
            '    - paragraph: We use cookies.',
            `    - button "Accept" [ref=${refOf(s, /button "Accept" \[ref=(@e\d+)/)}]`,
        ]);
        const behind = Object.values(s.refs).filter(r => r.blockedBy);
        assert.deepEqual(behind.map(r => [r.role, r.name, r.blockedBy]), [['button', 'Buy', 'dialog "Cookies"'], ['link', 'Details', 'dialog "Cookies"']]);
        const buy = behind[0].ref;
        const blocked = await session.act('click', { ref: buy });
        assert.equal(blocked.error, 'element_obscured');
        assert.match(blocked.message, /^button "Buy" \(ref @e\d+\) is behind the open modal dialog "Cookies"/);
        assert.equal(blocked.evidence.coveredBy, 'dialog "Cookies"');
        assert.equal(await page.textContent('#log'), '', 'nothing behind the modal was clicked');
        // Everything on request.
        const all = await session.snapshot({ activeLayerOnly: false });
        assert.match(all.text, new RegExp(`button "Buy" \\[ref=${buy}\\]`));
        assert.ok(Object.values(all.refs).every(r => r.blockedBy === undefined));
        // Accept closes the modal: the page comes back with the same refs, and they work.
        const accepted = await session.act('click', { ref: refOf(s, /button "Accept" \[ref=(@e\d+)/) });
        assert.equal(accepted.success, true, accepted.message);
        assert.match(accepted.snapshot.text, new RegExp(`button "Buy" \\[ref=${buy}\\]`));
        assert.doesNotMatch(accepted.snapshot.text, /inert/);
        const bought = await session.act('click', { ref: buy });
        assert.equal(bought.success, true, bought.message);
        assert.equal(await page.textContent('#log'), 'bought');
    } finally {
        await page.close();
    }
});

test('a <dialog> opened with showModal(): the browser makes the page inert, and the line says so', async () => {
    const page = await open();
    try {
        await page.evaluate(() => {
            document.getElementById('cookies').remove();
            const d = document.createElement('dialog');
            d.innerHTML = '<h2>Sign in</h2><button>Close</button>';
            document.body.append(d);
            d.showModal();
        });
        const s = await createPageSession(page).snapshot();
        assert.match(s.text, /^ {2}- inert: behind the modal dialog: the rest of the page, inert while it is open$/m);
        assert.match(s.text, /button "Close" \[ref=@e\d+\]/);
        assert.doesNotMatch(s.text, /Buy/);
    } finally {
        await page.close();
    }
});

test('the tools show the active layer; a plain snapshot shows everything unless asked', async () => {
    const page = await open();
    try {
        const tools = createBrowserTools(page);
        const r = await tools.execute('get_snapshot', {});
        assert.match(r.snapshot.text, /- inert: behind the modal dialog "Cookies"/);
        const plain = await buildWebAiSnapshot(page);
        assert.doesNotMatch(plain.text, /inert/);
        assert.match(plain.text, /button "Buy"/);
        const layered = await buildWebAiSnapshot(page, { activeLayerOnly: true });
        assert.match(layered.text, /- inert: behind the modal dialog "Cookies": 1 button, 1 link/);
    } finally {
        await page.close();
    }
});
