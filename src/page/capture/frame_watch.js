// A page session's watch over a frame of another origin (in the page's
// process or another), run in our isolated world in that frame. The page's
// watcher (lib/page/watch.js) cannot enter such a frame, so a repeat capture
// used to read it again on every look; with this it reads it again only when
// something in it may have changed.
//
// `mode` 'mark': session `session` is about to read the frame: remember where
// the frame stands for it (sent before the frame's DOM is read, so a change
// after the mark is a change the next look sees).
// `mode` 'swap': whether the frame is as it was at the session's last mark,
// then 'mark' (a look asks this first; whatever it then reads of the frame
// comes after the new mark). A frame that holds frames of its own is never as
// it was (their documents are not watched here), nor is one without a mark
// for the session.
//
// What no mutation shows is folded into a fingerprint: form fields' values,
// checked and selection as a script may set them, without an event, and the
// document's URL (history.pushState; an untitled frame is named by it); the
// frame's style sheets (a rule added or taken through the CSSOM, a sheet
// adopted or loaded late), the media its style queries test (its size, a
// zoom, a colour scheme) and its custom elements not yet defined (one defined
// is upgraded in place). Events that say what no mutation says count as a
// change, as in the page's watcher (`hear` in watch.js: keep the two lists
// together): a popover toggled, a medium played,
// paused or muted, the pointer entering or leaving an element, focus moving,
// the fragment changing (state pseudo-classes such as `:hover`), content of a
// `content-visibility: auto` element coming into layout or leaving it.
(function (mode, session) {
    const g = globalThis;
    let w = g.__webAiSnapshotFrameWatch;
    if (!w || w.doc !== document) {
        w = { doc: document, seq: 0, marks: new Map() };
        const bump = () => { w.seq += 1; };
        w.observer = new MutationObserver(bump);
        w.observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
        for (const type of ['input', 'change', 'beforetoggle', 'play', 'pause', 'ended', 'volumechange', 'seeked', 'loadedmetadata', 'durationchange', 'emptied', 'mouseover', 'mouseout', 'focusin', 'focusout', 'contentvisibilityautostatechange']) {
            document.addEventListener(type, bump, true);
        }
        addEventListener('hashchange', bump, true);
        // Each style rule's number, so that the last rule of a sheet is known again.
        w.rules = new WeakMap();
        w.nextRule = 1;
        g.__webAiSnapshotFrameWatch = w;
    }
    // Records not yet delivered to the observer's callback count too.
    if (w.observer.takeRecords().length) w.seq += 1;
    const MAX_FIELDS = 5000;
    let h = 2166136261;
    const mix = str => {
        for (let i = 0; i < str.length; i += 1) h = Math.imul(h ^ str.charCodeAt(i), 16777619);
    };
    const fields = document.querySelectorAll('input,select,textarea');
    const n = Math.min(fields.length, MAX_FIELDS);
    for (let i = 0; i < n; i += 1) {
        const f = fields[i];
        h = Math.imul(h ^ (f.checked ? 3 : 5) ^ (f.indeterminate ? 8 : 16) ^ ((f.selectedIndex | 0) << 5), 16777619);
        const v = f.value;
        if (v) mix(v);
    }
    mix(location.href);
    mix([innerWidth, innerHeight, devicePixelRatio, ...['(prefers-color-scheme: dark)', 'print', '(forced-colors: active)'].map(q => matchMedia(q).matches)].join());
    for (const sheet of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) {
        let rules = null;
        try {
            rules = sheet.cssRules;
        } catch (_e) { /* another origin: not readable */ }
        if (!rules) continue;
        const last = rules.length ? rules[rules.length - 1] : null;
        if (last && !w.rules.has(last)) w.rules.set(last, w.nextRule++);
        mix(`${rules.length}/${last ? w.rules.get(last) : 0};`);
    }
    mix(`${document.querySelectorAll(':not(:defined)').length}`);
    const at = `${w.seq}:${fields.length}:${(h >>> 0).toString(36)}`;
    const framed = document.getElementsByTagName('iframe').length + document.getElementsByTagName('frame').length > 0;
    const same = mode === 'swap' && !framed && fields.length <= MAX_FIELDS && w.marks.get(session) === at;
    w.marks.delete(session);
    w.marks.set(session, at);
    // Sessions come and go: keep the last few marks.
    while (w.marks.size > 16) w.marks.delete(w.marks.keys().next().value);
    return mode === 'mark' || same;
})
