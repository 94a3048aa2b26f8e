// Select what a fill replaces: everything (clear) or nothing, caret at the end.
(function (clear) {
    if (this.isContentEditable) {
        const sel = this.ownerDocument.getSelection();
        const range = this.ownerDocument.createRange();
        range.selectNodeContents(this);
        if (!clear) range.collapse(false);
        sel.removeAllRanges();
        sel.addRange(range);
    } else if (clear) {
        this.select();
    } else {
        const end = String(this.value).length;
        try { this.setSelectionRange(end, end); } catch (_e) { /* types without a selection */ }
    }
})
