// The page's URL, title, viewport and the normalised, truncated outerHTML the
// DOM hash is taken of (the first selector that matches, like domHashAround).
// Normalising here, with the very regexes of dom-hash.mjs, returns at most
// `maxChars` characters instead of the whole outerHTML (megabytes on some
// pages), byte-identical by construction; Rust hashes the result.
//
// `token` names this world's document: made the first time the script runs
// in it (a world goes with its document), a capture that finds the token its
// world had knows it is still in that document. With `marks` (the DOM
// engine), `focus` and `modal` say whether there is something a DOM snapshot
// cannot show: a focused element, a dialog shown with showModal() (found and
// marked by `marked_element.js`, only then).
//
// With `marks`, `inline` is [characters of inline script and style text,
// elements]: whether a DOM snapshot, which carries that text whole, costs
// more than a walk (`src/capture/walk.rs`).
//
// (Chrome's deep serialization could name those nodes here, by backend id,
// in this one call; under the random-mutation test it left Chromium 156's
// renderer hung or crashed within a few dozen captures, so it is not used.)
(function (selectors, includeHtml, maxChars, marks) {
    let html = null;
    if (includeHtml) {
        for (const s of selectors) {
            try {
                const n = document.querySelector(s);
                if (n) { html = n.outerHTML || null; break; }
            } catch (_e) { /* an invalid selector matches nothing */ }
        }
    }
    const normalized = html === null ? null : String(html)
        .replace(/<!--[\s\S]*?-->/g, '')
        .replace(/<(\w+)\s[^>]*>/g, '<$1>')
        .replace(/>([^<]+)</g, '><')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, maxChars);

    let focus = false;
    let modal = false;
    if (marks) {
        const a = document.activeElement;
        focus = Boolean(a && a.tagName !== 'BODY' && a.tagName !== 'HTML');
        try {
            modal = Boolean(document.querySelector('dialog:modal'));
        } catch (_e) { /* a browser without :modal */ }
    }
    let inline = null;
    if (marks) {
        let chars = 0;
        for (const tag of ['script', 'style']) {
            for (const el of document.getElementsByTagName(tag)) chars += el.textContent.length;
        }
        inline = [chars, document.getElementsByTagName('*').length];
    }
    const KEY = '__webAiSnapshotDocument';
    if (typeof globalThis[KEY] !== 'string') {
        globalThis[KEY] = Math.random().toString(36).slice(2) + Date.now().toString(36) + Math.random().toString(36).slice(2);
    }
    return {
        url: location.href,
        title: document.title,
        normalizedHtml: normalized,
        viewport: [innerWidth, innerHeight],
        token: globalThis[KEY],
        focus,
        modal,
        inline,
    };
})
