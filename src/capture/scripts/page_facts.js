// The page's URL, title, viewport and the normalised, truncated outerHTML the
// DOM hash is taken of (the first selector that matches, like domHashAround).
// Normalising here, with the very regexes of dom-hash.mjs, returns at most
// `maxChars` characters instead of the whole outerHTML (megabytes on some
// pages), byte-identical by construction; Rust hashes the result.
function (selectors, includeHtml, maxChars) {
    let html = null;
    if (includeHtml) {
        for (const s of selectors) {
            try {
                const n = document.querySelector(s);
                if (n) { html = n.outerHTML || null; break; }
            } catch (e) { /* an invalid selector matches nothing */ }
        }
    }
    const normalized = html === null ? null : String(html)
        .replace(/<!--[\s\S]*?-->/g, '')
        .replace(/<(\w+)\s[^>]*>/g, '<$1>')
        .replace(/>([^<]+)</g, '><')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, maxChars);
    return { url: location.href, title: document.title, normalizedHtml: normalized, viewport: [innerWidth, innerHeight] };
}
