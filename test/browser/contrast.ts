/**
 * WCAG contrast of what a page shows, computed in the page: for every visible element with text of its own (and every
 * button), its text colour against the first opaque background behind it. Returns those below `minimum` (AA: 4.5).
 */
export const lowContrastScript = (minimum = 4.5) => `(() => {
  const parse = (c) => (c.match(/[\\d.]+/g) || []).map(Number)
  const luminance = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4 }
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)
  }
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor)
      if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) return c.slice(0, 3)
    }
    return [255, 255, 255]
  }
  const low = []
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
    if (!own || el.closest('[hidden]') || el.offsetParent === null) continue
    const a = luminance(parse(getComputedStyle(el).color).slice(0, 3))
    const b = luminance(background(el))
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)
    if (ratio < ${minimum}) low.push({ text: el.textContent.trim().slice(0, 40), ratio: Math.round(ratio * 100) / 100 })
  }
  return low
})()`
