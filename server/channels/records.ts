import type SQLite from 'better-sqlite3'
import { CompiledQuery, sql, type Kysely } from 'kysely'
import type { Environment } from '../../core/hosts.js'
import {
  type BatchChannelRow,
  type BatchTransactionKind,
  type BatchVouchersTable,
  connectionOf,
  type Database,
  type OwnWrites,
  runOn,
} from '../db/index.js'
import { newId } from '../ids.js'

/** A request paid from a channel. */
export type VoucherPaid = {
  chainEpoch: string
  channelId: string
  userId: string
  apiId: string
  endpointId: string
  method: string
  path: string
  amount: string
  cumulative: string
}

/** A channel transaction to record. */
export type ChannelTransaction = {
  chainEpoch: string
  kind: BatchTransactionKind
  environment: Environment
  network: string
  token: string
  receiver: string
  channelId?: string | undefined
  amount: string
  vouchers?: number | undefined
  /** A refund: the channel's balance after it. */
  balanceAfter?: string | undefined
  transaction: string
}

export type BatchRecords = {
  /** A request paid from a channel: its voucher row, the channel's count, and its seller (the first API it paid). */
  voucherPaid(paid: VoucherPaid): Promise<void>
  /**
   * A channel transaction; a deposit or refund also adds to its channel's deposited or refunded. False when it is
   * recorded already (the same kind, transaction and channel: another process recorded it first), which changes nothing.
   */
  transaction(entry: ChannelTransaction): Promise<boolean>
  /** A channel's record as it stands. */
  channel(chainEpoch: string, channelId: string): Promise<BatchChannelRow | undefined>
  /**
   * A settle of `receiver`'s claimed `token`: every channel's claimed counts as settled; answers how much it moved,
   * in all and per channel.
   */
  settled(
    chainEpoch: string,
    receiver: string,
    token: string,
  ): Promise<{ amount: string; channels: { channelId: string; amount: string }[] }>
}

const transactions = new WeakMap<SQLite.Database, SQLite.Transaction<(...writes: CompiledQuery[]) => void>>()
/** `writes` in one transaction on svc's SQLite connection (the transaction function made once per connection). */
function inOneTransaction(connection: SQLite.Database, ...writes: CompiledQuery[]): void {
  let run = transactions.get(connection)
  if (!run) {
    run = connection.transaction((...all: CompiledQuery[]) => {
      for (const write of all) runOn(connection, write)
    })
    transactions.set(connection, run)
  }
  run.immediate(...writes)
}

/**
 * svc's account of the channels (server/db/batch-tables.ts). A voucher is written on the hot path as the gateway's
 * own write (it does not empty the gateway's caches), its row and its channel's count in one transaction; the rarer
 * transactions go through Kysely.
 */
export function createBatchRecords(db: Kysely<Database>, own: OwnWrites, now: () => Date): BatchRecords {
  const channel = (chainEpoch: string, channelId: string) =>
    db
      .updateTable('batch_channels')
      .where('chain_epoch', '=', chainEpoch)
      .where('channel_id', '=', channelId.toLowerCase())

  // A voucher's two statements, compiled once: each voucher binds its values (in the order the templates name them)
  // instead of building and compiling them again. The count also names the channel's seller when it has none yet
  // (SET reads the row as it was, on either database).
  const countVoucher = channel('', '')
    .set({
      vouchers: sql`vouchers + 1`,
      updated_at: '',
      user_id: sql`case when user_id = '' then ${''} else user_id end`,
      api_id: sql`case when user_id = '' then ${''} else api_id end`,
    })
    .compile()
  const voucherRow = (paid: VoucherPaid, id: string, at: string): BatchVouchersTable => ({
    id,
    chain_epoch: paid.chainEpoch,
    channel_id: paid.channelId.toLowerCase(),
    user_id: paid.userId,
    api_id: paid.apiId,
    endpoint_id: paid.endpointId,
    method: paid.method,
    path: paid.path,
    amount: paid.amount,
    cumulative: paid.cumulative,
    created_at: at,
  })
  const sample: VoucherPaid = {
    chainEpoch: '',
    channelId: '',
    userId: '',
    apiId: '',
    endpointId: '',
    method: '',
    path: '',
    amount: '',
    cumulative: '',
  }
  const insertVoucher = db
    .insertInto('batch_vouchers')
    .values(voucherRow(sample, '', ''))
    .compile()

  return {
    async voucherPaid(paid) {
      const at = now().toISOString()
      const channelId = paid.channelId.toLowerCase()
      const count = CompiledQuery.raw(countVoucher.sql, [at, paid.userId, paid.apiId, paid.chainEpoch, channelId])
      const row = CompiledQuery.raw(insertVoucher.sql, Object.values(voucherRow(paid, newId('vch'), at)))
      // Both or neither: the voucher's row and the channel's count agree after a crash.
      const connection = connectionOf(db)
      if (connection && !connection.inTransaction) {
        own(() => inOneTransaction(connection, count, row))
        return
      }
      await db.transaction().execute(async (trx) => {
        await trx.executeQuery(count)
        await trx.executeQuery(row)
      })
    },

    async transaction(entry) {
      const at = now().toISOString()
      const channelId = entry.channelId?.toLowerCase() ?? null
      return db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('batch_transactions')
          .values({
            id: newId('ctx'),
            chain_epoch: entry.chainEpoch,
            kind: entry.kind,
            environment: entry.environment,
            network: entry.network,
            token: entry.token,
            receiver: entry.receiver.toLowerCase(),
            channel_id: channelId,
            amount: entry.amount,
            vouchers: entry.vouchers ?? 0,
            transaction: entry.transaction,
            created_at: at,
          })
          // The unique index batch_transactions_once: a transaction is recorded once.
          .onConflict((conflict) => conflict.doNothing())
          .executeTakeFirst()
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return false
        if (channelId === null || (entry.kind !== 'deposit' && entry.kind !== 'refund')) return true
        const column = entry.kind === 'deposit' ? 'deposited' : 'refunded'
        const row = await trx
          .selectFrom('batch_channels')
          .select(['deposited', 'refunded', 'spent'])
          .where('chain_epoch', '=', entry.chainEpoch)
          .where('channel_id', '=', channelId)
          .executeTakeFirst()
        if (!row) return true
        await trx
          .updateTable('batch_channels')
          .set({
            [column]: (BigInt(row[column]) + BigInt(entry.amount)).toString(),
            // A refund claims what was charged and leaves the balance it names (the scheme may have let go of the row).
            ...(entry.kind === 'refund' ? { claimed: row.spent, balance: entry.balanceAfter ?? '0' } : {}),
            updated_at: at,
          })
          .where('chain_epoch', '=', entry.chainEpoch)
          .where('channel_id', '=', channelId)
          .execute()
        return true
      })
    },

    channel: (chainEpoch, channelId) =>
      db
        .selectFrom('batch_channels')
        .selectAll()
        .where('chain_epoch', '=', chainEpoch)
        .where('channel_id', '=', channelId.toLowerCase())
        .executeTakeFirst(),

    async settled(chainEpoch, receiver, token) {
      return db.transaction().execute(async (trx) => {
        const rows = await trx
          .selectFrom('batch_channels')
          .select(['channel_id', 'claimed', 'settled'])
          .where('chain_epoch', '=', chainEpoch)
          .where('receiver', '=', receiver.toLowerCase())
          .where(sql<string>`lower(token)`, '=', token.toLowerCase())
          .execute()
        let moved = 0n
        const channels: { channelId: string; amount: string }[] = []
        for (const row of rows) {
          const gain = BigInt(row.claimed) - BigInt(row.settled)
          if (gain <= 0n) continue
          moved += gain
          channels.push({ channelId: row.channel_id, amount: gain.toString() })
          await trx
            .updateTable('batch_channels')
            .set({ settled: row.claimed, updated_at: now().toISOString() })
            .where('chain_epoch', '=', chainEpoch)
            .where('channel_id', '=', row.channel_id)
            .execute()
        }
        return { amount: moved.toString(), channels }
      })
    },
  }
}
