/* Search result summaries: Sphinx shows text from the page's [role="main"] element, which in
   this theme also holds the toolbar ("Light Dark ..."). Drop the toolbar, the environment stamp
   and the cell captions, so a summary shows the page's own words. */
document.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined" || typeof Search.htmlToText !== "function") return;
  const original = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    doc.querySelectorAll(".bd-header-article, .jaxbook-stamp, .jaxbook-snippet, .prev-next-footer")
      .forEach((element) => element.remove());
    return original(doc.documentElement.outerHTML, anchor);
  };
});
