import type { PaymentRequired } from '@x402/core/types'

/** Where the paywall's browser code, the RPC proxy and the faucet live on every gateway host. */
export const paywallPaths = {
  script: '/__svc/paywall.js',
  rpc: '/__svc/rpc',
  faucet: '/__svc/faucet',
} as const

/** The Sandbox chain as the page hands it to a wallet (`wallet_addEthereumChain`) and reads it. */
export type PaywallChain = {
  chainId: number
  name: string
  /** svc's RPC for the page and the wallet: the gateway host's own proxy (an absolute URL, as wallets want one). */
  rpcUrl: string
  usdc: { address: string; decimals: number }
}

/**
 * What the server tells the paywall page (a JSON script element in the HTML; read by browser/main.ts). Only display
 * and wiring: the page pays what the gateway's 402 asks at the moment it pays, so an edited state cannot change a price.
 */
export type PaywallState = {
  apiName: string
  /** The endpoint: `GET /weather/{city}`. */
  route: string
  method: string
  /** The paid URL (path and query, same origin). */
  resource: string
  /** What the page's URL has before the gateway's own paths: '' on a gateway host, `/gateway/{host}` on its direct URL. */
  base: string
  /** The JSON body the page sends with the paid request (a try-it of a POST route); none for a GET. */
  body?: string
  description: string
  /** `development` (Sandbox: demo wallet and faucet offered) or `production` (an injected wallet only). */
  environment: 'development' | 'production'
  /** The Sandbox chain; none for production APIs, whose networks the wallet knows itself. */
  chain: PaywallChain | null
  /** The faucet's URL (Sandbox only). */
  faucet: string | null
  paymentRequired: PaymentRequired
}
