// One frame for the page to react (listeners, re-render) before the next look.
(() => new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0))))
