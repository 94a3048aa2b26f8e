// The text format (SPEC §5) and ref rules (SPEC §6), on hand-built trees and
// on trees recorded from real Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWebAiSnapshotFromAxTree as fromTree, extractInteractiveRefs } from '../lib/index.mjs';
import { recordedTree } from './helpers.mjs';

const doc = (children, name = 'Page') => ({ role: 'WebArea', name, children });
const text = name => ({ role: 'text', name });

test('the SPEC example renders exactly', () => {
    const s = fromTree(doc([
        { role: 'navigation', name: 'Main', children: [{ role: 'link', name: 'Home', children: [text('Home')] }] },
        { role: 'heading', name: 'Your cart', level: 1, children: [text('Your cart')] },
        { role: 'textbox', name: 'Email', value: 'a@b.c' },
        { role: 'checkbox', name: 'Save card', checked: true },
        { role: 'button', name: 'Pay now', disabled: true },
        { role: 'listitem', children: [text('2 × '), text('Blue mug')] },
    ], 'Checkout'));
    assert.equal(s.text, [
        '- document "Checkout":',
        '  - navigation "Main":',
        '    - link "Home" [ref=@e1]',
        '  - heading "Your cart" [level=1]',
        '  - textbox "Email" [ref=@e2 value="a@b.c"]',
        '  - checkbox "Save card" [ref=@e3 checked=true]',
        '  - button "Pay now" [ref=@e4 disabled=true]',
        '  - listitem: 2 × Blue mug',
    ].join('\n'));
});

test('the root is a document with the title and never a ref, even when focusable', () => {
    const s = fromTree({ role: 'RootWebArea', name: 'T', focused: true, focusable: true, children: [{ role: 'button', name: 'B' }] });
    assert.match(s.text, /^- document "T":\n/);
    assert.deepEqual(Object.keys(s.refs), ['@e1']);
    assert.equal(s.title, 'T');
});

test('a non-document root is wrapped in a document', () => {
    const s = fromTree({ role: 'button', name: 'Alone' });
    assert.equal(s.text, '- document:\n  - button "Alone" [ref=@e1]');
});

test('states come after the ref in a fixed order; names and values are JSON-quoted', () => {
    const s = fromTree(doc([
        { role: 'combobox', name: 'He said "hi"\\', value: 'line\ttab', expanded: false, disabled: true },
        { role: 'button', name: 'Bold', pressed: 'mixed' },
        { role: 'option', name: 'O', selected: true },
        { role: 'checkbox', name: 'Off', checked: false },
        { role: 'checkbox', name: 'Some', checked: 'mixed' },
    ]));
    const lines = s.text.split('\n');
    assert.equal(lines[1], '  - combobox "He said \\"hi\\"\\\\" [ref=@e1 disabled=true expanded=false value="line tab"]');
    assert.equal(lines[2], '  - button "Bold" [ref=@e2 pressed=mixed]');
    assert.equal(lines[3], '  - option "O" [selected=true]');
    assert.equal(lines[4], '  - checkbox "Off" [ref=@e3]');
    assert.equal(lines[5], '  - checkbox "Some" [ref=@e4 checked=mixed]');
});

test('compact: adjacent text merges, whitespace-only and repeated names are dropped', () => {
    const s = fromTree(doc([
        { role: 'paragraph', children: [text('Hello '), text('wor'), text('ld'), text('   ')] },
        { role: 'link', name: 'Docs', children: [text('Docs')] },
        { role: 'heading', name: 'Intro', level: 2, children: [text('Intro')] },
        { role: 'generic', children: [text('\n\t ')] },
    ]));
    assert.equal(s.text, '- document "Page":\n  - paragraph: Hello world\n  - link "Docs" [ref=@e1]\n  - heading "Intro" [level=2]');
});

test('compact: false keeps every text line and no inline text', () => {
    const s = fromTree(doc([{ role: 'listitem', children: [text('a'), text('b')] }, { role: 'link', name: 'L', children: [text('L')] }]),
        { compact: false });
    assert.equal(s.text, '- document "Page":\n  - listitem:\n    - text: a\n    - text: b\n  - link "L" [ref=@e1]:\n    - text: L');
});

test('nameless generic/none/presentation containers are lifted; named ones stay', () => {
    const s = fromTree(doc([
        { role: 'generic', children: [{ role: 'none', children: [{ role: 'presentation', children: [{ role: 'button', name: 'Deep' }] }] }] },
        { role: 'generic', name: 'Card', children: [{ role: 'button', name: 'In card' }] },
    ]));
    assert.equal(s.text, '- document "Page":\n  - button "Deep" [ref=@e1]\n  - generic "Card":\n    - button "In card" [ref=@e2]');
});

test('browser-internal roles get ARIA names; InlineTextBox, LineBreak and ListMarker are not printed', () => {
    const tree = recordedTree('forms');
    const s = fromTree(tree);
    assert.match(s.text, /^- document "Checkout":/);
    for (const internal of ['RootWebArea', 'StaticText', 'InlineTextBox', 'LineBreak', 'ListMarker', 'statictext', 'inlinetextbox', 'listmarker']) {
        assert.ok(!s.text.includes(internal), `${internal} leaked into the text`);
    }
    assert.ok(!/\n\s*- text: •/.test(s.text), 'list bullets are not text');
});

test('interactiveOnly drops ignored and empty nodes; interactiveOnly: false keeps empty structure', () => {
    const tree = doc([{ role: 'separator' }, { role: 'img' }, { role: 'img', name: 'Logo' }, { role: 'list', children: [] }]);
    assert.equal(fromTree(tree).text, '- document "Page":\n  - img "Logo"');
    assert.equal(fromTree(tree, { interactiveOnly: false }).text,
        '- document "Page":\n  - separator\n  - img\n  - img "Logo"\n  - list');
});

test('names are whitespace-normalised and truncated at maxNameChars with …', () => {
    const long = 'x'.repeat(1000);
    const s = fromTree(doc([{ role: 'button', name: `  a \n  b  ` }, { role: 'link', name: long }]));
    assert.ok(s.text.includes('button "a b"'));
    assert.ok(s.text.includes(`link "${'x'.repeat(900)}…"`));
    assert.equal(s.refs['@e2'].name.length, 901);
    const short = fromTree(doc([{ role: 'button', name: 'abcdef' }]), { maxNameChars: 3 });
    assert.ok(short.text.includes('button "abc…"'));
    // A surrogate pair is never split.
    const emoji = fromTree(doc([{ role: 'button', name: 'a😀b' }]), { maxNameChars: 2 });
    assert.ok(emoji.text.includes('button "a…"'));
});

test('tier 1 always gets refs; tier 2 only inside interactive containers; structure never', () => {
    const s = fromTree(doc([
        { role: 'list', children: [{ role: 'listitem', name: 'Plain item' }] },
        { role: 'listbox', name: 'Pick', children: [{ role: 'option', name: 'One' }, { role: 'option', name: 'Two' }] },
        { role: 'grid', name: 'G', children: [{ role: 'row', children: [{ role: 'gridcell', name: 'A1' }] }] },
        { role: 'table', name: 'T', children: [{ role: 'row', children: [{ role: 'cell', name: 'c' }] }] },
        { role: 'heading', name: 'H', level: 1, focusable: true },
        { role: 'generic', name: 'Tile', focusable: true },
        { role: 'tab', name: 'Tab' },
    ]));
    const refs = Object.values(s.refs).map(r => `${r.role}:${r.name}`);
    assert.deepEqual(refs, ['option:One', 'option:Two', 'row:', 'gridcell:A1', 'generic:Tile', 'tab:Tab']);
});

test('more than 100 refs: only tier 1 unless allRefs, and a note says how many more', () => {
    const options = Array.from({ length: 120 }, (_, i) => ({ role: 'option', name: `Opt ${i}` }));
    const tree = doc([{ role: 'button', name: 'Go' }, { role: 'listbox', name: 'Big', children: options }]);
    const s = fromTree(tree);
    assert.deepEqual(Object.keys(s.refs), ['@e1']);
    assert.ok(s.notes.some(n => n.includes('121 interactive elements') && n.includes('120 more') && n.includes('allRefs')), s.notes.join('|'));
    const all = fromTree(tree, { allRefs: true });
    assert.equal(Object.keys(all.refs).length, 121);
    assert.equal(all.notes.length, 0);
});

test('maxDepth counts printed levels and never loses a ref', () => {
    let node = { role: 'button', name: 'Bottom' };
    for (let i = 0; i < 10; i += 1) node = { role: 'group', name: `g${i}`, children: [{ role: 'link', name: `l${i}` }, node] };
    const full = fromTree(doc([node]), { maxDepth: 100 });
    const cut = fromTree(doc([node]), { maxDepth: 3 });
    assert.deepEqual(Object.values(cut.refs).map(r => r.name), Object.values(full.refs).map(r => r.name));
    for (const r of Object.keys(full.refs)) assert.ok(cut.text.includes(`ref=${r}`), `${r} missing after the cut`);
    const depths = cut.text.split('\n').map(l => l.match(/^ */)[0].length / 2);
    assert.ok(Math.max(...depths) <= 4, 'cut refs are listed one level below the limit');
    // Every group below the limit is named: all of it is listed, and nothing is left out.
    assert.ok(cut.notes.some(n => /^maxDepth 3: the \d+ line\(s\) of text, names and controls \(\d+ ref'd\) deeper than the limit are listed at the cut$/.test(n)), cut.notes.join('|'));
    assert.equal(fromTree(doc([node]), { maxDepth: 0 }).text.split('\n')[0], '- document "Page":');
});

test('maxDepth lists the headings and text of a cut subtree flat at the cut, each once, in document order', () => {
    const article = { role: 'article', children: [
        { role: 'heading', name: 'Deep title', level: 2, children: [text('Deep title')] },
        { role: 'paragraph', children: [text('First paragraph words.')] },
        { role: 'paragraph', children: [text('Then '), { role: 'link', name: 'a link', children: [text('a link')] }, text(' and the end.')] },
    ] };
    let node = article;
    for (let i = 0; i < 4; i += 1) node = { role: 'group', children: [node] };
    const cut = fromTree(doc([{ role: 'main', children: [node] }]), { maxDepth: 2, interactiveOnly: false });
    const lines = cut.text.split('\n');
    const at = needle => lines.findIndex(l => l.includes(needle));
    for (const needle of ['heading "Deep title"', 'text: First paragraph words.', 'text: Then', 'link "a link"', 'text: and the end.']) assert.ok(at(needle) > 0, `${needle} missing:\n${cut.text}`);
    assert.ok(at('heading "Deep title"') < at('First paragraph') && at('First paragraph') < at('text: Then') && at('text: Then') < at('link "a link"'), cut.text);
    assert.equal(cut.text.match(/Deep title/g).length, 1, 'the heading\'s text is its name: said once');
    assert.equal(cut.text.match(/a link/g).length, 1, cut.text);
    assert.ok(Math.max(...lines.map(l => l.match(/^ */)[0].length / 2)) <= 3, cut.text);
    assert.ok(cut.notes.some(n => /^maxDepth 2: \d+ node\(s\) deeper than the limit are not shown; their \d+ line\(s\) of text, names and controls \(1 ref'd\) are listed at the cut$/.test(n)), cut.notes.join('|'));
});

test('a cut that leaves nothing out says what it lists, not that no node is shown', () => {
    // Every node below the limit is a control or text: all of it is listed at the cut.
    let node = { role: 'button', name: 'Deepest' };
    for (let i = 0; i < 3; i += 1) node = { role: 'group', name: `g${i}`, children: [node] };
    const cut = fromTree(doc([node]), { maxDepth: 2 });
    assert.ok(cut.text.includes('button "Deepest"'), cut.text);
    const note = cut.notes.find(n => n.startsWith('maxDepth 2:'));
    assert.match(note, /^maxDepth 2: the \d+ line\(s\) of text, names and controls \(1 ref'd\) deeper than the limit are listed at the cut$/);
    assert.doesNotMatch(note, /\b0 node/);
});

test('a long name taken from content is left to the children, and no text between its links is lost', () => {
    const words = 'I am a rather elderly man and the nature of my avocations for the last thirty years has brought me into contact with a set of men';
    const children = [text('I am a '), { role: 'link', name: 'rather elderly', children: [text('rather elderly')] }, text(' man and the nature of my '),
        { role: 'link', name: 'avocations', children: [text('avocations')] }, text(' for the last thirty years has brought me into contact with a set of men')];
    const s = fromTree(doc([{ role: 'table', children: [{ role: 'row', children: [{ role: 'cell', name: words, children }] }] }]), { interactiveOnly: false });
    assert.match(s.text, /- cell:\n/, s.text);
    for (const piece of ['text: I am a', 'link "rather elderly"', 'text: man and the nature of my', 'link "avocations"', 'text: for the last thirty years']) assert.ok(s.text.includes(piece), `${piece} missing:\n${s.text}`);
    // A short name from content still says its text once, on its own line.
    const short = fromTree(doc([{ role: 'heading', name: 'Title edit', level: 2, children: [text('Title '), { role: 'link', name: 'edit', children: [text('edit')] }] }]), { interactiveOnly: false });
    assert.match(short.text, /- heading "Title edit" \[level=2\]:\n {4}- link "edit" \[ref=@e1\]$/, short.text);
});

test('refsOnly prints only ref lines, flat, keeping inline text of nameless controls', () => {
    const s = fromTree(doc([{ role: 'main', children: [{ role: 'button', name: 'A' }, { role: 'generic', focusable: true, children: [text('tile')] }, text('prose')] }]),
        { refsOnly: true });
    // A tab stop without a widget role is marked as the clickable thing it is.
    assert.equal(s.text, '- button "A" [ref=@e1]\n- generic [ref=@e2 clickable]: tile');
});

test('refs are in document order, unique, stable, and carry occurrenceIndex', () => {
    const tree = doc([{ role: 'button', name: 'Save' }, { role: 'group', name: 'x', children: [{ role: 'button', name: 'Save' }] }, { role: 'button', name: 'Save' }]);
    const a = fromTree(tree);
    const b = fromTree(tree);
    assert.deepEqual(Object.keys(a.refs), ['@e1', '@e2', '@e3']);
    assert.deepEqual(Object.values(a.refs).map(r => r.occurrenceIndex), [0, 1, 2]);
    assert.equal(a.text, b.text);
    assert.equal(a.axHash, b.axHash);
    assert.deepEqual(Object.values(a.refs).map(r => r.signatureHash), Object.values(b.refs).map(r => r.signatureHash));
    assert.notEqual(a.refs['@e1'].signatureHash, a.refs['@e2'].signatureHash);
    assert.notEqual(a.snapshotId, b.snapshotId);
    assert.match(a.snapshotId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('ElementRef and WebAiSnapshot have every field of the contract', () => {
    const s = fromTree(recordedTree('chatgpt'), { provider: 'chatgpt' });
    assert.deepEqual(Object.keys(s).sort(), ['axHash', 'domHash', 'notes', 'provider', 'refs', 'snapshotId', 'stats', 'text', 'title', 'url'].sort());
    assert.deepEqual(Object.keys(s.stats).sort(), ['captureMs', 'interactiveCount', 'nodeCount', 'tokenEstimate']);
    assert.equal(s.provider, 'chatgpt');
    assert.equal(s.stats.interactiveCount, Object.keys(s.refs).length);
    assert.equal(s.stats.tokenEstimate, Math.ceil(s.text.length / 4));
    const r = s.refs['@e1'];
    assert.deepEqual(Object.keys(r).sort(), ['backendNodeId', 'clickable', 'frameId', 'framePath', 'name', 'occurrenceIndex', 'ref', 'role', 'selector',
        'shadowClosed', 'shadowPath', 'signatureHash'].sort());
    // A recorded tree has no DOM: no selector, nothing to mark.
    assert.equal(r.selector, null);
    assert.equal(r.clickable, false);
    assert.equal(typeof r.backendNodeId, 'number');
    assert.equal(typeof r.frameId, 'string');
    assert.match(r.signatureHash, /^sha256:[0-9a-f]{16}$/);
});

test('redactText hashes names and text in the text but not in refs', () => {
    const s = fromTree(doc([{ role: 'button', name: 'Secret' }, { role: 'paragraph', children: [text('private words')] }]), { redactText: true });
    assert.ok(!s.text.includes('Secret') && !s.text.includes('private'));
    assert.match(s.text, /button "\[redacted:sha256:[0-9a-f]{12}\]"/);
    assert.equal(s.refs['@e1'].name, 'Secret');
});

test('refPrefix sets the ref form', () => {
    assert.deepEqual(Object.keys(fromTree(doc([{ role: 'button', name: 'x' }]), { refPrefix: 'r' }).refs), ['r1']);
});

test('a blank or null tree gives a minimal document and a note, never an error', () => {
    for (const input of [null, undefined, { nodes: [] }, [], doc([]), recordedTree('blank'), '{"nodes":[]}']) {
        const s = fromTree(input);
        assert.match(s.text, /^- document/);
        assert.ok(s.notes.includes('the page has no accessible content'), JSON.stringify(input)?.slice(0, 40));
        assert.deepEqual(s.refs, {});
    }
});

test('extractInteractiveRefs copies a snapshot\'s refs or walks a tree', () => {
    const snap = fromTree(doc([{ role: 'button', name: 'B' }]));
    const copy = extractInteractiveRefs(snap);
    assert.deepEqual(copy, snap.refs);
    assert.notEqual(copy, snap.refs);
    const refs = extractInteractiveRefs(doc([{ role: 'link', name: 'L' }, { role: 'listbox', name: 'x', children: [{ role: 'option', name: 'o' }] }]), '#');
    assert.deepEqual(Object.keys(refs), ['#1', '#2']);
    assert.equal(refs['#2'].role, 'option');
    assert.deepEqual(extractInteractiveRefs(null), {});
    assert.equal(Object.keys(extractInteractiveRefs(recordedTree('forms'))).length, 22);
});

test('the same CDP tree gives the same text from an object, an array or JSON text', () => {
    const tree = recordedTree('widgets');
    const a = fromTree(tree).text;
    assert.equal(fromTree(tree.nodes).text, a);
    assert.equal(fromTree(JSON.stringify(tree)).text, a);
});
