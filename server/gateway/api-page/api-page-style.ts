/**
 * The API page's stylesheet, inlined (the page makes no request for assets). System fonts only; colours keep text
 * at a contrast of at least 4.5:1 (WCAG AA) in the light and the dark scheme; focus is always visible.
 */
export const apiPageStyle = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1b1b1f; --muted: #4a4d55; --line: #c9ccd3; --panel: #f4f5f7;
  --accent: #0b57d0; --accent-fg: #ffffff; --get: #0a6b2d; --get-bg: #e3f3e8; --post: #8a4b00; --post-bg: #fdf0dd;
  --error: #b3261e; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #131417; --fg: #e8e9ec; --muted: #b4b8c0; --line: #3d4049; --panel: #1d1f24; --accent: #8ab4f8;
    --accent-fg: #0b1a33; --get: #7fd699; --get-bg: #16301f; --post: #f5c27a; --post-bg: #35260f; --error: #f2b8b5; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); line-height: 1.5;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
header, main, footer { max-width: 60rem; margin: 0 auto; padding: 1rem 1.25rem; }
header { border-bottom: 1px solid var(--line); }
h1 { margin: 0.25rem 0; font-size: 1.9rem; overflow-wrap: anywhere; }
h2 { font-size: 1.3rem; margin: 1.5rem 0 0.5rem; }
h3 { font-size: 1.1rem; margin: 0; display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: baseline; }
h4 { font-size: 1rem; margin: 0 0 0.5rem; }
a { color: var(--accent); }
code, pre, textarea, input { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9rem; }
.environment { display: inline-block; margin: 0; padding: 0.1rem 0.6rem; border-radius: 1rem; font-size: 0.85rem;
  border: 1px solid var(--line); color: var(--muted); }
.guidance, .description, .hint { color: var(--muted); }
.documents ul { display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; padding: 0; margin: 0.5rem 0 0; list-style: none; }
.endpoint { border: 1px solid var(--line); border-radius: 0.5rem; padding: 1rem; margin: 1rem 0; background: var(--panel); }
.endpoint h3 code { overflow-wrap: anywhere; }
.method { font: 700 0.8rem/1.6 ui-monospace, Menlo, Consolas, monospace; padding: 0 0.5rem; border-radius: 0.25rem;
  color: var(--post); background: var(--post-bg); }
.method-GET { color: var(--get); background: var(--get-bg); }
.prices { margin: 0.5rem 0; padding-left: 1.25rem; }
.price-amount { font-weight: 700; }
details { margin: 0.5rem 0; }
summary { cursor: pointer; }
pre { margin: 0.5rem 0; padding: 0.75rem; overflow-x: auto; background: var(--bg); border: 1px solid var(--line);
  border-radius: 0.375rem; max-height: 24rem; }
.try-it { margin-top: 1rem; padding-top: 0.75rem; border-top: 1px solid var(--line); }
.field { display: flex; flex-direction: column; gap: 0.25rem; margin: 0 0 0.75rem; }
.field label { font-weight: 600; }
.field .hint { font-weight: 400; font-size: 0.85rem; }
input, textarea { width: 100%; padding: 0.5rem; border: 1px solid var(--muted); border-radius: 0.375rem;
  background: var(--bg); color: var(--fg); }
.request { margin: 0 0 0.75rem; overflow-wrap: anywhere; }
button { font: inherit; font-weight: 600; padding: 0.6rem 1.1rem; border-radius: 0.375rem; border: 0;
  background: var(--accent); color: var(--accent-fg); cursor: pointer; min-height: 44px; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.error { color: var(--error); font-weight: 600; }
footer { color: var(--muted); font-size: 0.85rem; border-top: 1px solid var(--line); }
`
