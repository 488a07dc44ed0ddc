/**
 * A team Sandbox's process without the chain (svc serve --sandbox-chain shared) reads the owner's chain through the
 * owner's listener (server/cluster/chain-owner-view.ts `reader`): its reaper resolves a dead process's Sandbox journal
 * row there. Here the owner's own reaper is held off, so only the other process can resolve the row: an
 * authorization never used and past its validBefore is freed (without the owner's chain the row would be kept).
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { sandboxNetwork } from '../../../core/sandbox-usdc.js'
import { publishChainOwner } from '../../../server/db/chain-owner.js'
import { processOwnerOf } from '../../../server/db/process-owner.js'
import { newId, nowIso } from '../../../server/ids.js'
import { type RunningServer, startSvc } from '../../../server/start/index.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import { postgresAvailable, startPostgres, type TestPostgres } from '../../helpers/postgres.js'
import { addEndpoint, createApi, newSeller, sandboxAccept } from '../gateway/helpers.js'

const runs = postgresAvailable() || Boolean(process.env.CI)
let postgres: TestPostgres
let services: ChainServices
let owner: TestServer
let other: RunningServer

beforeAll(async () => {
  if (!runs) return
  ;[postgres, services] = await Promise.all([startPostgres(), startChainServices()])
  const databaseUrl = await postgres.createDatabase()
  owner = await startTestServer({ chain: services, databaseUrl, sharedChain: {}, reapEveryMs: 3_600_000 })
  const db = owner.server.database.db
  await publishChainOwner(db, {
    owner: processOwnerOf(db).id,
    url: `http://127.0.0.1:${owner.server.port}`,
    epoch: services.sandboxChain.epoch,
  })
  // The same install keys as the owner (its data dir's), as every process of one svc has.
  other = (
    await startSvc({
      mode: 'server',
      databaseUrl,
      dataDir: owner.server.dataDir,
      sharedChain: { everyMs: 100 },
      reapEveryMs: 100,
      log: () => {},
    })
  ).server
}, 120_000)
afterAll(async () => {
  await other?.stop()
  await owner?.stop()
  await services?.stop()
  await postgres?.stop()
})

describe.skipIf(!runs)("recovery on a team Sandbox's process without the chain", () => {
  test("a dead process's unused, expired authorization is freed by reading the owner's chain", async () => {
    const seller = await newSeller(owner)
    const api = await createApi(owner, seller, 'http://127.0.0.1:9')
    const endpoint = await addEndpoint(owner, seller, api.id, {
      method: 'GET',
      path_pattern: '/gone',
      accepts: [sandboxAccept(services)],
    })
    const db = other.database.db
    const row = {
      id: newId('jrn'),
      payment_id: newId('pay'),
      api_id: api.id,
      endpoint_id: endpoint.id,
      ephemeral: 0,
      user_id: seller.userId,
      environment: 'development' as const,
      network: sandboxNetwork,
      asset: services.sandboxChain.usdc.address,
      amount: '10000',
      payer: `0x${randomBytes(20).toString('hex')}`,
      pay_to: seller.payTo,
      transfer_method: 'eip3009' as const,
      nonce: `0x${randomBytes(32).toString('hex')}`,
      valid_before: String(Math.floor(Date.now() / 1000) - 60),
      method: 'GET',
      path: '/gone',
      chain_epoch: services.sandboxChain.epoch,
      settlement_id: null,
      created_at: nowIso(),
      // A process that is gone: nobody holds its liveness lock.
      owner: newId('proc'),
      from_block: null,
      state: 'settling' as const,
      channel_action: null,
    }
    await db.insertInto('settlement_journal').values(row).execute()
    await vi.waitFor(
      async () =>
        expect(await db.selectFrom('settlement_journal').select('id').where('id', '=', row.id).execute()).toEqual([]),
      { timeout: 10_000, interval: 100 },
    )
    expect(await db.selectFrom('settlements').select('id').where('api_id', '=', api.id).execute()).toEqual([])
  })
})
