import type { Kysely } from 'kysely'
import {
  type Database,
  type EscrowActor,
  type EscrowAmountColumn,
  type EscrowPaymentChange,
  type EscrowPaymentRow,
  type EscrowState,
  type EscrowTransactionKind,
  type EscrowTransactionRow,
  escrowDb,
  insertEscrowPayment,
  linkEscrowSettlementIn,
  recordEscrowTransaction,
  recordEscrowTransactionIn,
} from '../db/index.js'
import { newId, nowIso } from '../ids.js'

/**
 * One escrow transaction that landed, as svc records it: what it did (`kind`), what it moved (`amount`: an authorize's
 * hold, a capture's captured, a void's or a reclaim's released hold, a refund's refund), a capture's or a charge's fee,
 * its transaction hash and who made it.
 */
export type EscrowStep = {
  kind: EscrowTransactionKind
  amount: string
  feeAmount?: string | undefined
  transaction: string
  actor: EscrowActor
  /** When it was recorded (ISO). @defaultValue now */
  at?: string | undefined
}

/** A payment's amounts (atomic units, decimal strings) and its flow: what its state is derived from. */
type Amounts = Pick<EscrowPaymentRow, EscrowAmountColumn | 'flow'>

/**
 * A payment's state from its amounts (server/openapi.yaml `EscrowPaymentState`): `authorized` while something is
 * capturable; then `refunded` when everything captured went back, `charged` or `captured` when something was
 * captured, `reclaimed` when the buyer took the hold back, `voided` when it went back by a void.
 */
export function escrowStateOf(amounts: Amounts): EscrowState {
  const captured = BigInt(amounts.captured)
  if (BigInt(amounts.capturable) > 0n) return 'authorized'
  if (captured > 0n) {
    if (BigInt(amounts.refunded) >= captured) return 'refunded'
    return amounts.flow === 'authorization' ? 'charged' : 'captured'
  }
  if (BigInt(amounts.reclaimed) > 0n) return 'reclaimed'
  if (BigInt(amounts.voided) > 0n) return 'voided'
  return 'authorized'
}

const plus = (a: string, b: string) => (BigInt(a) + BigInt(b)).toString()
const minus = (a: string, b: string) => {
  const left = BigInt(a) - BigInt(b)
  return (left > 0n ? left : 0n).toString()
}

/**
 * What a step does to a payment's amounts, as the escrow does it on chain (AuthCaptureEscrow: authorize holds the
 * amount; charge captures it at once; capture moves from capturable to refundable; void and reclaim release what is
 * held; refund takes from refundable). Pure: the caller records each transaction once (escrow_transactions' unique
 * key), so a step is applied once.
 */
export function advanceEscrow(payment: Amounts, step: Pick<EscrowStep, 'kind' | 'amount' | 'feeAmount'>) {
  const amount = BigInt(step.amount).toString()
  const fee = BigInt(step.feeAmount ?? '0').toString()
  const next: Amounts = { ...payment }
  switch (step.kind) {
    case 'authorize':
      next.authorized = amount
      next.capturable = amount
      break
    case 'charge':
      next.authorized = amount
      next.captured = amount
      next.fees = fee
      next.capturable = '0'
      next.refundable = amount
      break
    case 'capture':
      next.captured = plus(next.captured, amount)
      next.fees = plus(next.fees, fee)
      next.capturable = minus(next.capturable, amount)
      next.refundable = plus(next.refundable, amount)
      break
    case 'void':
      next.voided = plus(next.voided, amount)
      next.capturable = '0'
      break
    case 'reclaim':
      next.reclaimed = plus(next.reclaimed, amount)
      next.capturable = '0'
      break
    case 'refund':
      next.refunded = plus(next.refunded, amount)
      next.refundable = minus(next.refundable, amount)
      break
  }
  const change: EscrowPaymentChange = {
    authorized: next.authorized,
    captured: next.captured,
    fees: next.fees,
    voided: next.voided,
    refunded: next.refunded,
    reclaimed: next.reclaimed,
    capturable: next.capturable,
    refundable: next.refundable,
    state: escrowStateOf(next),
  }
  return change
}

/** What recording a step did: the payment after it, the transaction's row, and whether this call wrote it. */
export type AppliedEscrowStep = { payment: EscrowPaymentRow; transaction: EscrowTransactionRow; recorded: boolean }

/**
 * Records a step of a payment, once: its transaction's row, the payment's amounts and state, and its settlement's
 * amount (captured − refunded), in one database transaction. The same step again (its chain epoch, transaction and
 * kind) changes nothing (`recorded` false), whoever records it (the gateway, the control plane, recovery, the sweep).
 */
export async function applyEscrowStep(
  db: Kysely<Database>,
  payment: Pick<EscrowPaymentRow, 'id' | 'chain_epoch'>,
  step: EscrowStep,
): Promise<AppliedEscrowStep> {
  const transaction = transactionRowOf(payment, step)
  const done = await recordEscrowTransaction(db, transaction, (current) => advanceEscrow(current, step))
  return { ...done, transaction }
}

/**
 * Records several steps of a payment in order, each once as {@link applyEscrowStep} does, in one database transaction
 * (a sync capture and the void of its rest): what each did, the last's payment the payment after them all.
 */
export function applyEscrowSteps(
  db: Kysely<Database>,
  payment: Pick<EscrowPaymentRow, 'id' | 'chain_epoch'>,
  steps: readonly EscrowStep[],
): Promise<AppliedEscrowStep[]> {
  return escrowDb(db)
    .transaction()
    .execute(async (trx) => {
      const applied: AppliedEscrowStep[] = []
      for (const step of steps) {
        const transaction = transactionRowOf(payment, step)
        const done = await recordEscrowTransactionIn(trx, transaction, (current) => advanceEscrow(current, step))
        applied.push({ ...done, transaction })
      }
      return applied
    })
}

const transactionRowOf = (
  payment: Pick<EscrowPaymentRow, 'id' | 'chain_epoch'>,
  step: EscrowStep,
): EscrowTransactionRow => ({
  id: newId('etx'),
  escrow_payment_id: payment.id,
  chain_epoch: payment.chain_epoch,
  kind: step.kind,
  amount: BigInt(step.amount).toString(),
  fee_amount: BigInt(step.feeAmount ?? '0').toString(),
  transaction: step.transaction.toLowerCase(),
  actor: step.actor,
  created_at: step.at ?? nowIso(),
})

/** A payment as the collect makes it: every column but those its steps move. */
export type NewEscrowPayment = Omit<
  EscrowPaymentRow,
  'id' | EscrowAmountColumn | 'state' | 'settlement_id' | 'created_at' | 'updated_at'
> & { created_at?: string | undefined }

/**
 * Records a collect that landed (an authorize, or the authorization flow's charge): the payment (once per chain epoch
 * and hash), the collect's step, and `settlementId`'s settlement as its record when given (its amount: captured −
 * refunded, 0 for a hold). Idempotent: a second call for the same collect changes nothing and answers the same row.
 */
export async function recordEscrowCollect(
  db: Kysely<Database>,
  collect: NewEscrowPayment,
  step: EscrowStep & { kind: 'authorize' | 'charge' },
  settlementId?: string | undefined,
): Promise<AppliedEscrowStep> {
  const at = collect.created_at ?? step.at ?? nowIso()
  // One database transaction: the payment, its settlement's link and the collect's step commit together.
  return db.transaction().execute(async (trx) => {
    const { payment } = await insertEscrowPayment(trx, {
      ...collect,
      id: newId('esc'),
      payment_info_hash: collect.payment_info_hash.toLowerCase(),
      settlement_id: null,
      authorized: '0',
      captured: '0',
      fees: '0',
      voided: '0',
      refunded: '0',
      reclaimed: '0',
      capturable: '0',
      refundable: '0',
      state: 'authorized',
      created_at: at,
      updated_at: at,
    })
    if (settlementId !== undefined && payment.settlement_id === null)
      await linkEscrowSettlementIn(escrowDb(trx), payment.id, settlementId)
    const transaction = transactionRowOf(payment, { ...step, at })
    const done = await recordEscrowTransactionIn(escrowDb(trx), transaction, (current) => advanceEscrow(current, step))
    return { ...done, transaction }
  })
}
