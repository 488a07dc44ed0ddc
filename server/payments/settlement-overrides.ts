import { SETTLEMENT_OVERRIDES_HEADER, type x402ResourceServer } from '@x402/core/server'
import type { PaymentRequirements } from '@x402/core/types'
import { convertToTokenAmount } from '@x402/core/utils'
import { cutText, echoedValueLimit } from '../../core/http.js'

/** What an upstream's answer says to charge: nothing said (the price), an amount in atomic units, or why it cannot be used. */
export type ChargeOverride = { type: 'none' } | { type: 'amount'; amount: string } | { type: 'invalid'; error: string }

const headerName = SETTLEMENT_OVERRIDES_HEADER.toLowerCase()
const forms = '{"amount":"1000"} (atomic units), {"amount":"50%"} or {"amount":"$0.05"}'

/**
 * Takes the upstream's `Settlement-Overrides` header out of its answer's headers (it is for svc, never for the buyer)
 * and, for an `upto` payment, reads it as x402's HTTP server does (`SettlementOverrides`: `"1000"`, `"50%"` with up
 * to two decimals, `"$0.05"`), resolved here to atomic units so that an amount above the maximum the buyer signed is
 * the upstream's fault (a 502), never a refusal the buyer would read as theirs. An `exact` payment always charges
 * its price: the header is dropped.
 */
export function takeChargeOverride(
  headers: Record<string, string | string[]>,
  requirements: PaymentRequirements,
  server: x402ResourceServer,
): ChargeOverride {
  const raw = headers[headerName]
  delete headers[headerName]
  if (raw === undefined || requirements.scheme !== 'upto') return { type: 'none' }
  const invalid = (why: string): ChargeOverride => ({
    type: 'invalid',
    error: `the upstream's Settlement-Overrides header ${why}; the payment was not settled`,
  })
  let amount: unknown
  try {
    amount = (JSON.parse(Array.isArray(raw) ? raw.join(',') : raw) as { amount?: unknown } | null)?.amount
  } catch {
    return invalid(`is not JSON (expected ${forms})`)
  }
  if (typeof amount !== 'string') return invalid(`has no amount (expected ${forms})`)
  const atomic = resolveAmount(amount, requirements, server)
  if (atomic === undefined)
    return invalid(`has an amount ${cutText(JSON.stringify(amount), echoedValueLimit)} that is none of ${forms}`)
  if (BigInt(atomic) > BigInt(requirements.amount))
    return invalid(`asks for ${atomic}, more than the ${requirements.amount} the buyer signed for`)
  return { type: 'amount', amount: atomic }
}

/** `"1000"`, `"50%"`, `"$0.05"` → atomic units (decimal string), as x402's resource server resolves them; undefined when none. */
function resolveAmount(
  amount: string,
  requirements: PaymentRequirements,
  server: x402ResourceServer,
): string | undefined {
  if (/^\d{1,78}$/.test(amount)) return BigInt(amount).toString()
  const percent = /^(\d{1,3})(?:\.(\d{0,2}))?%$/.exec(amount)
  if (percent) {
    const hundredths = BigInt(percent[1]!) * 100n + BigInt((percent[2] ?? '').padEnd(2, '0'))
    return ((BigInt(requirements.amount) * hundredths) / 10_000n).toString()
  }
  const dollars = /^\$(\d{1,30}(?:\.\d{1,30})?)$/.exec(amount)
  const decimals = dollars ? server.getAssetDecimalsForRequirements(requirements) : undefined
  if (!dollars || decimals === undefined) return undefined
  return convertToTokenAmount(dollars[1]!, decimals)
}
