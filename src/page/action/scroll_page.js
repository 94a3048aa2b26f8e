// Scroll the page up, down (by `amount` pixels), to the top or to the bottom.
(function (direction, amount) {
    const root = document.scrollingElement || document.documentElement;
    if (direction === 'up') window.scrollBy(0, -amount);
    else if (direction === 'down') window.scrollBy(0, amount);
    else if (direction === 'top') window.scrollTo(0, 0);
    else if (direction === 'bottom') window.scrollTo(0, root.scrollHeight);
    return 0;
})
