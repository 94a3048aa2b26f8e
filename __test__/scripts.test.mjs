// The functions the core runs in the page are real files (src/page/**/*.js,
// embedded with include_str!): each must parse, in strict mode, as one
// function expression, and keep to the few rules below. What they do is
// tested through the actions and capture suites against live Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { root } from './helpers.mjs';

function scripts() {
    const out = [];
    const stack = [join(root, 'src', 'page')];
    while (stack.length) {
        const dir = stack.pop();
        for (const e of readdirSync(dir, { withFileTypes: true })) {
            const p = join(dir, e.name);
            if (e.isDirectory()) stack.push(p);
            else if (e.name.endsWith('.js')) out.push(p);
        }
    }
    return out.sort();
}

test('every page script is one strict-mode function expression, linted', () => {
    const files = scripts();
    assert.ok(files.length >= 16, `found ${files.length} page scripts`);
    for (const file of files) {
        const text = readFileSync(file, 'utf8');
        const code = `'use strict'; (${text})`;
        assert.doesNotThrow(() => new vm.Script(code, { filename: file }), file);
        const fn = vm.runInNewContext(code);
        assert.equal(typeof fn, 'function', `${file} is a function expression`);
        assert.ok(!/\bvar\s/.test(text), `${file}: let/const, not var`);
        assert.ok(!/\beval\(|new Function\(/.test(text), `${file}: no eval`);
        assert.ok(!/[ \t]+$/m.test(text), `${file}: no trailing whitespace`);
        assert.ok(text.trimStart().startsWith('//'), `${file} opens with a comment saying why it runs in the page`);
    }
});
