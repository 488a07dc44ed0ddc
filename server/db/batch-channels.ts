import { sql, type Kysely } from 'kysely'
import { amountChunkSums, joinAmountChunks } from './amount-sums.js'
import type { BatchChannelRow, BatchTransactionRow, BatchVoucherRow, ChannelState } from './batch-tables.js'
import type { Database, Owner } from './tables.js'

export type ChannelFilter = { apiId?: string | undefined; state?: ChannelState | undefined }

/** The owner's channels in its environment, newest first (at most `limit`). */
export function listChannels(
  db: Kysely<Database>,
  owner: Owner,
  filter: ChannelFilter,
  limit: number,
): Promise<BatchChannelRow[]> {
  let query = db
    .selectFrom('batch_channels')
    .selectAll()
    .where('user_id', '=', owner.user.id)
    .where('environment', '=', owner.environment)
  if (filter.apiId !== undefined) query = query.where('api_id', '=', filter.apiId)
  if (filter.state !== undefined) query = query.where('state', '=', filter.state)
  return query.orderBy('created_at', 'desc').orderBy('channel_id').limit(limit).execute()
}

/** One of the owner's channels (the newest chain's, when a channel id recurs on a fresh chain). */
export function findChannel(
  db: Kysely<Database>,
  owner: Owner,
  channelId: string,
): Promise<BatchChannelRow | undefined> {
  return db
    .selectFrom('batch_channels')
    .selectAll()
    .where('user_id', '=', owner.user.id)
    .where('environment', '=', owner.environment)
    .where('channel_id', '=', channelId.toLowerCase())
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/** The requests a channel paid for, newest first (at most `limit`). */
export function channelVouchers(
  db: Kysely<Database>,
  channel: BatchChannelRow,
  limit: number,
): Promise<BatchVoucherRow[]> {
  return db
    .selectFrom('batch_vouchers')
    .selectAll()
    .where('chain_epoch', '=', channel.chain_epoch)
    .where('channel_id', '=', channel.channel_id)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute()
}

/**
 * The transactions of a channel: its deposits and refunds, and its receiver's claims and settles since it opened
 * (a claim or settle covers every channel of the receiver), oldest first.
 */
export function channelTransactions(db: Kysely<Database>, channel: BatchChannelRow): Promise<BatchTransactionRow[]> {
  return db
    .selectFrom('batch_transactions')
    .selectAll()
    .where('chain_epoch', '=', channel.chain_epoch)
    .where((eb) =>
      eb.or([
        eb('channel_id', '=', channel.channel_id),
        eb.and([
          eb('channel_id', 'is', null),
          eb('receiver', '=', channel.receiver),
          eb(sql<string>`lower(token)`, '=', channel.token.toLowerCase()),
          eb('created_at', '>=', channel.created_at),
        ]),
      ]),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

/** A span of times (ISO: `from` included, `before` excluded) of all the owner's APIs or one. */
type Range = { from: string; before: string; apiId?: string | undefined }

/** The requests the owner's channels charged (their vouchers) in the range, joined to their channel. */
export function vouchersIn(db: Kysely<Database>, owner: Owner, range: Range) {
  let query = db
    .selectFrom('batch_vouchers')
    .innerJoin('batch_channels', (join) =>
      join
        .onRef('batch_channels.chain_epoch', '=', 'batch_vouchers.chain_epoch')
        .onRef('batch_channels.channel_id', '=', 'batch_vouchers.channel_id'),
    )
    .where('batch_vouchers.user_id', '=', owner.user.id)
    .where('batch_channels.environment', '=', owner.environment)
    .where('batch_vouchers.created_at', '>=', range.from)
    .where('batch_vouchers.created_at', '<', range.before)
  if (range.apiId) query = query.where('batch_vouchers.api_id', '=', range.apiId)
  return query
}

/** Channel money per UTC day, network and token: what the owner's vouchers charged (summed exactly), and how many. */
export async function dailyVoucherRevenue(
  db: Kysely<Database>,
  owner: Owner,
  range: Range,
): Promise<{ day: string; network: string; asset: string; vouchers: number; amount: bigint }[]> {
  const day = sql<string>`substr(batch_vouchers.created_at, 1, 10)`
  const rows = await vouchersIn(db, owner, range)
    .select([
      day.as('day'),
      'batch_channels.network',
      'batch_channels.token',
      sql<number>`count(*)`.as('vouchers'),
      ...amountChunkSums(db),
    ])
    .groupBy([day, 'batch_channels.network', 'batch_channels.token'])
    .execute()
  return rows.map((row) => ({
    day: row.day,
    network: row.network,
    asset: row.token,
    vouchers: Number(row.vouchers),
    amount: joinAmountChunks(row as Record<string, unknown>),
  }))
}
