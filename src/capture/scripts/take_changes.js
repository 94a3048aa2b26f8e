// A repeat capture's first question to the page session's watcher
// (`lib/page/watch.js`, in our isolated world): what changed since the last
// capture. Returns
//   { token, reasons, roots, sizes, total, frames, url, title, viewport }
// where `token` names the watcher's document (null: no watcher here),
// `reasons` say why only a full capture will do, `roots` counts the subtrees
// to read again (none inside another; kept as the watcher's `pending` for the
// capture to fetch), `sizes` their elements, `total` the document's, and
// `frames` the documents the watcher sees (this one and the frames it can
// enter; counted only with `countFrames`). Taking resets the record.
function (maxRoots, countFrames) {
    const w = globalThis.__webAiSnapshotWatch;
    if (!w || w.doc !== document || !w.tracking || typeof w.take !== 'function') {
        return { token: null, reasons: ['the page session was not watching this document'], roots: 0, sizes: [], total: 0, frames: 0 };
    }
    const { dirty, reasons } = w.take();
    const set = new Set();
    for (const n of dirty) if (n && n.isConnected) set.add(n);
    const roots = [];
    for (const n of set) {
        let inside = false;
        for (let p = n.parentNode; p; p = p.parentNode) {
            if (set.has(p)) {
                inside = true;
                break;
            }
        }
        if (!inside) roots.push(n);
    }
    if (roots.length > maxRoots) reasons.push(`${roots.length} separate subtrees changed`);
    // Counting walks the page: only when there is something to weigh.
    const sizes = roots.map(r => 1 + r.getElementsByTagName('*').length);
    const total = roots.length ? document.getElementsByTagName('*').length : 0;
    let frames = 0;
    const docs = countFrames ? [document] : [];
    while (docs.length && frames < 10000) {
        const d = docs.pop();
        frames += 1;
        for (const f of d.querySelectorAll('iframe,frame')) {
            let inner = null;
            try {
                inner = f.contentDocument;
            } catch (e) { /* another origin */ }
            if (inner) docs.push(inner);
        }
    }
    w.pending = reasons.length ? [] : roots;
    return { token: w.token, reasons, roots: w.pending.length, sizes, total, frames, url: location.href, title: document.title, viewport: [innerWidth, innerHeight] };
}
