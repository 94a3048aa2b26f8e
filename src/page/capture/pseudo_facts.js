// The generated boxes a walk of a whole document left for later
// (`subtree_facts.js`): for each `[i, which]` asked, the computed `names` of
// the `which` pseudo-element ('::marker', '::before', '::after') of the
// element the walk listed at `i`, or null where it has no box or the walk
// left none for later (it found no layout). Asked where `DOM.getDocument`
// lists the pseudo-element, as soon as the document is in. The walk's list is let
// go here, asked or not, so that no node of the page is kept alive by it.
(function (names, asks) {
    const walk = globalThis.__webAiSnapshotWalk;
    delete globalThis.__webAiSnapshotWalk;
    if (!walk || !Array.isArray(walk.walked) || !Array.isArray(walk.left)) return null;
    const BIT = { '::marker': 1, '::before': 2, '::after': 4 };
    return asks.map(([i, which]) => {
        const el = walk.walked[i];
        // Only what the walk left for later: an element with no layout has no box (and
        // computing a style there could make layout objects a later snapshot would list).
        if (!el || !el.isConnected || !((walk.left[i] ?? 0) & (BIT[which] ?? 0))) return null;
        const cs = getComputedStyle(el, which);
        const content = cs.getPropertyValue('content');
        if (which !== '::marker' && (content === 'none' || content === 'normal')) return null;
        if (cs.display === 'none') return null;
        return names.map(p => cs.getPropertyValue(p));
    });
})
