import { encodePaymentResponseHeader } from '@x402/core/http'
import type { SkipHandlerDirective } from '@x402/core/server'
import type { SettleResponse } from '@x402/core/types'
import { pausePoint } from '../../core/pause-point.js'
import { channelJournalFields } from './journal.js'
import type { BatchRecords } from './records.js'
import type { BatchServers } from './servers.js'
import {
  buyerGone,
  type FacilitatorResult,
  type FlowContext,
  type Payment,
  type PaymentOutcome,
  reasonFields,
  settlePayment,
  verifyPayment,
} from '../payments/index.js'
import { upstreamTarget } from '../upstream/index.js'

/** What the batch flow uses beyond the payment flow's steps. */
export type BatchContext = FlowContext & { batch: BatchServers; records: BatchRecords }

type BatchBody = {
  type?: string
  voucher?: { channelId?: string }
  deposit?: { amount?: string }
  channelConfig?: { payer?: string; token?: string; receiver?: string }
}

const failed = (status: number, error: string): PaymentOutcome => ({ type: 'error', status, error })

/**
 * A batch-settlement payment (x402 payment channels) through the package's server scheme, whose hooks run inside
 * x402's verifyPayment and settlePayment: verify (a voucher locally when the channel's on-chain state is fresh, a
 * deposit by the facilitator) reserves the channel; a refund request is settled at once and never reaches the
 * upstream; any other request is forwarded, and its voucher is charged only when the upstream answered below 400
 * (otherwise the reservation is cancelled, so the channel is not left busy). A deposit's settlement is its
 * transaction; a voucher's is the scheme's own bookkeeping (no transaction: the channel manager claims vouchers in
 * batches). A refused payment is a 402 whose `error` is the scheme's reason code (the official client recovers from
 * a corrective 402 by that code and the channel state the scheme adds to it).
 */
export async function payBatch(
  ctx: BatchContext,
  { attempt, payload, requirements }: Payment,
): Promise<PaymentOutcome> {
  const { request, api, server, resource, route } = attempt
  const body = payload.payload as BatchBody
  const channelId = body.voucher?.channelId ?? ''
  const chainEpoch = ctx.batch.epochOf(api)
  let payer = body.channelConfig?.payer?.toLowerCase()

  const refused = (
    outcome: Exclude<FacilitatorResult<unknown>, { type: 'accepted' }>,
    settling: boolean,
  ): PaymentOutcome | Promise<PaymentOutcome> => {
    if (outcome.type === 'refused')
      return ctx.requirePayment(attempt, outcome.reason ?? outcome.error, {
        reason: outcome.reason,
        payer,
        requirements,
        payload,
        ...reasonFields(outcome, settling),
      })
    const status = outcome.type === 'failed' ? 502 : 503
    ctx.tell('payment.failed', attempt, { status, error: outcome.error, payer }, requirements)
    return outcome.type === 'failed'
      ? failed(502, outcome.error)
      : { type: 'error', status, error: outcome.error, retryAfter: 1 }
  }
  /**
   * Journals a deposit or refund before the facilitator sends it (server/journal/journal.ts), as every settlement is:
   * a svc that dies before recording its transaction finds it on the chain at the next start.
   */
  const beginJournal = async () => {
    const fields = await channelJournalFields(
      payload,
      requirements,
      api.environment === 'development' ? ctx.deps.chain?.sandboxChain : undefined,
    )
    return ctx.journal.begin({
      api,
      endpoint: route.endpoint,
      ephemeral: route.expiresAt !== null,
      requirements,
      payload,
      amount: fields.amount,
      paymentId: fields.paymentId,
      payer: fields.payer,
      method: request.method,
      path: resource.path,
      chainEpoch,
      channelAction: fields.channelAction,
    })
  }
  /** Settles through the scheme; a journaled action whose settle failed or broke off is left for the chain to say. */
  const settleJournaled = async (journalId: string | undefined) => {
    try {
      const settled = await settlePayment(server, payload, requirements)
      if (settled.type !== 'accepted' && journalId) ctx.journal.abandon(journalId)
      // Crash tests stop here: the deposit or refund is on the chain, svc's record of it not yet written.
      if (settled.type === 'accepted' && journalId) await pausePoint('channel-record')
      return settled
    } catch (error) {
      if (journalId) ctx.journal.abandon(journalId)
      throw error
    }
  }
  /** Frees the channel's reservation: the request ends without charging its voucher. */
  const cancel = (responseStatus?: number) =>
    server
      .createPaymentCancellationDispatcher(payload, requirements)
      .cancel({ reason: 'handler_failed', ...(responseStatus === undefined ? {} : { responseStatus }) })

  const verified = (await ctx.faults.verify(api)) ?? (await verifyPayment(server, payload, requirements))
  if (verified.type !== 'accepted') return refused(verified, false)
  payer = verified.response.payer?.toLowerCase() ?? payer
  ctx.tell('payment.verified', attempt, { status: 200, payer }, requirements)

  // The refund request's answer (x402's skipHandler directive, which svc's verify result does not type).
  const skip = (verified.response as { skipHandler?: SkipHandlerDirective }).skipHandler
  // A refund request: settled now (the facilitator claims what was charged and refunds the rest), nothing forwarded.
  if (skip) {
    const before = await ctx.records.channel(chainEpoch, channelId)
    const journalId = await beginJournal()
    const settled = await settleJournaled(journalId)
    if (settled.type !== 'accepted') return refused(settled, true)
    const after = (settled.response.extra as { channelState?: { balance?: string } } | undefined)?.channelState
    const balanceAfter = after?.balance ?? '0'
    await ctx.records.transaction({
      chainEpoch,
      kind: 'refund',
      environment: api.environment,
      network: requirements.network,
      token: requirements.asset,
      receiver: requirements.payTo,
      channelId,
      amount: (BigInt(before?.balance ?? balanceAfter) - BigInt(balanceAfter)).toString(),
      balanceAfter,
      transaction: settled.response.transaction,
    })
    ctx.journal.finish(journalId)
    ctx.batch.refunded(api, route, requirements.asset)
    // Not payment.settled: the buyer was refunded, not charged.
    ctx.tell(
      'channel.refunded',
      attempt,
      {
        status: 200,
        payer,
        transaction: settled.response.transaction,
        channel_id: channelId.toLowerCase(),
        amount: (BigInt(before?.balance ?? balanceAfter) - BigInt(balanceAfter)).toString(),
      },
      requirements,
    )
    const answer = Buffer.from(JSON.stringify(skip.body ?? {}))
    return {
      type: 'paid',
      status: 200,
      headers: {
        'content-type': skip.contentType ?? 'application/json',
        'content-length': String(answer.length),
        'payment-response': encodePaymentResponseHeader(settled.response),
      },
      body: answer,
      written: () => {},
    }
  }

  if (request.signal.aborted) {
    await cancel()
    return buyerGone
  }
  /** The upstream failed: the voucher is not charged and the channel is free again. */
  const upstreamFailed = async (status: number, error: string, passed?: PaymentOutcome): Promise<PaymentOutcome> => {
    await cancel(status)
    ctx.tell('upstream.failed', attempt, { status, error, payer }, requirements)
    return passed ?? failed(status, error)
  }
  const answer = await ctx.faults.forward(
    api,
    ctx.proxy,
    request,
    upstreamTarget(api.upstream_base_url, resource.path, resource.query),
  )
  if (!answer.ok) return upstreamFailed(answer.status, `${answer.error}; the voucher was not charged`)
  if (answer.status >= 400) {
    const error = `the upstream answered ${answer.status}; the voucher was not charged`
    if (answer.status < 500) return upstreamFailed(answer.status, error, { type: 'pass-through', upstream: answer })
    answer.body.resume()
    answer.done()
    return upstreamFailed(502, error)
  }
  const content = await answer.read()
  if (!Buffer.isBuffer(content)) return upstreamFailed(content.status, `${content.error}; the voucher was not charged`)
  if (request.signal.aborted) {
    await cancel()
    return buyerGone
  }

  const journalId = body.type === 'deposit' ? await beginJournal() : undefined
  const settled = await settleJournaled(journalId)
  if (settled.type !== 'accepted') return refused(settled, true)
  const response: SettleResponse = settled.response
  const state = (response.extra as { channelState?: { chargedCumulativeAmount?: string } } | undefined)?.channelState
  if (body.type === 'deposit' && response.transaction)
    await ctx.records.transaction({
      chainEpoch,
      kind: 'deposit',
      environment: api.environment,
      network: requirements.network,
      token: requirements.asset,
      receiver: requirements.payTo,
      channelId,
      amount: body.deposit?.amount ?? '0',
      transaction: response.transaction,
    })
  await ctx.records.voucherPaid({
    chainEpoch,
    channelId,
    userId: api.user_id,
    apiId: api.id,
    endpointId: route.endpoint.id,
    method: request.method,
    path: resource.path,
    amount: requirements.amount,
    cumulative: state?.chargedCumulativeAmount ?? '',
  })
  if (journalId) ctx.journal.finish(journalId)
  ctx.stats.count(api, 'paid_requests')
  ctx.tell(
    'payment.settled',
    attempt,
    {
      status: answer.status,
      payer: response.payer ?? payer,
      transaction: response.transaction || null,
      channel_id: channelId.toLowerCase(),
    },
    requirements,
  )
  const headers: Record<string, string | string[]> = {
    ...answer.headers,
    'payment-response': encodePaymentResponseHeader(await ctx.withReceipt(response, resource.url)),
  }
  if (request.method !== 'HEAD') headers['content-length'] = String(content.length)
  return { type: 'paid', status: answer.status, headers, body: content, written: () => {} }
}
