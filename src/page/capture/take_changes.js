// A repeat capture's first question to the page session's watcher
// (`lib/page/watch.js`, in our isolated world): what changed since the last
// capture. Returns
//   { token, reasons, roots, lists, blind, sizes, total, url, title, viewport, sameTags }
// where `token` names the watcher's document (null: no watcher here),
// `reasons` say why only a full capture will do, `roots` counts the subtrees
// to read again (none inside another), `lists` the elements whose child lists
// changed, each with a `plans` entry (its children in order: runs of children
// it had, and roots) and a `gone` count (its children taken out, fetched for
// their backend ids), `blind` the frames whose document the
// watcher cannot enter (another origin: read again whole, or, in another
// process, by their own capture), `sizes` the roots' elements and `total` the
// document's (counted only when the roots reach over `maxReach`, else 0); `sameTags` that every change was a text node's data or
// text nodes taken out or put in (not in a style, script or other raw-text element) or an attribute the DOM hash's
// normalising drops (`watch.js`, `attributesOutOfHash`), or came after the
// cut of the writing this session's DOM hash came from (`cutKey`, `cutSeq`),
// which leaves the DOM hash as it was. The roots, the lists, the gone children, then the blind frames' elements, are held by the
// watcher as the session's `pending` for the capture to fetch. Taking resets
// the session's record. `session` is the page session's key: each session
// on a page has a record of its own.
(function (maxRoots, maxFrames, session, maxReach, cutKey, cutSeq) {
    const w = globalThis.__webAiSnapshotWatch;
    const taken = w && w.doc === document && typeof w.take === 'function' ? w.take(session) : null;
    if (!taken) {
        return { token: null, reasons: ['the page session was not watching this document'], roots: 0, blind: 0, sizes: [], total: 0 };
    }
    const { dirty, lists: listed, reasons, structural, points } = taken;
    const set = new Set();
    // A node in a shadow tree holding a slot is read with its host: the slot's nodes in the
    // flat tree (those assigned to it) are the host's light children, outside the node.
    const hostOf = n => {
        const r = n.getRootNode();
        return r.nodeType === 11 && r.host ? r.host : null;
    };
    const readable = n => {
        let x = n;
        for (let h = hostOf(x); h && x.nodeType === 1 && (x.localName === 'slot' || x.getElementsByTagName('slot').length > 0); h = hostOf(x)) x = h;
        return x;
    };
    for (const n of dirty) if (n && n.isConnected) set.add(readable(n));
    // Each list's children taken out and not put back anywhere: the capture fetches them
    // to learn which of the mirror's nodes went (one moved elsewhere is read where it is now).
    const goneOf = new Map();
    let goneCount = 0;
    // A small element whose children changed is read whole: one subtree costs less than its
    // new children and neighbours read by themselves. So is one that lost more children than
    // the capture would fetch.
    // (The collection's item past SMALL is found by walking only that far: a feed's `main`
    // is not counted whole on every look.)
    const SMALL = 100;
    const small = el => el.getElementsByTagName('*')[SMALL] === undefined;
    for (const [el, removed] of listed instanceof Map ? listed : []) {
        if (!el || !el.isConnected) continue;
        const out = [...removed].filter(n => !n.isConnected);
        if (goneCount + out.length > maxRoots || small(el)) set.add(readable(el));
        else {
            goneOf.set(el, out);
            goneCount += out.length;
        }
    }
    // (Up through shadow roots to their hosts: a host read again is read with its shadow tree.)
    const within = n => {
        for (let p = n.parentNode || n.host; p; p = p.parentNode || p.host) if (set.has(p)) return true;
        return false;
    };
    const roots = [];
    for (const n of set) if (!within(n)) roots.push(n);
    // Elements whose child lists changed and that are not read whole anyway. Each has a plan of
    // its children in order: a run of n children it had before is n, root k is -(k + 1). Its
    // new children are roots of their own; what it had before, less what went, keeps its order.
    const lists = [];
    const plans = [];
    const gone = [];
    const rootAt = new Map(roots.map((r, k) => [r, k]));
    for (const [el, out] of goneOf) {
        if (set.has(el) || within(el)) continue;
        const plan = [];
        let run = 0;
        for (let c = el.firstChild; c; c = c.nextSibling) {
            const k = rootAt.get(c);
            if (k === undefined) run += 1;
            else {
                if (run) plan.push(run);
                run = 0;
                plan.push(-(k + 1));
            }
        }
        if (run) plan.push(run);
        lists.push(el);
        plans.push(plan);
        gone.push(out);
    }
    if (roots.length + lists.length > maxRoots) reasons.push(`${roots.length + lists.length} separate subtrees changed`);
    // Counting walks the page: only when there is something to weigh.
    // A root is an element, or a text read again by itself (see the watcher's `alone`).
    const sizes = roots.map(r => 1 + (r.nodeType === 1 ? r.getElementsByTagName('*').length : 0));
    // The page's size weighs only a change reaching over `maxReach` elements (the capture's rule);
    // counting it walks every element once any changed (about 1 ms on the 40k-node page), so only then.
    const reach = sizes.reduce((a, b) => a + b, 0);
    const total = reach > maxReach ? document.getElementsByTagName('*').length : 0;
    // Frames the watcher cannot see into: the documents it does see, searched for frames.
    const blind = [];
    const docs = [document];
    // Live collections (the DOM keeps them) rather than a selector query over
    // the whole document: this runs on every look, changed or not. A
    // document with both kinds of frame is read by the query, in tree order.
    const framesIn = d => {
        const frames = d.getElementsByTagName('frame');
        return frames.length ? d.querySelectorAll('iframe,frame') : d.getElementsByTagName('iframe');
    };
    for (let seen = 0; docs.length && seen < 1000; seen += 1) {
        const d = docs.pop();
        for (const f of framesIn(d)) {
            let inner = null;
            try {
                inner = f.contentDocument;
            } catch (_e) { /* another origin */ }
            if (inner) docs.push(inner);
            else blind.push(f);
        }
    }
    if (blind.length > maxFrames) reasons.push(`${blind.length} frames of other origins`);
    // A modal dialog makes the rest of the page inert: no subtree bounds that.
    try {
        for (const d of document.getElementsByTagName('dialog')) {
            if (d.matches(':modal')) {
                reasons.push('a modal dialog is open (the rest of the page is inert)');
                break;
            }
        }
    } catch (_e) { /* a browser without :modal */ }
    // The DOM hash stands when every change it reads came at or after the start of the element
    // its last writing stopped before (`page_facts.js`'s cut), in the writing this session's
    // hash came from (`cutSeq`): all it read came before. A change is placed by the node it came
    // in: a list's change just after the sibling it came after, or at the start of the list's
    // content; an attribute's at its element's start; raw text's at its node. A node no longer
    // in the document places nothing.
    const allAfterCut = list => {
        const cuts = globalThis.__webAiSnapshotHashCut;
        const cut = cuts && typeof cutKey === 'string' ? cuts.at.get(cutSeq) : undefined;
        const at = cut && cut.key === cutKey ? cut.node : null;
        if (!at || !at.isConnected) return false;
        const FOLLOWING = 4;
        const CONTAINS = 8;
        // Its start at or after the cut (its contents too: a node inside the cut element follows it).
        const startsAfter = n => n === at || (n.isConnected && (at.compareDocumentPosition(n) & (FOLLOWING | CONTAINS)) === FOLLOWING);
        // Its end after the cut: it follows the cut, is the cut, or holds it.
        const endsAfter = n => n === at || (n.isConnected && (at.compareDocumentPosition(n) & (FOLLOWING | CONTAINS)) !== 0);
        return list.every(([node, before, listed]) => (listed && before ? endsAfter(before) : startsAfter(node)));
    };
    const goneNodes = gone.flat();
    w.hold(session, reasons.length ? [] : [...roots, ...lists, ...goneNodes, ...blind]);
    return {
        token: w.token,
        reasons,
        roots: reasons.length ? 0 : roots.length,
        lists: reasons.length ? 0 : lists.length,
        plans: reasons.length ? [] : plans,
        gone: reasons.length ? [] : gone.map(g => g.length),
        blind: reasons.length ? 0 : blind.length,
        sizes,
        total,
        url: location.href,
        title: document.title,
        viewport: [innerWidth, innerHeight],
        sameTags: structural === false && (points.length === 0 || allAfterCut(points)),
    };
})
