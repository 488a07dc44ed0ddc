/**
 * The gateway's channel storage and voucher records (batch-channel-storage.ts, batch-records.ts) on each database:
 * the package's channel written, updated through the statement compiled once and let go of, its record's columns
 * following it; each voucher's row and its channel's count written together, the channel's seller being the API its
 * first voucher paid.
 */
import type { Channel } from '@x402/evm/batch-settlement/server'
import { afterEach, describe, expect, test } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../../server/db/database.js'
import { createBatchRecords } from '../../../server/gateway/batch-records.js'
import { createChannelStorage } from '../../../server/gateway/batch-channel-storage.js'
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
})

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
})
