import { encodePaymentResponseHeader } from '@x402/core/http'
import { authorizationFields } from '../../core/eip3009-authorization.js'
import { verifyPayment } from './facilitator-calls.js'
import {
  buyerGone,
  failed,
  type FlowContext,
  type Payment,
  type PaymentOutcome,
  type Refuse,
  unavailable,
} from './attempt.js'
import { reasonFields } from './offer.js'
import { takeChargeOverride, settleAndRecord } from './settle.js'
import { upstreamTarget } from '../upstream/index.js'

/**
 * Verify → forward → settle → record: the answer to a payment that matched the route and holds its lock (x402's
 * authorization flow: settled only when the upstream answered below 400), or the upfront flow's. The batch-settlement
 * scheme's requests go to server/channels/flow.ts's `payBatch` instead (server/gateway/payment-flow.ts decides).
 */
export async function payAuthorization(ctx: FlowContext, payment: Payment): Promise<PaymentOutcome> {
  const { faults, proxy, tell, requirePayment, journal } = ctx
  const { attempt, payload, requirements } = payment
  const { request, api, server, resource } = attempt
  const payerOf = (response?: { payer?: string | undefined }) =>
    response?.payer ?? authorizationFields(payload.payload).from
  /** A failure of the payment (402, 502, 503), told to the stream with the facilitator's reason. */
  const refused: Refuse = (outcome, settling) => {
    const error =
      settling && outcome.type === 'unavailable' ? `${outcome.error}; the payment was not settled` : outcome.error
    if (outcome.type === 'refused')
      return requirePayment(attempt, error, {
        reason: outcome.reason,
        payer: payerOf(),
        requirements,
        ...reasonFields(outcome, settling),
      })
    const status = outcome.type === 'failed' ? 502 : 503
    tell('payment.failed', attempt, { status, error, payer: payerOf() }, requirements)
    return outcome.type === 'failed' ? failed(502, error) : unavailable(error)
  }
  // The requirements were built through the scheme's flow table (buildPaymentRequirements): this cannot throw.
  const upfront = server.getPaymentFlow(payload, requirements) === 'upfront'
  const verified = (await faults.verify(api)) ?? (await verifyPayment(server, payload, requirements))
  if (verified.type !== 'accepted') return refused(verified, false)
  // x402's verifyPayment does not ask the facilitator in the upfront flow (its settle verifies): nothing to tell.
  if (!upfront) tell('payment.verified', attempt, { status: 200, payer: payerOf(verified.response) }, requirements)

  if (request.signal.aborted) return buyerGone
  payment.payer = payerOf(verified.response) ?? ''
  if (upfront) return payUpfront(ctx, payment, refused)
  /** The upstream failed: nothing is settled, and the stream says the buyer was not charged. */
  const upstreamFailed = (status: number, error: string): PaymentOutcome => {
    tell('upstream.failed', attempt, { status, error, payer: payerOf(verified.response) }, requirements)
    return failed(status, error)
  }
  const answer = await faults.forward(
    api,
    proxy,
    request,
    upstreamTarget(api.upstream_base_url, resource.path, resource.query),
  )
  if (!answer.ok) return upstreamFailed(answer.status, `${answer.error}; the payment was not settled`)
  if (answer.status >= 500) {
    answer.body.resume()
    answer.done()
    return upstreamFailed(502, `the upstream answered ${answer.status}; the payment was not settled`)
  }
  if (answer.status >= 400) {
    tell(
      'upstream.failed',
      attempt,
      {
        status: answer.status,
        error: `the upstream answered ${answer.status}; the payment was not settled`,
        payer: payerOf(verified.response),
      },
      requirements,
    )
    return { type: 'pass-through', upstream: answer }
  }
  // An upto payment charges what the upstream says it used (its Settlement-Overrides header, never shown to the buyer).
  const charge = takeChargeOverride(answer.headers, requirements, server)
  if (charge.type === 'invalid') {
    answer.body.resume()
    answer.done()
    return upstreamFailed(502, charge.error)
  }

  const body = await answer.read()
  if (!Buffer.isBuffer(body)) return upstreamFailed(body.status, `${body.error}; the payment was not settled`)
  // The buyer left before the answer was ready: nothing is delivered, so nothing is charged.
  if (request.signal.aborted) return buyerGone

  const amount = charge.type === 'amount' ? charge.amount : undefined
  const settled = await settleAndRecord(ctx, payment, refused, amount)
  if (settled.type !== 'settled') return settled.outcome
  const { journalId, settlementId: recorded } = settled
  tell(
    'payment.settled',
    attempt,
    {
      status: answer.status,
      payer: settled.payer,
      transaction: settled.response.transaction,
      settlement_id: recorded,
      builder_code: payment.builderCode ?? null,
    },
    requirements,
  )
  // Stored before the buyer has the answer: a process killed after answering has not lost the payment's event.
  await ctx.published()

  const headers: Record<string, string | string[]> = {
    ...answer.headers,
    'payment-response': encodePaymentResponseHeader(await ctx.withReceipt(settled.response, resource.url)),
  }
  if (request.method !== 'HEAD') headers['content-length'] = String(body.length)
  return {
    type: 'paid',
    status: answer.status,
    headers,
    body,
    settlementId: recorded,
    written: (delivered) => journal.finish(journalId, recorded, delivered),
  }
}

/**
 * The upfront flow (`extra.paymentFlow: "upfront"`, @x402/core's PAYMENT_FLOWS.upfront): settle, then forward. The
 * facilitator's settle verifies the payment itself (x402's verifyPayment skips the upfront flow's verify). An
 * upstream that fails after the settlement (down, 5xx, too slow, an answer too large) is answered with its status
 * and the PAYMENT-RESPONSE, told to the stream as a charged upstream.failed, and recorded as charged and not
 * delivered; a 4xx is passed to the buyer with the PAYMENT-RESPONSE and recorded likewise. A crash before the answer
 * is written leaves the journal row, which the next start books as not delivered.
 */
export async function payUpfront(ctx: FlowContext, payment: Payment, refused: Refuse): Promise<PaymentOutcome> {
  const { attempt, requirements } = payment
  const { request, api, resource } = attempt
  const settled = await settleAndRecord(ctx, payment, refused)
  if (settled.type !== 'settled') return settled.outcome
  const { journalId, settlementId } = settled
  const details = {
    payer: settled.payer,
    transaction: settled.response.transaction,
    settlement_id: settlementId,
  }
  const builder_code = payment.builderCode ?? null
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
