/**
 * The page's styles, inline. Colours keep WCAG AA contrast (body text #1f2937 on white 14.7:1, buttons white on
 * #1d4ed8 6.7:1, errors #991b1b on #fef2f2 7.9:1); focus is always visible; the layout is one column on a phone.
 */
export const paywallStyle = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2937;background:#f3f4f6}
main{max-width:40rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.75rem;margin:.25rem 0}
h2{font-size:1.15rem;margin:0 0 .5rem}
.eyebrow{margin:0;font-weight:600;color:#374151;text-transform:uppercase;letter-spacing:.05em;font-size:.8rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;overflow-wrap:anywhere}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;background:#fff;border:1px solid #d1d5db;border-radius:.5rem;padding:1rem;margin:1rem 0}
.facts dt{font-weight:600}
.facts dd{margin:0;overflow-wrap:anywhere}
.card{background:#fff;border:1px solid #d1d5db;border-radius:.5rem;padding:1rem;margin:1rem 0}
.wallet-line{color:#374151}
.actions{display:flex;flex-wrap:wrap;gap:.5rem}
button{font:inherit;padding:.6rem 1rem;border-radius:.4rem;border:2px solid #1d4ed8;background:#fff;color:#1d4ed8;cursor:pointer;min-height:2.75rem}
button.primary{background:#1d4ed8;color:#fff}
button:hover:not(:disabled){background:#1e40af;border-color:#1e40af;color:#fff}
button:disabled{border-color:#6b7280;color:#4b5563;background:#e5e7eb;cursor:not-allowed}
button:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.status{min-height:1.5rem;color:#1f2937}
.error{background:#fef2f2;color:#991b1b;border:1px solid #fca5a5;border-radius:.5rem;padding:.75rem 1rem}
.error button{margin-top:.5rem}
#result pre{background:#111827;color:#f9fafb;padding:1rem;border-radius:.4rem;overflow:auto;max-height:28rem}
#result img{max-width:100%}
#result iframe{width:100%;min-height:20rem;border:1px solid #d1d5db;border-radius:.4rem}
@media (max-width:30rem){.facts{grid-template-columns:1fr}.facts dd{margin-bottom:.4rem}button{width:100%}}
`
