// A page session's watcher, run in the package's isolated world (the page
// neither sees it nor can tamper with it): a MutationObserver that counts
// the mutations that can change a snapshot, and the page's loading signals.
// The session polls it instead of snapshotting to learn whether anything
// happened. One watcher per document: a new document (navigation) has none
// and gets a new token.
//
// Returns { token, seq, fp, quietMs, readyState, url, loading }:
//   seq      mutations counted so far (content of role=timer/marquee is churn
//            and not counted), and input/change events;
//   fp       a fingerprint of what changes without a mutation: form controls'
//            checked/value/selection set from script, and the scroll position;
//   quietMs  time since the last counted mutation (since install if none);
//   loading  the first loading signal found, or null.
// With `options.track` (a session's key), it also starts recording which
// subtrees change, for that session's incremental captures (see
// `state.take`); `options.untrack` stops that session's record; with
// `options.light`, it answers without `fp` (and without `loading` unless
// `options.loading` asks for it), which their captures do not need.
(function (options) {
    const g = globalThis;
    const now = () => performance.now();
    const MAX_WALK = 200000;
    let w = g.__webAiSnapshotWatch;
    if (!w || w.doc !== document) {
        // `shape` counts element and attribute changes (not text's): see `quietLoading`.
        // `shapeRoots`: the elements added and those whose attributes changed since `quietLoading`
        // was last set (null past SHAPE_ROOTS of them): only these can have become loading signals.
        const state = {
            doc: document,
            token: `${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`,
            seq: 0,
            shape: 0,
            quietLoading: -1,
            shapeRoots: [],
            lastAt: now(),
            observed: new WeakSet(),
        };
        const CHURN = '[role="timer"],[role="marquee"]';
        const isChurn = node => {
            const el = node && (node.nodeType === 1 ? node : node.parentElement);
            return Boolean(el && typeof el.closest === 'function' && el.closest(CHURN));
        };
        // Old text is kept so a text's change can be read as that text alone (see `alone`).
        const config = { subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true, characterDataOldValue: true };
        let observer = null;
        const observe = root => {
            if (!root || state.observed.has(root)) return;
            state.observed.add(root);
            try {
                observer.observe(root, config);
            } catch (_e) { /* a root that went away */ }
        };
        // Custom elements not defined yet (`:not(:defined)`). One defined later is upgraded in
        // place, with no mutation an observer sees, and may then attach a shadow root or be
        // restyled (`:defined` rules): a take marks it (`sweepUpgrades`), so its subtree is read
        // again (where that holds a shadow root, the look is a full capture). Only autonomous
        // custom elements, whose names have a hyphen, can be undefined and attach a shadow root.
        const undefinedEls = new Set();
        // Same-origin frame documents and open shadow roots found, whose events the watcher
        // has yet to hear (`hearFrames`): some events (a popover's, a medium's, `change`) do
        // not leave the shadow tree they happen in.
        const framesToHear = [];
        // The open shadow roots found: their style sheets are read as the documents' are
        // (`scopes`), their fields swept for values a script set (`sweepValues`).
        const shadowRoots = new Set();
        // Counts the roots found and forgotten: the relational selectors' scopes follow it.
        let scopesVersion = 0;
        // Open shadow roots and same-origin frames are separate trees to a
        // MutationObserver: each gets observed as it is found.
        const watchInside = start => {
            const stack = [start];
            let seen = 0;
            while (stack.length && seen < MAX_WALK) {
                const node = stack.pop();
                seen += 1;
                if (node.nodeType === 1) {
                    if (node.localName.includes('-') && !node.matches(':defined')) undefinedEls.add(node);
                    if (node.shadowRoot) {
                        if (!shadowRoots.has(node.shadowRoot)) {
                            shadowRoots.add(node.shadowRoot);
                            scopesVersion += 1;
                            framesToHear.push(node.shadowRoot);
                        }
                        observe(node.shadowRoot);
                        stack.push(node.shadowRoot);
                    }
                    if (node.tagName === 'IFRAME' || node.tagName === 'FRAME') {
                        let inner = null;
                        try {
                            inner = node.contentDocument;
                        } catch (_e) { /* cross-origin */ }
                        if (inner) {
                            if (!state.observed.has(inner)) framesToHear.push(inner);
                            observe(inner);
                            stack.push(inner);
                        }
                    }
                }
                for (let c = node.firstChild; c; c = c.nextSibling) if (c.nodeType === 1 || c.nodeType === 11 || c.nodeType === 9) stack.push(c);
            }
        };
        // A session's incremental capture (`options.track`) also needs to know
        // where: the nodes whose subtrees changed, taken by the capture
        // (src/capture/scripts/take_changes.js), and why only a full capture
        // will do when no subtree bounds a change.
        const MAX_DIRTY = 5000;
        const SHEETS = 'style,link[rel~="stylesheet" i]';
        const FRAMES = 'iframe,frame,object,embed';
        // The record a take hands over: the nodes whose subtrees changed, why
        // no subtree bounds a change, and where each change came that could
        // alter the DOM hash's input (body.outerHTML with comments, attributes
        // and text taken out): anything but the data of a text node, which
        // outerHTML escapes and the hash drops, unless its parent is one whose
        // text is written raw.
        // One record per session that tracks (sessions on one page share this
        // world, and each takes what changed since its own last capture), the
        // least recently taken first; `pending` holds the nodes its capture fetches.
        const MAX_SESSIONS = 8;
        state.sessions = new Map();
        // `points`: where each change the DOM hash reads came, [node, the sibling it came after
        // (childList), whether a list changed]; past MAX_POINTS, `structural` says only that one did.
        // The moves of state pseudo-classes so far (see `STATE` below); a record keeps the count it began at.
        let stateSeq = 0;
        const fresh = () => ({ dirty: new Set(), lists: new Map(), reasons: new Set(), structural: false, points: [], pending: [], stateSeq });
        const MAX_POINTS = 64;
        const pointIn = (rec, r) => {
            if (rec.points.length >= MAX_POINTS) rec.structural = true;
            else rec.points.push(r.type === 'childList' ? [r.target, r.previousSibling, true] : [r.target, null, false]);
        };
        const each = f => {
            for (const rec of state.sessions.values()) f(rec);
        };
        const reason = why => each(rec => rec.reasons.add(why));
        const RAW_TEXT = new Set(['style', 'script', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext', 'noscript']);
        // The host of the shadow tree `node` is in (null: it is in a document).
        const hostOf = node => {
            const r = node && typeof node.getRootNode === 'function' ? node.getRootNode() : null;
            return r && r.nodeType === 11 && r.host ? r.host : null;
        };
        // Mark `node` in one session's record, or in every one's.
        const markIn = (rec, node) => {
            if (rec.dirty.size >= MAX_DIRTY) rec.reasons.add(`more than ${MAX_DIRTY} nodes changed`);
            else rec.dirty.add(node);
        };
        const mark = node => each(rec => markIn(rec, node));
        // An element whose child list changed, with the children taken out of it: the capture
        // reads only its new children and learns which of the old ones went (take_changes.js), so a
        // row added to a table of thousands reads one row, not the table.
        const listIn = (rec, el, removed) => {
            let gone = rec.lists.get(el);
            if (!gone) {
                if (rec.dirty.size + rec.lists.size >= MAX_DIRTY) {
                    rec.reasons.add(`more than ${MAX_DIRTY} nodes changed`);
                    return;
                }
                gone = new Set();
                rec.lists.set(el, gone);
            }
            for (const n of removed) if (gone.size < MAX_DIRTY) gone.add(n);
        };
        // Elements whose own facts (a value, a control, which child is first) or whose children's
        // place in the flat tree depend on their children are read whole, as is anything outside
        // HTML and any shadow host or slot: DOMSnapshot lists a host's flat-tree children, not its DOM's.
        const WHOLE_ON_CHILDREN = new Set(['select', 'datalist', 'optgroup', 'option', 'textarea', 'title', 'label', 'details', 'summary', 'fieldset',
            'legend', 'template', 'iframe', 'frame', 'object', 'embed', 'video', 'audio', 'picture', 'slot', 'map', 'canvas', 'ruby', 'head']);
        const HTML_NS = 'http://www.w3.org/1999/xhtml';
        const listedAlone = el => el.namespaceURI === HTML_NS && !el.shadowRoot && !WHOLE_ON_CHILDREN.has(el.localName) && !RAW_TEXT.has(el.localName);
        const holds = (node, selector) => node.nodeType === 1 && (node.matches(selector) || node.querySelector(selector) !== null);
        // A text whose data changed is read again by itself, not with its parent's subtree
        // (on some pages a text sits directly in a container of most of the page), when
        // nothing else can depend on it: it had text before and has now (so it keeps its
        // layout object), it ends in white space both times or neither time (a white-space
        // text after it is laid out by that), and its parent takes nothing from its text
        // (a field's value, an option's label, a title, a style sheet or script).
        const TEXT_OWNERS = new Set([...RAW_TEXT, 'textarea', 'option', 'optgroup', 'select', 'title']);
        const SPACE_AT_END = /[ \t\n\r\f]$/;
        const alone = (t, parent, was) => {
            if (t.nodeType !== 3 || typeof was !== 'string') return false;
            const now = t.data;
            if (!was.trim() || !now.trim() || SPACE_AT_END.test(was) !== SPACE_AT_END.test(now)) return false;
            return !TEXT_OWNERS.has(String(parent.localName).toLowerCase());
        };
        // The DOM hash normalises the page's outerHTML with `page_facts.js`'s regexes, which write
        // every start tag `<name attrs…>` as `<name>` when the name is a word and the attributes
        // hold no angle bracket (outerHTML writes `<` and `>` in a value as they are). An element's
        // attribute changed within those bounds, before and after, leaves the hash as it was: not
        // read again (a custom element's `<my-el …>` keeps its attributes there, and is read).
        const WORD = /^\w+$/;
        const ANGLE = /[<>]/;
        const attributesOutOfHash = (el, was) => {
            if (!el || el.nodeType !== 1 || !WORD.test(el.tagName) || (typeof was === 'string' && ANGLE.test(was))) return false;
            for (const a of el.attributes) if (ANGLE.test(a.value)) return false;
            return true;
        };
        // The same regexes drop every run of text between two tags whatever it says (outerHTML
        // escapes `<` in text, but for raw-text elements'), so an element's text nodes taken out
        // or put in (`textContent` set on a button, a label, a cell) leave the hash as it was too.
        const onlyText = nodes => {
            for (const n of nodes) if (n.nodeType !== 3) return false;
            return true;
        };
        const escapedIn = parent => Boolean(parent) && !RAW_TEXT.has(String(parent.localName).toLowerCase());
        const keepsHash = r => {
            const t = r.target;
            if (r.type === 'attributes') return attributesOutOfHash(t, r.oldValue);
            if (r.type === 'characterData') return t.nodeType === 3 && escapedIn(t.parentNode);
            return t.nodeType === 1 && escapedIn(t) && onlyText(r.addedNodes) && onlyText(r.removedNodes);
        };
        const record = r => {
            const t = r.target;
            if (!keepsHash(r)) {
                each(rec => pointIn(rec, r));
            }
            // A shadow tree's changes are read where they land, as the document's; what moves
            // nodes between slots or into a shadow tree (a repeat look patches DOMSnapshot's flat
            // tree) marks the host, whose flat tree is read again.
            if (r.type === 'characterData') {
                const p = t.parentNode;
                if (p && p.nodeType === 11 && p.host) mark(p.host);
                else if (!p || p.nodeType !== 1) reason("the document's own children changed");
                else {
                    if (p.localName === 'style') reason('a style sheet changed');
                    mark(alone(t, p, r.oldValue) ? t : p);
                }
                return;
            }
            if (t.nodeType === 11) {
                if (t.host) mark(t.host);
                else reason("a fragment's children changed");
                return;
            }
            if (t.nodeType !== 1) {
                reason("the document's own children changed");
                return;
            }
            if (r.type === 'attributes') {
                if (t.matches(SHEETS)) reason('a style sheet changed');
                // A slot renamed, or a light child given another slot, moves nodes in the flat tree.
                if (t.localName === 'slot') mark(hostOf(t) || t);
                if (r.attributeName === 'slot' && t.parentElement && t.parentElement.shadowRoot) mark(t.parentElement);
                mark(t);
                return;
            }
            if (t.localName === 'style') reason('a style sheet changed');
            for (const list of [r.addedNodes, r.removedNodes]) {
                for (const n of list) {
                    if (n.nodeType !== 1) continue;
                    if (holds(n, SHEETS)) reason('a style sheet was added or removed');
                    if (holds(n, FRAMES)) reason('a frame was attached or detached');
                    if (holds(n, 'slot')) mark(hostOf(t) || t);
                }
            }
            if (!listedAlone(t)) {
                mark(t);
                return;
            }
            each(rec => listIn(rec, t, r.removedNodes));
            for (const n of r.addedNodes) mark(n);
            // A white-space text beside the change may gain or lose its layout object (it
            // separates inline content only after something inline): read again by itself.
            for (const n of [r.previousSibling, r.nextSibling]) if (n && n.nodeType === 3) mark(n);
        };
        const SHAPE_ROOTS = 256;
        const noteShape = r => {
            const roots = state.shapeRoots;
            if (roots === null) return;
            if (r.type === 'attributes') roots.push(r.target);
            else for (const n of r.addedNodes) if (n.nodeType === 1) roots.push(n);
            if (roots.length > SHAPE_ROOTS) state.shapeRoots = null;
        };
        const handle = records => {
            let counted = false;
            for (const r of records) {
                if (r.type !== 'characterData') {
                    state.shape += 1;
                    noteShape(r);
                }
                if (state.sessions.size) record(r);
                if (isChurn(r.target)) continue;
                counted = true;
                for (const n of r.addedNodes) if (n.nodeType === 1) watchInside(n);
            }
            if (counted) {
                state.seq += 1;
                state.lastAt = now();
            }
        };
        observer = new MutationObserver(handle);
        observe(document);
        watchInside(document);
        // Form fields a script set without an event, since the last look.
        const values = new WeakMap();
        const controls = ['input', 'select', 'textarea'].map(tag => document.getElementsByTagName(tag));
        const stateOf = c => `${c.value}\u0000${c.checked}\u0000${c.selectedIndex}\u0000${c.indeterminate}`;
        const sweep = c => {
            const v = stateOf(c);
            const was = values.get(c);
            if (was !== undefined && was !== v) mark(c);
            values.set(c, v);
        };
        const sweepValues = () => {
            for (const list of controls) {
                const m = Math.min(list.length, MAX_DIRTY);
                for (let i = 0; i < m; i += 1) sweep(list[i]);
            }
            // Those in open shadow roots, which the document's collections do not hold.
            let left = MAX_DIRTY;
            for (const r of shadowRoots) {
                if (!r.host || !r.host.isConnected) continue;
                for (const c of r.querySelectorAll('input,select,textarea')) {
                    if (--left < 0) return;
                    sweep(c);
                }
            }
        };
        // The custom elements defined since they were found (see `undefinedEls`): each is
        // marked (its subtree read again: a full capture where it now holds a shadow root); its new shadow root is
        // watched from now on. One taken out of the page is forgotten (put back, it is found again).
        const sweepUpgrades = () => {
            for (const el of undefinedEls) {
                if (!el.isConnected) {
                    undefinedEls.delete(el);
                    continue;
                }
                if (!el.matches(':defined')) continue;
                undefinedEls.delete(el);
                watchInside(el);
                mark(el);
            }
        };
        // Style rules whose matches another element decides: a sibling combinator
        // (`:checked ~ .panel`, `.a.on + .b`) or `:has()`. A change to one element
        // then restyles another outside its subtree, so each session keeps the
        // elements each such selector matched at its last take, and a take marks
        // those that came or went. Only style sheets the page's origin may read
        // are seen (rules in others are not; the README says so).
        const MAX_RELATIONAL = 200;
        const PSEUDO_ELEMENT = /::?(before|after|marker|first-line|first-letter|placeholder|selection|backdrop|file-selector-button|cue)\b/gi;
        // The page's documents the watcher sees into: this one and same-origin frames.
        const documents = () => {
            const out = [document];
            for (let k = 0; k < out.length && out.length < 100; k += 1) {
                // Live collections: no selector query over the whole page on each look.
                for (const tag of ['iframe', 'frame']) {
                    for (const f of out[k].getElementsByTagName(tag)) {
                        let inner = null;
                        try {
                            inner = f.contentDocument;
                        } catch (_e) { /* another origin */ }
                        if (inner && !out.includes(inner)) out.push(inner);
                    }
                }
            }
            return out;
        };
        // The documents and the open shadow roots in them: what holds style sheets, and where
        // a selector of one is queried. A root whose host left the page is forgotten (put
        // back, it is found again).
        const scopes = () => {
            const out = documents();
            for (const r of shadowRoots) {
                if (r.host && r.host.isConnected) out.push(r);
                else {
                    shadowRoots.delete(r);
                    scopesVersion += 1;
                }
            }
            return out;
        };
        // A rule matched by an element's place among its siblings (`:nth-child()`, `:last-child`,
        // `:empty`): a child added or removed elsewhere in the list changes its match. Only rules
        // that set a property the capture reads (or that decides layout presence or white space)
        // can change a snapshot; table striping that sets a background counts, as concealment reads it.
        const POSITIONAL = /:(nth-|first-child|last-child|only-child|first-of-type|last-of-type|only-of-type|empty)/i;
        const READ = new Set(['display', 'visibility', 'content', 'text-transform', 'cursor', 'opacity', 'color', 'background-color', 'font-size', 'clip', 'clip-path',
            'overflow-x', 'overflow-y', 'content-visibility', 'float', 'position', 'white-space', 'white-space-collapse', 'text-wrap-mode']);
        const setsRead = style => {
            if (!style) return false;
            for (let i = 0; i < style.length; i += 1) if (READ.has(style[i])) return true;
            return false;
        };
        // State pseudo-classes: a rule that shows or hides by where the pointer is, what has
        // focus or the URL's fragment (`.nav:hover .menu`, `.menu:focus-within .sub`,
        // `.pane:target`) restyles with no mutation. Such rules are kept with the relational
        // ones (their matches per session), and what can move them (the pointer entering or
        // leaving an element, focus moving, the fragment changing) is counted (`stateSeq`): a
        // take after one reads their matches again, as after a change. Only rules that show or
        // hide (a hover colour is not the snapshot's).
        const STATE = /:(hover|focus|focus-within|focus-visible|target)\b/i;
        const PRESENCE = new Set(['display', 'visibility', 'content', 'content-visibility', 'opacity']);
        const setsPresence = style => {
            if (!style) return false;
            for (let i = 0; i < style.length; i += 1) if (PRESENCE.has(style[i])) return true;
            return false;
        };
        // A selector list's parts (split at its top-level commas).
        const partsOf = sel => {
            const out = [];
            let depth = 0;
            let from = 0;
            for (let i = 0; i < sel.length; i += 1) {
                const c = sel[i];
                if (c === '(' || c === '[') depth += 1;
                else if (c === ')' || c === ']') depth -= 1;
                else if (c === ',' && depth === 0) {
                    out.push(sel.slice(from, i).trim());
                    from = i + 1;
                }
            }
            out.push(sel.slice(from).trim());
            return out;
        };
        // A part whose subject is its shadow tree's host (`:host`, `:host(:hover)`,
        // `:host-context(.dark)`), queried in the shadow root, matches nothing: the host is
        // tested instead (by `X` for `:host(X)`, an ancestor for `:host-context(X)`). The
        // function that tests it, or null for any other part.
        const HOST_PART = /^:host(-context)?(?:\((.*)\))?$/;
        const hostTest = part => {
            const m = HOST_PART.exec(part);
            if (!m) return null;
            if (m[2] === undefined) return () => true;
            return m[1] ? host => host.closest(m[2]) !== null : host => host.matches(m[2]);
        };
        // Whether a part names its host other than as its whole subject (`:host(.a) .b` is
        // queried; a part ending in `:host…` that is not one of the above cannot be followed).
        const hostUnfollowed = part => {
            let bare = part;
            for (let i = 0; i < 8 && /\([^()]*\)/.test(bare); i += 1) bare = bare.replace(/\([^()]*\)/g, '');
            return /:host(-context)?\s*$/.test(bare) && hostTest(part) === null;
        };
        // Each relational selector with the scopes whose sheets hold it (it is queried in those
        // alone: a shadow tree's rules style that tree), and whether one's subject is a host.
        const relational = docs => {
            const out = new Map();
            let hosted = false;
            // Each sheet's selectors, walked once a call: the instances of a component share
            // their adopted sheets, and a page of a thousand would walk each a thousand times.
            const ofSheet = new Map();
            const selectorsOf = top => {
                let found = ofSheet.get(top);
                if (found) return found;
                found = [];
                ofSheet.set(top, found);
                const walk = (list, depth) => {
                    for (const rule of list) {
                        const text = rule.selectorText;
                        if (typeof text === 'string') {
                            // A `+` or `~` that is a combinator: not in a string, an attribute
                            // selector or an `:nth-*()` argument (`2n+1`); inside `:is()` it is one.
                            const plain = text.replace(/"[^"]*"|'[^']*'|\[[^\]]*\]/g, '');
                            const bare = plain.replace(/:nth-[a-z-]+\([^)]*\)/gi, '');
                            if (text.includes(':has(') || /[+~]/.test(bare) || (POSITIONAL.test(plain) && setsRead(rule.style)) || (STATE.test(plain) && setsPresence(rule.style))) {
                                found.push(text.replace(PSEUDO_ELEMENT, ''));
                            }
                        }
                        if (depth < 8) {
                            if (rule.cssRules) walk(rule.cssRules, depth + 1);
                            // An @import's sheet.
                            if (rule.styleSheet) sheet(rule.styleSheet, depth + 1);
                        }
                    }
                };
                const sheet = (sh, depth) => {
                    try {
                        walk(sh.cssRules, depth);
                    } catch (_e) { /* a sheet of another origin: not readable */ }
                };
                sheet(top, 0);
                return found;
            };
            for (const scope of docs) {
                for (const sh of [...scope.styleSheets, ...(scope.adoptedStyleSheets || [])]) {
                    for (const sel of selectorsOf(sh)) {
                        if (scope.nodeType === 11 && partsOf(sel).some(hostUnfollowed)) hosted = true;
                        let where = out.get(sel);
                        if (!where) out.set(sel, (where = []));
                        if (where[where.length - 1] !== scope) where.push(scope);
                    }
                }
            }
            return { pairs: [...out], hosted };
        };
        // The relational selectors, read again only when the style sheets changed: a sheet
        // added, removed or replaced (a `<style>` whose text changed is a new sheet), or a
        // rule inserted or deleted at a sheet's top level (how CSS-in-JS libraries add
        // theirs). Walking every rule costs about 2.5 µs a rule in this world, which on a
        // site with 10,000 rules would be 25 ms of each look; the check is a few reads a sheet.
        // A rule edited in place through the CSSOM (its selectorText, inside an @media
        // block, or in a sheet an @import brought) is not seen until a sheet's top level
        // changes; the README says so.
        // (`sheetsVersion` counts the changes `sweepStyles`, run first at each take and track, saw.)
        let relationalSeen = null;
        const relationalNow = docs => {
            const version = `${sheetsVersion}:${scopesVersion}`;
            if (relationalSeen && relationalSeen.version === version) return relationalSeen.rules;
            relationalSeen = { version, rules: relational(docs) };
            return relationalSeen.rules;
        };
        const matchesOf = rules => {
            const now = new Map();
            for (const [sel, where] of rules.pairs.slice(0, MAX_RELATIONAL)) {
                try {
                    const els = new Set();
                    const parts = partsOf(sel);
                    const hostTests = parts.map(hostTest);
                    const queried = parts.filter((_, k) => hostTests[k] === null).join(',');
                    for (const d of where) {
                        if (queried) for (const el of d.querySelectorAll(queried)) els.add(el);
                        for (const test of hostTests) if (test && d.nodeType === 11 && d.host && test(d.host)) els.add(d.host);
                    }
                    now.set(sel, els);
                } catch (_e) { /* a selector this engine cannot query */ }
            }
            return now;
        };
        // Mark in `rec` the elements whose match of a relational selector changed since its last take.
        const relate = rec => {
            const rules = relationalNow(scopes());
            if (rules.pairs.length > MAX_RELATIONAL) rec.reasons.add(`more than ${MAX_RELATIONAL} style rules are decided by other elements (sibling combinators, :has())`);
            if (rules.hosted) rec.reasons.add('a shadow host is styled by a rule whose match cannot be followed');
            const now = matchesOf(rules);
            const add = el => markIn(rec, el);
            for (const [sel, els] of now) {
                const was = rec.matches ? rec.matches.get(sel) : undefined;
                if (!was) {
                    // No record of its matches (a rule added since): each match is read again.
                    els.forEach(add);
                    continue;
                }
                for (const el of els) if (!was.has(el)) add(el);
                for (const el of was) if (!els.has(el) && el.isConnected) add(el);
            }
            return now;
        };
        // Styles that change with no mutation an observer sees: rules added to or taken from a
        // sheet through the CSSOM (how CSS-in-JS libraries add theirs), a sheet a `<link>` loaded
        // after it was added, sheets adopted; and the media the page's queries test (the
        // viewport's size, a zoom, an emulated colour scheme or print). Each take compares
        // them with the last (`sweepStyles`): the elements a rule added matches are marked (read
        // again with their new styles), and what cannot be bounded so (a rule taken out, a
        // sheet gone, rules inserted amid others, the media changed) makes the look a full
        // capture. Sheets of other origins cannot be read, as above.
        const MAX_NEW_RULES = 500;
        const mediaNow = () => [innerWidth, innerHeight, devicePixelRatio, ...['(prefers-color-scheme: dark)', 'print', '(prefers-reduced-motion: reduce)', '(forced-colors: active)'].map(q => matchMedia(q).matches)].join();
        const sheetsNow = () => {
            const out = new Map();
            for (const d of scopes()) {
                for (const sheet of [...d.styleSheets, ...(d.adoptedStyleSheets || [])]) {
                    let rules = null;
                    try {
                        rules = sheet.cssRules;
                    } catch (_e) { /* another origin: not readable */ }
                    if (rules) out.set(sheet, { size: rules.length, last: rules.length ? rules[rules.length - 1] : null });
                }
            }
            return out;
        };
        let stylesSeen = null;
        // The changes of the readable style sheets seen so far: a sheet came or went, or its
        // size or last rule changed. The relational selectors are read again after one.
        let sheetsVersion = 0;
        const sameSheets = (a, b) => {
            if (a.size !== b.size) return false;
            for (const [sheet, was] of a) {
                const now = b.get(sheet);
                if (!now || now.size !== was.size || now.last !== was.last) return false;
            }
            return true;
        };
        // Mark what the style rules of `list` (and the rules inside them) match; false when one
        // cannot be queried or there are more than MAX_NEW_RULES (the caller then reads the page whole).
        const markMatches = list => {
            const where = scopes();
            const stack = [];
            const push = rules => {
                for (const r of rules) {
                    if (stack.length >= MAX_NEW_RULES) return false;
                    stack.push(r);
                }
                return true;
            };
            if (!push(list)) return false;
            let left = MAX_NEW_RULES;
            while (stack.length) {
                const rule = stack.pop();
                if (--left < 0) return false;
                if (rule.cssRules && !push(rule.cssRules)) return false;
                if (rule.styleSheet) {
                    let inner = [];
                    try {
                        inner = rule.styleSheet.cssRules;
                    } catch (_e) { /* another origin */ }
                    if (!push(inner)) return false;
                }
                const text = rule.selectorText;
                if (typeof text !== 'string' || !setsRead(rule.style)) continue;
                // A host or its light children, styled from inside its shadow tree: no query finds them.
                if (/:host|::slotted/i.test(text)) return false;
                // The elements it styles: a generated box's owner; a rule for another pseudo-element
                // alone (`::selection`, a scroll bar) styles nothing the capture reads.
                let sel = text.replace(PSEUDO_ELEMENT, '').replace(/::[\w-]+(\([^)]*\))?/g, '').trim();
                if (!sel) {
                    if (!/::?(before|after|marker)\b/i.test(text)) continue;
                    sel = '*';
                }
                try {
                    for (const d of where) for (const el of d.querySelectorAll(sel)) mark(el);
                } catch (_e) {
                    return false;
                }
            }
            return true;
        };
        const sweepStyles = () => {
            const media = mediaNow();
            const sheets = sheetsNow();
            const seen = stylesSeen;
            stylesSeen = { media, sheets };
            if (!seen || !sameSheets(seen.sheets, sheets)) sheetsVersion += 1;
            if (!seen) return;
            if (media !== seen.media) {
                reason('the viewport or the media its style queries test changed');
                return;
            }
            // The rules new since (a list each: appended to a sheet it had, or a new sheet's).
            const added = [];
            for (const [sheet, was] of seen.sheets) {
                const now = sheets.get(sheet);
                if (!now) {
                    reason('a style sheet was added or removed');
                    return;
                }
                if (now.size === was.size && now.last === was.last) continue;
                // Rules appended after the ones it had: those are new. Anything else is not bounded.
                const rules = sheet.cssRules;
                if (now.size < was.size || (was.size > 0 && rules[was.size - 1] !== was.last)) {
                    reason('style rules were inserted or deleted');
                    return;
                }
                added.push(Array.prototype.slice.call(rules, was.size, Math.min(now.size, was.size + MAX_NEW_RULES + 1)));
            }
            for (const [sheet] of sheets) if (!seen.sheets.has(sheet)) added.push(sheet.cssRules);
            if (added.some(list => !markMatches(list))) reason('style rules were added that cannot be bounded');
        };
        // Sessions whose record was dropped to make room: what changed meanwhile is lost,
        // so their next take says only a full capture will do.
        const dropped = new Set();
        state.track = key => {
            if (state.sessions.has(key)) return;
            // What happened so far goes to the sessions already tracking; the new one starts here.
            handle(observer.takeRecords());
            sweepValues();
            sweepUpgrades();
            sweepStyles();
            hearFrames();
            if (state.sessions.size >= MAX_SESSIONS) {
                const oldest = state.sessions.keys().next().value;
                state.sessions.delete(oldest);
                dropped.add(oldest);
                if (dropped.size > 8 * MAX_SESSIONS) dropped.delete(dropped.values().next().value);
            }
            const rec = fresh();
            if (dropped.delete(key)) rec.reasons.add(`this session's record of changes was dropped (more than ${MAX_SESSIONS} sessions on the page)`);
            rec.matches = matchesOf(relationalNow(scopes()));
            state.sessions.set(key, rec);
        };
        state.untrack = key => state.sessions.delete(key);
        // The record of session `key` since its last take (null: not tracking it; a full capture will do).
        state.take = key => {
            const rec = state.sessions.get(key);
            if (!rec) return null;
            handle(observer.takeRecords());
            sweepValues();
            sweepUpgrades();
            sweepStyles();
            hearFrames();
            const next = fresh();
            // Nothing changed and no state moved: no match can have moved, and the last stand.
            next.matches = rec.dirty.size || rec.lists.size || rec.reasons.size || rec.stateSeq !== stateSeq ? relate(rec) : rec.matches;
            state.sessions.delete(key);
            state.sessions.set(key, next);
            return { dirty: [...rec.dirty], lists: rec.lists, reasons: [...rec.reasons], structural: rec.structural, points: rec.points };
        };
        // The nodes session `key`'s capture fetches, one evaluation each (`pending(key)[k]`).
        state.hold = (key, nodes) => {
            const rec = state.sessions.get(key);
            if (rec) rec.pending = nodes;
        };
        state.pending = key => {
            const rec = state.sessions.get(key);
            return rec ? rec.pending : [];
        };
        // An event that says an element changed where no mutation does (see `hear`): it is marked.
        const touched = e => {
            state.seq += 1;
            state.lastAt = now();
            if (!state.sessions.size) return;
            const path = typeof e.composedPath === 'function' ? e.composedPath() : [];
            const t = path.length ? path[0] : e.target;
            if (t && t.nodeType === 1) mark(t);
        };
        // A slot whose assigned nodes changed (its `slotchange`): what a shadow root of manual
        // assignment takes by `slot.assign()` changes the flat tree with no mutation. The host is
        // read again as its flat tree (a slot's nodes are its host's light children).
        const slotChanged = e => {
            state.seq += 1;
            state.lastAt = now();
            if (!state.sessions.size) return;
            const t = e.target;
            if (t && t.nodeType === 1) mark(hostOf(t) || t);
        };
        const stateMoved = () => {
            stateSeq += 1;
        };
        // The events of a document (this one, and each same-origin frame's) that say what no
        // mutation says. All in the capture phase: some do not bubble. (`frame_watch.js` counts
        // the same ones in the frames our world watches there: keep the two lists together.)
        const hear = doc => {
            // A person typing or ticking changes properties, not the DOM.
            doc.addEventListener('input', touched, true);
            doc.addEventListener('change', touched, true);
            // A popover shown or hidden (`showPopover()`, a `popovertarget` button, a click
            // outside it) changes no attribute: the popover says so, before its state
            // changes, with `beforetoggle`.
            doc.addEventListener('beforetoggle', touched, true);
            // A media element's controls (Chrome draws them: play or pause, mute or unmute, its
            // time) follow its state, which changes no attribute: these events mark it. Not
            // `timeupdate`, many a second: a playing medium's time is as of its last play, pause or seek.
            for (const type of ['play', 'pause', 'ended', 'volumechange', 'seeked', 'loadedmetadata', 'durationchange', 'emptied']) doc.addEventListener(type, touched, true);
            // A `content-visibility: auto` element's content is laid out only near the viewport:
            // scrolled to, it comes into layout (and the snapshot) with no mutation, and says so.
            doc.addEventListener('contentvisibilityautostatechange', touched, true);
            // Slots are in shadow roots, whose events this hears as a document's; `slotchange`
            // does not leave its tree.
            doc.addEventListener('slotchange', slotChanged, true);
            // What can move a state pseudo-class's matches (see `STATE`).
            for (const type of ['mouseover', 'mouseout', 'focusin', 'focusout']) doc.addEventListener(type, stateMoved, true);
            if (doc.defaultView) doc.defaultView.addEventListener('hashchange', stateMoved, true);
        };
        hear(document);
        // A frame's document is heard from the first take after it was found; what happened in
        // it before was read whole (a frame added is read as a new subtree).
        const hearFrames = () => {
            while (framesToHear.length) {
                try {
                    hear(framesToHear.pop());
                } catch (_e) { /* a frame that went */ }
            }
        };
        hearFrames();
        g.__webAiSnapshotWatch = state;
        w = state;
    }

    if (options && typeof options.track === 'string') w.track(options.track);
    if (options && typeof options.untrack === 'string') w.untrack(options.untrack);

    const visible = el => {
        const r = el.getBoundingClientRect();
        if (r.width <= 0 || r.height <= 0) return false;
        const s = getComputedStyle(el);
        return s.visibility !== 'hidden' && s.display !== 'none' && Number(s.opacity) > 0;
    };
    const describe = el => {
        const role = el.getAttribute('role');
        const label = el.getAttribute('aria-label');
        let d = el.tagName.toLowerCase();
        if (el.id) d += `#${el.id}`;
        if (role) d += `[role=${role}]`;
        if (label) d += ` "${label.slice(0, 60)}"`;
        return d;
    };
    // A busy region is often empty (no height) while it loads: rendered is enough.
    const rendered = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    let candidates = 0;
    const first = (selector, test, shown = visible) => {
        let list;
        try {
            list = document.querySelectorAll(selector);
        } catch (_e) {
            return null;
        }
        candidates += list.length;
        const n = Math.min(list.length, 500);
        for (let i = 0; i < n; i += 1) if ((!test || test(list[i])) && shown(list[i])) return list[i];
        return null;
    };
    const unfinished = el => {
        if (el.tagName === 'PROGRESS') return !el.hasAttribute('value') || el.value < el.max;
        const now_ = el.getAttribute('aria-valuenow');
        if (now_ === null || now_ === '') return true;
        const max = el.getAttribute('aria-valuemax');
        return Number(now_) < (max === null || max === '' ? 100 : Number(max));
    };
    // The loading signals' selectors, and all of them at once (one query for "is any there").
    const BUSY = '[aria-busy="true"]';
    const PROGRESS = '[role="progressbar"],progress';
    const SKELETON = '[class*="skeleton" i],[class*="shimmer" i],[data-skeleton],[data-loading="true"]';
    const LOADING = `${BUSY},${PROGRESS},${SKELETON}`;
    let loading = null;
    if (options && options.loading) {
        let el;
        if (document.readyState !== 'complete') {
            loading = { active: true, signal: 'document_loading', source: 'document', detail: `document.readyState is ${document.readyState}` };
        } else if (w.quietLoading === w.shape) {
            // Nothing matched a loading selector at the last look, and no element or attribute
            // changed since (text cannot make an element match): three whole-document queries
            // saved on every look after a change of text (2.5–6 ms on the 40k-node page).
        } else if (w.quietLoading >= 0 && Array.isArray(w.shapeRoots) && w.shapeRoots.every(n => !n.isConnected || !(n.matches(LOADING) || n.querySelector(LOADING)))) {
            // Nothing matched at the last look, and no element added since, nor any whose
            // attributes changed, matches or holds a match: what matches a selector by its
            // own tag and attributes only can have begun to match only there. The queries
            // are saved after a row is added, hidden or retitled too (see the commit).
        } else if ((el = first(BUSY, null, rendered))) {
            loading = { active: true, signal: 'aria_busy', source: 'dom', detail: describe(el) };
        } else if ((el = first(PROGRESS, unfinished))) {
            loading = { active: true, signal: 'progress_indicator', source: 'dom', detail: describe(el) };
        } else if ((el = first(SKELETON))) {
            loading = { active: true, signal: 'skeleton', source: 'dom', detail: describe(el) };
        }
        if (document.readyState === 'complete' && w.quietLoading !== w.shape) {
            w.quietLoading = candidates === 0 ? w.shape : -1;
            w.shapeRoots = [];
        }
    }
    // An incremental session's light look: its capture asks the watcher what changed, and for
    // as many of the changed subtrees with that question as its record holds so far (`held`: the
    // nodes marked, the lists changed and the children taken out of them; at most what the take hands over).
    if (options && options.light) {
        const rec = typeof options.track === 'string' ? w.sessions.get(options.track) : undefined;
        let held = 0;
        if (rec) {
            held = rec.dirty.size + rec.lists.size;
            for (const gone of rec.lists.values()) held += gone.size;
        }
        return { token: w.token, seq: w.seq, fp: null, quietMs: Math.round(now() - w.lastAt), readyState: document.readyState, url: location.href, loading, held };
    }
    // Properties a script can set without any event (FNV-1a over their values).
    let h = 2166136261;
    const mix = str => {
        for (let i = 0; i < str.length; i += 1) h = Math.imul(h ^ str.charCodeAt(i), 16777619);
    };
    // Live collections, kept with the watcher: re-reading them is cheap.
    w.controls ??= ['input', 'select', 'textarea'].map(tag => document.getElementsByTagName(tag));
    let n = 0;
    for (const list of w.controls) {
        const m = Math.min(list.length, 5000);
        for (let i = 0; i < m; i += 1) {
            const c = list[i];
            // Most fields are empty: only a value that is there is hashed.
            h = Math.imul(h ^ (c.checked ? 3 : 5) ^ (c.indeterminate ? 8 : 16) ^ ((c.selectedIndex | 0) << 5), 16777619);
            const v = c.value;
            if (v) mix(v);
        }
        n += m;
    }
    mix(`${scrollX},${scrollY},${innerWidth},${innerHeight}`);
    const fp = `${n}:${(h >>> 0).toString(36)}`;
    return { token: w.token, seq: w.seq, fp, quietMs: Math.round(now() - w.lastAt), readyState: document.readyState, url: location.href, loading };
})
