/**
 * What went wrong, in words a person reads: never a stack trace. Wallet errors carry EIP-1193 codes (4001: the person
 * declined); viem's carry a one-line `shortMessage`; the gateway's 402 carries the scheme's reason.
 */
import { paymentReasonMeaning } from '../../../../core/fault-reasons.js'

/**
 * The words for an exact or upto reason code (`invalid_exact_evm_nonce_already_used`): the meaning core/fault-reasons.ts
 * gives it (the one docs/reference/errors.md shows, its code marks dropped), or the code made readable.
 */
export function reasonInWords(reason: string): string {
  const meaning = paymentReasonMeaning(reason)
  return meaning ? meaning.replace(/`/g, '') : reason.replace(/^invalid_exact_evm_/, '').replace(/_/g, ' ')
}

export class PageError extends Error {
  override name = 'PageError'
  constructor(
    message: string,
    readonly kind: 'refused' | 'insufficient' | 'wallet' | 'state' | 'network' = 'refused',
  ) {
    super(message)
  }
}

/** The EIP-1193 code of an error or of one of its causes. */
function codeOf(error: unknown): unknown {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'number') return e.code
    e = e.cause as typeof e
  }
  return undefined
}

/** One line about `error` for the page. */
export function messageOf(error: unknown): string {
  if (error instanceof PageError) return error.message
  const e = error as { code?: unknown; shortMessage?: unknown; message?: unknown; cause?: unknown } | undefined
  const code = codeOf(error)
  // x402's client rewraps what the wallet threw ("Failed to create payment payload: User rejected the request."),
  // losing its code: the words of EIP-1193's 4001 are recognised too.
  const declined = typeof e?.message === 'string' && /user (rejected|denied)|rejected the request/i.test(e.message)
  if (code === 4001 || declined) return 'You declined in your wallet: nothing was signed and nothing was charged.'
  if (code === 4100) return 'Your wallet did not let this page use the account: unlock it and try again.'
  if (code === -32002) return 'Your wallet has a request waiting: open it and answer it, then try again.'
  if (typeof e?.message === 'string' && e.message.includes('rejected by spendControls'))
    return 'The gateway asked for a payment other than the one this page shows: nothing was signed. Reload the page.'
  if (typeof e?.message === 'string' && /Failed to fetch|NetworkError|Load failed/.test(e.message))
    return 'The gateway could not be reached: check that svc is running and try again.'
  const text = typeof e?.shortMessage === 'string' ? e.shortMessage : typeof e?.message === 'string' ? e.message : ''
  const line = text.split('\n')[0]?.trim()
  return line ? `The payment did not go through: ${line.slice(0, 300)}` : 'The payment did not go through.'
}
