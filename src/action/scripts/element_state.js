// What an action must know about its element before acting on it.
function () {
    const el = this;
    const view = el.ownerDocument && el.ownerDocument.defaultView;
    const style = view ? view.getComputedStyle(el) : null;
    const type = String(el.type || '').toLowerCase();
    const nonText = ['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image', 'range', 'color', 'hidden'];
    const popup = el.getAttribute ? String(el.getAttribute('aria-haspopup')).toLowerCase() : '';
    return {
        connected: el.isConnected === true,
        disabled: !!(el.disabled || (el.matches && el.matches(':disabled')) || (el.closest && el.closest('[aria-disabled="true"]'))),
        readOnly: !!(el.readOnly || (el.getAttribute && el.getAttribute('aria-readonly') === 'true')),
        hidden: !style || style.visibility === 'hidden' || style.display === 'none',
        tag: el.localName || el.nodeName,
        textInput: el.localName === 'textarea' || (el.localName === 'input' && !nonText.includes(type)),
        editable: !!el.isContentEditable,
        select: el.localName === 'select',
        popup: ['listbox', 'menu', 'true', 'tree', 'grid'].includes(popup),
    };
}
