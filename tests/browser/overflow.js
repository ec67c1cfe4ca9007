// Elements that stick out of the viewport on the right and are not inside a box that scrolls or
// clips them (those make the whole page scroll sideways). Only the outermost offenders are listed.
() => {
  const width = window.innerWidth;
  const scrollWidth = document.documentElement.scrollWidth;
  // A page that fits has no culprits to name: the walk below is only for the error message.
  if (scrollWidth <= width + 1) return { scrollWidth, innerWidth: width, offenders: [] };
  const clipped = (el) => {
    for (let node = el.parentElement; node && node !== document.documentElement; node = node.parentElement) {
      const s = getComputedStyle(node);
      if (/(auto|scroll|hidden|clip)/.test(s.overflowX) && node !== document.body) return true;
      if (s.position === "fixed") return true;
    }
    return false;
  };
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.classList.length ? "." + [...el.classList].join(".") : "");
  const path = (el) => {
    const parts = [];
    for (let node = el; node && node !== document.body && parts.length < 4; node = node.parentElement) parts.unshift(describe(node));
    return parts.join(" > ");
  };
  const offenders = [];
  for (const el of document.body.querySelectorAll("*")) {
    const s = getComputedStyle(el);
    if (s.display === "none" || s.position === "fixed") continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= width + 1 || clipped(el)) continue;
    if (offenders.some((o) => o.el.contains(el))) continue;
    offenders.push({ el, text: `${path(el)} (right edge ${Math.round(r.right + window.scrollX)}px, ` +
      `width ${Math.round(r.width)}px): ${el.textContent.trim().replace(/\s+/g, " ").slice(0, 60)}` });
  }
  return { scrollWidth, innerWidth: width,
           offenders: offenders.map((o) => o.text) };
}
