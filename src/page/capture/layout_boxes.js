// Where each laid-out element and text of the page is now, for a repeat
// capture that shows only what is in the viewport (`viewportOnly`,
// `maxTokens`): boxes move with any change (a row added moves every row
// below it, an image that loads, a scroll), so the mirror keeps none and
// each such look reads them all again here (`src/incremental/layout.rs`).
//
// The walk meets documents, elements and texts in pre-order over the flat tree
// (an open shadow root's host: its shadow root's children, not its own; a
// slot: the nodes assigned to it, else its own; no template contents: the
// mirror's order, DOMSnapshot's), the page's
// document first, then each frame document it can enter, in the order their
// owners were met (then theirs), as DOMSnapshot lists documents. `laid` has
// one character per node met, '1' where the capture needs its box: an
// element or a text (not of white space alone) the mirror says has a layout
// object (a DOM snapshot gives a box for exactly those). Only those are
// measured: asking a node outside layout for its box (under
// `content-visibility: hidden`, in a closed <details>) would make layout
// objects that every later snapshot would list.
//
// The answer, one JSON string: [count, hash, documents, [x, y, width, height, ...]],
// each box relative to its document's viewport (a DOM snapshot's bounds less
// the document's scroll offset), `count` the nodes met and `hash` an FNV-1a
// hash of their types and names, by which the capture knows the page lists
// the nodes its mirror does, in the same order, frames included, and
// `documents` those walked (a frame of another origin in the page's process
// is one the mirror has and the walk cannot enter).
(function (laid) {
    const out = [];
    let hash = 0x811c9dc5;
    let k = 0;
    const mix = code => {
        hash = Math.imul(hash ^ code, 0x01000193);
    };
    const documents = [document];
    for (let d = 0; d < documents.length; d += 1) {
        // A range of the document walked: a text's box is in its own document's viewport.
        const range = documents[d].createRange();
        const stack = [documents[d]];
        while (stack.length) {
            const node = stack.pop();
            const type = node.nodeType;
            if (type === 9) {
                mix(type);
                k += 1;
            } else if (type === 1 || type === 3) {
                mix(type);
                const name = node.nodeName;
                for (let i = 0; i < name.length; i += 1) mix(name.charCodeAt(i));
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
                // A frame owner's document, where our world can enter it (another origin's cannot:
                // the mirror lists it, the hashes differ, and the capture reads the page in full).
                if (type === 1 && 'contentDocument' in node) {
                    let inner = null;
                    try {
                        inner = node.contentDocument;
                    } catch (_e) {
                        /* another origin */
                    }
                    if (inner) documents.push(inner);
                }
            }
            // A shadow root is walked through, as the mirror lists it: not met itself.
            if (type === 1 && node.shadowRoot) {
                stack.push(node.shadowRoot);
                continue;
            }
            const assigned = type === 1 && node.localName === 'slot' && typeof node.assignedNodes === 'function' ? node.assignedNodes() : [];
            if (assigned.length) for (let i = assigned.length - 1; i >= 0; i -= 1) stack.push(assigned[i]);
            else for (let c = node.lastChild; c; c = c.previousSibling) stack.push(c);
        }
        range.detach();
    }
    return JSON.stringify([k, hash >>> 0, documents.length, out]);
})
