import type { Kysely } from 'kysely'
import type { Address, Hex } from 'viem'
import type { EscrowAction, EscrowActionKind, EscrowActionStore } from '../../chain/auth-capture/index.js'
import type { PaymentInfo } from '../../core/auth-capture/types.js'
import { processOwnerOf } from './process-owner.js'
import type { EscrowActionRow } from './escrow-tables.js'
import type { Database } from './tables.js'

/** A pending action and the process that journaled it (null: unknown). */
export type PendingEscrowAction = EscrowAction & { owner: string | null }

function rowOf(action: EscrowAction, owner: string | null): EscrowActionRow {
  return {
    id: action.id,
    network: action.network,
    chain_epoch: action.chainEpoch,
    kind: action.kind,
    payment_info_hash: action.paymentInfoHash.toLowerCase(),
    escrow: action.escrow,
    operator: action.operator,
    payer: action.payer.toLowerCase(),
    receiver: action.receiver.toLowerCase(),
    token: action.token.toLowerCase(),
    payment_info: JSON.stringify(action.paymentInfo),
    requested: action.requested,
    from_block: action.fromBlock,
    state: action.state,
    transaction: action.transaction,
    funding_transaction: action.fundingTransaction,
    amount: action.amount,
    error: action.error,
    created_at: action.createdAt,
    resolved_at: action.resolvedAt,
    owner,
  }
}

/** The action a row holds. */
export function escrowActionOf(row: EscrowActionRow): EscrowAction {
  return {
    id: row.id,
    network: row.network,
    chainEpoch: row.chain_epoch,
    kind: row.kind as EscrowActionKind,
    paymentInfoHash: row.payment_info_hash as Hex,
    escrow: row.escrow as Address,
    operator: row.operator as Address,
    payer: row.payer as Address,
    receiver: row.receiver as Address,
    token: row.token as Address,
    paymentInfo: JSON.parse(row.payment_info) as PaymentInfo,
    requested: row.requested,
    fromBlock: row.from_block,
    state: row.state as EscrowAction['state'],
    transaction: row.transaction,
    fundingTransaction: row.funding_transaction,
    amount: row.amount,
    error: row.error,
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
  }
}

/** Writes an action: a new row (journaled by `owner`), or its outcome over its pending one (its owner kept). */
export async function saveEscrowAction(
  db: Kysely<Database>,
  action: EscrowAction,
  owner: string | null = null,
): Promise<void> {
  const row = rowOf(action, owner)
  await db
    .insertInto('escrow_actions')
    .values(row)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        state: row.state,
        transaction: row.transaction,
        funding_transaction: row.funding_transaction,
        amount: row.amount,
        error: row.error,
        resolved_at: row.resolved_at,
      }),
    )
    .execute()
}

/** Actions still pending, oldest first; `owner`'s only when given. */
export async function listPendingEscrowActions(
  db: Kysely<Database>,
  filter: { owner?: string | undefined } = {},
): Promise<PendingEscrowAction[]> {
  let query = db.selectFrom('escrow_actions').selectAll().where('state', '=', 'pending')
  if (filter.owner !== undefined) query = query.where('owner', '=', filter.owner)
  const rows = await query.orderBy('created_at').orderBy('id').execute()
  return rows.map((row) => ({ ...escrowActionOf(row), owner: row.owner }))
}

/** The actions of one payment (its hash), oldest first. */
export async function listEscrowActions(db: Kysely<Database>, paymentInfoHash: string): Promise<EscrowAction[]> {
  const rows = await db
    .selectFrom('escrow_actions')
    .selectAll()
    .where('payment_info_hash', '=', paymentInfoHash.toLowerCase())
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return rows.map(escrowActionOf)
}

/** Whether an action names `transaction` as its refund's funding. */
export async function escrowActionFundedBy(db: Kysely<Database>, transaction: string): Promise<boolean> {
  const row = await db
    .selectFrom('escrow_actions')
    .select('id')
    .where('funding_transaction', '=', transaction)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * The facilitator's escrow-action journal in svc's database (given to it once the database is open): rows owned by
 * this process, so only those of a process that is gone are resolved by another.
 */
export const createEscrowActionStore = (db: Kysely<Database>): EscrowActionStore => {
  const owner = processOwnerOf(db).id
  return { save: (action) => saveEscrowAction(db, action, owner) }
}
