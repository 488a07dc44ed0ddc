/**
 * A shared Sandbox's chain can change hands: its owner process died and another takes the chain over, starting it
 * anew (a new epoch). Meanwhile svc answers 503 with `Retry-After`; on the new chain a buyer the faucet funded holds
 * nothing (svc refunds its Sandbox wallets, not a job's own buyer); and a request in flight at the process that died
 * gets no answer at all (its connection drops). `buyer.fetch` of connectSandbox() waits out the first, funds the
 * buyer again for the second, and sends the third again once with a new payment (had the first settled, its seller's
 * ledger says charged without an answer, `delivered: false`), so a CI job's paid requests go on after a takeover.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http'

export type TakeoverRetryOptions = {
  /** Funds the buyer again (the faucet). */
  refund: () => Promise<void>
  /** The longest a request keeps waiting out 503s with Retry-After. @defaultValue 60_000 */
  unavailableMs?: number | undefined
}

/** `Retry-After` in ms (seconds or an HTTP date), undefined without a usable one. */
function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/** A 402 that refused the payment sent because the payer's balance is short (x402's `…insufficient_balance`). */
function refusedForFunds(response: Response): boolean {
  const header = response.headers.get('payment-required')
  if (response.status !== 402 || !header) return false
  try {
    return /insufficient_(balance|funds)/.test(String(decodePaymentRequiredHeader(header).error ?? ''))
  } catch {
    return false
  }
}

/** The connection dropped before an answer came (the process died under the request), by the error's cause codes. */
function connectionDropped(error: unknown): boolean {
  for (let cause = error as { code?: unknown; cause?: unknown } | undefined; cause; cause = cause.cause as never)
    if (['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(String(cause.code))) return true
  return false
}

/**
 * `pay` (x402's paying fetch) that sends a request whose connection dropped again once, retries a 503 with
 * `Retry-After` after that wait (within `unavailableMs`), and a payment refused for the balance once after `refund`.
 * Anything else is answered (or thrown) as it came.
 */
export function retryTakeover(pay: typeof fetch, options: TakeoverRetryOptions): typeof fetch {
  const { refund, unavailableMs = 60_000 } = options
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const deadline = Date.now() + unavailableMs
    let refunded = false
    let resent = false
    for (;;) {
      let response: Response
      try {
        // A Request's body can be read once: each try sends a copy.
        response = await pay(input instanceof Request ? input.clone() : input, init)
      } catch (error) {
        if (resent || !connectionDropped(error)) throw error
        resent = true
        continue
      }
      const wait = response.status === 503 ? retryAfterMs(response.headers.get('retry-after')) : undefined
      if (wait !== undefined && Date.now() + wait <= deadline) {
        await response.body?.cancel()
        await new Promise((resolve) => setTimeout(resolve, wait))
        continue
      }
      if (!refunded && refusedForFunds(response)) {
        refunded = true
        await response.body?.cancel()
        await refund()
        continue
      }
      return response
    }
  }) as typeof fetch
}
