// What a text field holds now.
(function () {
    return this.isContentEditable ? this.innerText : String(this.value);
})
