import type { IncomingHttpHeaders } from 'node:http'

/**
 * Whether a request comes from a person's browser, as x402's own servers decide (x402HTTPResourceServer.isWebBrowser
 * in @x402/core): it accepts `text/html` and its user agent says `Mozilla`. Such an unpaid request gets the paywall
 * page; every other client gets the JSON 402.
 */
export function isBrowserRequest(headers: IncomingHttpHeaders): boolean {
  const accept = headers.accept ?? ''
  const userAgent = headers['user-agent'] ?? ''
  return accept.includes('text/html') && userAgent.includes('Mozilla')
}
