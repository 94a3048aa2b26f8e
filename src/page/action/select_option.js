// Choose an option of a native <select> by value, label or text, as a user's choice does.
(function (wanted) {
    const opts = Array.from(this.options);
    const w = String(wanted).trim();
    const o = opts.find(o => o.value === wanted) || opts.find(o => o.label.trim() === w)
        || opts.find(o => o.textContent.trim().toLowerCase() === w.toLowerCase());
    if (!o) return { ok: false, options: opts.slice(0, 20).map(o => o.label || o.value) };
    if (o.disabled) return { ok: false, disabled: o.label || o.value };
    this.value = o.value;
    o.selected = true;
    this.dispatchEvent(new Event('input', { bubbles: true }));
    this.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true, value: o.value, label: o.label };
})
