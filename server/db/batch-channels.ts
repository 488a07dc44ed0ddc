import { sql, type Kysely } from 'kysely'
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
