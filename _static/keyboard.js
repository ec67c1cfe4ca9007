/* Keyboard users keep the focus on the theme's buttons. sphinx-book-theme blurs the colour mode
   switch, the search button and the sidebar toggles on every click, to hide the focus style after
   a mouse click; after a click made with Enter or Space (event.detail === 0) the focus then falls
   back to the page, and the colour mode menu that just opened cannot be reached. Those buttons
   ignore blur() after a keyboard click. Upstream: sphinx-book-theme should style :focus-visible
   instead of calling blur(). */
(() => {
  let keyboardClick = false;
  window.addEventListener("click", (event) => { keyboardClick = event.detail === 0; }, true);
  document.addEventListener("DOMContentLoaded", () => {
    const buttons = ".theme-switch-button, .search-button, .primary-toggle, .secondary-toggle";
    for (const button of document.querySelectorAll(buttons)) {
      const blur = button.blur.bind(button);
      button.blur = () => { if (!keyboardClick) blur(); };
    }
  });
})();
