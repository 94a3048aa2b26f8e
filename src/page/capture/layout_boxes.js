// Where each laid-out element and text of the page's document is now, for a
// repeat capture that shows only what is in the viewport (`viewportOnly`,
// `maxTokens`): boxes move with any change (a row added moves every row
// below it, an image that loads, a scroll), so the mirror keeps none and
// each such look reads them all again here (`src/incremental/layout.rs`).
//
// `laid` has one character per element and text node, in pre-order over
// child nodes (no shadow trees, template contents or frame documents: the
// mirror's order), '1' where the mirror says the node has a layout object
// (a DOM snapshot gives a box for exactly those). Only those are measured:
// asking a node outside layout for its box (under `content-visibility:
// hidden`, in a closed <details>) would make layout objects that every
// later snapshot would list.
//
// The answer, one JSON string: [count, hash, [x, y, width, height, ...]],
// the boxes relative to the viewport (a DOM snapshot's bounds less the
// document's scroll offset), `count` the element and text nodes met and
// `hash` an FNV-1a hash of their types and names, by which the capture
// knows the page lists the nodes its mirror does, in the same order.
(function (laid) {
    const range = document.createRange();
    const out = [];
    let hash = 0x811c9dc5;
    let k = 0;
    const stack = [document];
    while (stack.length) {
        const node = stack.pop();
        const type = node.nodeType;
        if (type === 1 || type === 3) {
            hash = Math.imul(hash ^ type, 0x01000193);
            const name = node.nodeName;
            for (let i = 0; i < name.length; i += 1) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
            if (laid.charCodeAt(k) === 49) {
                let b;
                if (type === 1) b = node.getBoundingClientRect();
                else {
                    range.selectNodeContents(node);
                    b = range.getBoundingClientRect();
                }
                out.push(b.x, b.y, b.width, b.height);
            }
            k += 1;
        }
        for (let c = node.lastChild; c; c = c.previousSibling) stack.push(c);
    }
    range.detach();
    return JSON.stringify([k, hash >>> 0, out]);
})
