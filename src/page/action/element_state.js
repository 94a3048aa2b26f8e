// What an action must know about its element before acting on it.
(function () {
    const view = this.ownerDocument && this.ownerDocument.defaultView;
    const style = view ? view.getComputedStyle(this) : null;
    const type = String(this.type || '').toLowerCase();
    const nonText = ['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image', 'range', 'color', 'hidden'];
    const popup = this.getAttribute ? String(this.getAttribute('aria-haspopup')).toLowerCase() : '';
    return {
        connected: this.isConnected === true,
        disabled: !!(this.disabled || (this.matches && this.matches(':disabled')) || (this.closest && this.closest('[aria-disabled="true"]'))),
        readOnly: !!(this.readOnly || (this.getAttribute && this.getAttribute('aria-readonly') === 'true')),
        hidden: !style || style.visibility === 'hidden' || style.display === 'none',
        tag: this.localName || this.nodeName,
        type,
        textInput: this.localName === 'textarea' || (this.localName === 'input' && !nonText.includes(type)),
        // A value typing cannot enter: set in its own format (set_value.js).
        formatted: this.localName === 'input' && ['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range'].includes(type),
        editable: !!this.isContentEditable,
        select: this.localName === 'select',
        popup: ['listbox', 'menu', 'true', 'tree', 'grid'].includes(popup),
        // A background tab: it runs no frames, so a pointer move (delivered with a frame) never arrives.
        tabHidden: !!(this.ownerDocument && this.ownerDocument.visibilityState === 'hidden'),
    };
})
