// One random mutation of the page, chosen by `seed` (run in the page's own
// world by the incremental capture's randomized test and its benchmark).
// Kinds: text, set or remove an attribute, insert new markup or a copy,
// remove, move, hide, show, relabel (aria-labelledby, label for), aria-*
// states and references (aria-owns, aria-describedby, aria-controls), a form
// field's value set by script, and content inside open
// shadow roots and same-origin frames. Returns what it did, as a line a
// person can replay by hand.
(function (seed, only) {
    let s = seed >>> 0;
    const rand = () => {
        // mulberry32
        s = (s + 0x6d2b79f5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = list => list[Math.floor(rand() * list.length)];
    const WORDS = ['Send', 'Open menu', 'Delete', 'Cart (3)', 'Next page', 'Ünïcödé', 'سلام', '42', 'Sign in', 'More', 'Total: '];
    const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'html', 'body', 'title', 'meta', 'link', 'iframe', 'frame']);
    // Documents to act in: this one, and same-origin frames' (kind "frame").
    const docs = [document];
    for (const f of document.querySelectorAll('iframe')) {
        try {
            if (f.contentDocument && f.contentDocument.body) docs.push(f.contentDocument);
        } catch (_e) { /* another origin */ }
    }
    const shadowRoots = [];
    for (const el of document.querySelectorAll('*')) if (el.shadowRoot) shadowRoots.push(el.shadowRoot);
    const elementsIn = root => [...root.querySelectorAll('*')].filter(e => !SKIP.has(e.localName) && !e.closest('svg,head,script,style,select'));
    const path = el => {
        const parts = [];
        for (let e = el; e && e.nodeType === 1 && parts.length < 8; e = e.parentElement) {
            const p = e.parentElement;
            const i = p ? [...p.children].indexOf(e) + 1 : 1;
            parts.unshift(`${e.localName}:nth-child(${i})`);
        }
        return parts.join(' > ');
    };
    let kinds = ['text', 'text', 'set', 'set', 'remove-attribute', 'insert', 'copy', 'remove', 'move', 'hide', 'show', 'relabel', 'aria', 'aria', 'value'];
    if (docs.length > 1) kinds.push('frame', 'frame');
    if (shadowRoots.length) kinds.push('shadow');
    if (only) kinds = [only];
    const kind = pick(kinds);
    let root = document;
    if (kind === 'frame') root = pick(docs.slice(1));
    if (kind === 'shadow') root = pick(shadowRoots);
    const els = elementsIn(root.body || root);
    if (!els.length) return 'nothing to change';
    const el = pick(els);
    const doc = el.ownerDocument;
    const where = `${kind === 'frame' ? 'in a frame: ' : kind === 'shadow' ? 'in a shadow root: ' : ''}${path(el)}`;
    const act = kind === 'frame' || kind === 'shadow' ? pick(['text', 'set', 'insert', 'remove', 'hide']) : kind;
    switch (act) {
        case 'text': {
            const walker = doc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
            const texts = [];
            for (let n = walker.nextNode(); n && texts.length < 50; n = walker.nextNode()) if (n.data.trim()) texts.push(n);
            const word = pick(WORDS);
            if (texts.length) {
                pick(texts).data = word;
                return `text of a node in ${where} = ${JSON.stringify(word)}`;
            }
            el.append(doc.createTextNode(word));
            return `append text ${JSON.stringify(word)} to ${where}`;
        }
        case 'set': {
            const [name, value] = pick([
                ['class', pick(['', 'hidden', 'active open', 'sr-only', 'visually-hidden'])],
                ['title', pick(WORDS)],
                ['aria-label', pick(WORDS)],
                ['role', pick(['button', 'link', 'heading', 'none', 'tab', 'checkbox', 'dialog', 'navigation'])],
                ['hidden', ''],
                ['style', pick(['display:none', 'visibility:hidden', 'display:contents', 'cursor:pointer', 'text-transform:uppercase', ''])],
                ['tabindex', pick(['0', '-1'])],
                ['disabled', ''],
                ['href', pick(['/a', '#top', 'https://example.com/x'])],
                ['alt', pick(WORDS)],
                ['placeholder', pick(WORDS)],
                ['contenteditable', 'true'],
                ['id', `m${Math.floor(rand() * 1000)}`],
            ]);
            el.setAttribute(name, value);
            return `${where}.setAttribute(${JSON.stringify(name)}, ${JSON.stringify(value)})`;
        }
        case 'remove-attribute': {
            const attrs = [...el.attributes].map(a => a.name);
            if (!attrs.length) return `nothing: ${where} has no attributes`;
            const name = pick(attrs);
            el.removeAttribute(name);
            return `${where}.removeAttribute(${JSON.stringify(name)})`;
        }
        case 'insert': {
            const html = pick([
                `<button>${pick(WORDS)}</button>`,
                `<a href="/n">${pick(WORDS)}</a>`,
                `<label>${pick(WORDS)} <input type="checkbox" checked></label>`,
                `<div role="dialog" aria-label="${pick(WORDS)}"><button>OK</button></div>`,
                `<ul><li>${pick(WORDS)}</li><li><a href="#">${pick(WORDS)}</a></li></ul>`,
                `<h2>${pick(WORDS)}</h2>`,
                `<input placeholder="${pick(WORDS)}" value="v">`,
                `<span style="display:none"><button>${pick(WORDS)}</button></span>`,
                ' ',
            ]);
            el.insertAdjacentHTML(pick(['beforebegin', 'afterbegin', 'beforeend', 'afterend']), html);
            return `${where}.insertAdjacentHTML(…, ${JSON.stringify(html)})`;
        }
        case 'copy': {
            const other = pick(els);
            if (other.contains(el)) return `nothing: ${where} is inside the copy`;
            el.append(other.cloneNode(true));
            return `append a copy of ${path(other)} to ${where}`;
        }
        case 'remove': {
            el.remove();
            return `${where}.remove()`;
        }
        case 'move': {
            const to = pick(els);
            if (el.contains(to)) return `nothing: ${path(to)} is inside ${where}`;
            to.insertBefore(el, pick([null, to.firstChild]));
            return `move ${where} into ${path(to)}`;
        }
        case 'hide': {
            const how = pick(['display', 'visibility', 'hidden', 'aria-hidden', 'inert']);
            if (how === 'display') el.style.display = 'none';
            else if (how === 'visibility') el.style.visibility = 'hidden';
            else if (how === 'hidden') el.hidden = true;
            else el.setAttribute(how, how === 'aria-hidden' ? 'true' : '');
            return `hide ${where} by ${how}`;
        }
        case 'show': {
            const hidden = [...(root.querySelectorAll ? root.querySelectorAll('[hidden],[style*="none"],[aria-hidden],[inert]') : [])];
            if (!hidden.length) return 'nothing hidden to show';
            const h = pick(hidden);
            h.hidden = false;
            h.style.display = '';
            h.removeAttribute('aria-hidden');
            h.removeAttribute('inert');
            return `show ${path(h)}`;
        }
        case 'relabel': {
            const other = pick(els);
            if (!other.id) other.id = `l${Math.floor(rand() * 100000)}`;
            const control = els.filter(e => /^(input|button|select|textarea)$/.test(e.localName));
            if (rand() < 0.5 && control.length) {
                const c = pick(control);
                if (!c.id) c.id = `c${Math.floor(rand() * 100000)}`;
                const label = doc.createElement('label');
                label.htmlFor = c.id;
                label.textContent = pick(WORDS);
                el.append(label);
                return `add <label for="${c.id}"> to ${where}`;
            }
            el.setAttribute('aria-labelledby', other.id);
            return `${where} aria-labelledby=${other.id} (${path(other)})`;
        }
        case 'aria': {
            if (rand() < 0.2) {
                // A reference to another element: it moves under this one in the tree, or describes it.
                const other = pick(els);
                if (!other.id) other.id = `o${Math.floor(rand() * 100000)}`;
                const name = pick(['aria-owns', 'aria-describedby', 'aria-controls']);
                el.setAttribute(name, other.id);
                return `${where}.setAttribute(${JSON.stringify(name)}, ${JSON.stringify(other.id)}) (${path(other)})`;
            }
            const [name, value] = pick([
                ['aria-expanded', pick(['true', 'false'])],
                ['aria-checked', pick(['true', 'false', 'mixed'])],
                ['aria-pressed', pick(['true', 'false'])],
                ['aria-selected', pick(['true', 'false'])],
                ['aria-disabled', 'true'],
                ['aria-level', pick(['1', '3'])],
                ['aria-current', 'page'],
                ['aria-busy', 'true'],
                ['aria-modal', 'true'],
            ]);
            el.setAttribute(name, value);
            return `${where}.setAttribute(${JSON.stringify(name)}, ${JSON.stringify(value)})`;
        }
        case 'retext': {
            // An element's text set whole (`textContent`): its text nodes replaced by one. Only
            // asked for by name (`only`), so the default kinds keep their seeds.
            const leaves = els.filter(e => e.children.length === 0 && e.localName !== 'script' && e.localName !== 'style');
            if (!leaves.length) return 'nothing: no element without element children';
            const leaf = pick(leaves);
            leaf.textContent = pick(WORDS);
            return `${path(leaf)}.textContent = ${JSON.stringify(leaf.textContent)}`;
        }
        case 'value': {
            const fields = [...root.querySelectorAll('input,textarea,select')];
            if (!fields.length) return 'nothing: no form fields';
            const f = pick(fields);
            if (f.type === 'checkbox' || f.type === 'radio') f.checked = !f.checked;
            else if (f.localName === 'select') f.selectedIndex = Math.floor(rand() * f.options.length);
            else f.value = pick(WORDS);
            return `set the value of ${path(f)} from script`;
        }
        default:
            return `unknown kind ${act}`;
    }
})
