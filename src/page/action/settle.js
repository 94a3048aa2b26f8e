// One frame for the page to react (listeners, re-render) before the next look.
(function () {
    return new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)));
})