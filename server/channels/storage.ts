import { CompiledQuery, type Kysely } from 'kysely'
import type { Channel, ChannelStorage, ChannelUpdateResult } from '@x402/evm/batch-settlement/server'
import type { Environment } from '../../core/hosts.js'
import { type BatchChannelsTable, connectionOf, type Database, forUpdate, type OwnWrites, runOn } from '../db/index.js'

/** The channels one server scheme holds: a receiver's, with one withdraw delay, on one chain epoch. */
export type ChannelScope = {
  chainEpoch: string
  environment: Environment
  network: string
  /** Lowercase. */
  receiver: string
  withdrawDelay: number
}

type Stored = { data: string | null }

/**
 * The package's `ChannelStorage` on svc's database (table `batch_channels`), for one {@link ChannelScope}.
 * `updateChannel` is atomic: on svc's SQLite connection it reads, calls `update` and writes in one synchronous
 * transaction (nothing else runs on the connection meanwhile); inside a Kysely transaction, or on another database,
 * it goes through a Kysely transaction (on PostgreSQL the row read `FOR UPDATE`: processes sharing the database take
 * turns on a channel). A channel the scheme deletes (a refund emptied it) keeps its row as svc's
 * record: `data` null and state `closed`. The record's columns (balance, spent, claimed, state) follow `data`.
 */
export function createChannelStorage(
  db: Kysely<Database>,
  scope: ChannelScope,
  own: OwnWrites = (write) => write(),
  now: () => Date = () => new Date(),
): ChannelStorage {
  const connection = connectionOf(db)
  const lockRows = forUpdate(db)
  const byId = (id: string) =>
    db
      .selectFrom('batch_channels')
      .select('data')
      .where('chain_epoch', '=', scope.chainEpoch)
      .where('channel_id', '=', id)
  const listQuery = db
    .selectFrom('batch_channels')
    .select('data')
    .where('chain_epoch', '=', scope.chainEpoch)
    .where('receiver', '=', scope.receiver)
    .where('withdraw_delay', '=', scope.withdrawDelay)
    .where('data', 'is not', null)
    .orderBy('channel_id')
  const selectOne = connection?.prepare(byId('').compile().sql)
  const listCompiled = listQuery.compile()
  const selectAll = connection?.prepare(listCompiled.sql)

  /** The row's columns for `next` (svc's record follows the package's). */
  const columns = (next: Channel | undefined) =>
    next
      ? {
          data: JSON.stringify(next),
          balance: next.balance,
          spent: next.chargedCumulativeAmount,
          claimed: next.totalClaimed,
          state: next.withdrawRequestedAt > 0 ? ('withdrawing' as const) : ('open' as const),
          updated_at: now().toISOString(),
        }
      : { data: null, state: 'closed' as const, updated_at: now().toISOString() }

  const insertRow = (channelId: string, next: Channel): BatchChannelsTable => ({
    chain_epoch: scope.chainEpoch,
    channel_id: channelId,
    user_id: '',
    api_id: '',
    environment: scope.environment,
    network: scope.network,
    token: next.channelConfig.token,
    payer: next.channelConfig.payer.toLowerCase(),
    receiver: scope.receiver,
    withdraw_delay: scope.withdrawDelay,
    deposited: '0',
    settled: '0',
    refunded: '0',
    withdrawn: '0',
    vouchers: 0,
    created_at: now().toISOString(),
    ...columns(next),
    balance: next.balance,
    spent: next.chargedCumulativeAmount,
    claimed: next.totalClaimed,
  })

  const parse = (row: Stored | undefined): Channel | undefined =>
    row?.data ? (JSON.parse(row.data) as Channel) : undefined

  /**
   * The update of a channel's row, compiled once: each write binds its values (the columns' in `columns`' order, then
   * the epoch and id), instead of building and compiling the same statement for every voucher.
   */
  const updateTemplate = db
    .updateTable('batch_channels')
    .set(columns({ balance: '0', chargedCumulativeAmount: '0', totalClaimed: '0', withdrawRequestedAt: 0 } as Channel))
    .where('chain_epoch', '=', scope.chainEpoch)
    .where('channel_id', '=', '')
    .compile()
  const updateRow = (channelId: string, next: Channel): CompiledQuery =>
    CompiledQuery.raw(updateTemplate.sql, [...Object.values(columns(next)), scope.chainEpoch, channelId])

  /** What to write for `next` given what was stored; undefined: nothing. */
  function change(
    channelId: string,
    stored: Stored | undefined,
    current: Channel | undefined,
    next: Channel | undefined,
  ): { result: ChannelUpdateResult; write?: CompiledQuery } {
    if (next === current) return { result: { channel: current, status: 'unchanged' } }
    if (!next) {
      if (!current) return { result: { channel: undefined, status: 'unchanged' } }
      return {
        result: { channel: undefined, status: 'deleted' },
        write: db
          .updateTable('batch_channels')
          .set(columns(undefined))
          .where('chain_epoch', '=', scope.chainEpoch)
          .where('channel_id', '=', channelId)
          .compile(),
      }
    }
    // A channel's claimed total never goes down on the chain: a voucher verified before a claim landed writes the
    // total it read then, after the claim's record raised it (a settle would count what it claimed as not claimed).
    if (
      current &&
      next.totalClaimed !== current.totalClaimed &&
      BigInt(next.totalClaimed) < BigInt(current.totalClaimed)
    )
      next = { ...next, totalClaimed: current.totalClaimed }
    const result: ChannelUpdateResult = { channel: next, status: 'updated' }
    if (stored === undefined)
      return { result, write: db.insertInto('batch_channels').values(insertRow(channelId, next)).compile() }
    return { result, write: updateRow(channelId, next) }
  }

  const atomic = connection?.transaction(
    (channelId: string, update: (current: Channel | undefined) => Channel | undefined) => {
      const stored = selectOne!.get(scope.chainEpoch, channelId) as Stored | undefined
      const current = parse(stored)
      const { result, write } = change(channelId, stored, current, update(current))
      if (write) runOn(connection!, write)
      return result
    },
  )

  return {
    async get(channelId) {
      const id = channelId.toLowerCase()
      if (selectOne && !connection!.inTransaction)
        return parse(selectOne.get(scope.chainEpoch, id) as Stored | undefined)
      return parse(await byId(id).executeTakeFirst())
    },
    async list() {
      const rows =
        selectAll && !connection!.inTransaction
          ? (selectAll.all(...listCompiled.parameters) as Stored[])
          : await listQuery.execute()
      return rows.map((row) => JSON.parse(row.data!) as Channel)
    },
    async updateChannel(channelId, update) {
      const id = channelId.toLowerCase()
      if (atomic && !connection!.inTransaction) return own(() => atomic.immediate(id, update))
      return db.transaction().execute(async (trx) => {
        const read = trx
          .selectFrom('batch_channels')
          .select('data')
          .where('chain_epoch', '=', scope.chainEpoch)
          .where('channel_id', '=', id)
        // PostgreSQL: the row is locked until the write, or two processes' vouchers on one channel would both read
        // the same state and one update would be lost (read committed lets both reads through).
        const stored = await lockRows(read).executeTakeFirst()
        const current = parse(stored)
        const { result, write } = change(id, stored, current, update(current))
        if (write) await trx.executeQuery(write)
        return result
      })
    },
  }
}
