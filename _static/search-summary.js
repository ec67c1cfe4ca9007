/* Search result summaries: Sphinx shows text from the page's [role="main"] element, which in
   this theme also holds the toolbar ("Light Dark ..."). Drop the toolbar, the page note (notebook, environment)
   and the cell captions, so a summary shows the page's own words.

   The patch must be in place before the first result page is fetched and summarised. This script
   runs before searchtools.js (the search page's scripts run in document order), and the search
   starts as soon as searchindex.js has run, before DOMContentLoaded, which a fast answer can
   beat. So the patch is made when searchtools.js has run: its "load" event fires right after it
   runs, before searchindex.js. */
(() => {
  const patch = () => {
    if (typeof Search === "undefined" || typeof Search.htmlToText !== "function") return;
    const original = Search.htmlToText;
    const withoutToolbar = (htmlString, anchor) => {
      const doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll(".bd-header-article, .jaxbook-page-note, .jaxbook-snippet, .prev-next-footer")
        .forEach((element) => element.remove());
      return original(doc.documentElement.outerHTML, anchor);
    };
    withoutToolbar.jaxbook = true;
    Search.htmlToText = withoutToolbar;
  };
  const install = () => {
    if (typeof Search !== "undefined") return patch();
    const tools = document.querySelector('script[src*="searchtools.js"]');
    if (tools) tools.addEventListener("load", patch);
  };
  // Deferred (as the site serves it), this runs once the page is parsed; run at once in the
  // <head>, it waits for the parse, and its DOMContentLoaded listener precedes Sphinx's.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", install);
  else install();
})();
