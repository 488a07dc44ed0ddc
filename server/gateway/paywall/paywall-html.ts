import { paywallStyle } from './paywall-style.js'
import { paywallPaths, type PaywallState } from './paywall-state.js'
import { priceLabel, schemeLabel } from './price.js'

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** JSON inside a script element: nothing in it can close the element or start a comment. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')

/**
 * The 402 page a browser gets: the API, the route, the price, the network and the ways to pay, readable without its
 * script; the script (`/__svc/paywall.js`, built from browser/) enables the buttons. Styles are inline, so the page is
 * two requests. Production APIs get no demo wallet and no faucet.
 */
export function paywallHtml(state: PaywallState): string {
  const first = state.paymentRequired.accepts[0]!
  const sandbox = state.environment === 'development' && state.chain !== null
  const network = state.chain ? `${state.chain.name} (${first.network})` : first.network
  const price = priceLabel(first)
  const demo = sandbox
    ? `<section class="card" aria-labelledby="demo-heading">
  <h2 id="demo-heading">Demo wallet</h2>
  <p>A test key kept in this browser's storage, for people without a wallet. Sandbox money only.</p>
  <p class="wallet-line">Address <code id="demo-address">(not created yet)</code> · Balance <span id="demo-balance">–</span></p>
  <div class="actions">
    <button type="button" id="demo-fund" data-testid="demo-wallet-fund" disabled>Get test USDC from the faucet</button>
    <button type="button" id="demo-pay" class="primary" data-testid="pay-demo-wallet" disabled>Pay ${escapeHtml(price)} with the demo wallet</button>
  </div>
</section>`
    : ''
  const walletHint = sandbox
    ? `MetaMask or another browser wallet: the page adds the svc Sandbox chain (id ${state.chain!.chainId}) to it.`
    : `MetaMask or another browser wallet holding USDC on ${escapeHtml(first.network)}.`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Payment required · ${escapeHtml(state.apiName)}</title>
<style>${paywallStyle}</style>
</head>
<body>
<main>
<header>
  <p class="eyebrow">HTTP 402 · Payment required</p>
  <h1>${escapeHtml(state.apiName)}</h1>
  <p>${escapeHtml(state.description)}</p>
</header>
<dl class="facts">
  <dt>Endpoint</dt><dd><code>${escapeHtml(state.route)}</code></dd>
  ${state.body === undefined ? '' : `<dt>Body</dt><dd><code data-testid="request-body">${escapeHtml(state.body)}</code></dd>`}
  <dt>Price</dt><dd data-testid="price">${escapeHtml(price)}</dd>
  <dt>Network</dt><dd data-testid="network">${escapeHtml(network)}</dd>
  <dt>Scheme</dt><dd>${escapeHtml(schemeLabel(first))}</dd>
  <dt>Pay to</dt><dd><code class="address">${escapeHtml(first.payTo)}</code></dd>
</dl>
${demo}
<section class="card" aria-labelledby="injected-heading">
  <h2 id="injected-heading">Your wallet</h2>
  <p>${walletHint}</p>
  <p class="wallet-line" id="injected-line" hidden>Account <code id="injected-address"></code> · Balance <span id="injected-balance"></span></p>
  <div class="actions">
    <button type="button" id="injected-pay" class="${sandbox ? '' : 'primary'}" data-testid="pay-injected" disabled>Pay ${escapeHtml(price)} with your wallet</button>
  </div>
</section>
<p id="status" class="status" role="status" aria-live="polite"></p>
<div id="error" class="error" role="alert" data-testid="error" hidden></div>
<section id="answer" class="card" aria-labelledby="answer-heading" hidden>
  <h2 id="answer-heading">The API's answer</h2>
  <div id="result" data-testid="result"></div>
  <p>Settlement transaction <code id="transaction" data-testid="transaction"></code></p>
</section>
<noscript><p class="error">The payment buttons need JavaScript. Programs pay this URL with an x402 client.</p></noscript>
</main>
<script type="application/json" id="svc-paywall-state">${scriptJson(state)}</script>
<script src="${escapeHtml(state.base)}${paywallPaths.script}" defer></script>
</body>
</html>
`
}
