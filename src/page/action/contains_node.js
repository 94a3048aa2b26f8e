// Whether `other` is this element or inside it, through shadow roots.
(function (other) {
    for (let n = other; n; n = n.parentNode || n.host) if (n === this) return true;
    return false;
})
