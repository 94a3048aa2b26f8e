// What DOMSnapshot would say of each node of one changed subtree, for a
// repeat capture (`this` is the subtree's root, in our isolated world): the
// facts the DOM gives (`DOM.describeNode`) are read there; these are the ones
// only style and layout know. One entry per node in the order
// `DOM.describeNode` lists them (pre-order over child nodes; template
// contents and frame documents are not entered):
//   element  [1, nodeName, styles|null, marker|null, before|null, after|null, inputValue|null, textValue|null, checked, selected]
//   text     [3, styles|null]
//   other    [nodeType, nodeName]
// `styles` are the computed `names` of a node with a layout object (null: none).
function (names) {
    const MAX = 200000;
    const styleOf = cs => names.map(p => cs.getPropertyValue(p));
    const laid = new Map();
    const elementLaidOut = el => {
        if (el.getClientRects().length > 0) return true;
        // A word-break opportunity has a layout object but no box.
        return el.localName === 'wbr' && el.parentElement !== null && laid.get(el.parentElement) === true;
    };
    const PRESERVES = new Set(['pre', 'pre-wrap', 'break-spaces', 'pre-line']);
    const NO_WHITESPACE = /^(table|table-row|table-row-group|table-header-group|table-footer-group|table-column|table-column-group|flex|inline-flex|grid|inline-grid)$/;
    const inFlowInline = el => {
        const cs = getComputedStyle(el);
        if (cs.float !== 'none' || cs.position === 'absolute' || cs.position === 'fixed') return null;
        return cs.display.startsWith('inline') && el.localName !== 'br';
    };
    // Whitespace-only text has a layout object where it could separate
    // inline content (Blink's Text::TextLayoutObjectIsNeeded): after inline
    // content, first in an inline, or where white space is preserved.
    const whitespaceLaidOut = text => {
        const parent = text.parentElement;
        if (!parent || laid.get(parent) !== true) return false;
        const ps = getComputedStyle(parent);
        if (NO_WHITESPACE.test(ps.display)) return false;
        if (PRESERVES.has(ps.whiteSpace) || PRESERVES.has(ps.whiteSpaceCollapse === 'preserve' ? 'pre' : '')) return true;
        for (let p = text.previousSibling; p; p = p.previousSibling) {
            if (p.nodeType === 3) {
                if (laid.get(p) === true) return true;
                continue;
            }
            if (p.nodeType !== 1 || laid.get(p) !== true) continue;
            const inline = inFlowInline(p);
            if (inline === null) continue;
            return inline;
        }
        return ps.display.startsWith('inline');
    };
    const pseudo = (el, which) => {
        const cs = getComputedStyle(el, which);
        const content = cs.getPropertyValue('content');
        if (which !== '::marker' && (content === 'none' || content === 'normal')) return null;
        if (cs.display === 'none') return null;
        return styleOf(cs);
    };
    const out = [];
    const stack = [this];
    while (stack.length && out.length < MAX) {
        const node = stack.pop();
        if (node.nodeType === 1) {
            const on = elementLaidOut(node);
            laid.set(node, on);
            const cs = on ? getComputedStyle(node) : null;
            const tag = node.localName;
            const isInput = tag === 'input' && node instanceof HTMLInputElement;
            const checkable = isInput && (node.type === 'checkbox' || node.type === 'radio');
            out.push([
                1,
                node.nodeName,
                on ? styleOf(cs) : null,
                on && cs.display === 'list-item' ? pseudo(node, '::marker') : null,
                on ? pseudo(node, '::before') : null,
                on ? pseudo(node, '::after') : null,
                isInput ? String(node.value) : null,
                tag === 'textarea' && node instanceof HTMLTextAreaElement ? String(node.value) : null,
                checkable && node.checked === true,
                tag === 'option' && node instanceof HTMLOptionElement && node.selected === true,
            ]);
            if (tag === 'iframe' || tag === 'frame' || tag === 'template') continue;
        } else if (node.nodeType === 3) {
            const range = document.createRange();
            range.selectNodeContents(node);
            let on = range.getClientRects().length > 0;
            if (!on && node.data.length > 0 && node.data.trim() === '') on = whitespaceLaidOut(node);
            laid.set(node, on);
            out.push([3, on && node.parentElement ? styleOf(getComputedStyle(node.parentElement)) : null]);
        } else {
            out.push([node.nodeType, node.nodeName]);
        }
        for (let c = node.lastChild; c; c = c.previousSibling) stack.push(c);
    }
    return out;
}
