'use strict';
const native = require('./native.cjs');
const { listOf } = require('./input.cjs');

/** Remove comments, attributes and text between tags; collapse whitespace. */
function normalizeDomForHash(html) {
    return native.normalizeDomForHash(String(html));
}

/** Runs in the page: outerHTML of the first selector that matches (bad selectors are skipped). */
function firstOuterHtml(selectors) {
    for (const s of selectors) {
        try {
            const n = document.querySelector(s);
            if (n) return n.outerHTML || null;
        } catch {
            // an invalid selector matches nothing
        }
    }
    return null;
}

async function domHashAround(page, selectors, options = {}) {
    const maxChars = options.maxChars ?? native.DEFAULT_DOM_HASH_AROUND_MAX_CHARS;
    const html = await page.evaluate(firstOuterHtml, listOf(selectors, 'selectors').map(String)).catch(() => null);
    if (!html) return null;
    return native.domHashOfHtml(String(html), Number(maxChars));
}

async function selectorMatchSummary(page, selectors) {
    const MAX_VISIBILITY_SCAN = 10;
    return Promise.all(listOf(selectors, 'selectors').map(async selector => {
        const loc = page.locator(selector);
        const matched = await loc.count().catch(() => 0);
        let visible = false;
        for (let i = 0; i < Math.min(matched, MAX_VISIBILITY_SCAN) && !visible; i += 1) {
            visible = await loc.nth(i).isVisible().catch(() => false);
        }
        return { selector, matched, visible };
    }));
}

module.exports = { normalizeDomForHash, domHashAround, selectorMatchSummary };
