// The generated boxes a walk of a whole document left for later
// (`subtree_facts.js`): for each `[i, which]` asked, the computed `names` of
// the `which` pseudo-element ('::marker', '::before', '::after') of the
// element the walk listed at `i`, or null where it has no box. Asked only
// where `DOM.getDocument` lists the pseudo-element. The walk's list is let
// go here, asked or not, so that no node of the page is kept alive by it.
(function (names, asks) {
    const walked = globalThis.__webAiSnapshotWalk;
    delete globalThis.__webAiSnapshotWalk;
    if (!Array.isArray(walked)) return null;
    return asks.map(([i, which]) => {
        const el = walked[i];
        if (!el || !el.isConnected) return null;
        const cs = getComputedStyle(el, which);
        const content = cs.getPropertyValue('content');
        if (which !== '::marker' && (content === 'none' || content === 'normal')) return null;
        if (cs.display === 'none') return null;
        return names.map(p => cs.getPropertyValue(p));
    });
})
