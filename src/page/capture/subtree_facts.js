// What DOMSnapshot would say of each node of one changed subtree, for a
// repeat capture (`this` is the subtree's root, in our isolated world): the
// facts the DOM gives (`DOM.describeNode`) are read there; these are the ones
// only style and layout know, as one JSON string. One entry per node in the order
// the capture walks `DOM.describeNode`'s answer (`fresh.rs`): pre-order over the
// flat tree, as DOMSnapshot lists nodes (an open shadow root's host: its shadow
// tree's children; a slot: the nodes assigned to it, else its own children);
// template contents and frame documents are not entered:
//   element  [1, nodeName, styles|null, marker|null, before|null, after|null, inputValue|null, textValue|null, checked, selected, clicks]
//   text     [3, styles|null, data|null]
//   other    [nodeType, nodeName]
// `styles` are the computed `names` of a node with a layout object (null: none).
// `data` is a text node's whole text when `DOM.describeNode` would cut it
// (Chrome's DevTools DOM agent sends at most 10,000 characters of a node's
// value, then an ellipsis; DOMSnapshot sends it whole), else null; never
// for the text of a script or style that is not rendered, which no snapshot
// reads (apps keep megabytes of state there).
// `clicks` is Chrome's `isClickable` apart from listeners, which the capture
// reads with `DOMDebugger.getEventListeners`: true when the element responds
// to clicks by its nature (Blink's `WillRespondToMouseClickEvents`: links,
// enabled inputs and their labels, submit and reset buttons of a
// form, a details' summary, editable content, rendered plugins), false
// when only a listener would make it so, null for a disabled form control,
// which never counts.
//
// Given a whole document (`this` is one: the first look's walk,
// `src/capture/walk.rs`), the documents of its frames in this process follow
// it, each whole, in the order their owners were met (then theirs): a frame
// owner's document is entered when our world can reach it; an owner with
// none it can reach (another origin, another process, no frame) is listed as [-1].
// A laid-out element's generated boxes are then given as 0, to be asked for
// later (`pseudo_facts.js`) only where `DOM.getDocument` lists them: a
// pseudo-element's style is computed even where it has none, three times an
// element, and few elements have one. The walked nodes, and which boxes each left, stay in
// `__webAiSnapshotWalk` for that call.
(function (names) {
    const MAX = 200000;
    const DESCRIBED_TEXT = 10000;
    const UNREAD_TEXT = /^(SCRIPT|STYLE)$/i;
    // White space alone, as `trim()` sees it (the same set), without copying a long text to find out.
    const NOT_SPACE = /\S/;
    const styleOf = cs => names.map(p => cs.getPropertyValue(p));
    const laid = new Map();
    const SVG = 'http://www.w3.org/2000/svg';
    // By namespace, not `instanceof`: a frame's elements are of its own realm.
    const HTML = 'http://www.w3.org/1999/xhtml';
    const SVG_UNRENDERED = /^(title|desc|metadata|script|style)$/;
    // Under `content-visibility: hidden` (a closed <details>' content, `hidden=until-found`)
    // layout is skipped, and DOMSnapshot lists no layout object there. Asked first, and
    // nothing there is asked its style or boxes: `getComputedStyle` or `getClientRects`
    // would make the layout objects, and every later snapshot would list them.
    const locked = el => typeof el.checkVisibility === 'function' && !el.checkVisibility();
    // A laid-out element the walk met: its computed style and `names` of it. Its texts, met
    // next, take both from here (their style is their parent's) instead of asking again:
    // on the generated app page that was about a third of the walk's time in the page.
    const shown = new Map();
    // Whether a text whose parent is `parent` is in content layout skips. Its parent may have
    // no box of its own (`display: contents`, for which `checkVisibility` is false whatever
    // locks it or not: a DOM snapshot still gives its texts layout objects), so the nearest
    // ancestor that has one says, by what it is; none is asked its style before it is known
    // to be rendered (a style computed in skipped content makes layout objects there).
    const lockedText = parent => {
        for (let p = parent; p; p = p.parentElement) {
            if (p.localName === 'details' && !p.open) return true;
            // A laid-out element is not locked (`elementLaidOut` asked).
            const seen = shown.get(p);
            if (seen) return seen.cs.contentVisibility === 'hidden';
            if (!locked(p)) return getComputedStyle(p).contentVisibility === 'hidden';
        }
        return true;
    };
    const elementLaidOut = el => {
        if (locked(el)) return false;
        if (el.getClientRects().length > 0) return true;
        const parentLaid = el.parentElement !== null && laid.get(el.parentElement) === true;
        // A word-break opportunity has a layout object but no box.
        if (el.localName === 'wbr') return parentLaid;
        // SVG resources and hidden containers (defs, clipPath, symbol, gradients) have layout objects but no boxes.
        if (el.namespaceURI === SVG && el.localName !== 'svg' && !SVG_UNRENDERED.test(el.localName)) {
            return parentLaid && getComputedStyle(el).display !== 'none';
        }
        return false;
    };
    const PRESERVES = new Set(['pre', 'pre-wrap', 'break-spaces', 'pre-line']);
    const NO_WHITESPACE = /^(table|table-row|table-row-group|table-header-group|table-footer-group|table-column|table-column-group|flex|inline-flex|grid|inline-grid)$/;
    // Whether an element with a layout object flows inline (null: out of flow, it does not count).
    const inFlowInline = (el, cs) => {
        if (cs.float !== 'none' || cs.position === 'absolute' || cs.position === 'fixed') return null;
        return cs.display.startsWith('inline') && el.localName !== 'br';
    };
    // Per parent, what its last laid-out, in-flow child says of a white space after it
    // (kept as the walk goes, which visits siblings in order: no walk back over them).
    const keepsSpaceAfter = new Map();
    const flowed = (node, cs) => {
        const parent = node.parentNode;
        if (node.nodeType === 3) keepsSpaceAfter.set(parent, !/[ \t\n\r\f]$/.test(node.data));
        else {
            const inline = inFlowInline(node, cs);
            if (inline !== null) keepsSpaceAfter.set(parent, inline);
        }
    };
    // Whitespace-only text has a layout object only where it can separate
    // inline content (Blink's Text::TextLayoutObjectIsNeeded): where white
    // space is preserved, first in an inline, or after an inline box or a
    // text that does not already end in white space; never in a table
    // part, a flex or grid container, or an SVG element other than text.
    const whitespaceLaidOut = text => {
        const parent = text.parentElement;
        if (!parent || laid.get(parent) !== true) return false;
        if (parent.namespaceURI === SVG && !/^(text|tspan|textPath)$/.test(parent.localName)) return false;
        if (/^(object|embed|video|audio|canvas|iframe|img|select|textarea|input)$/.test(parent.localName)) return false;
        // A shadow host shows its shadow tree; its own children only where a slot takes them.
        if (parent.shadowRoot && !text.assignedSlot) return false;
        const ps = shown.get(parent)?.cs ?? getComputedStyle(parent);
        if (NO_WHITESPACE.test(ps.display)) return false;
        if (PRESERVES.has(ps.whiteSpace)) return true;
        const after = keepsSpaceAfter.get(parent);
        if (after !== undefined) return after;
        // First in its parent: only an inline box (not an inline-block) keeps it.
        return ps.display === 'inline';
    };
    const pseudo = (el, which) => {
        const cs = getComputedStyle(el, which);
        const content = cs.getPropertyValue('content');
        if (which !== '::marker' && (content === 'none' || content === 'normal')) return null;
        if (cs.display === 'none') return null;
        return styleOf(cs);
    };
    const FIELDS = /^(button|input|select|textarea|fieldset|optgroup|option)$/;
    const clicks = el => {
        const tag = el.localName;
        if (FIELDS.test(tag) && el.matches(':disabled')) return null;
        if (el.isContentEditable) return true;
        if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) return true;
        if (tag === 'a' && el.namespaceURI === 'http://www.w3.org/2000/svg' && (el.hasAttribute('href') || el.hasAttribute('xlink:href'))) return true;
        if (tag === 'input') return true;
        if (tag === 'label') return Boolean(el.control && el.control !== el && clicks(el.control) === true);
        if (tag === 'button') return Boolean(el.form) && (el.type === 'submit' || el.type === 'reset');
        if (tag === 'summary') {
            const d = el.parentElement;
            return Boolean(d && d.localName === 'details' && d.querySelector(':scope > summary') === el);
        }
        // A plugin element responds when it shows what it embeds, not its fallback content
        // (an object without data is laid out as its fallback: rules.html).
        if (tag === 'object' && laid.get(el) === true) return Boolean(el.getAttribute('data'));
        if (tag === 'embed' && laid.get(el) === true) return Boolean(el.getAttribute('src'));
        return false;
    };
    // A root read by itself (a node added to a list, a text beside a change) is laid out in
    // its parent, which the walk does not visit: what the parent and the siblings before the
    // root say is read from the page.
    // One range for every text's boxes: each range made is live, kept up to date by the
    // document on every change until it is collected.
    const range = document.createRange();
    const host = this.parentElement;
    if (host) {
        laid.set(host, host.getClientRects().length > 0);
        let blank = false;
        let said;
        for (let s = this.previousSibling; s && said === undefined; s = s.previousSibling) {
            if (s.nodeType === 3) {
                range.selectNodeContents(s);
                if (range.getClientRects().length > 0) said = !/[ \t\n\r\f]$/.test(s.data);
                // A white space with no box: laid out or not, what comes after it is not kept
                // apart by it unless something before it says so (see `whitespaceLaidOut`).
                else if (s.data.length > 0 && !NOT_SPACE.test(s.data)) blank = true;
            } else if (s.nodeType === 1 && s.getClientRects().length > 0) {
                const inline = inFlowInline(s, getComputedStyle(s));
                if (inline !== null) said = inline;
            }
        }
        if (said !== undefined) keepsSpaceAfter.set(host, blank ? false : said);
        else if (blank && getComputedStyle(host).display === 'inline') keepsSpaceAfter.set(host, false);
    }
    const out = [];
    const whole = this.nodeType === 9;
    const walked = [];
    // Per walked element, the generated boxes left for later (1 marker, 2 before, 4 after):
    // the capture may ask for every box `DOM.getDocument` lists before it has read these facts.
    const left = [];
    const later = on => (on ? 0 : null);
    const documents = [this];
    const stack = [];
    for (let d = 0; d < documents.length && out.length < MAX; d += 1) {
        if (documents[d] === null) {
            out.push([-1]);
            continue;
        }
        stack.push(documents[d]);
    while (stack.length && out.length < MAX) {
        const node = stack.pop();
        if (node.nodeType === 1) {
            const on = elementLaidOut(node);
            laid.set(node, on);
            const cs = on ? getComputedStyle(node) : null;
            if (whole) {
                walked[out.length] = node;
                if (on) left[out.length] = cs.display === 'list-item' ? 7 : 6;
            }
            const styles = on ? styleOf(cs) : null;
            if (on) {
                flowed(node, cs);
                shown.set(node, { cs, styles });
            }
            const tag = node.localName;
            const html = node.namespaceURI === HTML;
            const isInput = tag === 'input' && html;
            const checkable = isInput && (node.type === 'checkbox' || node.type === 'radio');
            out.push([
                1,
                node.nodeName,
                styles,
                whole ? later(on && cs.display === 'list-item') : on && cs.display === 'list-item' ? pseudo(node, '::marker') : null,
                whole ? later(on) : on ? pseudo(node, '::before') : null,
                whole ? later(on) : on ? pseudo(node, '::after') : null,
                isInput ? String(node.value) : null,
                tag === 'textarea' && html ? String(node.value) : null,
                checkable && node.checked === true,
                tag === 'option' && html && node.selected === true,
                clicks(node),
            ]);
            if (tag === 'iframe' || tag === 'frame' || tag === 'template') {
                // Each frame owner's document in turn, or [-1] where there is none to enter.
                if (whole && tag !== 'template' && html) {
                    let inner = null;
                    try {
                        inner = node.contentDocument;
                    } catch (_e) { /* another origin */ }
                    documents.push(inner);
                }
                continue;
            }
        } else if (node.nodeType === 3) {
            range.selectNodeContents(node);
            const p = node.parentElement;
            let on = !(p && lockedText(p)) && range.getClientRects().length > 0;
            if (!on && node.data.length > 0 && !NOT_SPACE.test(node.data)) on = whitespaceLaidOut(node);
            laid.set(node, on);
            if (on) flowed(node, null);
            out.push([3, on && p ? (shown.get(p)?.styles ?? styleOf(getComputedStyle(p))) : null, node.data.length >= DESCRIBED_TEXT && (on || !UNREAD_TEXT.test(node.parentNode ? node.parentNode.nodeName : '')) ? node.data : null]);
        } else {
            out.push([node.nodeType, node.nodeName]);
        }
        if (!whole && node.nodeType === 1 && node.shadowRoot) {
            const root = node.shadowRoot;
            for (let c = root.lastChild; c; c = c.previousSibling) stack.push(c);
            continue;
        }
        const assigned = !whole && node.nodeType === 1 && node.localName === 'slot' && typeof node.assignedNodes === 'function' ? node.assignedNodes() : [];
        if (assigned.length) for (let i = assigned.length - 1; i >= 0; i -= 1) stack.push(assigned[i]);
        else for (let c = node.lastChild; c; c = c.previousSibling) stack.push(c);
    }
    }
    if (whole) globalThis.__webAiSnapshotWalk = { walked, left };
    // One string crosses DevTools whole; a list is turned into protocol values item by item
    // (`fresh::facts_in` has the measurement).
    return JSON.stringify(out);
})
