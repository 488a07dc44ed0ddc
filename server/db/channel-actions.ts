import type { Kysely } from 'kysely'
import type { ChannelAction, ChannelActionDetail, ChannelActionStore } from '../../chain/batch-settlement/index.js'
import { processOwnerOf } from './process-owner.js'
import type { ChannelActionRow, Database } from './tables.js'

/** A pending action and the process that journaled it (null: written before actions had owners). */
export type PendingChannelAction = ChannelAction & { owner: string | null }

/** The table's row of an action journaled by `owner`. */
function rowOf(action: ChannelAction, owner: string | null): ChannelActionRow {
  const detail = action.detail
  const channelId =
    detail.kind === 'deposit' || detail.kind === 'refund'
      ? detail.channelId
      : detail.kind === 'claim'
        ? detail.claims[0]?.channelId
        : undefined
  return {
    id: action.id,
    network: action.network,
    chain_epoch: action.chainEpoch,
    kind: action.kind,
    receiver: action.receiver.toLowerCase(),
    token: action.token.toLowerCase(),
    payer: action.payer?.toLowerCase() ?? null,
    channel_id: channelId?.toLowerCase() ?? null,
    detail: JSON.stringify(detail),
    from_block: action.fromBlock,
    state: action.state,
    transaction: action.transaction,
    amount: action.amount,
    error: action.error,
    created_at: action.createdAt,
    resolved_at: action.resolvedAt,
    owner,
  }
}

/** The action a row holds. */
export function actionOf(row: ChannelActionRow): ChannelAction {
  return {
    id: row.id,
    network: row.network,
    chainEpoch: row.chain_epoch,
    kind: row.kind as ChannelAction['kind'],
    receiver: row.receiver,
    token: row.token,
    payer: row.payer,
    detail: JSON.parse(row.detail) as ChannelActionDetail,
    fromBlock: row.from_block,
    state: row.state as ChannelAction['state'],
    transaction: row.transaction,
    amount: row.amount,
    error: row.error,
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
  }
}

/** Writes an action: a new row (journaled by `owner`), or its outcome over its pending one (its owner kept). */
export async function saveChannelAction(
  db: Kysely<Database>,
  action: ChannelAction,
  owner: string | null = null,
): Promise<void> {
  const row = rowOf(action, owner)
  await db
    .insertInto('channel_actions')
    .values(row)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        state: row.state,
        transaction: row.transaction,
        amount: row.amount,
        error: row.error,
        resolved_at: row.resolved_at,
      }),
    )
    .execute()
}

/** Actions still pending (sent, or about to be, by this process or one that is gone), oldest first; `owner`'s only. */
export async function listPendingChannelActions(
  db: Kysely<Database>,
  filter: { owner?: string | undefined } = {},
): Promise<PendingChannelAction[]> {
  let query = db.selectFrom('channel_actions').selectAll().where('state', '=', 'pending')
  if (filter.owner !== undefined) query = query.where('owner', '=', filter.owner)
  const rows = await query.orderBy('created_at').execute()
  return rows.map((row) => ({ ...actionOf(row), owner: row.owner }))
}

/** A receiver's actions (all kinds, or one), newest first. */
export async function listChannelActions(
  db: Kysely<Database>,
  filter: { receiver?: string | undefined; kind?: ChannelAction['kind'] | undefined; limit?: number | undefined } = {},
): Promise<ChannelAction[]> {
  let query = db.selectFrom('channel_actions').selectAll()
  if (filter.receiver !== undefined) query = query.where('receiver', '=', filter.receiver.toLowerCase())
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind)
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit ?? 100)
    .execute()
  return rows.map(actionOf)
}

/**
 * The facilitator's channel-action journal in svc's database (given to it once the database is open): rows owned by
 * this process (server/db/process-owner.ts), so only those of a process that is gone are resolved by another.
 */
export const createSqliteChannelActionStore = (db: Kysely<Database>): ChannelActionStore => {
  const owner = processOwnerOf(db).id
  return { save: (action) => saveChannelAction(db, action, owner) }
}
