/**
 * What the paywall's browser tests start: the chain services, a svc server on them (production APIs settle through
 * the same facilitator, so a production paywall can be opened), the recording upstream, and Chromium.
 */
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { type BrowserHandle, openBrowser } from '../helpers/browser.js'
import { startUpstream } from '../server/gateway/helpers.js'

export type PaywallStack = {
  services: ChainServices
  t: TestServer
  upstream: Awaited<ReturnType<typeof startUpstream>>
  browser: BrowserHandle['browser']
  stop(): Promise<void>
}

export async function startPaywallStack(): Promise<PaywallStack> {
  const services = await startChainServices()
  const t = await startTestServer({ chain: services, productionFacilitatorUrl: services.facilitatorUrl })
  const upstream = await startUpstream()
  const handle = await openBrowser()
  return {
    services,
    t,
    upstream,
    browser: handle.browser,
    async stop() {
      await handle.close()
      await t.stop()
      await upstream.stop()
      await services.stop()
    },
  }
}

/** A Chromium navigation's headers, as x402 judges a browser: `Accept: text/html…` and a `Mozilla` user agent. */
export const browserHeaders = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0 Safari/537.36',
}
