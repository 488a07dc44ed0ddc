import { authorizationFields } from '../../core/eip3009-authorization.js'
import { settlePayment } from './facilitator-calls.js'
import { buyerGone, type FlowContext, type Payment, type Refuse, type Settled } from './attempt.js'
import type { PaymentOutcome } from './outcome.js'
import { builderCodeOf } from './decode.js'
import { recordSettlement, settlementRow } from './settlement-record.js'
import { pausePoint } from '../../core/pause-point.js'
import type { ApiRow } from '../db/tables.js'
import type { PaymentsDeps } from './deps.js'
import type { JournalEntry } from '../journal/index.js'
import { sandboxEpochOf } from '../sandbox/index.js'

/** The Sandbox chain's epoch a payment of `api` is settled on ('' for production). */
const chainEpochOf = (deps: PaymentsDeps, api: ApiRow): string =>
  api.environment === 'development' ? sandboxEpochOf(deps) : ''

/**
 * The journal entry of `payment` (its claim's, then its settlement's: `amount` the upto charge). Before the verify
 * named the payer, the authorization's `from` stands for it.
 */
export function journalEntryOf(
  deps: PaymentsDeps,
  { attempt: { api, route, request, resource }, payload, requirements, paymentId, payer }: Payment,
  amount?: string,
): JournalEntry {
  return {
    api,
    endpoint: route.endpoint,
    ephemeral: route.expiresAt !== null,
    requirements,
    payload,
    amount,
    paymentId,
    payer: payer ?? authorizationFields(payload.payload).from ?? '',
    method: request.method,
    path: resource.path,
    chainEpoch: chainEpochOf(deps, api),
  }
}

/**
 * Settles a payment and records it: the journal row first (whatever happens next, a crash included, a payment that
 * reaches the chain is recorded, at the latest when svc starts again), then the settlement, then its record. Not
 * `settled`: how to answer (refused, replayed, unavailable); the journal row is then closed or left to the sweeper.
 */
export async function settleAndRecord(
  ctx: FlowContext,
  payment: Payment,
  refused: Refuse,
  amount?: string,
): Promise<Settled | { type: 'not-settled'; outcome: PaymentOutcome }> {
  const { attempt, payload, requirements } = payment
  const { request, api, route, server, resource } = attempt
  const payer = payment.payer ?? ''
  const not = async (outcome: PaymentOutcome | Promise<PaymentOutcome>) =>
    ({ type: 'not-settled', outcome: await outcome }) as const
  // A settle fault (svc fault add settle) waits and/or refuses here: no journal row, no transaction.
  const injected = await ctx.faults.settle(api, request.signal)
  if (request.signal.aborted) return not(buyerGone)
  if (injected) return not(refused(injected, true))

  const entry = journalEntryOf(ctx.deps, payment, amount)
  const { chainEpoch, ephemeral } = entry
  const journalId = await ctx.journal.begin(entry)
  // Checked before (payment-flow.ts run()): recorded on the settlement as the payment carried it to the facilitator.
  const attribution = builderCodeOf(payload)
  let settlementId: string | undefined
  let settled: Awaited<ReturnType<typeof settlePayment>>
  try {
    settled = await settlePayment(server, payload, requirements, amount)
    if (settled.type === 'accepted') {
      await pausePoint('settlement-record')
      const { response } = settled
      const paid = {
        api,
        endpoint: route.endpoint,
        ephemeral,
        requirements,
        settled: response,
        payer: response.payer ?? payer,
        method: request.method,
        path: resource.path,
        chainEpoch,
        builderCode: attribution.ok ? attribution.code : undefined,
      }
      // The money moved: a record the data dir cannot take now is kept and written later, and the buyer is answered.
      const row = settlementRow(paid)
      settlementId = await ctx.journal.record(journalId, row.id, async () =>
        recordSettlement(ctx.store, paid, journalId, row),
      )
    }
  } catch (error) {
    await ctx.journal.abandon(journalId)
    throw error
  }
  // Not settled, or its outcome is unknown (the facilitator broke off): the row is checked on the chain later.
  if (settled.type !== 'accepted') {
    await ctx.journal.abandon(journalId, settled.type === 'refused' ? settled.reason : undefined)
    return not(refused(settled, true))
  }
  // The facilitator answers a payload it already settled with the same transaction: that is a replay.
  if (settlementId === undefined) {
    ctx.journal.finish(journalId)
    return not(
      ctx.requirePayment(attempt, 'this payment was already used for an earlier request', { payer, requirements }),
    )
  }
  ctx.stats.count(api, 'paid_requests')
  return {
    type: 'settled',
    response: settled.response,
    payer: settled.response.payer ?? payer,
    journalId,
    settlementId,
  }
}
