import { Router } from 'express'
import { type Address, erc20Abi, type Hex } from 'viem'
import type { ChainServices } from '../../chain/services.js'
import { z } from 'zod'
import { readPaymentState } from '../../chain/auth-capture/index.js'
import { approveFor } from '../../chain/permit2/index.js'
import { deploymentOfEscrow } from '../../core/auth-capture/deployments.js'
import { buildCapture, buildRefund, buildVoid } from '../../core/auth-capture/lifecycle-payloads.js'
import type { PaymentInfo } from '../../core/auth-capture/types.js'
import {
  ConflictError,
  NotFoundError,
  sandboxChainRestarting,
  ServiceUnavailableError,
  SvcError,
} from '../../core/errors.js'
import { parseBody } from '../../core/http.js'
import {
  type EscrowPaymentRow,
  type EscrowTransactionRow,
  findOwnedApi,
  findOwnedEscrowPayment,
  listEscrowPayments,
  listEscrowTransactions,
  setEscrowChainView,
} from '../db/index.js'
import type { ServerDeps } from '../deps.js'
import {
  applyEscrowStep,
  type EscrowStep,
  escrowChainOf,
  escrowEvent,
  lifecycleTargetOf,
  receiverAuthorizerOf,
  settleRecordedLifecycle,
} from '../escrow/index.js'
import { clockOf, requireSandboxChain, sandboxEpochOf } from '../sandbox/index.js'
import { csvLine } from './analytics-csv.js'
import { parseQuery, queryId, queryInt, queryString } from './analytics-query.js'
import { guard, principalOf } from './context.js'

const states = ['authorized', 'captured', 'charged', 'voided', 'refunded', 'reclaimed'] as const
const listQuery = z.strictObject({
  api_id: queryId().optional(),
  state: queryString(`must be one of ${states.join(', ')}`)
    .pipe(z.enum(states, { error: `must be one of ${states.join(', ')}` }))
    .optional(),
  limit: queryInt(1, 1000).optional(),
  format: queryString('must be "json" or "csv"')
    .pipe(z.enum(['json', 'csv'], { error: 'must be "json" or "csv"' }))
    .optional(),
})

const amountError = 'must be a positive integer of atomic units'
const atomic = z.string({ error: amountError }).regex(/^[1-9][0-9]*$/, { error: amountError })
const captureBody = z.strictObject({ amount: atomic.optional() })
const refundBody = z.strictObject({ amount: atomic })
const voidBody = z.strictObject({})

/** The columns of the payments CSV, in order: every field of a payment record but the nested paymentInfo. */
export const paymentColumns = [
  'id',
  'api_id',
  'endpoint_id',
  'settlement_id',
  'environment',
  'network',
  'asset',
  'payer',
  'pay_to',
  'method',
  'path',
  'flow',
  'capture_mode',
  'transfer_method',
  'escrow',
  'operator',
  'receiver_authorizer',
  'payment_info_hash',
  'salt_nonce',
  'authorized',
  'captured',
  'fees',
  'voided',
  'refunded',
  'reclaimed',
  'capturable',
  'refundable',
  'state',
  'pre_approval_expiry',
  'capture_deadline',
  'refund_deadline',
  'delivered',
  'chain_epoch',
  'old_chain',
  'created_at',
  'updated_at',
] as const

/** Seconds before the capture deadline from which svc refuses a capture (the facilitator's floor). */
const deadlineFloorSeconds = 6

/**
 * The seller's escrow payments (x402 auth-capture): GET /payments and /payments/{paymentId} (scope settlements:read),
 * and their lifecycle, POST /payments/{paymentId}/capture, /void, /refund (scope payments:write): each reads the
 * payment's state on the chain that holds it (the Sandbox chain, or a twin for a production API paid there through
 * svc's facilitator: server/escrow `escrowChainOf`), refuses as 409 what cannot succeed before anything is sent,
 * builds the payload signed by the seller's receiver authorizer, settles it through svc's facilitator and records the
 * step. One lifecycle call per payment at a time.
 */
export function createPaymentRoutes(deps: ServerDeps): Router {
  const router = Router()
  const busy = new Set<string>()

  router.get('/payments', guard({ scopes: ['settlements:read'] }), async (req, res) => {
    const query = parseQuery(listQuery, req.query)
    const principal = principalOf(req)
    const apiId = query.api_id === undefined ? undefined : (await findOwnedApi(deps.db, principal, query.api_id)).id
    const csv = query.format ? query.format === 'csv' : req.accepts(['application/json', 'text/csv']) === 'text/csv'
    const rows = await listEscrowPayments(deps.db, principal, {
      apiId,
      state: query.state,
      limit: query.limit ?? (csv ? 1000 : 50),
    })
    const epoch = sandboxEpochOf(deps)
    const payments = rows.map((row) => paymentRecord(row, epoch))
    if (!csv) return void res.json({ payments })
    res.setHeader('Content-Type', 'text/csv; charset=utf-8')
    res.setHeader('Content-Disposition', 'attachment; filename="payments.csv"')
    res.send(
      csvLine(paymentColumns) +
        payments.map((payment) => csvLine(paymentColumns.map((column) => payment[column]))).join(''),
    )
  })

  router.get('/payments/:paymentId', guard({ scopes: ['settlements:read'] }), async (req, res) => {
    const row = await findOwnedEscrowPayment(deps.db, principalOf(req), String(req.params.paymentId))
    if (!row) throw new NotFoundError('payment not found')
    const transactions = await listEscrowTransactions(deps.db, row.id)
    res.json({ payment: paymentRecord(row, sandboxEpochOf(deps)), transactions: transactions.map(transactionRecord) })
  })

  type Kind = 'capture' | 'void' | 'refund'
  const lifecycle = (kind: Kind) =>
    router.post(`/payments/:paymentId/${kind}`, guard({ scopes: ['payments:write'] }), async (req, res) => {
      const body =
        kind === 'refund'
          ? parseBody(refundBody, req.body ?? {})
          : kind === 'capture'
            ? parseBody(captureBody, req.body ?? {})
            : (parseBody(voidBody, req.body ?? {}), {})
      const row = await findOwnedEscrowPayment(deps.db, principalOf(req), String(req.params.paymentId))
      if (!row) throw new NotFoundError('payment not found')
      // While the chain restarts, that is the answer (503), even with another move of the payment waiting for it.
      if (row.environment === 'development' && deps.chain?.sandboxChain.restarting) throw restarting()
      if (busy.has(row.id))
        throw new ConflictError('another capture, void or refund of this payment is in progress: retry when it is done')
      busy.add(row.id)
      try {
        const moved = await move(row, kind, (body as { amount?: string }).amount)
        res.json(moved)
      } finally {
        busy.delete(row.id)
      }
    })
  lifecycle('capture')
  lifecycle('void')
  lifecycle('refund')

  async function move(row: EscrowPaymentRow, kind: Kind, amount: string | undefined) {
    const what = `the ${kind} was refused`
    if (row.environment === 'development') {
      if (deps.chain?.sandboxChain.restarting) throw restarting()
      requireSandboxChain(deps)
    }
    // The chain that holds it: the Sandbox chain, or the twin a production API was paid on through svc's facilitator.
    const held = escrowChainOf(deps.chain, row)
    if ('why' in held) throw new ConflictError(`${what}: ${held.why}`)
    const on = held.chain
    const chain = deps.chain!
    if (on.restarting) throw restarting()
    if (row.environment === 'development' && row.chain_epoch !== on.epoch)
      throw new ConflictError(
        `${what}: the payment was made on an earlier Sandbox chain (${row.chain_epoch}); nothing is held there now`,
      )
    const deployment = deploymentOfEscrow(row.escrow)
    if (!deployment) throw new ConflictError(`${what}: the escrow ${row.escrow} is not one svc serves`)
    const refuse = (reason: string, detail: string) =>
      new ConflictError(`${what}: invalid_auth_capture_evm_${reason} (${detail})`)
    if (row.flow === 'authorization' && kind !== 'refund')
      throw refuse('payload_type', `the payment was a terminal charge: nothing is held to ${kind}`)
    const now = clockOf(deps).nowSeconds()
    if (kind === 'capture' && now >= row.capture_deadline - deadlineFloorSeconds)
      throw refuse('capture_deadline_expired', `its capture deadline is ${isoOf(row.capture_deadline)}`)
    if (kind === 'refund' && now >= row.refund_deadline)
      throw refuse('refund_deadline_expired', `its refund deadline was ${isoOf(row.refund_deadline)}`)

    const state = await onChain(() => readPaymentState(on.client, row.escrow as Address, row.payment_info_hash as Hex))
    await setEscrowChainView(deps.db, row.id, {
      capturable: state.capturableAmount.toString(),
      refundable: state.refundableAmount.toString(),
      at: clockOf(deps).nowIso(),
    })
    const capturable = state.capturableAmount
    const refundable = state.refundableAmount
    let moved: bigint
    if (kind === 'capture') {
      if (capturable === 0n) throw refuse('zero_authorization', 'nothing is held')
      moved = amount === undefined ? capturable : BigInt(amount)
      if (moved > capturable)
        throw refuse('insufficient_authorization', `${moved} is above the ${capturable} still capturable`)
    } else if (kind === 'void') {
      if (capturable === 0n) throw refuse('zero_authorization', 'nothing is held: it was voided, captured or reclaimed')
      moved = capturable
    } else {
      moved = BigInt(amount!)
      if (moved > refundable) throw refuse('refund_exceeds_capture', `${moved} is above the ${refundable} refundable`)
    }

    const signer = await receiverAuthorizerOf(deps, row.user_id)
    const target = lifecycleTargetOf(row, deployment)
    const expected = { expectedCapturableAmount: capturable, expectedRefundableAmount: refundable }
    const payload =
      kind === 'capture'
        ? await buildCapture(target, { amount: moved, ...expected }, signer)
        : kind === 'void'
          ? await buildVoid(target, signer)
          : await buildRefund(target, { amount: moved, ...expected }, signer)
    // svc's agreement to fund refunds on its own chains (plan §1.6): the pay-to address approves the operator.
    if (kind === 'refund') await onChain(() => fundRefunds(on, row, moved))

    const answer = await settleRecordedLifecycle(chain, row, payload)
    if (answer === 'chain-down') throw restarting()
    if (!answer.success)
      throw new ConflictError(
        `${what}: ${answer.errorReason ?? 'invalid_auth_capture_evm_simulation_failed'} (${answer.errorMessage ?? 'the facilitator refused it'})`,
      )
    const step: EscrowStep = { kind, amount: moved.toString(), transaction: answer.transaction, actor: 'seller' }
    const applied = await applyEscrowStep(deps.db, row, step)
    if (applied.recorded) await publishStep(applied.payment, kind, step)
    return {
      payment: paymentRecord(applied.payment, sandboxEpochOf(deps)),
      transaction: transactionRecord(applied.transaction),
    }
  }

  /** The live event of a step the seller made: payment.captured, payment.voided or payment.refunded (status 200). */
  async function publishStep(payment: EscrowPaymentRow, kind: Kind, step: EscrowStep) {
    if (!deps.events) return
    const api = await deps.db.selectFrom('apis').select('slug').where('id', '=', payment.api_id).executeTakeFirst()
    const type = kind === 'capture' ? 'payment.captured' : kind === 'void' ? 'payment.voided' : 'payment.refunded'
    deps.events.publish(
      payment.user_id,
      escrowEvent(payment, {
        type,
        api_slug: api?.slug ?? '',
        created_at: clockOf(deps).nowIso(),
        moved: step.amount,
        amount: payment.authorized,
        transaction: step.transaction,
      }),
    )
  }

  /** A chain read or send; a chain that restarts meanwhile is a 503 with Retry-After, never a 500. */
  async function onChain<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read()
    } catch (error) {
      if (deps.chain?.sandboxChain.restarting) throw restarting()
      if (error instanceof SvcError) throw error
      throw new SvcError(`the chain did not answer: ${(error as Error).message.split('\n')[0]}`, {
        status: 502,
        code: 'chain_error',
        cause: error,
      })
    }
  }

  return router
}

/**
 * svc's agreement to fund the refunds on its own chains, the Sandbox chain or a twin (plan §1.6): the pay-to address
 * allows the operator its USDC, approved by svc (Anvil's unsigned transaction) when the allowance is short of `amount`.
 */
async function fundRefunds(chain: ChainServices['sandboxChain'], row: EscrowPaymentRow, amount: bigint) {
  const allowance = await chain.client.readContract({
    address: row.asset as Address,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [row.pay_to as Address, row.operator as Address],
  })
  if (allowance < amount) await approveFor(chain, row.pay_to as Address, row.operator as Address)
}

const restarting = () => new ServiceUnavailableError(sandboxChainRestarting, { retryAfterSeconds: 1 })
const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString()

/** A payment as the control plane answers it (`old_chain`: made on an earlier Sandbox chain than the running one). */
export function paymentRecord(row: EscrowPaymentRow, epoch: string) {
  return {
    id: row.id,
    api_id: row.api_id,
    endpoint_id: row.endpoint_id,
    settlement_id: row.settlement_id,
    environment: row.environment,
    network: row.network,
    asset: row.asset,
    payer: row.payer,
    pay_to: row.pay_to,
    method: row.method,
    path: row.path,
    flow: row.flow,
    capture_mode: row.capture_mode,
    transfer_method: row.transfer_method,
    escrow: row.escrow,
    operator: row.operator,
    receiver_authorizer: row.receiver_authorizer,
    payment_info_hash: row.payment_info_hash,
    payment_info: JSON.parse(row.payment_info) as PaymentInfo,
    salt_nonce: row.salt_nonce,
    authorized: row.authorized,
    captured: row.captured,
    fees: row.fees,
    voided: row.voided,
    refunded: row.refunded,
    reclaimed: row.reclaimed,
    capturable: row.capturable,
    refundable: row.refundable,
    state: row.state,
    pre_approval_expiry: row.pre_approval_expiry,
    capture_deadline: row.capture_deadline,
    refund_deadline: row.refund_deadline,
    delivered: row.delivered !== 0,
    chain_epoch: row.chain_epoch === '' ? null : row.chain_epoch,
    old_chain: row.environment === 'development' && epoch !== '' && row.chain_epoch !== epoch,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/** One escrow transaction as the control plane answers it. */
export const transactionRecord = (row: EscrowTransactionRow) => ({
  id: row.id,
  kind: row.kind,
  amount: row.amount,
  fee_amount: row.fee_amount,
  transaction: row.transaction,
  actor: row.actor,
  created_at: row.created_at,
})
