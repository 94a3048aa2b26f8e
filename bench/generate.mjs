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
