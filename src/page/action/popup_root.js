// Where a custom dropdown's options are: the popup it names, itself (a listbox), else its document.
(function () {
    if (this.getAttribute('role') === 'listbox') return this;
    const ids = [this.getAttribute('aria-controls'), this.getAttribute('aria-owns')].join(' ').split(/\s+/).filter(Boolean);
    return ids.map(id => this.ownerDocument.getElementById(id)).find(Boolean) || this.ownerDocument;
})
