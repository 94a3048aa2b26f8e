// Repeat snapshots at the cost of the change (a page session with the DOM
// engine): what is read again, and when it falls back to a full capture and
// why. The randomized proof that an incremental snapshot is the full one is
// in incremental-random.test.mjs; what both use, in incremental-helpers.mjs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settle } from '../bench/agreement.mjs';
import { generatePage } from '../bench/generate.mjs';
import { createRequire } from 'node:module';
import { browser, closeBrowser, openFile, pagesDir, sized, newTab } from './helpers.mjs';
import { OPTIONS, checkedLook, componentsPage, difference, failMinimal, framedShop, fullCapture, mutate, open, run, serveHtml } from './incremental-helpers.mjs';

const require = createRequire(import.meta.url);
const { createPageSession } = require('../lib/session.cjs');
const native = require('../lib/native.cjs');

after(closeBrowser);

test('a repeat snapshot reads only the subtrees that changed, and an unchanged page is one round trip', async () => {
    const { page, session, close } = await open(join(pagesDir, 'forms.html'));
    // The capture's round trips: the pump's polls that hand out commands to send.
    const pollOf = native.CapturePump.prototype.poll;
    // Each subtree's listeners are asked as its describeNode answers (two questions, one after
    // the other, beside the batch's other reads): those polls are not round trips of the capture.
    const listening = new Set(['DOM.resolveNode', 'DOMDebugger.getEventListeners']);
    let rounds = 0;
    let polls = [];
    native.CapturePump.prototype.poll = function () {
        const r = pollOf.call(this);
        if (r.requests && r.requests.length) {
            polls.push(r.requests);
            if (!r.requests.every(q => listening.has(q.method))) rounds += 1;
        }
        return r;
    };
    const counted = async () => {
        rounds = 0;
        polls = [];
        const s = await session.snapshot();
        // The listener questions of a subtree: at most one resolve and one listeners' question each.
        const asked = method => polls.flat().filter(q => q.method === method).length;
        assert.ok(asked('DOMDebugger.getEventListeners') <= s.stats.subtreesReread && asked('DOM.resolveNode') <= s.stats.subtreesReread, 'one question of each kind a subtree');
        // The listeners' questions add one round trip after the reads at most: a chain of two.
        return [s, rounds + (asked('DOM.resolveNode') ? 2 : 0)];
    };
    try {
        const first = await session.snapshot();
        assert.equal(first.stats.captureMode, 'full');
        assert.equal(first.stats.subtreesReread, 0);

        const [same, unchangedRounds] = await counted();
        assert.equal(unchangedRounds, 1, 'an unchanged page: the capture asks the watcher, once');
        assert.equal(same.stats.captureMode, 'incremental');
        assert.equal(same.stats.subtreesReread, 0);
        assert.equal(same.fromCache, true, 'an unchanged page is answered with the last snapshot');
        assert.equal(same.text, first.text);

        await page.evaluate(() => { document.querySelector('h1').textContent = 'Your basket'; });
        const [changed, changedRounds] = await counted();
        // The look saw the change: the roots come with the first question (take, roots; DOM and
        // facts; the page's world; listeners).
        assert.equal(changedRounds, 4);
        assert.equal(changed.stats.captureMode, 'incremental');
        assert.equal(changed.stats.subtreesReread, 1);
        assert.match(changed.text, /heading "Your basket"/);
        assert.equal(changed.revision, first.revision + 1);
        assert.match(changed.delta.text, /Your basket/);

        // Two separate changes are two subtrees; a change inside another's subtree is not a third.
        await page.evaluate(() => {
            document.querySelector('nav a').textContent = 'Start';
            const li = document.querySelector('li');
            li.textContent = 'Three mugs';
            li.parentElement.setAttribute('aria-label', 'Basket items');
        });
        const two = await session.snapshot();
        assert.equal(two.stats.subtreesReread, 2);
        assert.match(two.text, /link "Start"/);
        assert.match(two.text, /list "Basket items"/);

        // More separate changes than a few: as many as the session's look saw its record hold are
        // asked for with the first question, not in a round trip of their own.
        const six = await page.evaluate(() => {
            const leaves = [...document.querySelectorAll('label, button, h1, h2, nav a')].filter(el => !el.querySelector('label, button, h1, h2, a'));
            const chosen = leaves.filter((el, i) => leaves.every((other, j) => j === i || (!other.contains(el) && !el.contains(other)))).slice(0, 6);
            chosen.forEach((el, i) => { el.append(` (${i})`); });
            return chosen.length;
        });
        assert.equal(six, 6, 'forms.html has six separate leaves to change');
        const numbering = session._numbering();
        const [many, manyRounds] = await counted();
        assert.equal(manyRounds, 4, 'the six roots are asked for with the first question');
        assert.equal(many.stats.captureMode, 'incremental');
        assert.equal(many.stats.subtreesReread, 6);
        assert.equal(difference(many, await fullCapture(page, numbering)), null);

        // A value typed by script (no event, no mutation) is found by the watcher's sweep.
        await page.evaluate(() => { document.querySelector('input[type=email]').value = 'a@b.example'; });
        const [typed, typedRounds] = await counted();
        assert.equal(typedRounds, 5, 'a change the look could not see: the roots are asked for after the take');
        assert.equal(typed.stats.captureMode, 'incremental');
        assert.match(typed.text, /a@b\.example/);

        session.invalidate();
        const again = await session.snapshot();
        assert.equal(again.stats.captureMode, 'full', 'invalidate() drops the mirror');
    } finally {
        native.CapturePump.prototype.poll = pollOf;
        await close();
    }
});

test("a small page is captured in full after a change (no note), answered from the watcher when unchanged; 'always' reads the change", async () => {
    const page = await openFile(await browser(), join(pagesDir, 'forms.html'));
    const nodes = await page.evaluate(() => {
        const w = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
        let n = 1;
        while (w.nextNode()) n += 1;
        return n;
    });
    assert.ok(nodes < native.REPEAT_MIN_NODES, `forms.html has ${nodes} nodes`);
    const session = createPageSession(page, { cacheTtlMs: 0, snapshotOptions: OPTIONS });
    try {
        const first = await session.snapshot();
        const same = await session.snapshot();
        assert.equal(same.stats.captureMode, 'incremental');
        assert.equal(same.fromCache, true);
        await page.evaluate(() => { document.querySelector('h1').textContent = 'Your basket'; });
        const numbering = session._numbering();
        const changed = await session.snapshot();
        assert.equal(changed.stats.captureMode, 'full');
        assert.deepEqual(changed.notes.filter(n => /full capture/.test(n)), [], 'a choice, not a fallback: nothing to explain');
        assert.equal(changed.revision, first.revision + 1);
        assert.equal(difference(changed, await fullCapture(page, numbering)), null);
        // The full capture kept a mirror: the next unchanged look is the watcher's alone.
        const again = await session.snapshot();
        assert.equal(again.stats.captureMode, 'incremental');
        assert.equal(again.fromCache, true);
    } finally {
        await session.close();
    }
    const always = createPageSession(page, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: OPTIONS });
    try {
        await always.snapshot();
        await page.evaluate(() => { document.querySelector('h1').textContent = 'Your cart'; });
        const s = await always.snapshot();
        assert.equal(s.stats.captureMode, 'incremental');
        assert.equal(s.stats.subtreesReread, 1);
    } finally {
        await always.close();
        await page.close();
    }
    assert.throws(() => createPageSession(page, { incremental: 'sometimes' }), err => err.errorCode === 'snapshot.invalid-input' && /incremental/.test(err.message));
});

test("a text that sits directly in a container of most of the page is read again by itself, unless its change could reach further", async () => {
    const page = await newTab(await browser());
    const rows = Array.from({ length: 800 }, (_, k) => `<li><a href="#r${k}">Row ${k}</a></li>`).join('');
    await page.setContent(`<main>Total: 12 rows<ul>${rows}</ul><span>a</span> <span>b</span></main>`);
    const session = createPageSession(page, { cacheTtlMs: 0, snapshotOptions: OPTIONS });
    const look = async () => {
        const numbering = session._numbering();
        const s = await session.snapshot();
        assert.equal(difference(s, await fullCapture(page, numbering)), null);
        return s;
    };
    try {
        await session.snapshot();
        // Before this, the text's parent (all of <main>) was the subtree to read, which is a full capture.
        await page.evaluate(() => { document.querySelector('main').firstChild.data = 'Total: 13 rows'; });
        const one = await look();
        assert.equal(one.stats.captureMode, 'incremental', one.notes.join(' | '));
        assert.equal(one.stats.subtreesReread, 1);
        assert.match(one.text, /Total: 13 rows/);
        // Ending in a space now, it could lay out a white-space text after it: the parent is read.
        await page.evaluate(() => { document.querySelector('main').firstChild.data = 'Total: 14 rows '; });
        const two = await session.snapshot();
        assert.equal(two.stats.captureMode, 'full');
        assert.match(two.notes.join(' | '), /the changes reach/);
        // A text that became white space alone: the parent too.
        await page.evaluate(() => { document.querySelectorAll('span')[0].firstChild.data = ' '; });
        const three = await look();
        assert.equal(three.stats.captureMode, 'incremental');
        assert.doesNotMatch(three.text, /text: a\b/);
    } finally {
        await session.close();
        await page.close();
    }
});

test('a text over 10,000 characters, added or changed, is read whole: DevTools\' describeNode cuts it, the full capture does not', async () => {
    const page = await newTab(await browser());
    const rows = Array.from({ length: 300 }, (_, k) => `<li>Row ${k}</li>`).join('');
    await page.setContent(`<main><ul>${rows}</ul><div id=t></div><p id=q>short</p></main>`);
    const session = createPageSession(page, { cacheTtlMs: 0, snapshotOptions: OPTIONS });
    const look = async () => {
        const numbering = session._numbering();
        const s = await session.snapshot();
        assert.equal(s.stats.captureMode, 'incremental', s.notes.join(' | '));
        assert.equal(difference(s, await fullCapture(page, numbering)), null);
        return s;
    };
    try {
        await session.snapshot();
        await page.evaluate(() => { const p = document.createElement('p'); p.textContent = `${'word '.repeat(5000)}END`; document.getElementById('t').append(p); });
        // The line is cut for reading (maxTextChars), saying how much of the whole 25,003 is left.
        const added = await look();
        assert.match(added.text, /word… \[23003 more characters; maxTextChars shows more\]/);
        await page.evaluate(() => { document.getElementById('q').firstChild.data = `${'more '.repeat(6000)}END`; });
        const changed = await look();
        assert.match(changed.text, /more… \[28003 more characters; maxTextChars shows more\]/);
        // An app's state in a script (not rendered: its text is not read whole), beside a rendered change.
        await page.evaluate(() => {
            const state = document.createElement('script');
            state.type = 'application/json';
            state.textContent = JSON.stringify({ items: Array.from({ length: 3000 }, (_, k) => ({ k, name: `item ${k}` })) });
            const p = document.createElement('p');
            p.textContent = 'State loaded';
            document.getElementById('t').append(state, p);
        });
        assert.match((await look()).text, /State loaded/);
    } finally {
        await session.close();
        await page.close();
    }
});

test('a subtree added 100 elements deep is read where it changed (serde_json stopped at about 60 levels); one deeper than DevTools sends is a full capture that says why', async () => {
    const page = await newTab(await browser());
    const rows = Array.from({ length: 300 }, (_, k) => `<li>Row ${k}</li>`).join('');
    await page.setContent(`<main><ul>${rows}</ul><div id=t></div></main>`);
    const session = createPageSession(page, { cacheTtlMs: 0, snapshotOptions: OPTIONS });
    const nest = (depth, label) => `${'<div>'.repeat(depth)}<button>${label}</button>${'</div>'.repeat(depth)}`;
    try {
        await session.snapshot();
        await page.evaluate(html => { document.getElementById('t').innerHTML = html; }, nest(100, 'Deep'));
        let numbering = session._numbering();
        const deep = await session.snapshot();
        assert.equal(deep.stats.captureMode, 'incremental', deep.notes.join(' | '));
        assert.equal(difference(deep, await fullCapture(page, numbering)), null);
        assert.match(deep.text, /button "Deep"/);
        // Past what Chromium's DevTools sends itself (about 147 elements: "CBOR: stack limit exceeded").
        await page.evaluate(html => { document.getElementById('t').innerHTML = html; }, nest(400, 'Deeper'));
        numbering = session._numbering();
        const deeper = await session.snapshot();
        assert.equal(deeper.stats.captureMode, 'full');
        assert.ok(deeper.notes.some(n => n.startsWith(native.FULL_CAPTURE_NOTE)), deeper.notes.join(' | '));
        assert.equal(difference(deeper, await fullCapture(page, numbering)), null);
    } finally {
        await session.close();
        await page.close();
    }
});

/**
 * A page from `html` (its frames loaded), a session's look, `act` in the page, a look
 * again: read incrementally, equal to a full capture, and `line` in its text or not (`shown`).
 */
async function lookAfter(html, act, line, shown) {
    const page = await newTab(await browser());
    await page.setContent(html);
    await page.waitForFunction(() => [...document.querySelectorAll('iframe')].every(f => f.contentDocument && f.contentDocument.readyState === 'complete'));
    const session = createPageSession(page, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: OPTIONS });
    try {
        await session.snapshot();
        await page.evaluate(act);
        const numbering = session._numbering();
        const s = await session.snapshot();
        assert.equal(s.stats.captureMode, 'incremental', s.notes.join(' | '));
        assert.equal(difference(s, await fullCapture(page, numbering)), null, html);
        assert.equal(line.test(s.text), shown, `${html}\n${s.text}`);
    } finally {
        await session.close();
        await page.close();
    }
}

test('a change that restyles another element through :has(), a sibling combinator, :checked ~ or its place among its siblings is read where it lands', async () => {
    const cases = [
        ['<style>.card:has(.sel) { display: none }</style><main><div class="card"><span id="x">Hi</span><button>In card</button></div><button>Out</button></main>',
            () => { document.getElementById('x').className = 'sel'; }, /In card/, false],
        ['<style>.a.sel + .b { display: none }</style><main><button class="a" id="x">A</button><button class="b">B</button></main>',
            () => { document.getElementById('x').classList.add('sel'); }, /button "B"/, false],
        ['<style>#x:checked ~ .panel { display: none } :is(.tab.on + .hint)::after { content: "new" }</style><main><input type="checkbox" id="x" aria-label="Toggle"><div class="panel"><button>Panel</button></div></main>',
            () => { document.getElementById('x').checked = true; }, /button "Panel"/, false],
        ['<style>.a.sel + .b { display: none }</style><main><button class="a sel" id="x">A</button><button class="b">B</button></main>',
            () => { document.getElementById('x').classList.remove('sel'); }, /button "B"/, true],
        // A rule a script inserts after the first look (as CSS-in-JS libraries do): the
        // watcher reads the sheets' rules again when a sheet's top level changed.
        ['<style id="s"></style><main><button class="a" id="x">A</button><button class="b">B</button></main>',
            () => { document.getElementById('s').sheet.insertRule('.a.sel + .b { display: none }'); document.getElementById('x').classList.add('sel'); }, /button "B"/, false],
        // In a same-origin frame, with the rule in a constructed sheet the frame adopted.
        ['<main><iframe title="Inner" srcdoc="<main><button class=a id=x>A</button><button class=b>B</button></main><script>const s = new CSSStyleSheet(); s.replaceSync(\'.a.sel ~ .b { display: none }\'); document.adoptedStyleSheets = [s];</script>"></iframe></main>',
            () => { document.querySelector('iframe').contentDocument.getElementById('x').classList.add('sel'); }, /button "B"/, false],
        // A long list (read shallowly when a row comes): the row that was last is last no more.
        [`<style>li:last-child { display: none }</style><ul>${Array.from({ length: 150 }, (_, i) => `<li><button>Row ${i}</button></li>`).join('')}</ul>`,
            () => { document.querySelector('ul').insertAdjacentHTML('beforeend', '<li><button>Row new</button></li>'); }, /button "Row 149"/, true],
        [`<style>li:nth-child(odd) { visibility: hidden }</style><ul>${Array.from({ length: 150 }, (_, i) => `<li><button>Row ${i}</button></li>`).join('')}</ul>`,
            () => { document.querySelector('ul').prepend(document.createElement('li')); }, /button "Row 1"/, false],
    ];
    for (const [html, act, line, shown] of cases) await lookAfter(html, act, line, shown);
});

test("an element made `display: contents` keeps its text on show, unless what holds it skips its content", async () => {
    // Such an element has no box (`checkVisibility` is false there), but its texts are laid out
    // as its parent's: the facts script once read them as locked, and the heading went missing.
    const cases = [
        ['<main><h1 id="x">Checkout</h1><button>Pay</button></main>', /heading "Checkout"/, true],
        ['<main><div><span id="x">Price <b>12</b> euros</span></div><button>Pay</button></main>', /Price 12 euros/, true],
        ['<main><div style="content-visibility: hidden"><h1 id="x">Checkout</h1></div><button>Pay</button></main>', /Checkout/, false],
        ['<main><details><summary>More</summary><p id="x">Fine print</p></details><button>Pay</button></main>', /Fine print/, false],
    ];
    for (const [html, line, shown] of cases) await lookAfter(html, () => { document.getElementById('x').style.display = 'contents'; }, line, shown);
});

test('what cannot be bounded falls back to a full capture, and the notes say why', async () => {
    const { page, session, close } = await open(join(pagesDir, 'forms.html'));
    try {
        await session.snapshot();
        const cases = [
            ['a style sheet', () => { const s = document.createElement('style'); s.textContent = 'nav { display: none }'; document.head.append(s); }, /style sheet/],
            ['a frame', () => { const f = document.createElement('iframe'); f.srcdoc = '<button>In frame</button>'; document.body.append(f); }, /frame/],
        ];
        for (const [what, change, why] of cases) {
            await page.evaluate(change);
            // A new frame's document loads after it is attached.
            await page.waitForTimeout(100);
            const s = await session.snapshot();
            assert.equal(s.stats.captureMode, 'full', what);
            assert.ok(s.notes.some(n => /^a full capture, not an incremental one: /.test(n) && why.test(n)), `${what}: ${s.notes.join(' | ')}`);
            const full = await fullCapture(page, session._numbering());
            assert.equal(s.text, full.text, what);
            // The next look is incremental again, over the new mirror.
            await page.evaluate(() => { document.querySelector('h1').textContent = `Cart ${Math.random()}`; });
            const next = await session.snapshot();
            assert.equal(next.stats.captureMode, 'incremental', `after ${what}`);
        }
        // A new document: a full capture, and nothing to explain.
        await page.reload();
        const fresh = await session.snapshot();
        assert.equal(fresh.stats.captureMode, 'full');
        assert.ok(!fresh.notes.some(n => /not an incremental one/.test(n)), fresh.notes.join(' | '));
    } finally {
        await close();
    }
    // A change near the top of a large page reaches most of it: reading it all again is a full capture.
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-incremental-'));
    const big = join(dir, 'big.html');
    writeFileSync(big, generatePage(8000));
    const large = await open(big);
    try {
        await large.session.snapshot();
        await large.page.evaluate(() => { document.querySelector('main').className = 'dark'; });
        const s = await large.session.snapshot();
        assert.equal(s.stats.captureMode, 'full');
        assert.ok(s.notes.some(n => /the changes reach \d+ of the page's \d+ elements/.test(n)), s.notes.join(' | '));
        await large.page.evaluate(() => { document.querySelector('#card-3 h3').textContent = 'Item three'; });
        const t = await large.session.snapshot();
        assert.equal(t.stats.captureMode, 'incremental');
        assert.equal(t.stats.subtreesReread, 1);
    } finally {
        await large.close();
        rmSync(dir, { recursive: true, force: true });
    }
    const shadow = await open(join(pagesDir, 'shadow.html'));
    try {
        const s = await shadow.session.snapshot();
        assert.ok(s.notes.some(n => /repeat snapshots of this page are full captures: the page has a closed shadow root/.test(n)), s.notes.join(' | '));
        const t = await shadow.session.snapshot();
        assert.equal(t.stats.captureMode, 'full');
    } finally {
        await shadow.close();
    }
});

/**
 * `fn(session page, dir)` on a page session over `files` (name → HTML) written to a temporary
 * folder, the first of them opened; all of it goes after.
 */
async function onWrittenPage(files, fn, options = OPTIONS) {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-written-'));
    try {
        for (const [name, html] of Object.entries(files)) writeFileSync(join(dir, name), html);
        const opened = await open(join(dir, Object.keys(files)[0]), options);
        try {
            await fn(opened, dir);
        } finally {
            await opened.close();
        }
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

/** After each step's change, the session's look equals a full capture; `check(look)` says what else it shows. */
async function eachLookIsFull({ page, session }, steps, options = OPTIONS) {
    for (const [what, change, check] of steps) {
        await change();
        const numbering = session._numbering();
        const look = await session.snapshot();
        check(look, what);
        assert.equal(difference(look, await fullCapture(page, numbering, options)), null, what);
    }
}

/** A check that the look shows `re` (null: that it does not show `absent`). */
const shows = (re, absent = null) => (look, what) => (re ? assert.match(look.text, re, what) : assert.doesNotMatch(look.text, absent, what));

test('a custom element defined after a look is seen by the next: its shadow root, or what its :defined style shows', async () => {
    // An element upgraded in place changes nothing a MutationObserver sees; the watcher marks it.
    const html = '<!doctype html><title>Components</title><style>x-later:not(:defined){display:none}</style><main><h1>Components</h1><x-shadow><span>light content</span></x-shadow><x-later><button>Shown once defined</button></x-later><p>after</p></main>';
    await onWrittenPage({ 'upgrade.html': html }, async opened => {
        const first = await opened.session.snapshot();
        assert.doesNotMatch(first.text, /Shown once defined/);
        await eachLookIsFull(opened, [
            // Restyled by its :defined rule, no shadow root: read again where it is.
            ['x-later defined', () => opened.page.evaluate(() => customElements.define('x-later', class extends HTMLElement {})), (look, what) => {
                assert.match(look.text, /button "Shown once defined"/, what);
                assert.equal(look.stats.captureMode, 'incremental', look.notes.join('; '));
            }],
            // A shadow root attached on upgrade: what the element shows is its shadow tree.
            ['x-shadow defined', () => opened.page.evaluate(() => customElements.define('x-shadow', class extends HTMLElement {
                constructor() {
                    super();
                    this.attachShadow({ mode: 'open' }).innerHTML = '<button>In the shadow tree</button>';
                }
            })), shows(/button "In the shadow tree"/)],
        ]);
    });
});
test('a page with open shadow roots is looked at incrementally: slotted content, rows beside the hosts, changes inside shadow trees, a host\'s light children, attributes and slots (its flat tree read again)', async () => {
    await onWrittenPage({ 'components.html': componentsPage(60) }, async opened => {
        const { page, session } = opened;
        const first = await session.snapshot();
        assert.ok(!first.notes.some(n => /repeat snapshots of this page are full captures/.test(n)), first.notes.join(' | '));
        assert.match(first.text, /button "Card action"/);
        const mode = want => (look, what) => assert.equal(look.stats.captureMode, want, `${what}: ${look.notes.join('; ')}`);
        const both = (...checks) => (look, what) => {
            for (const c of checks) c(look, what);
        };
        await eachLookIsFull(opened, [
            ['a row\'s text', () => page.evaluate(() => { document.querySelector('#row-3 span').firstChild.data = 'changed note'; }), both(mode('incremental'), shows(/changed note/))],
            ['a row added', () => page.evaluate(() => document.querySelector('#row-5').insertAdjacentHTML('afterend', '<li id="row-new"><button>New row</button></li>')), both(mode('incremental'), shows(/button "New row"/))],
            ['a row removed', () => page.evaluate(() => document.querySelector('#row-7').remove()), mode('incremental')],
            ['a slotted title\'s text', () => page.evaluate(() => { document.querySelector('#card-1 [slot=title]').textContent = 'Renamed card'; }), both(mode('incremental'), shows(/Renamed card/))],
            ['a slotted link\'s id', () => page.evaluate(() => { document.querySelector('#card-2 a').id = 'read-two'; }), mode('incremental')],
            ['a link added in slotted content', () => page.evaluate(() => document.querySelector('#card-0 p').insertAdjacentHTML('beforeend', ' <a href="#more">More of it</a>')), both(mode('incremental'), shows(/link "More of it"/))],
            ['a paragraph beside the hosts', () => page.evaluate(() => document.querySelector('#intro').insertAdjacentHTML('afterend', '<p><button>Beside the cards</button></p>')), both(mode('incremental'), shows(/button "Beside the cards"/))],
            ['a host\'s light child added', () => page.evaluate(() => document.querySelector('#card-3').insertAdjacentHTML('beforeend', '<button>Light button</button>')), both(mode('incremental'), shows(/button "Light button"/))],
            ['a light child no slot takes added before slotted ones', () => page.evaluate(() => document.querySelector('#card-3').insertAdjacentHTML('afterbegin', '<i slot="none">unseen</i>')), both(mode('incremental'), shows(null, /unseen/))],
            ['a host\'s attribute', () => page.evaluate(() => document.querySelector('#card-1').setAttribute('data-state', 'open')), mode('incremental')],
            ['after it, a row\'s text', () => page.evaluate(() => { document.querySelector('#row-9 span').firstChild.data = 'again'; }), mode('incremental')],
            ['a light child given another slot', () => page.evaluate(() => { document.querySelector('#card-3 [slot=nowhere]').slot = 'title'; }), both(mode('incremental'), shows(/Unslotted 3/))],
            ['inside a shadow tree', () => page.evaluate(() => { document.querySelector('#card-0').shadowRoot.querySelector('button').textContent = 'Shadow renamed'; }), both(mode('incremental'), shows(/button "Shadow renamed"/))],
            ['a button added inside a shadow tree', () => page.evaluate(() => document.querySelector('#card-1').shadowRoot.querySelector('section').insertAdjacentHTML('beforeend', '<button>Added in shadow</button>')), both(mode('incremental'), shows(/button "Added in shadow"/))],
            ['a nested shadow tree\'s text', () => page.evaluate(() => { document.querySelector('#card-2').shadowRoot.querySelector('x-badge').shadowRoot.querySelector('span').textContent = 'Sold out'; }), both(mode('incremental'), shows(/status: Sold out|Sold out/))],
            ['a slot removed', () => page.evaluate(() => document.querySelector('#card-2').shadowRoot.querySelector('slot[name=title]').remove()), both(mode('incremental'), shows(null, /Card 2\b/))],
            ['a slot renamed', () => page.evaluate(() => { document.querySelector('#card-0').shadowRoot.querySelector('slot[name=title]').name = 'nowhere'; }), both(mode('incremental'), shows(/Unslotted 0/))],
            ['a shadow root\'s own child added', () => page.evaluate(() => document.querySelector('#card-0').shadowRoot.append(document.createElement('hr'))), mode('incremental')],
            ['a menu link\'s text', () => page.evaluate(() => { document.querySelector('x-menu a').textContent = 'Start'; }), both(mode('incremental'), shows(/link "Start"/))],
        ]);
    });
});

test('nodes a script assigns to a slot by hand (slot.assign(), no mutation) are in the next look, read with their host', async () => {
    // A shadow root in `slotAssignment: 'manual'` takes only what `assign()` gives its slots: the
    // flat tree changes with no attribute or child changed. The slot says so with `slotchange`.
    const html = `<!doctype html><title>Manual slots</title><main><h1>Tabs</h1>
<x-tabs><button id="one">First tab</button><button id="two">Second tab</button><p id="note">A note</p></x-tabs>
<ul>${Array.from({ length: 120 }, (_, k) => `<li><a href="#r${k}">Row ${k}</a></li>`).join('')}</ul></main>
<script>
customElements.define('x-tabs', class extends HTMLElement {
    constructor() {
        super();
        const root = this.attachShadow({ mode: 'open', slotAssignment: 'manual' });
        root.innerHTML = '<nav aria-label="Tabs"><slot name="shown"></slot></nav><section><slot id="panel"></slot></section>';
        root.querySelector('slot').assign(this.querySelector('#one'));
    }
});
</script>`;
    await onWrittenPage({ 'manual.html': html }, async opened => {
        const { page } = opened;
        const first = await opened.session.snapshot();
        assert.match(first.text, /button "First tab"/);
        assert.doesNotMatch(first.text, /Second tab/);
        const incremental = look => assert.equal(look.stats.captureMode, 'incremental', look.notes.join('; '));
        const slot = sel => `document.querySelector('x-tabs').shadowRoot.querySelector('${sel}')`;
        await eachLookIsFull(opened, [
            ['a second node assigned', () => page.evaluate(`${slot('slot')}.assign(document.querySelector('#one'), document.querySelector('#two'))`), (look, what) => {
                assert.match(look.text, /button "Second tab"/, what);
                incremental(look);
            }],
            ['a node moved to another slot', () => page.evaluate(`${slot('#panel')}.assign(document.querySelector('#note'))`), (look, what) => {
                assert.match(look.text, /A note/, what);
                incremental(look);
            }],
            ['a slot emptied', () => page.evaluate(`${slot('slot')}.assign()`), (look, what) => {
                assert.doesNotMatch(look.text, /First tab|Second tab/, what);
                incremental(look);
            }],
        ]);
    });
});

test('inside shadow trees, a hover menu, a focus-within menu, a popover, a field a script set, a rule added through the CSSOM and a :host(:hover) rule are in the next look', async () => {
    const shadow = [
        '<style>.nav .sub,.menu .items{display:none} .nav:hover .sub{display:block} .menu:focus-within .items{display:block} :host(.wide) .extra{display:none}</style>',
        '<div class="nav"><a href="#p">Products</a><div class="sub"><a href="#a">Product A</a></div></div>',
        '<div class="menu"><button id="m">Menu</button><div class="items"><button>Menu item</button></div></div>',
        '<div popover id="tip"><button>Tip button</button></div><input id="q" aria-label="Query"><p class="extra">Extra text</p>',
    ].join('');
    // A rule whose subject is the host itself, by its state: the host is tested, not queried.
    const fade = '<style>:host(:hover)::before { content: "Hovered host" }</style><p>Fading text</p><button>Fading button</button>';
    const html = `<!doctype html><title>Shadow state</title><main><h1>Shadow state</h1><x-panel><template shadowrootmode="open">${shadow}</template></x-panel><x-fade><template shadowrootmode="open">${fade}</template></x-fade><p id="far">after</p>${Array.from({ length: 80 }, (_, k) => `<p>Filler ${k}</p>`).join('')}</main>`;
    await onWrittenPage({ 'shadow-state.html': html }, async opened => {
        const { page, session } = opened;
        await session.snapshot();
        const inPanel = f => page.evaluate(f);
        await eachLookIsFull(opened, [
            ['the pointer on the nav', () => page.hover('text=Products'), shows(/Product A/)],
            ['the pointer away', () => page.mouse.move(700, 700), shows(null, /Product A|Menu item/)],
            ['focus in the menu', () => page.focus('#m'), shows(/Menu item/)],
            ['focus out', () => inPanel(() => document.querySelector('x-panel').shadowRoot.activeElement.blur()), shows(null, /Product A|Menu item/)],
            ['the popover shown', () => inPanel(() => document.querySelector('x-panel').shadowRoot.getElementById('tip').showPopover()), shows(/Tip button/)],
            ['a value set by script', () => inPanel(() => { document.querySelector('x-panel').shadowRoot.getElementById('q').value = 'set by script'; }), shows(/set by script/)],
            ['the host given a class a rule reads', () => inPanel(() => document.querySelector('x-panel').classList.add('wide')), shows(null, /Extra text/)],
            ['a rule added to the shadow tree\'s sheet', () => inPanel(() => document.querySelector('x-panel').shadowRoot.styleSheets[0].insertRule('#m { display: none }', 1)), shows(null, /button "Menu"/)],
            ['the pointer on a host styled by :host(:hover)', () => page.hover('text=Fading text'), (look, what) => {
                assert.equal(look.stats.captureMode, 'incremental', `${what}: ${look.notes.join('; ')}`);
                assert.match(look.text, /Hovered host/, what);
            }],
            ['the pointer away from it', () => page.mouse.move(700, 5), shows(null, /Hovered host/)],
        ]);
    });
});

test('components inside a frame the page enters are looked at incrementally too', async () => {
    const inner = '<!doctype html><x-card id=fc><template shadowrootmode=open><section><slot name=title></slot><button>Frame card action</button></section></template><span slot=title>Frame card</span></x-card><p>Frame text</p>';
    const rows = Array.from({ length: 60 }, (_, k) => `<li><button>Row ${k}</button></li>`).join('');
    const html = `<!doctype html><title>Framed components</title><main><h1>Outer</h1><iframe title="Inner" srcdoc="${inner.replace(/"/g, '&quot;')}"></iframe><ul>${rows}</ul></main>`;
    await onWrittenPage({ 'framed-components.html': html }, async opened => {
        const { page, session } = opened;
        const first = await session.snapshot();
        assert.ok(!first.notes.some(n => /repeat snapshots of this page are full captures/.test(n)), first.notes.join(' | '));
        assert.match(first.text, /button "Frame card action"/);
        const frame = () => page.frames().find(f => f !== page.mainFrame());
        const incremental = (look, what) => assert.equal(look.stats.captureMode, 'incremental', `${what}: ${look.notes.join('; ')}`);
        await eachLookIsFull(opened, [
            ['inside the frame\'s shadow tree', () => frame().evaluate(() => { document.getElementById('fc').shadowRoot.querySelector('button').textContent = 'Renamed in frame'; }), (look, what) => {
                incremental(look, what);
                assert.match(look.text, /button "Renamed in frame"/, what);
            }],
            ['a light child added to the frame\'s host', () => frame().evaluate(() => document.getElementById('fc').insertAdjacentHTML('afterbegin', '<b slot=title>Bold title</b>')), (look, what) => {
                incremental(look, what);
                assert.match(look.text, /Bold title/, what);
            }],
            ['a row of the page', () => page.evaluate(() => { document.querySelector('li button').textContent = 'First row'; }), incremental],
        ]);
    });
});

test('styles changed with no mutation (CSSOM rules, adopted sheets, the viewport\'s media) are in the next look', async () => {
    const html = '<!doctype html><title>Styles</title><style>.wide-only{display:none} @media (min-width: 1000px){.wide-only{display:block}}</style><main><h1>Styles</h1><button id="a">Alpha</button><button id="b">Beta</button><div class="wide-only"><button>Wide only</button></div><p>after</p></main>';
    await onWrittenPage({ 'styles.html': html }, async opened => {
        const { page, session } = opened;
        await page.setViewportSize({ width: 1280, height: 800 });
        await session.snapshot();
        const mode = (m, absent, present) => (look, what) => {
            assert.equal(look.stats.captureMode, m, `${what}: ${look.notes.join('; ')}`);
            if (absent) assert.doesNotMatch(look.text, absent, what);
            if (present) assert.match(look.text, present, what);
        };
        await eachLookIsFull(opened, [
            // A rule appended (as CSS-in-JS libraries add theirs): what it matches is read again.
            ['a rule appended hides Alpha', () => page.evaluate(() => document.styleSheets[0].insertRule('#a{display:none}', document.styleSheets[0].cssRules.length)), mode('incremental', /Alpha/)],
            ['a sheet adopted hides Beta', () => page.evaluate(() => { const s = new CSSStyleSheet(); s.replaceSync('#b{visibility:hidden}'); document.adoptedStyleSheets = [s]; }), mode('incremental', /Beta/)],
            ['the viewport narrowed past a media query', () => page.setViewportSize({ width: 800, height: 700 }), mode('full', /Wide only/)],
            ['a rule deleted shows Alpha again', () => page.evaluate(() => document.styleSheets[0].deleteRule(document.styleSheets[0].cssRules.length - 1)), mode('full', null, /Alpha/)],
        ]);
    });
});

test('a sheet that grows by more rules than a look follows, or a new one holding them, makes the look a full capture', async () => {
    // (Listed one by one, not spread into a call: an argument list that long throws.)
    const html = '<!doctype html><title>Many rules</title><style>.x{color:red}</style><main><h1>Many</h1><button id="a">Alpha</button></main>';
    await onWrittenPage({ 'many.html': html }, async opened => {
        const { page, session } = opened;
        await session.snapshot();
        const full = (look, what) => {
            assert.equal(look.stats.captureMode, 'full', `${what}: ${look.notes.join('; ')}`);
            assert.ok(look.notes.some(n => n.includes('style rules were added that cannot be bounded')), `${what}: ${look.notes.join('; ')}`);
        };
        await eachLookIsFull(opened, [
            ['200,000 rules appended, the last hiding Alpha', () => page.evaluate(() => {
                const sheet = document.styleSheets[0];
                for (let i = 0; i < 200000; i += 1) sheet.insertRule(`.r${i}{color:blue}`, sheet.cssRules.length);
                sheet.insertRule('#a{display:none}', sheet.cssRules.length);
            }), full],
            ['a new sheet of 200,000 rules adopted', () => page.evaluate(() => {
                const s = new CSSStyleSheet();
                s.replaceSync(Array.from({ length: 200000 }, (_, i) => `.q${i}{color:green}`).join(''));
                document.adoptedStyleSheets = [s];
            }), full],
        ]);
    });
});

test('a popover shown or hidden (by script, its button, a click outside) is in the next look', async () => {
    const html = '<!doctype html><title>Popover</title><main><h1>Popover</h1><button id="opener" popovertarget="menu">Open menu</button><div popover id="menu"><button>Menu item one</button></div><p id="outside">after</p></main>';
    await onWrittenPage({ 'popover.html': html }, async opened => {
        const { page, session } = opened;
        await session.snapshot();
        await eachLookIsFull(opened, [
            ['showPopover()', () => page.evaluate(() => document.getElementById('menu').showPopover()), shows(/Menu item one/)],
            ['hidePopover()', () => page.evaluate(() => document.getElementById('menu').hidePopover()), shows(null, /Menu item one/)],
            ['its button', () => page.click('#opener'), shows(/Menu item one/)],
            ['a click outside it', () => page.mouse.click(5, 5), shows(null, /Menu item one/)],
        ]);
    });
});

test('what a rule shows on hover, on focus within or for the URL\'s fragment is in the next look', async () => {
    const html = '<!doctype html><title>State</title><style>.nav .sub,.menu .items,.pane{display:none} .nav:hover .sub{display:block} .menu:focus-within .items{display:block} .pane:target{display:block}</style><main><h1>State</h1><div class="nav"><a href="#p">Products</a><div class="sub"><a href="#a">Product A</a></div></div><div class="menu"><button id="m">Menu</button><div class="items"><button>Menu item</button></div></div><a href="#two">Show two</a><div class="pane" id="two"><button>Pane two button</button></div><p id="far">after</p></main>';
    await onWrittenPage({ 'state.html': html }, async opened => {
        const { page, session } = opened;
        await session.snapshot();
        await eachLookIsFull(opened, [
            ['the pointer on the nav', () => page.hover('text=Products'), shows(/Product A/)],
            ['the pointer away', () => page.mouse.move(700, 700), shows(null, /Product A|Menu item/)],
            ['focus in the menu', () => page.focus('#m'), shows(/Menu item/)],
            ['focus out', () => page.evaluate(() => document.activeElement.blur()), shows(null, /Product A|Menu item/)],
            ['the fragment names the pane', () => page.evaluate(() => { location.hash = '#two'; }), shows(/Pane two button/)],
        ]);
    });
});

test('in frames, a hover menu and a popover are in the next look too: one the page\'s watcher enters, one it cannot', async () => {
    const inner = tag => `<!doctype html><title>${tag}</title><style>.nav .sub{display:none} .nav:hover .sub{display:block}</style><div class="nav"><a href="#p">${tag} products</a><div class="sub"><a href="#a">${tag} product A</a></div></div><div popover id="tip"><button>${tag} tip button</button></div><p>${tag} end</p>`;
    // A file: page's frame of another file is another origin to our world (its own watch,
    // frame_watch.js); a srcdoc frame is the page's (the page's watcher enters it).
    const srcdoc = inner('Same').replace(/"/g, '&quot;');
    const outer = `<!doctype html><title>Outer</title><main><h1>Outer</h1><iframe title="Other" src="inner.html" style="width:600px;height:200px"></iframe><iframe title="Same" srcdoc="${srcdoc}" style="width:600px;height:200px"></iframe><p>outer end</p></main>`;
    await onWrittenPage({ 'outer.html': outer, 'inner.html': inner('Other') }, async opened => {
        const { page, session } = opened;
        await session.snapshot();
        const frame = tag => page.frames().find(f => f !== page.mainFrame() && f.url().includes(tag === 'Other' ? 'inner.html' : 'srcdoc'));
        for (const tag of ['Other', 'Same']) {
            await eachLookIsFull(opened, [
                [`${tag}: the pointer on its nav`, () => frame(tag).hover(`text=${tag} products`), shows(new RegExp(`${tag} product A`))],
                [`${tag}: a popover shown in it`, () => frame(tag).evaluate(() => document.getElementById('tip').showPopover()), shows(new RegExp(`${tag} tip button`))],
            ]);
        }
    });
});

test('an agent scrolling a page of content-visibility: auto sections sees the sections it scrolled to', async () => {
    // Their content is laid out only near the viewport: scrolled to, it comes into layout with no mutation.
    const sections = Array.from({ length: 30 }, (_, i) => `<section style="content-visibility:auto;contain-intrinsic-size:auto 400px"><h2>Section ${i}</h2><p>Text ${i}</p><button>Button ${i}</button></section>`).join('');
    const options = { ...OPTIONS, viewportOnly: true };
    await onWrittenPage({ 'sections.html': `<!doctype html><title>Sections</title><main><h1>Long</h1>${sections}</main>` }, async opened => {
        const { page, session } = opened;
        const first = await session.snapshot();
        assert.doesNotMatch(first.text, /Button 29/);
        // Sections laid out near the viewport take their own height, which moves the ones after
        // them: the page settles over a few frames. Wait for five frames with no section's state changing.
        const scrollTo = y => async () => {
            await page.evaluate(`window.scrollTo(0, ${y})`);
            await page.evaluate(() => new Promise(resolve => {
                let quiet = 0;
                let frames = 0;
                const changed = () => { quiet = 0; };
                document.addEventListener('contentvisibilityautostatechange', changed, true);
                const tick = () => {
                    quiet += 1;
                    frames += 1;
                    if (quiet >= 5 || frames >= 120) {
                        document.removeEventListener('contentvisibilityautostatechange', changed, true);
                        resolve();
                    } else requestAnimationFrame(tick);
                };
                requestAnimationFrame(tick);
            }));
        };
        await eachLookIsFull(opened, [
            ['to the bottom', scrollTo('document.body.scrollHeight'), shows(/Button 29/)],
            ['back to the top', scrollTo('0'), shows(/Button 0/)],
        ], options);
    }, options);
});

test('a medium muted by script is in the next look: Chrome\'s controls say unmute', async () => {
    const opened = await open(join(pagesDir, 'media.html'));
    try {
        // Chrome's controls join its tree late: a capture waits for them, as recorded.
        await settle(opened.page);
        await opened.session.snapshot();
        await eachLookIsFull(opened, [
            ['muted', () => opened.page.evaluate(() => { for (const m of document.querySelectorAll('video, audio')) m.muted = true; }), shows(/button "unmute"/)],
        ]);
    } finally {
        await opened.close();
    }
});

test('a { cdp } session is incremental too, and equal to a full capture', async () => {
    const page = await openFile(await browser(), join(pagesDir, 'widgets.html'));
    const cdp = await page.context().newCDPSession(page);
    const session = createPageSession({ cdp }, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: OPTIONS });
    try {
        await session.snapshot();
        for (const seed of [11, 12, 13, 14, 15]) {
            await mutate(page, seed);
            const numbering = session._numbering();
            const s = await session.snapshot();
            assert.equal(s.stats.captureMode, 'incremental', s.notes.join(' | '));
            assert.equal(difference(s, await fullCapture(page, numbering)), null);
        }
    } finally {
        await session.close();
        await cdp.detach().catch(() => {});
        await page.close();
    }
});

test('two sessions on one page each see every change, looking in turn or at once', async () => {
    // Sessions on one page share its watcher (one isolated world per CDP
    // session): each must take its own record of what changed, and fetch its own roots.
    const page = await openFile(await browser(), join(pagesDir, 'widgets.html'));
    const sessions = [0, 1, 2].map(() => createPageSession(page, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: OPTIONS }));
    const [a, b, c] = sessions;
    try {
        for (const s of sessions) await s.snapshot();
        const check = async (session, seed) => {
            const numbering = session._numbering();
            const s = await session.snapshot();
            assert.equal(s.stats.captureMode, 'incremental', `seed ${seed}: ${s.notes.join(' | ')}`);
            assert.equal(difference(s, await fullCapture(page, numbering)), null, `seed ${seed}`);
        };
        for (const seed of [21, 22, 23]) {
            await mutate(page, seed);
            // In turn: the first look must not take the change from the second.
            await check(a, seed);
            await check(b, seed);
        }
        for (const seed of [24, 25, 26]) {
            await mutate(page, seed);
            // At once: each capture fetches the subtrees its own look found.
            const numberings = [a, b].map(s => s._numbering());
            const looks = await Promise.all([a.snapshot(), b.snapshot()]);
            for (const [k, s] of looks.entries()) {
                assert.equal(s.stats.captureMode, 'incremental', `seed ${seed}: ${s.notes.join(' | ')}`);
                assert.equal(difference(s, await fullCapture(page, numberings[k])), null, `seed ${seed}, session ${k}`);
            }
        }
        // One session closes (its record goes); the others still see every change.
        await a.close();
        await mutate(page, 27);
        await check(c, 27);
        await check(b, 27);
    } finally {
        for (const s of sessions) await s.close();
        await page.close();
    }
});

test('a session whose record was dropped for a ninth session on the page captures in full, never stale', async () => {
    const page = await openFile(await browser(), join(pagesDir, 'widgets.html'));
    const sessions = Array.from({ length: 9 }, () => createPageSession(page, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: OPTIONS }));
    const [first] = sessions;
    const look = async seed => {
        await mutate(page, seed);
        const numbering = first._numbering();
        const s = await first.snapshot();
        assert.equal(difference(s, await fullCapture(page, numbering)), null, `seed ${seed}`);
        return s;
    };
    try {
        // The ninth session's first look drops the record of the least recently served one: the first.
        for (const s of sessions) await s.snapshot();
        const after = await look(31);
        assert.equal(after.stats.captureMode, 'full');
        assert.match(after.notes.join(' | '), /record of changes was dropped/);
        // Its record is kept again from then on.
        const next = await look(32);
        assert.equal(next.stats.captureMode, 'incremental', next.notes.join(' | '));
    } finally {
        for (const s of sessions) await s.close();
        await page.close();
    }
});

/**
 * An incremental session over `page` through a CDP session that counts the page facts asked
 * for (sent whole or called by name where they ran before: the only script that reads the
 * page's outerHTML), and `look(change)`: the change made, the session's look, and how many
 * times it asked for the facts; with `full` (the default), the look is checked against a full capture.
 */
async function factsCounted(page) {
    const cdp = await page.context().newCDPSession(page);
    let factsAsked = 0;
    const watched = {
        send: (method, params) => {
            if (method === 'Runtime.evaluate' && String(params && params.expression).includes('__webAiSnapshotFactsFn')) factsAsked += 1;
            return cdp.send(method, params);
        },
        on: (...a) => cdp.on(...a),
        off: (...a) => cdp.off(...a),
    };
    const session = createPageSession({ cdp: watched }, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: OPTIONS });
    const look = async (change, { full = true } = {}) => {
        await page.evaluate(change);
        const numbering = session._numbering();
        factsAsked = 0;
        const s = await session.snapshot();
        assert.equal(s.stats.captureMode, 'incremental', s.notes.join(' | '));
        if (full) assert.equal(difference(s, await fullCapture(page, numbering)), null);
        return { s, factsAsked };
    };
    return { cdp, session, look };
}

test("after a change to text or to attributes the DOM hash drops, the DOM hash is the last one, not read again; after any other change it is read", async () => {
    const page = await openFile(await browser(), join(pagesDir, 'forms.html'));
    const { cdp, session, look } = await factsCounted(page);
    try {
        const first = await session.snapshot();
        const text = await look(() => { document.querySelector('h1').firstChild.data = 'Your basket'; });
        assert.equal(text.factsAsked, 0, 'a text change leaves the tags, and so the DOM hash, as they were');
        assert.equal(text.s.domHash, first.domHash);
        assert.match(text.s.text, /Your basket/);
        const plain = await look(() => { document.querySelector('h1').setAttribute('title', 'Cart'); document.querySelector('h1').className = 'big'; });
        assert.equal(plain.factsAsked, 0, "an element's attributes are dropped by the hash's normalising: not read again");
        assert.equal(plain.s.domHash, first.domHash);
        const custom = await look(() => { document.querySelector('h1').after(document.createElement('cart-badge')); });
        assert.equal(custom.factsAsked, 1);
        const customAttribute = await look(() => { document.querySelector('cart-badge').setAttribute('count', '3'); });
        assert.equal(customAttribute.factsAsked, 1, "a custom element's start tag keeps its attributes in the hash: read again");
        assert.notEqual(customAttribute.s.domHash, custom.s.domHash);
        const attribute = await look(() => { document.querySelector('h1').setAttribute('title', 'a<b>c'); });
        assert.equal(attribute.factsAsked, 1, 'an attribute can reach the hash (a value with angle brackets): it is read again');
        const after = await look(() => { document.querySelector('h1').className = 'bigger'; });
        assert.equal(after.factsAsked, 1, 'and so can any change to an element with such a value');
        const insert = await look(() => { document.querySelector('h1').after(document.createElement('hr')); });
        assert.equal(insert.factsAsked, 1);
        assert.notEqual(insert.s.domHash, customAttribute.s.domHash, 'a new element is a new DOM hash');
        await look(() => { document.querySelector('h1').after(Object.assign(document.createElement('noscript'), { textContent: 'none' })); });
        const raw = await look(() => { document.querySelector('noscript').firstChild.data = '<p>x</p>'; });
        assert.equal(raw.factsAsked, 1, "a raw-text element's text is written as is, tags and all: read again");
        assert.notEqual(raw.s.domHash, insert.s.domHash);
        // textContent set: an element's text nodes taken out and one put in.
        const retext = await look(() => { document.querySelector('h1').textContent = 'Basket <b>'; });
        assert.equal(retext.factsAsked, 0, "an element's text replaced whole leaves the tags, and so the DOM hash, as they were");
        assert.equal(retext.s.domHash, raw.s.domHash);
        assert.match(retext.s.text, /heading "Basket <b>"/);
        const emptied = await look(() => { document.querySelector('h1').textContent = ''; });
        assert.equal(emptied.factsAsked, 0, 'nor does taking its text out');
        const fieldGone = await look(() => { document.querySelector('label').textContent = 'No field'; });
        assert.equal(fieldGone.factsAsked, 1, "textContent that takes an element out (the label's field) changes the tags: read again");
        assert.notEqual(fieldGone.s.domHash, emptied.s.domHash);
        const rawRetext = await look(() => { document.querySelector('noscript').textContent = '<i>y</i>'; });
        assert.equal(rawRetext.factsAsked, 1, "a raw-text element's text set whole: read again");
        assert.notEqual(rawRetext.s.domHash, fieldGone.s.domHash);
    } finally {
        await session.close();
        await cdp.detach().catch(() => {});
        await page.close();
    }
});

test('on a long page, a change after where the DOM hash stopped writing the page keeps the hash, unread; one before it reads it again', async () => {
    // About 11k elements: the hash reads the first 32,768 normalised characters, written a chunk
    // at a time and stopped there, about the first 450 of the 1,000 cards.
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-incremental-cut-'));
    const long = join(dir, 'long.html');
    writeFileSync(long, generatePage(32000));
    const page = await openFile(await browser(), long);
    const { cdp, session, look } = await factsCounted(page);
    try {
        const first = await session.snapshot();
        const added = await look(() => document.querySelector('#card-900').insertAdjacentHTML('afterend', '<article id="late"><h3>Late row</h3><button>Like late</button></article>'));
        assert.equal(added.factsAsked, 0, 'a row added after the cut leaves what the hash read as it was');
        assert.equal(added.s.domHash, first.domHash);
        assert.match(added.s.text, /button "Like late"/);
        const removed = await look(() => document.querySelector('#card-950').remove(), { full: false });
        assert.equal(removed.factsAsked, 0, 'so does a row removed after it');
        const tagged = await look(() => document.querySelector('#card-960').setAttribute('title', 'a<b'));
        assert.equal(tagged.factsAsked, 0, 'and an attribute the hash keeps, on an element after it');
        assert.equal(tagged.s.domHash, first.domHash);
        const early = await look(() => document.querySelector('#card-3').insertAdjacentHTML('afterend', '<article><h3>Early row</h3></article>'));
        assert.equal(early.factsAsked, 1, 'a row added before the cut is read again');
        assert.notEqual(early.s.domHash, first.domHash);
        const again = await look(() => document.querySelector('#card-970').remove());
        assert.equal(again.factsAsked, 0, "the new writing's cut stands for the next look");
        assert.equal(again.s.domHash, early.s.domHash);
    } finally {
        await session.close();
        await cdp.detach().catch(() => {});
        await page.close();
        rmSync(dir, { recursive: true, force: true });
    }
});

test("a repeat snapshot's unchanged refs are not sent again, and no two snapshots share a ref object", async () => {
    const poll = native.CapturePump.prototype.poll;
    const reused = [];
    native.CapturePump.prototype.poll = function () {
        const p = poll.call(this);
        if (p.outcome && p.outcome.snapshot) reused.push(p.outcome.refsChangedOnly ? 'changed' : p.outcome.refsReused ? 'zeroed' : 'whole');
        return p;
    };
    const { page, session, close } = await open(join(pagesDir, 'forms.html'));
    try {
        const first = await session.snapshot();
        const [id] = Object.keys(first.refs);
        const name = first.refs[id].name;
        // What a caller does to its snapshot stays there.
        first.refs[id].name = 'tampered';
        first.refs[id].framePath.push('tampered');
        await page.evaluate(() => { document.querySelector('h1').firstChild.data = 'Your basket'; });
        const numbering = session._numbering();
        const second = await session.snapshot();
        assert.equal(second.stats.captureMode, 'incremental');
        assert.deepEqual(reused, ['whole', 'changed'], 'the first snapshot sends every ref; the second (the same refs) only those that changed');
        assert.equal(second.refs[id].name, name);
        assert.deepEqual(second.refs[id].framePath, []);
        assert.notEqual(second.refs[id], first.refs[id]);
        assert.equal(difference(second, await fullCapture(page, numbering)), null);
        // A new ref: every ref in order, the unchanged as 0.
        await page.evaluate(() => { document.querySelector('main').append(Object.assign(document.createElement('button'), { textContent: 'Added' })); });
        const numbering3 = session._numbering();
        const third = await session.snapshot();
        assert.equal(reused.at(-1), 'zeroed');
        assert.equal(difference(third, await fullCapture(page, numbering3)), null);
        assert.notEqual(third.refs[id], second.refs[id]);
        // A changed ref's name, then a change that leaves refs as they were.
        await page.evaluate(() => { document.querySelector('button').textContent = 'Renamed'; });
        const numbering4 = session._numbering();
        const fourth = await session.snapshot();
        assert.equal(reused.at(-1), 'changed');
        assert.equal(difference(fourth, await fullCapture(page, numbering4)), null);
        assert.ok(Object.values(fourth.refs).some(r => r.name === 'Renamed'));
        // After invalidate() the slot is new: every ref is sent again.
        session.invalidate();
        const fifth = await session.snapshot();
        assert.equal(reused.at(-1), 'whole');
        assert.equal(fifth.refs[id].name, name);
    } finally {
        native.CapturePump.prototype.poll = poll;
        await close();
    }
});

test('a frame of another origin in the page\'s process is read again only when it changed: the session watches it', async () => {
    // 127.0.0.1 on two ports: two origins of one site, so one renderer process,
    // and a frame the page's watcher cannot enter.
    const { page, session, close } = await framedShop('127.0.0.1');
    try {
        const frame = page.frames().find(f => f !== page.mainFrame());
        assert.equal(await page.evaluate(() => { try { return document.querySelector('iframe').contentDocument; } catch { return 'blocked'; } }), null, 'the page cannot enter the frame');
        const look = () => checkedLook(session, page);
        // The first look captures; the next reads the frame again, puts our world there and marks it.
        for (let k = 0; k < 2; k += 1) await look();
        const quiet = await look();
        assert.equal(quiet.fromCache, true, 'an unchanged frame is not read again');
        assert.equal(quiet.stats.captureMode, 'incremental');
        const changes = [
            [() => { document.getElementById('t').textContent = 'Card number (Visa)'; }, /Card number \(Visa\)/],
            // A value set by script: no event, no mutation.
            [() => { document.getElementById('card').value = '4242'; }, /textbox "Card" \[ref=@e\d+ value="4242"/],
            [() => { document.querySelector('button').setAttribute('aria-label', 'Pay 10 EUR'); }, /button "Pay 10 EUR"/],
            // The frame's document is read again whole: 100 elements deep is past serde_json's 128 JSON levels.
            [() => { document.body.insertAdjacentHTML('beforeend', `${'<div>'.repeat(100)}<button>Deep pay</button>${'</div>'.repeat(100)}`); }, /button "Deep pay"/],
        ];
        for (const [change, shown] of changes) {
            await frame.evaluate(change);
            const s = await look();
            assert.equal(s.fromCache, false, String(change));
            assert.equal(s.stats.captureMode, 'incremental');
            assert.match(s.text, shown);
            assert.equal((await look()).fromCache, true, 'then unchanged again');
        }
        // A change on the page itself reads its subtree and leaves the unchanged frame as it was.
        await page.evaluate(() => { document.querySelector('h1').textContent = 'Checkout (2)'; });
        const mixed = await look();
        assert.match(mixed.text, /heading "Checkout \(2\)"/);
        assert.equal(mixed.stats.subtreesReread, 1, 'the heading, not the frame');
    } finally {
        await close();
    }
});

test('a frame in another process is asked at each look whether it changed: an unchanged page with one is answered from the last snapshot', async () => {
    // 127.0.0.1 and localhost are two sites: the frame has a process of its own.
    const { page, session, close } = await framedShop('localhost');
    try {
        const cdp = await page.context().newCDPSession(page);
        const { targetInfos } = await cdp.send('Target.getTargets');
        await cdp.detach();
        assert.ok(targetInfos.some(t => t.type === 'iframe' && t.url.startsWith('http://localhost:')), 'the frame really is out of process');
        const frame = page.frames().find(f => f.url().startsWith('http://localhost:'));
        const look = () => checkedLook(session, page);
        // The first look captures; the next reads the frame again and puts our world there.
        for (let k = 0; k < 2; k += 1) assert.equal((await look()).fromCache, false);
        const quiet = await look();
        assert.equal(quiet.fromCache, true, 'an unchanged frame in another process is not read again');
        assert.match(quiet.text, /button "Pay now"/);
        for (const [change, shown] of [
            [() => { document.getElementById('t').textContent = 'Card number (Visa)'; }, /Card number \(Visa\)/],
            [() => { document.getElementById('card').value = '4242'; }, /textbox "Card" \[ref=@e\d+ value="4242"/],
            // No mutation: an untitled frame is named by its URL.
            [() => { document.title = ''; }, /Card number/],
            [() => { history.pushState({}, '', '/paid'); }, /\/paid/],
        ]) {
            await frame.evaluate(change);
            const s = await look();
            assert.equal(s.fromCache, false, String(change));
            assert.match(s.text, shown);
            assert.equal((await look()).fromCache, true, 'then unchanged again');
        }
        // A change on the page itself is read (with the frame, by its own capture).
        await page.evaluate(() => { document.querySelector('h1').textContent = 'Checkout (2)'; });
        assert.match((await look()).text, /heading "Checkout \(2\)"/);
        assert.equal((await look()).fromCache, true);
    } finally {
        await close();
    }
});

test('a session with the ax engine captures in full, as before', async () => {
    const { page, session, close } = await open(join(pagesDir, 'forms.html'));
    try {
        const s = await session.snapshot({ engine: 'ax' });
        await page.evaluate(() => { document.querySelector('h1').textContent = 'Changed'; });
        const t = await session.snapshot({ engine: 'ax' });
        assert.equal(s.stats.captureMode, 'full');
        assert.equal(t.stats.captureMode, 'full');
        assert.match(t.text, /heading "Changed"/);
    } finally {
        await close();
    }
});

test('two sessions on a page each see a change inside a frame of another origin, whichever looks first', async () => {
    // The frame watcher keeps a mark per session: one session's look must not hide a change from the other.
    const child = await serveHtml(() => '<!doctype html><title>Card</title><p id=t>Card number</p><button>Pay now</button>');
    const port = child.address().port;
    const top = await serveHtml(() => `<!doctype html><title>Shop</title><h1>Checkout</h1><iframe title="Same site" src="http://127.0.0.1:${port}/"></iframe><iframe title="Cross site" src="http://localhost:${port}/"></iframe>`);
    const page = await newTab(await browser());
    const open = () => createPageSession(page, { cacheTtlMs: 0, incremental: 'always', snapshotOptions: OPTIONS });
    const a = open();
    const b = open();
    try {
        await page.goto(`http://127.0.0.1:${top.address().port}/`, { waitUntil: 'load' });
        const frames = page.frames().filter(f => f !== page.mainFrame());
        assert.equal(frames.length, 2);
        for (let k = 0; k < 3; k += 1) {
            await a.snapshot();
            await b.snapshot();
        }
        for (const [k, frame] of frames.entries()) {
            await frame.evaluate(n => { document.getElementById('t').textContent = `Card number ${n}`; }, k);
            const [first, second] = k % 2 ? [b, a] : [a, b];
            for (const who of [first, second]) {
                const s = await checkedLook(who, page);
                assert.equal(s.fromCache, false);
                assert.match(s.text, new RegExp(`Card number ${k}`));
            }
            assert.equal((await a.snapshot()).fromCache, true);
            assert.equal((await b.snapshot()).fromCache, true);
        }
    } finally {
        await a.close();
        await b.close();
        await page.close();
        top.close();
        child.close();
    }
});

test('rows added, removed, moved and replaced in a long list are read where they change: the list shallowly, each new row by itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'web-ai-incremental-'));
    const big = join(dir, 'feed.html');
    // 250 cards in one main: a feed, a table's body.
    writeFileSync(big, generatePage(8000));
    const { page, session, close } = await open(big);
    try {
        await session.snapshot();
        const steps = [
            ['a row added', () => document.querySelector('#card-5').insertAdjacentHTML('afterend', '<article id="new-1"><h3>New row</h3><button>Like new</button></article>'), /button "Like new"/],
            ['two rows added at the top', () => document.querySelector('main').prepend(...['A', 'B'].map(x => { const a = document.createElement('article'); a.innerHTML = `<h3>Top ${x}</h3>`; return a; })), /heading "Top B"/],
            ['a row removed', () => document.querySelector('#card-7').remove(), null],
            ['a row moved', () => { const c = document.querySelector('#card-9'); c.parentElement.insertBefore(c, document.querySelector('#card-200')); }, null],
            ["a row's innerHTML replaced", () => { document.querySelector('#card-11').innerHTML = '<h3>Replaced</h3><a href="#r">Open replaced</a>'; }, /link "Open replaced"/],
            ["a cell's textContent set", () => { document.querySelector('#card-12 p').textContent = 'Rewritten body'; }, /Rewritten body/],
            ['a dialog appended to the body, then removed', () => { const d = document.createElement('div'); d.setAttribute('role', 'dialog'); d.setAttribute('aria-label', 'Cookies'); d.innerHTML = '<button>Accept all</button>'; document.body.append(d); }, /dialog "Cookies"/],
            ['the dialog removed', () => document.querySelector('[role=dialog]').remove(), null],
            ['a text beside a row', () => document.querySelector('#card-20').after(' loose words '), /loose words/],
        ];
        for (const [what, change, shows] of steps) {
            await page.evaluate(change);
            const s = await checkedLook(session, page);
            assert.equal(s.stats.captureMode, 'incremental', `${what}: ${s.notes.join(' | ')}`);
            assert.ok(s.stats.subtreesReread <= 4, `${what}: ${s.stats.subtreesReread} subtrees read`);
            if (shows) assert.match(s.text, shows, what);
        }
        // Random structural mutations (insert, copy, remove, move) on the same page.
        const kinds = ['insert', 'copy', 'remove', 'move'];
        const seeds = Array.from({ length: sized(32, 4) }, (_, k) => 4409 + k);
        const kindOf = seed => kinds[seed % kinds.length];
        const failure = await run(big, seeds, () => {}, kindOf);
        if (failure) await failMinimal(big, seeds, failure, kindOf, ' with the kind insert, copy, remove, move by seed modulo 4');
    } finally {
        await close();
        rmSync(dir, { recursive: true, force: true });
    }
});

