// Colour measurements for the theme tests. Evaluated in the page; returns a function of a selector.
(() => {
  // Any CSS colour -> [r, g, b, a] in sRGB 0..255 / 0..1, by painting it on a 1x1 canvas.
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  function rgba(color) {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = "rgba(0, 0, 0, 0)";
    ctx.fillStyle = color;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
    return [r, g, b, a / 255];
  }
  // Paint `top` (with alpha) over an opaque `bottom`.
  function over(top, bottom) {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat([1]);
  }
  // WCAG relative luminance of an opaque colour.
  function luminance(c) {
    const lin = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  }
  function contrast(a, b) {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  }
  // The colour actually behind an element: its own background and its ancestors', composited
  // down to the first opaque one (the browser's canvas is white below everything).
  function background(el) {
    const layers = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const c = rgba(getComputedStyle(node).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let result = [255, 255, 255, 1];
    for (const layer of layers.reverse()) result = over(layer, result);
    return result;
  }
  function describe(el) {
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
      (el.classList.length ? "." + [...el.classList].join(".") : "");
  }
  // Contrast of an element's text (and of every distinct text colour inside it) with what is
  // behind it.
  function measure(el) {
    const bg = background(el);
    const fg = over(rgba(getComputedStyle(el).color), bg);
    const tokens = {};
    for (const span of el.querySelectorAll("*")) {
      if (!span.textContent.trim()) continue;
      const sbg = background(span);
      const sfg = over(rgba(getComputedStyle(span).color), sbg);
      const key = `${getComputedStyle(span).color} on ${sbg.slice(0, 3).join(",")}`;
      const ratio = contrast(sfg, sbg);
      if (!(key in tokens)) tokens[key] = { ratio, example: describe(span) + ": " + span.textContent.trim().slice(0, 30) };
    }
    return { element: describe(el), color: getComputedStyle(el).color, background: bg,
             ratio: contrast(fg, bg), tokens };
  }
  return { rgba, luminance, contrast, background, measure };
})()
