/*
 * The settle step of the authorization and upfront flows: the journal entry of a payment (`journalEntryOf`), its
 * settlement and record (`settleAndRecord`, writing the row `settlementRow` builds), and the upto charge an upstream
 * may ask for (`takeChargeOverride`).
 */
import { authorizationFields } from '../../core/eip3009-authorization.js'
import { settlePayment } from './facilitator-calls.js'
import { buyerGone, type FlowContext, type Payment, type PaymentOutcome, type Refuse, type Settled } from './attempt.js'
import type { BuilderCode } from './decode.js'
import { pausePoint } from '../../core/pause-point.js'
import type { ApiRow, EndpointRow, GatewayStore, SettlementRow } from '../db/index.js'
import type { PaymentsDeps } from './deps.js'
import type { JournalEntry } from '../journal/index.js'
import { sandboxEpochOf } from '../sandbox/index.js'
import type { PaymentRequirements, SettleResponse } from '@x402/core/types'
import { newId, nowIso } from '../ids.js'
import { SETTLEMENT_OVERRIDES_HEADER, type x402ResourceServer } from '@x402/core/server'
import { convertToTokenAmount } from '@x402/core/utils'
import { cutText, echoedValueLimit } from '../../core/http.js'

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
        // Checked in payment-flow.ts run(): recorded as the payment carried it to the facilitator.
        builderCode: payment.builderCode,
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

export type SettledPayment = {
  api: ApiRow
  endpoint: EndpointRow
  /** An ephemeral endpoint is deleted with the record, in one transaction; the record then names no endpoint. */
  ephemeral: boolean
  requirements: PaymentRequirements
  settled: SettleResponse
  payer: string
  method: string
  path: string
  /** The Sandbox chain's epoch ('' for production). */
  chainEpoch: string
  /** The payment's builder-code attribution (decode.ts `builderCodeOf`), if it carried one. */
  builderCode?: BuilderCode | undefined
}

/**
 * Records a settled payment in `settlements` (the seller's books) and names it in its journal row; resolves with the
 * settlement's id. Undefined when the transaction is already recorded: the facilitator settles a payload once and
 * answers a repeat with the first transaction, so a second record of it is a replay of the same payment.
 */
export async function recordSettlement(
  store: GatewayStore,
  payment: SettledPayment,
  journalId: string,
  row: SettlementRow = settlementRow(payment),
): Promise<string | undefined> {
  const { endpoint, ephemeral } = payment
  return (await store.recordSettlement(row, ephemeral ? endpoint.id : undefined, journalId)) ? row.id : undefined
}

/** The `settlements` row of a settled payment (its id known before it is written). */
export function settlementRow(payment: SettledPayment): SettlementRow {
  const { api, endpoint, ephemeral, requirements, settled } = payment
  return {
    id: newId('stl'),
    api_id: api.id,
    endpoint_id: ephemeral ? null : endpoint.id,
    user_id: api.user_id,
    environment: api.environment,
    network: settled.network || requirements.network,
    asset: requirements.asset,
    amount: settled.amount || requirements.amount,
    payer: payment.payer,
    pay_to: requirements.payTo,
    transaction: settled.transaction,
    method: payment.method,
    path: payment.path,
    created_at: nowIso(),
    chain_epoch: payment.chainEpoch,
    delivered: 1,
    builder_code: payment.builderCode === undefined ? null : JSON.stringify(payment.builderCode),
  }
}

/** What an upstream's answer says to charge: nothing said (the price), an amount in atomic units, or why it cannot be used. */
export type ChargeOverride = { type: 'none' } | { type: 'amount'; amount: string } | { type: 'invalid'; error: string }

const headerName = SETTLEMENT_OVERRIDES_HEADER.toLowerCase()
const forms = '{"amount":"1000"} (atomic units), {"amount":"50%"} or {"amount":"$0.05"}'

/**
 * Takes the upstream's `Settlement-Overrides` header out of its answer's headers (it is for svc, never for the buyer)
 * and, for an `upto` or `auth-capture` payment (what a sync escrow payment captures; the rest is voided), reads it as x402's HTTP server does (`SettlementOverrides`: `"1000"`, `"50%"` with up
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
  if (raw === undefined || (requirements.scheme !== 'upto' && requirements.scheme !== 'auth-capture'))
    return { type: 'none' }
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
