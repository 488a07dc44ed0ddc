/*
 * The gateway's escrow flow (x402 auth-capture): a route whose accept is `auth-capture` is paid here
 * (server/gateway/payment-flow.ts picks it by the requirements' scheme). The escrow flow holds the payment
 * (authorize) before the upstream is asked, then captures it (sync: the upstream answered below 400; its
 * Settlement-Overrides amount captures that much and voids the rest) or voids it (otherwise), or leaves the hold for
 * the seller (deferred). The authorization flow verifies, forwards and charges on an answer below 400. Every collect
 * is journaled with its escrow part (settlement_journal.escrow) before it is sent, so a crash is recovered
 * (action-recovery.ts `escrowJournalResolver`), and each step is recorded (records.ts) and told (payment.*).
 */
import { encodePaymentResponseHeader } from '@x402/core/http'
import type { x402ResourceServer } from '@x402/core/server'
import type { PaymentRequirements, SettleResponse } from '@x402/core/types'
import { readPayload } from '../../core/auth-capture/read-payload.js'
import { reopenCollect, chainIdOf, type Reopened } from '../../core/auth-capture/reopen.js'
import { normalizeExtra } from '../../core/auth-capture/extra.js'
import { acceptedDeadlineFits } from '../../core/auth-capture/deadlines.js'
import type { AuthCaptureStore } from '../../core/auth-capture/payment-store.js'
import { AuthCaptureServerScheme } from '../../core/auth-capture/server-scheme.js'
import type { AuthCaptureExtra } from '../../core/auth-capture/types.js'
import { machineClock } from '../../core/clock.js'
import { pausePoint } from '../../core/pause-point.js'
import {
  type ApiRow,
  type EscrowJournalEntry,
  type EscrowPaymentRow,
  escrowDb,
  markEscrowUndelivered,
} from '../db/index.js'
import {
  type Attempt,
  buyerGone,
  type ExtraScheme,
  failed,
  type FlowContext,
  journalEntryOf,
  type Payment,
  type PaymentOutcome,
  reasonFields,
  type ResourceServers,
  recordSettlement,
  type SettlePhase,
  settlementRow,
  judgeSettlement,
  takeChargeOverride,
  unavailable,
  verifyPayment,
} from '../payments/index.js'
import type { FacilitatorResult } from '../payments/index.js'
import { upstreamTarget, type UpstreamResponse } from '../upstream/index.js'
import type { EscrowDeps } from './deps.js'
import { escrowEvent, escrowOf } from './events.js'
import { receiverAuthorizerOf } from './keys.js'
import type { RecordedReclaim } from './reclaims.js'
import {
  type AppliedEscrowStep,
  applyEscrowStep,
  applyEscrowSteps,
  type EscrowStep,
  recordEscrowCollect,
} from './records.js'

/** A store that keeps nothing: the gateway keeps its payments in the database (records.ts), not in the scheme. */
const noStore: AuthCaptureStore = { get: () => undefined, set: () => {}, list: () => [] }

export type EscrowServers = {
  /**
   * The resource server of an API's seller for its auth-capture routes: the API's facilitator with
   * `AuthCaptureServerScheme` signing as the seller's receiver authorizer (keys.ts), one per facilitator and seller.
   */
  serverFor(api: ApiRow): Promise<x402ResourceServer>
}

/** The sellers' resource servers for auth-capture routes, over `servers` (the API's facilitator). */
export function createEscrowServers(deps: EscrowDeps, servers: ResourceServers): EscrowServers {
  const schemes = new Map<string, ExtraScheme>()
  const clock = deps.clock ?? machineClock
  const now = () => clock.now()
  return {
    async serverFor(api) {
      let extra = schemes.get(api.user_id)
      if (!extra) {
        const account = await receiverAuthorizerOf(deps, api.user_id)
        extra = schemes.get(api.user_id) ?? {
          key: `auth-capture ${api.user_id}`,
          scheme: new AuthCaptureServerScheme({
            receiverAuthorizer: account,
            facilitator: servers.facilitatorFor(api),
            store: noStore,
            now,
          }),
        }
        schemes.set(api.user_id, extra)
      }
      return servers.forApi(api, extra)
    },
  }
}

/** A collect payload reopened against what its buyer accepted. */
type Reopening = Reopened & { extra: AuthCaptureExtra; saltNonce: string | null; signed: PaymentRequirements }

/**
 * The payment's PaymentInfo and hash, reopened from its payload against the requirements it was signed for (the
 * live ones with the accepted's deadlines and amount); a refusal (the binding's reason) when it does not reopen or
 * its deadlines are older than the previous grid step's.
 */
function reopen(payment: Payment): Reopening | { reason: string; message: string } {
  const { payload, requirements } = payment
  const read = readPayload(payload.payload)
  if (!read.ok) return read
  if (read.kind === 'lifecycle')
    return { reason: 'invalid_auth_capture_evm_payload_format', message: 'a capture, void or refund is not a payment' }
  const live = (requirements.extra ?? {}) as Record<string, unknown>
  const accepted = (payload.accepted?.extra ?? {}) as Record<string, unknown>
  if (
    !acceptedDeadlineFits(accepted.captureDeadline, live.captureDeadline) ||
    !acceptedDeadlineFits(accepted.refundDeadline, live.refundDeadline)
  )
    return {
      reason: 'invalid_auth_capture_evm_extra',
      message: "the payment's deadlines are from an old 402: fetch a fresh one",
    }
  const signed: PaymentRequirements = {
    ...requirements,
    amount: payload.accepted?.amount ?? requirements.amount,
    extra: { ...live, captureDeadline: accepted.captureDeadline, refundDeadline: accepted.refundDeadline },
  }
  const chainId = chainIdOf(signed.network)
  const normal = normalizeExtra(signed.extra)
  if (chainId === undefined) return { reason: 'invalid_network', message: `${signed.network} is not eip155` }
  if (!normal.ok) return normal
  const reopened = reopenCollect({
    chainId,
    requirements: signed,
    extra: normal.extra,
    deployments: normal.deployments,
    read,
  })
  if (!reopened.ok) return reopened
  return { ...reopened, extra: normal.extra, saltNonce: read.payload.saltNonce ?? null, signed }
}

/** Settles one phase of a payment through its resource server (the scheme's hooks write the capture or void). */
const settleStep = (
  server: x402ResourceServer,
  payment: Pick<Payment, 'payload' | 'requirements'>,
  how: { phase: SettlePhase; amount?: string | undefined },
) =>
  judgeSettlement(
    server.settlePayment(
      payment.payload,
      payment.requirements,
      undefined,
      undefined,
      how.amount === undefined ? undefined : { amount: how.amount },
      how.phase,
    ),
    payment.requirements,
  )

/**
 * Pays a request of an auth-capture route (it holds the payment's claim): the escrow flow (hold → forward → capture or
 * void, or the hold left for the seller) or the authorization flow (verify → forward → charge).
 */
export async function payEscrow(ctx: FlowContext, payment: Payment): Promise<PaymentOutcome> {
  const { attempt, requirements } = payment
  const { request, api, server, resource } = attempt
  const { tell, requirePayment } = ctx
  const reopened = reopen(payment)
  if (!('paymentInfo' in reopened))
    return requirePayment(attempt, `the payment is invalid: ${reopened.reason} (${reopened.message})`, {
      reason: reopened.reason,
      requirements,
    })
  const { extra, paymentInfo } = reopened
  const payer = paymentInfo.payer
  payment.payer = payer
  const charge = extra.paymentFlow === 'authorization'
  const mode = charge ? null : (extra.captureMode ?? 'sync')

  /** A failure of the payment (402, 502, 503), told to the stream with the facilitator's reason. */
  const refused = (outcome: Exclude<FacilitatorResult<unknown>, { type: 'accepted' }>, settling: boolean) => {
    const error =
      settling && outcome.type === 'unavailable' ? `${outcome.error}; the payment was not settled` : outcome.error
    if (outcome.type === 'refused')
      return requirePayment(attempt, error, {
        reason: outcome.reason,
        payer,
        requirements,
        ...reasonFields(outcome, settling),
      })
    const status = outcome.type === 'failed' ? 502 : 503
    tell('payment.failed', attempt, { status, error, payer }, requirements)
    return outcome.type === 'failed' ? failed(502, error) : unavailable(error)
  }
  const upstreamFailed = (status: number, error: string): PaymentOutcome => {
    tell('upstream.failed', attempt, { status, error, payer }, requirements)
    return failed(status, error)
  }
  const forward = () =>
    ctx.faults.forward(api, ctx.proxy, request, upstreamTarget(api.upstream_base_url, resource.path, resource.query))

  if (charge) {
    const verified = (await ctx.faults.verify(api)) ?? (await verifyPayment(server, payment.payload, requirements))
    if (verified.type !== 'accepted') return refused(verified, false)
    tell('payment.verified', attempt, { status: 200, payer }, requirements)
    if (request.signal.aborted) return buyerGone
    const answer = await forward()
    const ready = await readAnswer(answer, requirements, server)
    if (ready.type === 'failed') return upstreamFailed(ready.status, `${ready.error}; the payment was not settled`)
    if (ready.type === 'pass-through') {
      tell('upstream.failed', attempt, { status: ready.upstream.status, error: ready.error, payer }, requirements)
      return { type: 'pass-through', upstream: ready.upstream }
    }
    if (request.signal.aborted) return buyerGone
    const collected = await collect(ctx, payment, reopened, { kind: 'charge', amount: ready.amount })
    if (collected.type === 'refused') return refused(collected.outcome, true)
    if (collected.type === 'replay') return collected.outcome
    const { journalId, settlementId, response, recorded } = collected
    tell(
      'payment.captured',
      attempt,
      {
        status: 200,
        payer,
        transaction: response.transaction,
        settlement_id: settlementId,
        amount: recorded.transaction.amount,
        charged: true,
        escrow: escrowOf(recorded.payment, recorded.transaction.amount),
      },
      requirements,
    )
    return paid(ctx, attempt, ready, { response, journalId, settlementId, paymentId: recorded.payment.id })
  }

  // The escrow flow: the hold first.
  const collected = await collect(ctx, payment, reopened, { kind: 'authorize' })
  if (collected.type === 'refused') return refused(collected.outcome, true)
  if (collected.type === 'replay') return collected.outcome
  const { journalId, settlementId, response } = collected
  let current = collected.recorded.payment
  const held = collected.recorded.transaction.amount
  tell(
    'payment.authorized',
    attempt,
    {
      status: 200,
      payer,
      transaction: response.transaction,
      settlement_id: settlementId,
      amount: held,
      escrow: escrowOf(current, held),
    },
    requirements,
  )
  const steps = { ctx, payment, reopened, settlementId, journalId }
  /** Voids the hold (the upstream failed, the buyer left): nothing is charged. */
  const voidHold = async (): Promise<string | undefined> => {
    const voided = await settleStep(server, payment, { phase: 'cancel' })
    if (voided.type !== 'accepted') {
      ctx.deps.log?.(
        `svc: the hold of the escrow payment ${current.id} could not be voided: ${voided.error} (the seller may void it)`,
      )
      ctx.journal.finish(journalId, settlementId, false)
      return voided.error
    }
    const done = await record(steps, current, { kind: 'void', amount: held, transaction: voided.response.transaction })
    current = done.payment
    ctx.journal.finish(journalId, settlementId, true)
    tell(
      'payment.voided',
      attempt,
      {
        status: 200,
        payer,
        transaction: voided.response.transaction,
        settlement_id: settlementId,
        amount: held,
        escrow: escrowOf(current, held),
      },
      requirements,
    )
    return undefined
  }
  if (request.signal.aborted) {
    await voidHold()
    return buyerGone
  }
  const answer = await forward()
  const ready = await readAnswer(answer, requirements, server)
  if (ready.type !== 'ready' || request.signal.aborted) {
    const error = ready.type === 'ready' ? 'the buyer left' : ready.error
    const kept = await voidHold()
    const status = ready.type === 'failed' ? ready.status : ready.type === 'pass-through' ? ready.upstream.status : 499
    tell(
      'upstream.failed',
      attempt,
      { status, error: `${error}; the payment's hold was ${kept ? 'not voided' : 'voided'}`, payer },
      requirements,
    )
    if (ready.type === 'pass-through') return { type: 'pass-through', upstream: ready.upstream }
    if (ready.type === 'failed') return failed(ready.status, `${ready.error}; the payment's hold was voided`)
    return buyerGone
  }
  if (mode === 'deferred')
    return paid(ctx, attempt, ready, { response, journalId, settlementId, paymentId: current.id })

  // Sync: capture what the upstream said (the price, or its Settlement-Overrides amount; the rest voided).
  const captured = await settleStep(server, payment, { phase: 'after-handler', amount: ready.amount })
  if (captured.type !== 'accepted' || !captured.response.success) {
    const why = captured.type === 'accepted' ? 'refused' : captured.error
    const kept = await voidHold()
    const error = `the payment could not be captured; its hold was ${kept ? 'not voided' : 'voided'} (${why})`
    tell('payment.failed', attempt, { status: 502, error, payer }, requirements)
    return failed(502, error)
  }
  // An override of 0 voids the whole hold (the answer's amount is then what was voided).
  const nothing = ready.amount === '0'
  const amount = nothing ? '0' : (captured.response.amount ?? ready.amount ?? requirements.amount)
  const more = (captured.response.extra ?? {}) as { voidTransaction?: string; voided?: string }
  const voidTransaction = nothing ? captured.response.transaction : more.voidTransaction
  const rest = (BigInt(held) - BigInt(amount)).toString()
  // The capture and the void of its rest are recorded in one database transaction, then told in order.
  const closing: EscrowStep[] = []
  if (!nothing) closing.push({ kind: 'capture', amount, transaction: captured.response.transaction, actor: 'gateway' })
  if (voidTransaction !== undefined)
    closing.push({ kind: 'void', amount: rest, transaction: voidTransaction, actor: 'gateway' })
  const applied = await applyEscrowSteps(ctx.deps.db, current, closing)
  for (const { payment: after, transaction } of applied) {
    current = after
    if (transaction.kind === 'capture')
      tell(
        'payment.captured',
        attempt,
        {
          status: 200,
          payer,
          transaction: captured.response.transaction,
          settlement_id: settlementId,
          amount,
          charged: true,
          escrow: escrowOf(current, amount),
        },
        requirements,
      )
    else
      tell(
        'payment.voided',
        attempt,
        {
          status: 200,
          payer,
          transaction: voidTransaction,
          settlement_id: settlementId,
          amount: rest,
          escrow: escrowOf(current, rest),
        },
        requirements,
      )
  }
  return paid(ctx, attempt, ready, { response: captured.response, journalId, settlementId, paymentId: current.id })
}

type Collected =
  | {
      type: 'collected'
      journalId: string
      settlementId: string
      response: SettleResponse
      recorded: AppliedEscrowStep
    }
  | { type: 'refused'; outcome: Exclude<FacilitatorResult<unknown>, { type: 'accepted' }> }
  | { type: 'replay'; outcome: PaymentOutcome }

/**
 * The collect (authorize, or the authorization flow's charge of `amount`): the API's settle fault, the journal row
 * with its escrow part, the settle, then the settlement's record and the escrow payment's.
 */
async function collect(
  ctx: FlowContext,
  payment: Payment,
  reopened: Reopening,
  how: { kind: 'authorize' | 'charge'; amount?: string | undefined },
): Promise<Collected> {
  const { kind, amount } = how
  const { attempt, requirements } = payment
  const { request, api, route, server, resource } = attempt
  const injected = await ctx.faults.settle(api, request.signal)
  if (request.signal.aborted) return { type: 'replay', outcome: buyerGone }
  if (injected) return { type: 'refused', outcome: injected }
  const entry = journalEntryOf(ctx.deps, payment, amount)
  const escrow: EscrowJournalEntry = {
    kind,
    paymentInfoHash: reopened.paymentInfoHash,
    paymentInfo: reopened.paymentInfo as unknown as Record<string, unknown>,
    saltNonce: reopened.saltNonce,
    captureMode: kind === 'charge' ? null : (reopened.extra.captureMode ?? 'sync'),
    escrow: reopened.deployment.escrow,
    receiverAuthorizer: reopened.extra.receiverAuthorizer,
  }
  const journalId = await ctx.journal.begin(entry)
  let settlementId: string | undefined
  let recorded: AppliedEscrowStep | undefined
  let settled: FacilitatorResult<SettleResponse>
  try {
    await escrowDb(ctx.deps.db)
      .updateTable('settlement_journal')
      .set({ escrow: JSON.stringify(escrow) })
      .where('id', '=', journalId)
      .execute()
    settled = await settleStep(server, payment, {
      phase: kind === 'authorize' ? 'before-handler' : 'after-handler',
      amount,
    })
    if (settled.type === 'accepted') {
      await pausePoint('settlement-record')
      const response = settled.response
      const moved = response.amount || (kind === 'authorize' ? reopened.signed.amount : (amount ?? requirements.amount))
      const paid = {
        api,
        endpoint: route.endpoint,
        ephemeral: entry.ephemeral,
        requirements,
        // An authorize is recorded at 0: the settlement's amount is what was captured (less what was refunded).
        settled: { ...response, amount: kind === 'authorize' ? '0' : moved },
        payer: response.payer ?? entry.payer,
        method: request.method,
        path: resource.path,
        chainEpoch: entry.chainEpoch,
        builderCode: payment.builderCode,
      }
      const row = settlementRow(paid)
      settlementId = await ctx.journal.record(journalId, row.id, () =>
        recordSettlement(ctx.store, paid, journalId, row),
      )
      if (settlementId !== undefined) {
        const info = reopened.paymentInfo
        recorded = await recordEscrowCollect(
          ctx.deps.db,
          {
            chain_epoch: entry.chainEpoch,
            payment_info_hash: reopened.paymentInfoHash,
            user_id: api.user_id,
            api_id: api.id,
            endpoint_id: entry.ephemeral ? null : route.endpoint.id,
            environment: api.environment,
            network: requirements.network,
            asset: requirements.asset,
            payer: info.payer,
            pay_to: requirements.payTo,
            method: request.method,
            path: resource.path,
            flow: kind === 'charge' ? 'authorization' : 'escrow',
            capture_mode: escrow.captureMode,
            transfer_method: reopened.extra.assetTransferMethod,
            escrow: reopened.deployment.escrow,
            operator: info.operator,
            receiver_authorizer: reopened.extra.receiverAuthorizer,
            payment_info: JSON.stringify(info),
            salt_nonce: reopened.saltNonce,
            pre_approval_expiry: Number(info.preApprovalExpiry),
            capture_deadline: Number(info.authorizationExpiry),
            refund_deadline: Number(info.refundExpiry),
            delivered: 1,
          },
          { kind, amount: moved, feeAmount: feeOf(response), transaction: response.transaction, actor: 'gateway' },
          settlementId,
        )
      }
    }
  } catch (error) {
    await ctx.journal.abandon(journalId)
    throw error
  }
  if (settled.type !== 'accepted') {
    await ctx.journal.abandon(journalId, settled.type === 'refused' ? settled.reason : undefined)
    return { type: 'refused', outcome: settled }
  }
  if (settlementId === undefined || recorded === undefined) {
    ctx.journal.finish(journalId)
    return {
      type: 'replay',
      outcome: await ctx.requirePayment(attempt, 'this payment was already used for an earlier request', {
        payer: payment.payer,
        requirements,
      }),
    }
  }
  ctx.stats.count(api, 'paid_requests')
  return { type: 'collected', journalId, settlementId, response: settled.response, recorded }
}

/** A charge's fee, as the facilitator's answer names it (svc's escrows charge none unless the route's bounds ask). */
const feeOf = (response: SettleResponse): string | undefined => {
  const fee = (response.extra as { feeAmount?: unknown } | undefined)?.feeAmount
  return typeof fee === 'string' ? fee : undefined
}

/** Records a later step of the payment (capture, void) as the gateway's. */
function record(
  steps: { ctx: FlowContext },
  payment: EscrowPaymentRow,
  step: Omit<EscrowStep, 'actor'>,
): Promise<AppliedEscrowStep> {
  return applyEscrowStep(steps.ctx.deps.db, payment, { ...step, actor: 'gateway' })
}

/** The upstream's answer read whole (below 400), passed through (4xx), or failed; with what to capture. */
type Ready =
  | { type: 'ready'; upstream: UpstreamResponse; body: Buffer; amount: string | undefined }
  | { type: 'pass-through'; upstream: UpstreamResponse; error: string }
  | { type: 'failed'; status: number; error: string }

async function readAnswer(
  answer: Awaited<ReturnType<FlowContext['faults']['forward']>>,
  requirements: PaymentRequirements,
  server: x402ResourceServer,
): Promise<Ready> {
  if (!answer.ok) return { type: 'failed', status: answer.status, error: answer.error }
  if (answer.status >= 500) {
    answer.body.resume()
    answer.done()
    return { type: 'failed', status: 502, error: `the upstream answered ${answer.status}` }
  }
  if (answer.status >= 400)
    return { type: 'pass-through', upstream: answer, error: `the upstream answered ${answer.status}` }
  const override = takeChargeOverride(answer.headers, requirements, server)
  if (override.type === 'invalid') {
    answer.body.resume()
    answer.done()
    return { type: 'failed', status: 502, error: override.error }
  }
  const body = await answer.read()
  if (!Buffer.isBuffer(body)) return { type: 'failed', status: body.status, error: body.error }
  return { type: 'ready', upstream: answer, body, amount: override.type === 'amount' ? override.amount : undefined }
}

/** The paid answer: the upstream's, with the capture's (sync, charge) or the hold's (deferred) signed receipt. */
async function paid(
  ctx: FlowContext,
  attempt: Attempt,
  ready: Extract<Ready, { type: 'ready' }>,
  journal: { response: SettleResponse; journalId: string; settlementId: string; paymentId: string },
): Promise<PaymentOutcome> {
  const { response } = journal
  const { request, resource } = attempt
  const receipted = encodePaymentResponseHeader(await ctx.withReceipt(response, resource.url))
  const headers: Record<string, string | string[]> = { ...ready.upstream.headers, 'payment-response': receipted }
  if (request.method !== 'HEAD') headers['content-length'] = String(ready.body.length)
  return {
    type: 'paid',
    status: ready.upstream.status,
    headers,
    body: ready.body,
    settlementId: journal.settlementId,
    written(delivered) {
      ctx.journal.finish(journal.journalId, journal.settlementId, delivered)
      // Charged (or held) without the answer reaching the buyer: the payment says so (a hold stays the seller's).
      if (!delivered)
        markEscrowUndelivered(ctx.deps.db, journal.paymentId).catch((error: unknown) =>
          ctx.deps.log?.(`svc: the escrow payment ${journal.paymentId} could not be marked undelivered: ${error}`),
        )
    },
  }
}

/**
 * Tells a reclaim the sweep recorded (reclaims.ts; no request of svc's is behind it) as payment.reclaimed, with the
 * paid request's method and path, when the seller listens.
 */
export async function tellReclaim(deps: EscrowDeps, { payment, transaction }: RecordedReclaim): Promise<void> {
  const bus = deps.events
  if (!bus?.wanted(payment.user_id)) return
  const api = await deps.db.selectFrom('apis').select('slug').where('id', '=', payment.api_id).executeTakeFirst()
  bus.publish(
    payment.user_id,
    escrowEvent(payment, {
      type: 'payment.reclaimed',
      api_slug: api?.slug ?? '',
      created_at: transaction.created_at,
      moved: transaction.amount,
      transaction: transaction.transaction,
    }),
  )
}
