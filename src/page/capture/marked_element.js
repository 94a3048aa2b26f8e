// An element the DOM snapshot cannot mark, as a remote object (or null), for
// the DOM engine: 'focus', the focused element (through open shadow roots
// and same-origin frames; none when the document itself has focus), or
// 'modal', the last dialog shown with showModal() (HTML: it makes the rest
// of the page inert).
(function (kind) {
    if (kind === 'modal') {
        let modal = null;
        try {
            const all = document.querySelectorAll('dialog:modal');
            modal = all.length ? all[all.length - 1] : null;
        } catch (_e) { /* a browser without :modal */ }
        return modal;
    }
    let a = document.activeElement;
    for (let k = 0; k < 64 && a; k += 1) {
        if (a.shadowRoot && a.shadowRoot.activeElement) {
            a = a.shadowRoot.activeElement;
            continue;
        }
        let inner = null;
        if (a.tagName === 'IFRAME' || a.tagName === 'FRAME') {
            try { inner = a.contentDocument; } catch (_e) { /* another origin */ }
        }
        if (inner && inner.activeElement) {
            a = inner.activeElement;
            continue;
        }
        break;
    }
    if (!a || a.tagName === 'BODY' || a.tagName === 'HTML') return null;
    return a;
})
