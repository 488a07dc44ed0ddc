import type { IncomingHttpHeaders } from 'node:http'

/**
 * A person's browser, by the rule x402's own servers use (`x402HTTPResourceServer.isWebBrowser`): it accepts
 * `text/html` and says `Mozilla` in its user agent. Scripts (curl, fetch, the x402 clients) ask for JSON or anything
 * and keep getting svc's JSON answers.
 */
export function isBrowserRequest(headers: IncomingHttpHeaders): boolean {
  const accept = headers.accept ?? ''
  const userAgent = headers['user-agent'] ?? ''
  return accept.includes('text/html') && userAgent.includes('Mozilla')
}
