import { encodePaymentResponseHeader } from '@x402/core/http'
import { builderCodeOf } from './decode.js'
import { buyerGone, type FlowContext, type Payment, type Refuse } from './attempt.js'
import type { PaymentOutcome } from './outcome.js'
import { takeChargeOverride, settleAndRecord } from './settle.js'
import { upstreamTarget } from '../upstream/index.js'

/**
 * The upfront flow (`extra.paymentFlow: "upfront"`, @x402/core's PAYMENT_FLOWS.upfront): settle, then forward. The
 * facilitator's settle verifies the payment itself (x402's verifyPayment skips the upfront flow's verify). An
 * upstream that fails after the settlement (down, 5xx, too slow, an answer too large) is answered with its status
 * and the PAYMENT-RESPONSE, told to the stream as a charged upstream.failed, and recorded as charged and not
 * delivered; a 4xx is passed to the buyer with the PAYMENT-RESPONSE and recorded likewise. A crash before the answer
 * is written leaves the journal row, which the next start books as not delivered.
 */
export async function payUpfront(ctx: FlowContext, payment: Payment, refused: Refuse): Promise<PaymentOutcome> {
  const { attempt, payload, requirements } = payment
  const { request, api, resource } = attempt
  const settled = await settleAndRecord(ctx, payment, refused)
  if (settled.type !== 'settled') return settled.outcome
  const { journalId, settlementId } = settled
  const details = {
    payer: settled.payer,
    transaction: settled.response.transaction,
    settlement_id: settlementId,
  }
  const attribution = builderCodeOf(payload)
  const builder_code = attribution.ok ? (attribution.code ?? null) : null
  ctx.tell('payment.settled', attempt, { status: 200, ...details, builder_code }, requirements)
  const paymentResponse = encodePaymentResponseHeader(settled.response)
  /** Charged, and the upstream gave nothing to deliver. */
  const undelivered = (status: number, why: string): PaymentOutcome => {
    ctx.journal.finish(journalId, settlementId, false)
    const error = `${why}; the payment was settled upfront (transaction ${settled.response.transaction}) and the answer was not delivered`
    ctx.tell('upstream.failed', attempt, { status, error, charged: true, ...details }, requirements)
    return { type: 'error', status, error, paymentResponse }
  }
  if (request.signal.aborted) {
    ctx.journal.finish(journalId, settlementId, false)
    return buyerGone
  }
  const answer = await ctx.faults.forward(
    api,
    ctx.proxy,
    request,
    upstreamTarget(api.upstream_base_url, resource.path, resource.query),
  )
  if (!answer.ok) return undelivered(answer.status, answer.error)
  if (answer.status >= 500) {
    answer.body.resume()
    answer.done()
    return undelivered(502, `the upstream answered ${answer.status}`)
  }
  // Exact only (the control plane refuses upto upfront): an upto header has nothing to change; strip it.
  takeChargeOverride(answer.headers, requirements, attempt.server)
  const body = await answer.read()
  if (!Buffer.isBuffer(body)) return undelivered(body.status, body.error)
  const failedUpstream = answer.status >= 400
  if (failedUpstream)
    ctx.tell(
      'upstream.failed',
      attempt,
      { status: answer.status, error: `the upstream answered ${answer.status}`, charged: true, ...details },
      requirements,
    )
  // Delivered (or the upstream's own 4xx passed through): the settlement with its signed receipt.
  const receipted = failedUpstream
    ? paymentResponse
    : encodePaymentResponseHeader(await ctx.withReceipt(settled.response, resource.url))
  const headers: Record<string, string | string[]> = { ...answer.headers, 'payment-response': receipted }
  if (request.method !== 'HEAD') headers['content-length'] = String(body.length)
  return {
    type: 'paid',
    status: answer.status,
    headers,
    body,
    settlementId,
    written: (delivered) => ctx.journal.finish(journalId, settlementId, delivered && !failedUpstream),
  }
}
