// Actions by ref against live Chromium (seed 001 §1.1): each action, each
// error code, frames and shadow DOM targets, and the stale-ref messages.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeBrowser, openFixture } from './helpers.mjs';
import Ajv from 'ajv';

// Seed 001 §1.3.1's Snapshot, as a JSON schema: every element has a box of
// numbers, and its state uses only §1.3.4's values.
const SEED_001_SNAPSHOT = {
    type: 'object',
    required: ['snapshot_id', 'timestamp', 'elements', 'focused', 'page', 'screenshot', 'viewport'],
    properties: {
        snapshot_id: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' },
        timestamp: { type: 'string', format: 'date-time' },
        elements: {
            type: 'array',
            maxItems: 100,
            items: {
                type: 'object',
                required: ['ref', 'role', 'name', 'state', 'bbox'],
                properties: {
                    ref: { type: 'string', pattern: '^@e\\d+$' },
                    role: { type: 'string' },
                    name: { type: 'string', maxLength: 203 },
                    state: { type: 'array', items: { enum: ['visible', 'hidden', 'offscreen', 'enabled', 'disabled', 'readonly', 'checked', 'unchecked', 'mixed', 'expanded', 'collapsed', 'focused', 'busy'] } },
                    bbox: {
                        type: 'object',
                        required: ['x', 'y', 'width', 'height'],
                        properties: { x: { type: 'number' }, y: { type: 'number' }, width: { type: 'number' }, height: { type: 'number' } },
                    },
                    value: { type: 'string' },
                    level: { type: 'integer', minimum: 1, maximum: 6 },
                    children: { type: 'array', items: { type: 'string', pattern: '^@e\\d+$' } },
                },
            },
        },
        focused: { type: ['string', 'null'] },
        page: { type: 'object', required: ['url', 'title'], properties: { url: { type: 'string' }, title: { type: 'string' } } },
        screenshot: { type: 'string', minLength: 1 },
        viewport: {
            type: 'object',
            required: ['width', 'height', 'scroll_x', 'scroll_y'],
            properties: { width: { type: 'number' }, height: { type: 'number' }, scroll_x: { type: 'number' }, scroll_y: { type: 'number' } },
        },
    },
};
const validateSeed001 = new Ajv({ allErrors: true, formats: { 'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/ } }).compile(SEED_001_SNAPSHOT);
function assertSeed001Snapshot(snapshot) {
    assert.ok(validateSeed001(snapshot), JSON.stringify(validateSeed001.errors, null, 1));
    // A closed select's options have no box of their own: they take the select's.
    for (const select of snapshot.elements.filter(e => e.role === 'combobox' && e.children)) {
        for (const option of snapshot.elements.filter(e => e.role === 'option' && select.children.includes(e.ref))) {
            assert.deepEqual(option.bbox, select.bbox, `${option.ref} takes ${select.ref}'s box`);
        }
    }
}
import { buildWebAiSnapshot, createRefRegistry, invalidateRefsOnDomChange, resolveRef, runAction, WebAiError } from '../lib/index.cjs';

after(closeBrowser);

async function setup() {
    const page = await openFixture('actions.html');
    const snapshot = await buildWebAiSnapshot(page);
    const ref = (role, name) => {
        const r = Object.values(snapshot.refs).find(x => x.role === role && x.name === name);
        assert.ok(r, `no ref for ${role} ${name} in\n${snapshot.text}`);
        return r.ref;
    };
    const log = () => page.evaluate(() => document.getElementById('log').textContent);
    return { page, snapshot, ref, log };
}

function assertFresh(result, before) {
    assert.ok(result.snapshot && typeof result.snapshot.text === 'string', 'a fresh snapshot comes with every result');
    assert.notEqual(result.snapshot.snapshotId, before.snapshotId);
}

test('click: success, and every click error code with a fresh snapshot', async () => {
    const { page, snapshot, ref, log } = await setup();
    try {
        const ok = await runAction(page, snapshot, 'click', { ref: ref('button', 'Go') });
        assert.equal(ok.success, true, ok.message);
        assert.equal(ok.error, null);
        assertFresh(ok, snapshot);
        assert.equal(await log(), 'clicked Go;');

        const disabled = await runAction(page, snapshot, 'click', { ref: ref('button', 'Disabled') });
        assert.equal(disabled.error, 'element_disabled');
        assertFresh(disabled, snapshot);

        const covered = await runAction(page, snapshot, 'click', { ref: ref('button', 'Under overlay') });
        assert.equal(covered.error, 'element_obscured');
        assert.match(covered.message, /covered by div#cookie "We use cookies"/);
        assert.equal(covered.evidence.coveredBy, 'div#cookie "We use cookies"');

        const far = await runAction(page, snapshot, 'click', { ref: ref('button', 'Far away') });
        assert.equal(far.error, 'element_not_visible');
        assert.match(far.message, /outside the viewport/);

        await page.evaluate(() => document.getElementById('removable').remove());
        const gone = await runAction(page, snapshot, 'click', { ref: ref('button', 'Removable') });
        assert.equal(gone.error, 'ref_invalid');
        assert.equal(gone.message, `Element "Removable" (ref ${ref('button', 'Removable')}) no longer exists. Take a new snapshot.`);
        assertFresh(gone, snapshot);

        const unknown = await runAction(page, snapshot, 'click', { ref: '@e999' });
        assert.equal(unknown.error, 'ref_invalid');
        const older = await runAction(page, ok.snapshot, 'click', { ref: ref('button', 'Go'), snapshot_id: snapshot.snapshotId });
        assert.equal(older.error, 'ref_invalid', 'a ref from an earlier snapshot is invalid');
        assert.match(older.message, /not the latest/);

        const bad = await runAction(page, snapshot, 'click', { ref: 'button' });
        assert.equal(bad.error, 'invalid_params');

        const bottom = await runAction(page, snapshot, 'click', { ref: ref('button', 'Bottom button') });
        assert.equal(bottom.success, true, `a control below the fold is scrolled to and clicked: ${bottom.message}`);
        assert.match(await log(), /clicked bottom;/);
        assert.equal(await log(), 'clicked Go;clicked bottom;', 'failed clicks did not click anything');

        // A clickable without a role or name, known by its inline text.
        const tileRef = snapshot.text.match(/generic \[ref=(@e\d+) clickable\]: Plain tile/)[1];
        const tile = await runAction(page, snapshot, 'click', { ref: tileRef });
        assert.equal(tile.success, true, tile.message);
        assert.match(await log(), /clicked tile;$/);
    } finally {
        await page.close();
    }
});

test('a ref taken before the page navigated is ref_invalid: its element is gone, not the action refused', async () => {
    const { page, snapshot, ref } = await setup();
    try {
        // Chrome says "does not belong to the document" of a node of the document before.
        await page.reload({ waitUntil: 'load' });
        for (const [action, args] of [['click', { ref: ref('button', 'Go') }], ['fill', { ref: snapshot.text.match(/textbox[^\n]*\[ref=(@e\d+)/)[1], value: 'x' }]]) {
            const r = await runAction(page, snapshot, action, args);
            assert.equal(r.error, 'ref_invalid', `${action}: ${r.message}`);
            assert.match(r.message, /no longer exists\. Take a new snapshot\./);
            assertFresh(r, snapshot);
        }
    } finally {
        await page.close();
    }
});

test('a layer with pointer-events: none over an element lets its click through; a layer that takes pointer events covers it', async () => {
    const page = await openFixture('blank.html');
    try {
        await page.setContent(`<style>.card { position: relative; display: inline-block; margin: 8px; } .layer { position: absolute; inset: -4px; background: rgba(0,0,0,.2); }</style>
            <div class="card"><button onclick="log.textContent += 'glass '">Under glass</button><div class="layer" style="pointer-events: none"></div></div>
            <div class="card"><button onclick="log.textContent += 'wall '">Under wall</button><div class="layer" id="wall"></div></div>
            <output id="log"></output>`);
        const snapshot = await buildWebAiSnapshot(page);
        const ref = name => Object.values(snapshot.refs).find(x => x.name === name)?.ref;
        const glass = await runAction(page, snapshot, 'click', { ref: ref('Under glass') });
        assert.equal(glass.success, true, glass.message);
        const wall = await runAction(page, snapshot, 'click', { ref: ref('Under wall') });
        assert.equal(wall.error, 'element_obscured', wall.message);
        assert.equal(wall.evidence.coveredBy, 'div#wall.layer');
        assert.equal(await page.evaluate(() => document.getElementById('log').textContent), 'glass ');
    } finally {
        await page.close();
    }
});

test('a click that outlives its deadline is timeout, with a fresh snapshot', async () => {
    const { page, snapshot, ref } = await setup();
    try {
        const r = await runAction(page, snapshot, 'click', { ref: ref('button', 'Busy') }, { timeoutMs: 300 });
        assert.equal(r.error, 'timeout');
        assert.match(r.message, /300 ms/);
        assertFresh(r, snapshot);
    } finally {
        await page.close();
    }
});

test('fill clears first by default, appends on request, refuses read-only and non-fields', async () => {
    const { page, snapshot, ref } = await setup();
    try {
        const value = () => page.evaluate(() => [document.getElementById('email').value, document.getElementById('comment').value]);
        const r = await runAction(page, snapshot, 'fill', { ref: ref('textbox', 'Email'), value: 'a@b.c' });
        assert.equal(r.success, true, r.message);
        assert.match(r.snapshot.text, /textbox "Email" \[ref=@e\d+ value="a@b.c"\]/);
        await runAction(page, snapshot, 'fill', { ref: ref('textbox', 'Email'), value: '.d', clear_first: false });
        await runAction(page, snapshot, 'fill', { ref: ref('textbox', 'Comment'), value: 'line one' });
        assert.deepEqual(await value(), ['a@b.c.d', 'line one']);
        const empty = await runAction(page, snapshot, 'fill', { ref: ref('textbox', 'Comment'), value: '' });
        assert.equal(empty.success, true, empty.message);
        assert.deepEqual(await value(), ['a@b.c.d', '']);
        assert.equal((await runAction(page, snapshot, 'fill', { ref: ref('textbox', 'Code'), value: 'x' })).error, 'element_disabled');
        const notField = await runAction(page, snapshot, 'fill', { ref: ref('button', 'Go'), value: 'x' });
        assert.equal(notField.error, 'action_failed');
        assert.match(notField.message, /not a text field/);
        assert.equal((await runAction(page, snapshot, 'fill', { ref: ref('textbox', 'Email') })).error, 'invalid_params');
    } finally {
        await page.close();
    }
});

test('fill sets a date, time, colour or range input in its own format, with the events a person would cause; a value it rejects is an error that leaves the field as it was', async () => {
    const page = await openFixture('blank.html');
    try {
        await page.setContent(`<label>When <input id="d" type="date" value="2025-01-02"></label>
            <label>At <input id="t" type="time"></label><label>Hue <input id="c" type="color"></label>
            <label>Level <input id="r" type="range" min="0" max="10"></label><output id="log"></output>
            <script>for (const el of document.querySelectorAll('input')) for (const e of ['input', 'change']) el.addEventListener(e, () => { document.getElementById('log').textContent += el.id + ':' + e + ' '; });</script>`);
        const snapshot = await buildWebAiSnapshot(page);
        const ref = name => Object.values(snapshot.refs).find(x => x.name === name)?.ref;
        const values = () => page.evaluate(() => ['d', 't', 'c', 'r'].map(id => document.getElementById(id).value));
        for (const [name, value] of [['When', '2026-11-27'], ['At', '13:45'], ['Hue', '#ff8800'], ['Level', '7']]) {
            const r = await runAction(page, snapshot, 'fill', { ref: ref(name), value });
            assert.equal(r.success, true, `${name}: ${r.message}`);
        }
        assert.deepEqual(await values(), ['2026-11-27', '13:45', '#ff8800', '7']);
        assert.equal(await page.evaluate(() => document.getElementById('log').textContent.trim()), 'd:input d:change t:input t:change c:input c:change r:input r:change');
        // Typed as a person reads it, a date is not one: the error says the format, and the date stays.
        const bad = await runAction(page, snapshot, 'fill', { ref: ref('When'), value: '27/11/2026' });
        assert.equal(bad.error, 'action_failed');
        assert.match(bad.message, /holds "" after filling "27\/11\/2026" \(a date is filled as YYYY-MM-DD\)/);
        assert.deepEqual(await values(), ['2026-11-27', '13:45', '#ff8800', '7']);
    } finally {
        await page.close();
    }
});

test('select picks an option by value or by visible text', async () => {
    const { page, snapshot, ref } = await setup();
    try {
        const size = ref('combobox', 'Size');
        const current = () => page.evaluate(() => document.getElementById('size').value);
        assert.equal((await runAction(page, snapshot, 'select', { ref: size, value: 'l' })).success, true);
        assert.equal(await current(), 'l');
        const byText = await runAction(page, snapshot, 'select', { ref: size, value: 'Medium' });
        assert.equal(byText.success, true, byText.message);
        assert.equal(await current(), 'm');
        const missing = await runAction(page, snapshot, 'select', { ref: size, value: 'Huge' });
        assert.equal(missing.error, 'action_failed');
        assert.match(missing.message, /no option .*"Huge".*"Small", "Medium", "Large"/);
        assert.equal((await runAction(page, snapshot, 'select', { ref: size, value: 'Extra' })).error, 'element_disabled');
        assert.equal((await runAction(page, snapshot, 'select', { ref: ref('button', 'Go'), value: 'x' })).error, 'action_failed');
        assert.doesNotMatch(await page.locator('#log').textContent(), /clicked Go/, 'a button that opens nothing is not clicked');
    } finally {
        await page.close();
    }
});

test('select opens a custom dropdown (ARIA combobox) and clicks the option by its name', async () => {
    const { page, snapshot, ref } = await setup();
    // Opening the list, waiting for its options and clicking one is three steps under one
    // deadline: on a loaded machine with the debug addon they once took over the 2 s default.
    const slow = { timeoutMs: 10_000 };
    try {
        const fruit = ref('combobox', 'Fruit');
        const picked = await runAction(page, snapshot, 'select', { ref: fruit, value: 'banana' }, slow);
        assert.equal(picked.success, true, picked.message);
        assert.equal(picked.label, 'Banana');
        assert.match(await page.locator('#log').textContent(), /picked Banana;/);
        assert.equal(await page.locator('#fruit').textContent(), 'Banana');
        const fruitNow = s => Object.values(s.refs).find(r => r.role === 'combobox' && r.name === 'Fruit').ref;
        const disabled = await runAction(page, picked.snapshot, 'select', { ref: fruitNow(picked.snapshot), value: 'Cherry' }, slow);
        assert.equal(disabled.error, 'element_disabled', disabled.message);
        // Still open from the refused pick: a second click would close it, so start over.
        await page.evaluate(() => { document.getElementById('fruit-list').hidden = true; });
        const again = await buildWebAiSnapshot(page);
        const missing = await runAction(page, again, 'select', { ref: fruitNow(again), value: 'Durian' }, slow);
        assert.equal(missing.error, 'action_failed');
        assert.match(missing.message, /no option named "Durian"; options: "Apple", "Banana", "Cherry"/);
    } finally {
        await page.close();
    }
});

test('scroll moves the page by direction and amount, or brings a ref into view', async () => {
    const { page, snapshot, ref } = await setup();
    try {
        const down = await runAction(page, snapshot, 'scroll', { direction: 'down', amount: 500 });
        assert.equal(down.success, true, down.message);
        assert.equal(down.viewport.scrollY, 500);
        assert.equal((await runAction(page, snapshot, 'scroll', { direction: 'up' })).viewport.scrollY, 200, 'amount defaults to 300');
        assert.ok((await runAction(page, snapshot, 'scroll', { direction: 'bottom' })).viewport.scrollY > 2000);
        assert.equal((await runAction(page, snapshot, 'scroll', { direction: 'top' })).viewport.scrollY, 0);
        const toRef = await runAction(page, snapshot, 'scroll', { ref: ref('button', 'Bottom button'), direction: 'up' });
        assert.equal(toRef.success, true, toRef.message);
        assert.ok(toRef.viewport.scrollY > 2000, 'ref wins over direction');
        assert.equal((await runAction(page, snapshot, 'scroll', {})).error, 'invalid_params');
        assert.equal((await runAction(page, snapshot, 'scroll', { direction: 'left' })).error, 'invalid_params');
        assert.equal((await runAction(page, snapshot, 'scroll', { ref: ref('button', 'Far away') })).error, 'element_not_visible');
    } finally {
        await page.close();
    }
});

test('actions reach into frames, open shadow roots and closed shadow roots', async () => {
    const { page, snapshot, ref, log } = await setup();
    try {
        for (const name of ['Frame button', 'Shadow button', 'Closed shadow button']) {
            const r = await runAction(page, snapshot, 'click', { ref: ref('button', name) });
            assert.equal(r.success, true, `${name}: ${r.message}`);
        }
        assert.equal(await log(), 'clicked frame;clicked shadow;clicked closed;');
        const f = await runAction(page, snapshot, 'fill', { ref: ref('textbox', 'Frame field'), value: 'in a frame' });
        assert.equal(f.success, true, f.message);
        assert.equal(await page.frames()[1].evaluate(() => document.querySelector('input').value), 'in a frame');
    } finally {
        await page.close();
    }
});

test('resolveRef verify names what changed, what is gone, and notes minor changes', async () => {
    const { page, snapshot, ref } = await setup();
    try {
        const registry = createRefRegistry(snapshot);
        const same = await resolveRef(page, registry, ref('button', 'Go'), { verify: true });
        assert.equal(same.note, null);
        assert.deepEqual(same.current, { role: 'button', name: 'Go' });

        await page.evaluate(() => { document.getElementById('submit').textContent = 'Loading...'; });
        await assert.rejects(resolveRef(page, registry, ref('button', 'Submit'), { verify: true }), err => {
            assert.ok(err instanceof WebAiError);
            assert.equal(err.errorCode, 'snapshot.ref-stale');
            assert.match(err.message, /^Element changed since snapshot\. Was: button "Submit", Now: button "Loading\.\.\."/);
            assert.deepEqual(err.evidence.now, { role: 'button', name: 'Loading...' });
            return true;
        });

        await page.evaluate(() => document.getElementById('removable').remove());
        const removable = ref('button', 'Removable');
        await assert.rejects(resolveRef(page, registry, removable, { verify: true }),
            { errorCode: 'snapshot.ref-stale', message: `Element "Removable" (ref ${removable}) no longer exists. Take a new snapshot.` });

        await page.evaluate(() => { document.getElementById('cart').textContent = 'Cart (3)'; });
        const minor = await resolveRef(page, registry, ref('link', 'Cart (2)'), { verify: true });
        assert.equal(minor.note, 'Note: Element may have changed. Using current state.');
        assert.equal(minor.current.name, 'Cart (3)');

        // Without verify the old contract holds; with it, the kept snapshot still knows the ref.
        invalidateRefsOnDomChange(registry, { domHash: 'sha256:changed' });
        await assert.rejects(resolveRef(page, registry, ref('button', 'Go')), { errorCode: 'snapshot.ref-stale' });
        const kept = await resolveRef(page, registry, ref('button', 'Go'), { verify: true });
        assert.equal(kept.name, 'Go');
        assert.equal(kept.note, 'Note: Element may have changed. Using current state.');
        // A page that is gone is a WebAiError too, not a raw CDP error.
        await assert.rejects(resolveRef({ cdp: { send: async () => { throw new Error('Target closed'); } } }, createRefRegistry(snapshot), ref('button', 'Go'), { verify: true }),
            err => err instanceof WebAiError && err.errorCode === 'snapshot.capture-failed' && /Target closed/.test(err.message));
    } finally {
        await page.close();
    }
});

test('the tools: schemas, execute contract, approval and completion callbacks', async () => {
    const { TOOL_SCHEMAS, createBrowserTools } = await import('../lib/index.mjs');
    assert.deepEqual(TOOL_SCHEMAS.map(t => t.name), ['get_snapshot', 'browser_click', 'browser_fill', 'browser_select', 'browser_scroll', 'wait_for_ui_change', 'request_human_approval', 'complete_task']);
    for (const t of TOOL_SCHEMAS) assert.equal(t.input_schema.type, 'object', t.name);
    const page = await openFixture('actions.html');
    const asked = [];
    let answer = true;
    const tools = createBrowserTools(page, {
        approve: async req => { asked.push(req.action); return answer ? true : { approved: false, message: 'not that one' }; },
        completionCriteria: { successIndicators: [s => /clicked Go/.test(s.text)] },
        checkpoints: [s => /clicked bottom/.test(s.text)],
    });
    try {
        const first = await tools.execute('get_snapshot', {});
        assert.equal(first.success, true);
        // Seed 004's revision fields.
        assert.equal(first.snapshot.snapshot_revision, 1);
        assert.ok(Math.abs(first.snapshot.captured_at_ms - Date.now()) < 60_000);
        // Seed 001's page and viewport beside our fields.
        assert.deepEqual(first.snapshot.page, { url: first.snapshot.url, title: 'Actions' });
        assert.deepEqual(first.snapshot.viewport, { width: 1280, height: 900, scroll_x: 0, scroll_y: 0 });
        assert.equal(first.snapshot.screenshot, undefined, 'no screenshot unless asked');
        // Seed 001: the viewport by default. The bottom button is far below it.
        assert.doesNotMatch(first.snapshot.text, /Bottom button/);
        assert.ok(first.snapshot.notes.some(n => /^viewportOnly: \d+ node\(s\) outside the viewport are left out/.test(n)), first.snapshot.notes.join(' | '));
        const go = first.snapshot.text.match(/button "Go" \[ref=(@e\d+)\]/)[1];
        const notYet = await tools.execute('complete_task', { status: 'success', reason: 'done?' });
        assert.equal(notYet.acknowledged, false, 'success is verified against the page');
        assert.match(notYet.message, /could not be verified/);

        const click = await tools.execute('browser_click', { ref: go });
        assert.equal(click.success, true, click.message);
        assert.equal(tools.snapshot.snapshotId, click.snapshot.snapshotId, 'the fresh snapshot becomes current');
        assert.equal(click.snapshot_revision, 2, 'the click changed the page');
        // The status line changed: the model gets the delta, the tools keep the whole page.
        assert.equal(click.snapshot.textIsDelta, true);
        assert.match(click.snapshot.text, /^=== BEGIN UNTRUSTED PAGE CONTENT nonce=[0-9a-f]{16} origin=file:\/\/ ===\n\[SECURITY: .*\]\n# changes from revision 1 to 2/);
        assert.match(tools.snapshot.text, /\n- document "Actions"/);
        // Refs are stable in the session: a ref from the first snapshot still works.
        const again = await tools.execute('browser_click', { ref: go, snapshot_id: first.snapshot.snapshotId });
        assert.equal(again.success, true, again.message);
        const stale = await tools.execute('browser_click', { ref: go, snapshot_id: 'not-from-this-session' });
        assert.equal(stale.error, 'ref_invalid');
        assert.ok(stale.snapshot, 'errors come with a fresh snapshot');
        // A wait on a page that does not change times out. (Judged from a look taken now: once in a
        // full suite's run the wait, judged from the last action's look, saw a line come or go.)
        await tools.execute('get_snapshot', {});
        const waited = await tools.execute('wait_for_ui_change', { timeout_ms: 300 });
        assert.deepEqual([waited.success, waited.timeout, waited.observed_change], [false, true, null]);
        assert.equal((await tools.execute('wait_for_ui_change', { expected_change: 'colour' })).error, 'invalid_params');

        assert.equal((await tools.execute('browser_scroll', {})).error, 'invalid_params');
        const scrolled = await tools.execute('browser_scroll', { direction: 'down', amount: 200 });
        assert.equal(scrolled.snapshot.viewport.scroll_y, 200, 'the fresh snapshot has the updated viewport (seed 001 AC-T6)');
        await page.evaluate(() => window.scrollTo(0, 0));
        assert.equal((await tools.execute('browser_fly', {})).error, 'invalid_params');
        assert.deepEqual(await tools.execute('request_human_approval', { action: 'pay', reason: 'money' }), { approved: true, message: null, error: null });
        answer = false;
        assert.deepEqual(await tools.execute('request_human_approval', { action: 'pay', reason: 'money' }), { approved: false, message: 'not that one', error: 'human_rejected' });

        // The whole page on request, and from then on, also after actions.
        const whole = await tools.execute('get_snapshot', { viewport_only: false });
        assert.match(whole.snapshot.text, /Bottom button/);
        assert.equal((await tools.execute('get_snapshot', { viewport_only: 'yes' })).error, 'invalid_params');
        // The checkpoint holds after this click: the approver is asked and says no.
        const bottom = tools.snapshot.text.match(/button "Bottom button" \[ref=(@e\d+)\]/)[1];
        const blocked = await tools.execute('browser_click', { ref: bottom });
        assert.equal(blocked.error, 'human_rejected');
        assert.equal(blocked.message, 'User feedback: not that one');
        assert.match(asked.at(-1), /^browser_click/);

        const withShot = createBrowserTools(page, { screenshot: true });
        const seeded = (await withShot.execute('get_snapshot', {})).snapshot;
        assert.equal(Buffer.from(seeded.screenshot, 'base64').subarray(1, 4).toString(), 'PNG');
        assertSeed001Snapshot(seeded);
        assertSeed001Snapshot((await withShot.execute('get_snapshot', { viewport_only: false })).snapshot);

        const done = await tools.execute('complete_task', { status: 'success', reason: 'clicked' });
        assert.equal(done.acknowledged, true);
        assert.equal((await tools.execute('complete_task', { status: 'failed', reason: 'gave up' })).acknowledged, true);
    } finally {
        await page.close();
    }
});

test('actions on an unreachable { cdpEndpoint } are action_failed naming the endpoint, with cdp.unreachable as evidence', async () => {
    const snapshot = { snapshotId: 'x', refs: { '@e1': { ref: '@e1', role: 'button', name: 'Go', backendNodeId: 5 } } };
    const r = await runAction({ cdpEndpoint: 'http://127.0.0.1:9' }, snapshot, 'click', { ref: '@e1' }, { timeoutMs: 1500, snapshotOptions: { timeoutMs: 1500 } });
    assert.equal(r.success, false);
    assert.equal(r.error, 'action_failed');
    assert.match(r.message, /cannot reach the DevTools endpoint http:\/\/127\.0\.0\.1:9/);
    assert.equal(r.evidence.errorCode, 'cdp.unreachable');
    assert.ok(r.snapshotError, 'the fresh snapshot could not be taken either, and says so');
});
