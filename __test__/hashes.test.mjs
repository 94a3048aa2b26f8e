// Hashes must be byte-identical to the JavaScript modules they replace:
// registries written by old and new code meet during a migration. The
// reference functions below are those modules' algorithms, run by Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
    hashAccessibilitySnapshot, hashDoctorField, estimateSnapshotTokens, normalizeDomForHash, domHashAround,
} from '../lib/index.mjs';

const ref = {
    ax: t => `sha256:${createHash('sha256').update(String(t || '').replace(/\s+/g, ' ').trim()).digest('hex').slice(0, 16)}`,
    doctor: v => `sha256:${createHash('sha256').update(String(v)).digest('hex').slice(0, 12)}`,
    tokens: t => Math.ceil(String(t || '').length / 4),
    normalize: html => String(html)
        .replace(/<!--[\s\S]*?-->/g, '')
        .replace(/<(\w+)\s[^>]*>/g, '<$1>')
        .replace(/>([^<]+)</g, '><')
        .replace(/\s+/g, ' ')
        .trim(),
    dom: (html, max) => `sha256:${createHash('sha256').update(ref.normalize(html).slice(0, max)).digest('hex').slice(0, 16)}`,
};

// Every JS whitespace and line terminator, the near-misses (U+0085, U+200B),
// astral characters and lone surrogates.
const ALPHABET = [
    'a', 'Z', '0', '_', '-', '<', '>', '/', '=', '"', "'", '!', '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680',
    '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u0085', '\u200b', 'é', 'ß', '日',
    '😀', '\ud800', '\udc00', '<!--', '-->', '<div class="x">', '<p\u00a0id=1>', '<é a>', '</div>',
];

function* randomStrings(count, seed = 7) {
    let s = seed;
    const next = () => { s = (s * 1103515245 + 12345) & 0x7fffffff; return s; };
    for (let i = 0; i < count; i += 1) {
        const len = next() % 40;
        let out = '';
        for (let k = 0; k < len; k += 1) out += ALPHABET[next() % ALPHABET.length];
        yield out;
    }
}

test('hashAccessibilitySnapshot matches the JS module on random and odd Unicode input', () => {
    for (const s of randomStrings(3000)) assert.equal(hashAccessibilitySnapshot(s), ref.ax(s), JSON.stringify(s));
});

test('hashAccessibilitySnapshot normalises whitespace and coerces like String(x || "")', () => {
    assert.equal(hashAccessibilitySnapshot('  - a\n\n   - b '), hashAccessibilitySnapshot('- a - b'));
    assert.notEqual(hashAccessibilitySnapshot('- a'), hashAccessibilitySnapshot('- b'));
    for (const v of [null, undefined, 0, false, '', 42, true, {}, [1, 2], { toString: () => 'x y' }]) {
        assert.equal(hashAccessibilitySnapshot(v), ref.ax(v), String(v));
    }
    assert.match(hashAccessibilitySnapshot('x'), /^sha256:[0-9a-f]{16}$/);
});

test('hashDoctorField matches String(value) hashing, null and numbers included', () => {
    for (const s of randomStrings(2000, 11)) assert.equal(hashDoctorField(s), ref.doctor(s));
    for (const v of [null, undefined, 0, -0, 1.5, 1e21, true, [], ['a', 'b'], {}, 'Secret']) {
        assert.equal(hashDoctorField(v), ref.doctor(v), String(v));
    }
    assert.match(hashDoctorField('x'), /^sha256:[0-9a-f]{12}$/);
});

test('estimateSnapshotTokens is ceil(JS length / 4); null is 0', () => {
    assert.equal(estimateSnapshotTokens(null), 0);
    assert.equal(estimateSnapshotTokens(''), 0);
    assert.equal(estimateSnapshotTokens('abcde'), 2);
    assert.equal(estimateSnapshotTokens('😀😀'), 1);
    for (const s of randomStrings(500, 3)) assert.equal(estimateSnapshotTokens(s), ref.tokens(s));
});

test('normalizeDomForHash matches the JS regexes, including ASCII \\w and JS \\s', () => {
    assert.equal(normalizeDomForHash('<div class="foo">hello <span>world</span></div>'), '<div><span></span></div>');
    // A lone surrogate is not text: it comes back as U+FFFD, exactly as Node
    // encodes it when hashing, so hashes agree even then.
    for (const s of randomStrings(3000, 5)) assert.equal(normalizeDomForHash(s), ref.normalize(s).toWellFormed(), JSON.stringify(s));
    assert.equal(normalizeDomForHash(12), '12');
});

test('domHashAround hashes the first matching element like the JS module, UTF-16 truncation included', async () => {
    const html = '<main id="m">😀 text <b class="x">bold</b><!-- c --></main>';
    const page = {
        async evaluate(_fn, selectors) {
            assert.deepEqual(selectors, ['#missing', 'main']);
            return html;
        },
    };
    for (const max of [1, 5, 6, 7, 8192]) {
        assert.equal(await domHashAround(page, ['#missing', 'main'], { maxChars: max }), ref.dom(html, max), `maxChars ${max}`);
    }
    const nothing = { evaluate: async () => null };
    assert.equal(await domHashAround(nothing, ['x']), null);
    const broken = { evaluate: async () => { throw new Error('page closed'); } };
    assert.equal(await domHashAround(broken, ['x']), null);
});
