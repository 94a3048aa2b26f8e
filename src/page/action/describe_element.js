// A short description of what covers an element: tag#id.class "text".
(function () {
    const el = this.nodeType === 1 ? this : this.parentElement;
    if (!el) return String(this.nodeName);
    let d = el.localName;
    if (el.id) d += '#' + el.id;
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
    if (cls.length) d += '.' + cls.join('.');
    const text = (el.getAttribute('aria-label') || el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
    if (text) d += ' "' + (text.length > 60 ? text.slice(0, 60) + '…' : text) + '"';
    return d;
})
