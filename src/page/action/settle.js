// One frame for the page to react (listeners, re-render) before the next look.
// A hidden tab (a background tab of a browser the agent did not bring to the
// front) runs no animation frames at all: it gets a task's turn instead.
(function () {
    if (document.visibilityState === 'hidden') return new Promise(resolve => setTimeout(resolve, 0));
    return new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)));
})