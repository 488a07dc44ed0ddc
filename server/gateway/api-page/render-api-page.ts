/**
 * The API page's HTML (a pure function of its model). Every value the seller wrote goes through {@link escapeHtml};
 * the page's own style and script are constants whose hashes {@link apiPageSecurityPolicy} allows, and nothing
 * else runs or loads: no fonts, scripts or images from anywhere, the page only navigates within its origin.
 *
 * Stable `data-testid`s (README "The API's page" lists them) let tests and people's own browser tests find things.
 */
import { createHash } from 'node:crypto'
import type { ApiPageModel, PageEndpoint, PagePrice } from './api-page-model.js'
import { apiPageStyle } from './api-page-style.js'
import { tryItScript } from './try-it-script.js'

const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text for an element's content or a quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => htmlEscapes[character]!)
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

/**
 * The page's Content-Security-Policy: its inline style and script by hash, requests to its own origin only (the
 * discovery links, the try-it navigation), no frames, no plugins, no base URL or form target elsewhere.
 */
export const apiPageSecurityPolicy = [
  "default-src 'none'",
  `style-src ${sha256(apiPageStyle)}`,
  `script-src ${sha256(tryItScript)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

const e = escapeHtml

export function renderApiPage(model: ApiPageModel): string {
  const sandbox = model.environment === 'development'
  const endpoints =
    model.endpoints.length === 0
      ? '<p data-testid="no-endpoints">This API has no endpoints yet.</p>'
      : model.endpoints.map((endpoint, index) => renderEndpoint(endpoint, `endpoint-${index}`)).join('\n')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${e(model.name)} · svc</title>
<style>${apiPageStyle}</style>
</head>
<body data-base="${e(model.base)}">
<header>
<p class="environment" data-testid="api-environment">${sandbox ? 'Sandbox' : 'Production'}</p>
<h1 data-testid="api-name">${e(model.name)}</h1>
${model.guidance ? `<p class="guidance" data-testid="api-guidance">${e(model.guidance)}</p>` : ''}
<nav class="documents" aria-label="Discovery documents"><ul>
${model.documents.map((d) => `<li><a href="${e(d.href)}" data-testid="${e(d.testId)}">${e(d.label)} <code>${e(d.href)}</code></a></li>`).join('\n')}
</ul></nav>
</header>
<main>
<h2 id="endpoints-title">Endpoints</h2>
<p class="hint">Each endpoint is paid per request with x402 v2 (USDC). <strong>Try it</strong> opens the request in this
browser, where the paywall takes the payment${sandbox ? ' (a demo wallet is offered in the Sandbox)' : ''} and shows the answer.</p>
${endpoints}
</main>
<footer><p>Served by svc. Scripts and agents: request any endpoint with an x402 v2 client, or read the discovery documents above.</p></footer>
<script>${tryItScript}</script>
</body>
</html>
`
}

function renderEndpoint(endpoint: PageEndpoint, id: string): string {
  const method = e(endpoint.method)
  return `<section class="endpoint" data-testid="endpoint" data-method="${method}" data-path="${e(endpoint.pathPattern)}" aria-labelledby="${id}-title">
<h3 id="${id}-title"><span class="method method-${method}" data-testid="endpoint-method">${method}</span> <code data-testid="endpoint-path">${e(endpoint.pathPattern)}</code></h3>
${endpoint.description ? `<p class="description" data-testid="endpoint-description">${e(endpoint.description)}</p>` : ''}
<ul class="prices" aria-label="Price">
${endpoint.prices.map(renderPrice).join('\n')}
</ul>
${renderSchema('Request schema', 'endpoint-request-schema', endpoint.requestSchema, endpoint.schemaSource)}
${renderSchema('Response schema', 'endpoint-response-schema', endpoint.responseSchema, endpoint.schemaSource)}
${renderTryIt(endpoint, id)}
</section>`
}

function renderPrice(price: PagePrice): string {
  const parts = [
    `<span class="price-amount">${e(price.amount)}</span> ${e(price.asset)}`,
    `<span data-testid="endpoint-scheme">${e(price.scheme)}</span>`,
    `<span data-testid="endpoint-transfer-method">${e(price.transferMethod)}</span>`,
    `<span data-testid="endpoint-network" title="${e(price.network)}">${e(price.networkName)}</span>`,
  ]
  if (price.upfront) parts.push('charged before the call')
  return `<li data-testid="endpoint-price" data-scheme="${e(price.scheme)}">${parts.join(' · ')}</li>`
}

function renderSchema(title: string, testId: string, schema: string | null, source: string): string {
  if (schema === null) return ''
  const origin = source === 'inferred' ? ' <span class="hint">(inferred from a sample answer)</span>' : ''
  return `<details data-testid="${testId}"><summary>${title}${origin}</summary><pre><code>${e(schema)}</code></pre></details>`
}

function renderTryIt(endpoint: PageEndpoint, id: string): string {
  const catchAll = endpoint.parameters.find((parameter) => parameter.catchAll)?.name ?? ''
  const fields = endpoint.parameters.map((parameter) => {
    const fieldId = `${id}-param-${e(parameter.name)}`
    const hint = parameter.catchAll ? 'rest of the path, may contain /' : 'path parameter'
    return `<div class="field"><label for="${fieldId}">${e(parameter.name)} <span class="hint">${hint}</span></label>
<input id="${fieldId}" name="${e(parameter.name)}" data-param="${e(parameter.name)}" data-testid="try-it-param" autocomplete="off"${parameter.catchAll ? '' : ' required'}></div>`
  })
  fields.push(`<div class="field"><label for="${id}-query">Query string <span class="hint">optional, e.g. units=metric</span></label>
<input id="${id}-query" name="query" data-testid="try-it-query" autocomplete="off"></div>`)
  if (endpoint.takesBody)
    fields.push(`<div class="field"><label for="${id}-body">JSON body</label>
<textarea id="${id}-body" name="body" rows="4" data-testid="try-it-body">{}</textarea></div>`)
  return `<form class="try-it" data-testid="try-it" data-method="${e(endpoint.method)}" data-template="${e(endpoint.template)}" data-catch-all="${e(catchAll)}" aria-labelledby="${id}-try" novalidate>
<h4 id="${id}-try">Try it</h4>
${fields.join('\n')}
<p class="request">Request: <output data-testid="try-it-request">${e(endpoint.method)} ${e(endpoint.template)}</output></p>
<button type="submit" data-testid="try-it-submit">Pay and send</button>
<noscript><p class="hint">Try it needs JavaScript; scripts call this endpoint with an x402 client.</p></noscript>
<p class="error" role="alert" data-testid="try-it-error" hidden></p>
</form>`
}
