import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { ClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { PaywallState } from '../paywall-state.js'
import { PageError, reasonInWords } from './messages.js'

export type Paid = { response: Response; transaction: string | undefined; ms: number }

/**
 * Pays the page's resource with `signer` through x402's own client (`x402Client` with @x402/evm's exact and upto
 * schemes, `wrapFetchWithPayment`): it asks the gateway for the 402, signs (an EIP-3009 authorization, or a Permit2
 * transfer and, when the wallet has not approved Permit2, the EIP-2612 permit the facilitator sponsors) and retries.
 * It pays at most what the page shows: a gateway asking more is refused before anything is signed.
 */
export async function pay(
  state: PaywallState,
  signer: ClientEvmSigner,
  rpcUrl: string | undefined,
  /** The request to pay for (a form's body, say). @defaultValue the page's own: `state.method` on `state.resource` */
  request: { url: string; init: RequestInit } = ownRequest(state),
): Promise<Paid> {
  const shown = state.paymentRequired.accepts[0]!
  const options = rpcUrl ? { rpcUrl } : undefined
  const client = new x402Client()
    .register(shown.network as `${string}:${string}`, new ExactEvmScheme(signer, options))
    .register(shown.network as `${string}:${string}`, new UptoEvmScheme(signer, options))
  client.setSpendControls({
    allowedAssets: [{ network: shown.network, asset: shown.asset, maxAmountPerPayment: shown.amount }],
  })
  const started = performance.now()
  // The first request is a plain fetch (Accept */*): the gateway answers it with the JSON 402 the client reads.
  const payingFetch = wrapFetchWithPayment(fetch.bind(window), client)
  const response = await payingFetch(request.url, request.init)
  const ms = performance.now() - started
  if (response.ok) {
    const header = response.headers.get('payment-response')
    const transaction = header ? decodePaymentResponseHeader(header).transaction : undefined
    return { response, transaction, ms }
  }
  throw await refusal(response)
}

/** The gateway's refusal, in words: its `error`, and the scheme's reason when it gave one. */
async function refusal(response: Response): Promise<PageError> {
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  const reason = [body.invalidReason, body.errorReason].find((value) => typeof value === 'string') as string | undefined
  const error = typeof body.error === 'string' ? body.error : `the gateway answered ${response.status}`
  if (response.status === 402) {
    const insufficient = /insufficient/i.test(`${reason ?? ''} ${error}`)
    const because = reason ? ` (${reasonInWords(reason)})` : ''
    return new PageError(
      `The payment was refused${because}: ${error.slice(0, 400)}. Nothing was charged.`,
      insufficient ? 'insufficient' : 'refused',
    )
  }
  return new PageError(`The gateway answered ${response.status}: ${error.slice(0, 400)}`, 'network')
}

/** The page's own request: its method on its resource, with the JSON body a try-it form gave (api-page). */
function ownRequest(state: PaywallState): { url: string; init: RequestInit } {
  const body = state.body === undefined ? {} : { body: state.body, headers: { 'content-type': 'application/json' } }
  return { url: state.resource, init: { method: state.method, ...body } }
}
