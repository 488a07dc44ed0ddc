import type { ServerResponse } from 'node:http'
import type { PaymentRequired } from '@x402/core/types'
import type { Request } from 'express'
import type { ApiRow } from '../../db/index.js'
import type { ServerDeps } from '../../deps.js'
import type { PaymentOutcome, PaymentRequiredOutcome } from '../../payments/index.js'
import { isBrowserRequest } from './browser-request.js'
import { createPaywall, type SvcPaywallConfig, svcEvmPaywall } from './paywall-provider.js'
import { paywallPaths } from './paywall-state.js'
import { sandboxChainFacts } from '../../sandbox/index.js'

/** A request the page pays other than the one it answers (the API page's try-it of a POST: api-page/try-it-route.ts). */
export type PaywallRequest = { method: string; resource: string; body?: string }

/** What the page is written from: the request, its API, its 402 and the request the page pays, if another one. */
type PaywallPageFacts = {
  req: Request
  api: ApiRow
  outcome: PaymentRequiredOutcome
  paymentRequired: PaymentRequired
  request: PaywallRequest | undefined
}

/** The name the page and the wallet give svc's chain. */
export const sandboxChainName = 'svc Sandbox'

/**
 * The browser's 402: an unpaid GET from a browser (see browser-request.ts) gets svc's paywall page instead of the
 * JSON body, with the same status and `PAYMENT-REQUIRED` header. Every other request keeps the JSON 402.
 */
export function createPaywallPage(deps: ServerDeps) {
  const provider = createPaywall<SvcPaywallConfig>().withNetwork(svcEvmPaywall).build()

  function config({ req, api, outcome, paymentRequired, request }: PaywallPageFacts): Partial<SvcPaywallConfig> {
    // On a direct URL (`/gateway/{host}`: server/app.ts) svc's own routes are under its prefix too.
    const base = req.baseUrl
    const origin = `${req.protocol}://${req.headers.host}${base}`
    const chain = api.environment === 'development' ? sandboxChainFacts(deps) : undefined
    const sandbox = chain !== undefined
    return {
      appName: api.name,
      route: outcome.route ?? `${req.method} ${req.path}`,
      method: request?.method ?? req.method,
      resource: request ? `${base}${request.resource}` : req.originalUrl,
      base,
      ...(request?.body !== undefined ? { body: request.body } : {}),
      description: paymentRequired.resource?.description ?? '',
      environment: api.environment as 'development' | 'production',
      chain: chain
        ? {
            chainId: chain.chainId,
            name: sandboxChainName,
            rpcUrl: `${origin}${paywallPaths.rpc}`,
            usdc: { address: chain.usdc.address, decimals: chain.usdc.decimals },
          }
        : null,
      faucet: sandbox ? `${origin}${paywallPaths.faucet}` : null,
      testnet: sandbox,
    }
  }

  return {
    /** The page for this outcome, or undefined when the request is not a browser's unpaid GET. */
    html(req: Request, api: ApiRow, outcome: PaymentOutcome, request?: PaywallRequest): string | undefined {
      if (outcome.type !== 'payment-required' || req.method !== 'GET') return undefined
      if (req.headers['payment-signature'] !== undefined || !isBrowserRequest(req.headers)) return undefined
      const paymentRequired = JSON.parse(outcome.body) as PaymentRequired
      const page = provider.generateHtml(paymentRequired, config({ req, api, outcome, paymentRequired, request }))
      return page
    },
    write(res: ServerResponse, outcome: PaymentRequiredOutcome, html: string) {
      res
        .writeHead(402, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'payment-required': outcome.header,
          // The page loads its script and talks to this host only; nothing else may run or be fetched.
          'content-security-policy':
            "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' blob: data:; frame-src blob:; base-uri 'none'; form-action 'none'",
        })
        .end(html)
    },
  }
}
