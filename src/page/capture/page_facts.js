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
// (`__test__/walk.test.mjs` checks it against the whole outerHTML). The
// elements above such a text, and those too large to write whole, are
// written out here, as outerHTML writes them; everything else is the
// browser's own outerHTML.
(function (selectors, includeHtml, maxChars, marks, count) {
    const LONG = 2048;
    const quiet = t => t.length >= LONG && !t.includes('<') && !t.includes('-->');
    // `<tag …>` and `</tag>` as outerHTML writes them (an element with children, or a
    // script or style, is never void). Not by cloning: a clone of a custom element runs the page's code.
    const HTML_NS = 'http://www.w3.org/1999/xhtml';
    const escapeAttr = t => t.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const tags = el => {
        const name = el.namespaceURI === HTML_NS ? el.localName : el.tagName;
        let open = `<${name}`;
        for (const a of el.attributes) open += ` ${a.name}="${escapeAttr(a.value)}"`;
        return [`${open}>`, `</${name}>`];
    };
    // Text in these is written as it is (the parser reads it raw).
    const RAW = /^(style|script|xmp|iframe|noembed|noframes|plaintext|noscript)$/;
    // An element of at most SMALL descendants is written by the browser (`outerHTML`);
    // a larger one is opened and closed here, its children taken one by one. Finding
    // out walks at most SMALL elements, not the subtree.
    const SMALL = 512;
    const small = el => el.getElementsByTagName('*')[SMALL] === undefined;
    // The normalising is four regexes over the whole outerHTML (dom-hash.mjs's, one
    // function a step below). Done a chunk at a time, it stops once `maxChars`
    // characters are out: on a large page the truncated hash needs the first few
    // thousand elements, not all (`node bench/page-facts.mjs`: the 40k-node page's
    // whole outerHTML written and normalised took 11.2 ms, this 4.7).
    // A chunk is cut only before an element's `<` and only where no match of any of
    // the four can span the cut, which is checked on the chunk itself: no comment
    // left open, every `<` closed by a `>` before the cut, and the last tag ending
    // the chunk (no text run from a `>` into the next chunk). A chunk that fails
    // that is not cut there; the rest is normalised with the next. The result is
    // then that of the whole string, byte for byte (`__test__/walk.test.mjs`
    // checks it against the whole outerHTML on every real page).
    const uncomment = t => t.replace(/<!--[\s\S]*?-->/g, '');
    const bareTags = t => t.replace(/<(\w+)\s[^>]*>/g, '<$1>');
    const withoutText = t => t.replace(/>([^<]+)</g, '><').replace(/\s+/g, ' ');
    const CHUNK = 16384;
    // The element whose start the written page stopped before (the cut: `add` stops only
    // before an element's `<`), null when the page was written to its end.
    let stoppedAt = null;
    const normalizedHtml = root => {
        // (Two live collections, not a selector query: the query walks the whole document
        // on every capture, 2 ms on the 40k-node page; the collections are kept by the DOM.)
        const long = [];
        // The script and style text that is read (not left out): it is normalised with the rest.
        let raw = 0;
        for (const tag of ['script', 'style']) {
            for (const el of root.getElementsByTagName(tag)) {
                const t = el.textContent;
                if (quiet(t)) long.push(el);
                else raw += t.length;
            }
        }
        const above = new Set();
        for (const el of long) {
            for (let a = el.parentNode; a && a !== root.parentNode && !above.has(a); a = a.parentNode) above.add(a);
        }
        const left = new Set(long);
        // Chunks pay only where the cut comes well before the end: written in pieces, a
        // page costs more than its one outerHTML (generated-10k, whose cut is near its end:
        // 5.0 against 2.8 ms). About 10 normalised characters an element on the
        // benchmark pages, and the script and style text read: pages of less than 3 cuts'
        // worth are written whole. (Counted by elements alone, nytimes-5 of
        // ../shared/pages-more, 994 elements and 765k characters of inline script, was
        // written and normalised whole, and the page facts answered 8 ms after its DOM
        // snapshot: `npm run bench:calls -- FILE`, 2026-11-28.)
        const chunked = root.getElementsByTagName('*').length * 10 + raw > 3 * maxChars;
        let out = '';
        let pending = [];
        let pendingLength = 0;
        // A chunk that cannot be cut is tried again only once it has doubled: each
        // character is normalised a bounded number of times.
        let nextTry = CHUNK;
        const flush = () => {
            const uncommented = uncomment(pending.join(''));
            const tagged = uncommented.includes('<!--') ? '' : bareTags(uncommented);
            // The chunk's last tag, and what follows it: text (no `<`), which the next
            // chunk's first `<` ends, so that the text regex drops it in the whole string.
            const lastTag = tagged.indexOf('>', tagged.lastIndexOf('<'));
            if (lastTag === -1) {
                nextTry = pendingLength * 2;
                return false;
            }
            const collapsed = withoutText(tagged.slice(0, lastTag + 1));
            out += out ? collapsed : collapsed.trimStart();
            pending = [];
            pendingLength = 0;
            nextTry = CHUNK;
            return true;
        };
        const add = piece => {
            if (chunked && pendingLength >= nextTry && /^<[A-Za-z]/.test(piece) && flush() && out.length >= maxChars) return false;
            pending.push(piece);
            pendingLength += piece.length;
            return true;
        };
        // [node, closing tag after its children] in document order; explicit stack (the depth is the page's).
        const stack = [[root, null]];
        while (stack.length) {
            const [node, close] = stack.pop();
            let piece = null;
            if (close !== null) piece = close;
            else if (node.nodeType === 1) {
                if (left.has(node)) piece = tags(node).join('');
                else if (above.has(node) || (chunked && node.firstElementChild && node.localName !== 'template' && !small(node))) {
                    const [open, end] = tags(node);
                    if (!add(open)) {
                        stoppedAt = node;
                        return out.slice(0, maxChars);
                    }
                    stack.push([node, end]);
                    for (let c = node.lastChild; c; c = c.previousSibling) stack.push([c, null]);
                    continue;
                } else piece = node.outerHTML;
            } else if (node.nodeType === 3) {
                const parent = node.parentNode;
                // Text outside raw-text elements is escaped (no `<` or `>`), and the
                // text regex drops every run of it between two tags whatever it says:
                // one space stands for it.
                const raw = parent && parent.namespaceURI === HTML_NS && RAW.test(parent.localName);
                piece = raw ? node.data : ' ';
            } else if (node.nodeType === 8) {
                piece = `<!--${node.data}-->`;
            } else if (node.nodeType === 7) {
                piece = `<?${node.target} ${node.data}>`;
            }
            if (piece !== null && !add(piece)) {
                stoppedAt = node;
                return out.slice(0, maxChars);
            }
        }
        return (out + withoutText(bareTags(uncomment(pending.join(''))))).trim().slice(0, maxChars);
    };
    let normalized = null;
    if (includeHtml) {
        for (const s of selectors) {
            let n = null;
            try {
                n = document.querySelector(s);
            } catch (_e) { /* an invalid selector matches nothing */ }
            if (n) {
                normalized = normalizedHtml(n);
                break;
            }
        }
    }
    // Where this hash stopped, numbered: a repeat look whose changes all come at or after
    // that element's start keeps the hash without writing the page again (`take_changes.js`).
    // The normalised text before the cut is all the hash reads, and none of the regexes
    // reaches across it (the chunk it ended checked that), so what follows cannot change it.
    // The last few writings are kept: sessions on one page (and full captures beside them)
    // each hold the hash of their own last writing.
    let hashCut = null;
    if (includeHtml && stoppedAt) {
        const CUTS = '__webAiSnapshotHashCut';
        const cuts = globalThis[CUTS] || (globalThis[CUTS] = { seq: 0, at: new Map() });
        cuts.seq += 1;
        cuts.at.set(cuts.seq, { key: `${maxChars}|${selectors.join(',')}`, node: stoppedAt });
        if (cuts.at.size > 32) cuts.at.delete(cuts.at.keys().next().value);
        hashCut = cuts.seq;
    }

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
        hashCut,
    };
})
