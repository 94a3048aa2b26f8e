// Clear a field the way a user's Delete key does (input events fire).
(function () {
    this.ownerDocument.execCommand('delete');
})
