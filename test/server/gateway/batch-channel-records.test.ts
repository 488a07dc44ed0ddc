/**
 * The gateway's channel storage and voucher records (server/channels/storage.ts, server/channels/records.ts) on each
 * database:
 * the package's channel written, updated through the statement compiled once and let go of, its record's columns
 * following it; each voucher's row and its channel's count written together, the channel's seller being the API its
 * first voucher paid; a channel transaction recorded once (the unique index batch_transactions_once), whichever
 * process records it, the second record of it changing nothing.
 */
import type { Channel } from '@x402/evm/batch-settlement/server'
import { Migrator } from 'kysely'
import { afterEach, describe, expect, test } from 'vitest'
import { migrations, openDatabase, type OpenedDatabase } from '../../../server/db/database.js'
import type { Database } from '../../../server/db/tables.js'
import { createBatchRecords, type ChannelTransaction } from '../../../server/channels/records.js'
import { createChannelStorage } from '../../../server/channels/storage.js'
import { testDatabases, testDialects } from '../../helpers/postgres.js'

const channelId = `0x${'ab'.repeat(32)}`
const scope = {
  chainEpoch: 'e1',
  environment: 'development' as const,
  network: 'eip155:84532',
  receiver: '0x00000000000000000000000000000000000c4a01',
  withdrawDelay: 900,
}
const channel = (charged: string, withdrawRequestedAt = 0): Channel => ({
  channelId,
  channelConfig: {
    payer: '0x00000000000000000000000000000000000000Aa',
    payerAuthorizer: '0x00000000000000000000000000000000000000aA',
    receiver: scope.receiver as `0x${string}`,
    receiverAuthorizer: '0x00000000000000000000000000000000000000bb',
    token: '0x00000000000000000000000000000000000000cc',
    withdrawDelay: 900,
    salt: `0x${'00'.repeat(32)}`,
  },
  chargedCumulativeAmount: charged,
  signedMaxClaimable: charged,
  signature: '0x',
  balance: '10000',
  totalClaimed: '100',
  withdrawRequestedAt,
  refundNonce: 0,
  lastRequestTimestamp: 1,
})

describe.runIf(testDialects().includes('postgres'))('postgres, two processes', () => {
  const databases = testDatabases('postgres')
  test("vouchers on one channel through two processes' storages at once: no update lost", async () => {
    const url = await databases.url()
    const [one, two] = [await openDatabase(url), await openDatabase(url)]
    try {
      const storages = [createChannelStorage(one.db, scope), createChannelStorage(two.db, scope)]
      await storages[0]!.updateChannel(channelId, () => channel('0'))
      const charge = (current: Channel | undefined) => ({
        ...current!,
        chargedCumulativeAmount: String(BigInt(current!.chargedCumulativeAmount) + 1n),
      })
      await Promise.all(Array.from({ length: 40 }, (_, i) => storages[i % 2]!.updateChannel(channelId, charge)))
      expect((await storages[1]!.get(channelId))?.chargedCumulativeAmount).toBe('40')
    } finally {
      await one.close()
      await two.close()
    }
  })

  test("the same claim recorded by two processes at once (a manager's record and the chain's read of it): one row", async () => {
    const url = await databases.url()
    const [one, two] = [await openDatabase(url), await openDatabase(url)]
    try {
      const records = [one, two].map(({ db }) =>
        createBatchRecords(
          db,
          (write) => write(),
          () => new Date(),
        ),
      )
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => records[i % 2]!.transaction(claim)))
      expect(answers.filter(Boolean)).toHaveLength(1)
      expect(await transactionRows(one)).toEqual([{ kind: 'claim', amount: '3000', channel_id: null }])
    } finally {
      await one.close()
      await two.close()
    }
  })
})

const claim: ChannelTransaction = {
  chainEpoch: '',
  kind: 'claim',
  environment: 'production',
  network: scope.network,
  token: '0x00000000000000000000000000000000000000cc',
  receiver: scope.receiver,
  amount: '3000',
  vouchers: 3,
  transaction: `0x${'c1'.repeat(32)}`,
}

const transactionRows = ({ db }: OpenedDatabase) =>
  db
    .selectFrom('batch_transactions')
    .select(['kind', 'amount', 'channel_id'])
    .orderBy('kind')
    .orderBy('channel_id')
    .orderBy('created_at')
    .execute()

describe.each(testDialects())('%s', (dialect) => {
  const databases = testDatabases(dialect)
  let opened: OpenedDatabase | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })

  test('a channel stored, updated and let go of; vouchers counted with their seller', async () => {
    opened = await databases.open()
    const { db } = opened
    const storage = createChannelStorage(db, scope)
    const records = createBatchRecords(
      db,
      (write) => write(),
      () => new Date(),
    )
    const row = () =>
      db.selectFrom('batch_channels').selectAll().where('channel_id', '=', channelId).executeTakeFirstOrThrow()

    expect(await storage.updateChannel(channelId, () => channel('100'))).toMatchObject({ status: 'updated' })
    expect(await storage.updateChannel(channelId, (current) => current)).toMatchObject({ status: 'unchanged' })
    expect(await storage.updateChannel(channelId, (current) => ({ ...current!, ...channel('300', 5) }))).toEqual({
      channel: channel('300', 5),
      status: 'updated',
    })
    expect(await storage.get(channelId.toUpperCase().replace('0X', '0x'))).toEqual(channel('300', 5))
    expect(await row()).toMatchObject({ spent: '300', balance: '10000', claimed: '100', state: 'withdrawing' })
    expect(await storage.list()).toEqual([channel('300', 5)])

    const paid = {
      chainEpoch: 'e1',
      channelId,
      userId: 'u1',
      endpointId: 'ep',
      method: 'GET',
      path: '/x',
      amount: '100',
    }
    await records.voucherPaid({ ...paid, apiId: 'a1', cumulative: '200' })
    await records.voucherPaid({ ...paid, userId: 'u2', apiId: 'a2', cumulative: '300' })
    expect(await row()).toMatchObject({ vouchers: 2, user_id: 'u1', api_id: 'a1' })
    const vouchers = await db
      .selectFrom('batch_vouchers')
      .select(['api_id', 'cumulative'])
      .orderBy('cumulative')
      .execute()
    expect(vouchers).toEqual([
      { api_id: 'a1', cumulative: '200' },
      { api_id: 'a2', cumulative: '300' },
    ])

    expect(await storage.updateChannel(channelId, () => undefined)).toEqual({ channel: undefined, status: 'deleted' })
    expect(await storage.get(channelId)).toBeUndefined()
    expect(await row()).toMatchObject({ data: null, state: 'closed', spent: '300', vouchers: 2 })
  })

  test("a voucher's write of the claimed total it verified before a claim landed does not lower the channel's claimed", async () => {
    opened = await databases.open()
    const { db } = opened
    const storage = createChannelStorage(db, scope)
    await storage.updateChannel(channelId, () => channel('300'))
    // The claim of the three vouchers lands and is recorded; a voucher verified before it (the chain's total then,
    // 100) is written after: the chain's claimed total never goes down, and neither does the record's.
    await storage.updateChannel(channelId, (current) => ({ ...current!, totalClaimed: '300' }))
    const written = await storage.updateChannel(channelId, (current) => ({
      ...current!,
      ...channel('400'),
      totalClaimed: '100',
    }))
    expect(written).toMatchObject({
      status: 'updated',
      channel: { chargedCumulativeAmount: '400', totalClaimed: '300' },
    })
    expect(await storage.get(channelId)).toMatchObject({ chargedCumulativeAmount: '400', totalClaimed: '300' })
    expect(
      await db.selectFrom('batch_channels').select(['spent', 'claimed']).where('channel_id', '=', channelId).execute(),
    ).toEqual([{ spent: '400', claimed: '300' }])
  })

  test("a channel transaction is recorded once: a claim or deposit recorded again changes nothing; a buyer's one transaction of two channels keeps both", async () => {
    opened = await databases.open()
    const { db } = opened
    const storage = createChannelStorage(db, scope)
    const records = createBatchRecords(
      db,
      (write) => write(),
      () => new Date(),
    )
    await storage.updateChannel(channelId, () => channel('100'))
    expect(await records.transaction(claim)).toBe(true)
    expect(await records.transaction({ ...claim, amount: '9000' })).toBe(false)
    const deposit = { ...claim, chainEpoch: 'e1', kind: 'deposit' as const, channelId, amount: '10000' }
    expect(await records.transaction({ ...deposit, transaction: `0x${'d1'.repeat(32)}` })).toBe(true)
    expect(await records.transaction({ ...deposit, transaction: `0x${'d1'.repeat(32)}` })).toBe(false)
    expect((await records.channel('e1', channelId))?.deposited).toBe('10000')
    // Another chain epoch (a Sandbox chain started afresh) is another chain: the same hash is another transaction.
    expect(await records.transaction({ ...claim, chainEpoch: 'e2' })).toBe(true)
    // One multicall finalizing two channels' withdrawals: a row each.
    const withdrawn = { ...claim, kind: 'withdraw' as const, amount: '1', transaction: `0x${'e1'.repeat(32)}` }
    expect(await records.transaction({ ...withdrawn, channelId })).toBe(true)
    expect(await records.transaction({ ...withdrawn, channelId: `0x${'cd'.repeat(32)}` })).toBe(true)
    expect(await records.transaction({ ...withdrawn, channelId })).toBe(false)
    const rows = await db.selectFrom('batch_transactions').select(['chain_epoch', 'kind']).execute()
    expect(rows.map((row) => `${row.chain_epoch} ${row.kind}`).sort()).toEqual([
      ' claim',
      ' withdraw',
      ' withdraw',
      'e1 deposit',
      'e2 claim',
    ])
  })

  test('the migration leaves one of the rows a race recorded twice before it: the earliest', async () => {
    opened = await databases.open()
    const { db } = opened
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('2026_11_29_04_00_00_channel_reads')).error).toBeUndefined()
    const row = (id: string, created_at: string, amount: string): Database['batch_transactions'] => ({
      id,
      chain_epoch: '',
      kind: 'claim',
      environment: 'production',
      network: scope.network,
      token: claim.token,
      receiver: scope.receiver,
      channel_id: null,
      amount,
      vouchers: 3,
      transaction: claim.transaction,
      created_at,
    })
    await db
      .insertInto('batch_transactions')
      .values([
        row('ctx_b', '2026-12-01T00:00:02.000Z', '3000'),
        row('ctx_a', '2026-12-01T00:00:01.000Z', '3000'),
        row('ctx_c', '2026-12-01T00:00:02.000Z', '3000'),
        { ...row('ctx_d', '2026-12-01T00:00:03.000Z', '0'), transaction: '' },
        { ...row('ctx_e', '2026-12-01T00:00:03.000Z', '0'), transaction: '' },
      ])
      .execute()
    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    const left = await db.selectFrom('batch_transactions').select('id').orderBy('id').execute()
    expect(left.map((entry) => entry.id)).toEqual(['ctx_a', 'ctx_d', 'ctx_e'])
    expect(
      await createBatchRecords(
        db,
        (write) => write(),
        () => new Date(),
      ).transaction(claim),
    ).toBe(false)
  })
})
