// Deterministic synthetic pages of a chosen size, for the benchmark and the
// large-page tests. Each item is a small card with a heading, text, a link, a
// button and a field: a mix like a real feed or a product grid.
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

function words(i, n) {
    const out = [];
    for (let k = 0; k < n; k += 1) out.push(WORDS[(i * 7 + k * 3) % WORDS.length]);
    return out.join(' ');
}

/** About `targetNodes` accessibility nodes (Chrome's full tree, all roles). */
export function generatePage(targetNodes) {
    // Calibrated against Chromium: one card is about 32 nodes in getFullAXTree.
    const cards = Math.max(1, Math.round(targetNodes / 32));
    const parts = [];
    for (let i = 0; i < cards; i += 1) {
        parts.push(`<article class="card" id="card-${i}"><h3>Item ${i}: ${words(i, 3)}</h3>`
            + `<p>${words(i, 12)}. <em>${words(i + 1, 2)}</em></p>`
            + `<ul><li>${words(i, 2)}</li><li>${words(i + 2, 2)}</li></ul>`
            + `<a href="#item-${i}">Open ${i}</a> <button type="button">Like ${i}</button>`
            + `<label>Note ${i} <input type="text" name="n${i}"></label></article>`);
    }
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Generated ${targetNodes} nodes</title></head>`
        + `<body><header><nav aria-label="Top"><a href="#">Home</a></nav></header><main><h1>Generated feed</h1>${parts.join('\n')}</main></body></html>`;
}

/**
 * An app page the way modern frameworks ship one: a small UI (a header, a
 * form, a list of 30 items) and `stateBytes` of JSON state inline in a script
 * tag, plus an inline style sheet. Its accessibility tree is small; the cost
 * is the inline text a DOM snapshot carries whole.
 */
export function generateAppPage(stateBytes = 1_500_000) {
    const items = [];
    let i = 0;
    let size = 0;
    while (size < stateBytes) {
        const item = { id: i, title: `Item ${i}: ${words(i, 4)}`, body: words(i, 30), tags: [words(i, 1), words(i + 1, 1)], price: (i % 97) + 0.5 };
        const text = JSON.stringify(item);
        size += text.length + 1;
        items.push(text);
        i += 1;
    }
    const style = Array.from({ length: 1500 }, (_, k) => `.c${k} { margin: ${k % 7}px; color: #${(k * 2654435761 >>> 8).toString(16).padStart(6, '0').slice(0, 6)}; }`).join('\n');
    const list = Array.from({ length: 30 }, (_, k) => `<li><a href="#item-${k}">Item ${k}: ${words(k, 4)}</a> <button type="button">Save ${k}</button></li>`).join('');
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Generated app page</title><style>${style}</style></head>`
        + '<body><header><nav aria-label="Top"><a href="#">Home</a> <a href="#deals">Deals</a></nav></header>'
        + '<main><h1>Dashboard</h1><form><label>Search <input type="search" name="q"></label> <button>Go</button></form>'
        + `<ul>${list}</ul></main>`
        + `<script type="application/json" id="__APP_STATE__">{"items":[${items.join(',')}]}</script>`
        + '<script>window.__boot = JSON.parse(document.getElementById("__APP_STATE__").textContent).items.length;</script>'
        + '</body></html>';
}
