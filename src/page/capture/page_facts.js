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
// With `count`, `inline` is [characters of inline script and style text,
// elements]: whether a DOM snapshot, which carries that text whole, costs
// more than a walk (`src/capture/walk.rs`); asked once a document.
//
// (Chrome's deep serialization could name those nodes here, by backend id,
// in this one call; under the random-mutation test it left Chromium 156's
// renderer hung or crashed within a few dozen captures, so it is not used.)
//
// A long script or style text with no `<` and no `-->` in it (JSON state,
// style sheets: often megabytes) is left out of the outerHTML: the
// normalising drops such a text whole, and none of its regexes can begin
// or end inside it, so the result is the same, byte for byte
// (`__test__/hashes.test.mjs` checks it against the whole outerHTML). The
// elements above such a text are written out here, as outerHTML writes
// them; everything else is the browser's own outerHTML.
(function (selectors, includeHtml, maxChars, marks, count) {
    const LONG = 2048;
    const quiet = el => {
        const t = el.textContent;
        return t.length >= LONG && !t.includes('<') && !t.includes('-->');
    };
    // `<tag …>` and `</tag>` as outerHTML writes them (an element with children, or a
    // script or style, is never void). Not by cloning: a clone of a custom element runs the page's code.
    const HTML_NS = 'http://www.w3.org/1999/xhtml';
    const escapeText = t => t.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const escapeAttr = t => t.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const tags = el => {
        const name = el.namespaceURI === HTML_NS ? el.localName : el.tagName;
        let open = `<${name}`;
        for (const a of el.attributes) open += ` ${a.name}="${escapeAttr(a.value)}"`;
        return [`${open}>`, `</${name}>`];
    };
    // Text in these is written as it is (the parser reads it raw).
    const RAW = /^(style|script|xmp|iframe|noembed|noframes|plaintext|noscript)$/;
    const outerHtml = root => {
        const long = [];
        for (const el of root.querySelectorAll('script, style')) if (quiet(el)) long.push(el);
        if (long.length === 0) return root.outerHTML;
        const above = new Set();
        for (const el of long) {
            for (let a = el.parentNode; a && a !== root.parentNode && !above.has(a); a = a.parentNode) above.add(a);
        }
        const left = new Set(long);
        const out = [];
        // [node, closing tag after its children] in document order; explicit stack (the depth is the page's).
        const stack = [[root, null]];
        while (stack.length) {
            const [node, close] = stack.pop();
            if (close !== null) {
                out.push(close);
                continue;
            }
            if (node.nodeType === 1) {
                if (left.has(node)) {
                    out.push(tags(node).join(''));
                } else if (above.has(node)) {
                    const [open, end] = tags(node);
                    out.push(open);
                    stack.push([node, end]);
                    for (let c = node.lastChild; c; c = c.previousSibling) stack.push([c, null]);
                } else {
                    out.push(node.outerHTML);
                }
            } else if (node.nodeType === 3) {
                const parent = node.parentNode;
                const raw = parent && parent.namespaceURI === HTML_NS && RAW.test(parent.localName);
                out.push(raw ? node.data : escapeText(node.data));
            } else if (node.nodeType === 8) {
                out.push(`<!--${node.data}-->`);
            } else if (node.nodeType === 7) {
                out.push(`<?${node.target} ${node.data}>`);
            }
        }
        return out.join('');
    };
    let html = null;
    if (includeHtml) {
        for (const s of selectors) {
            try {
                const n = document.querySelector(s);
                if (n) { html = outerHtml(n) || null; break; }
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
    if (count) {
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
