/**
 * Chain epochs: a chain the data dir has not seen (here: the state reset under the kit) is recorded, the Sandbox
 * wallets are funded again on it, and settlements of the earlier chain are marked `old_chain`, not current.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { newId, nowIso } from '../../../server/ids.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import type { ChainRestartInfo } from '../../../chain/sandbox-chain.js'

let chain: ChainServices
let t: TestServer
beforeAll(async () => {
  chain = await startChainServices({ healthIntervalMs: 100 })
  t = await startTestServer({ chain })
}, 60_000)
afterAll(async () => {
  await t?.stop()
  await chain?.stop()
})

const dev = 'development'

/** Polls until `check` holds, at most `timeoutMs`. */
async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('chain epochs', () => {
  test('the running chain has an epoch, recorded in the data dir, kept by settlements', async () => {
    expect(chain.sandboxChain.epoch).toMatch(/^[0-9a-f]{16}$/)
    const rows = await t.server.database.db.selectFrom('sandbox_chain_epochs').selectAll().execute()
    expect(rows).toEqual([expect.objectContaining({ epoch: chain.sandboxChain.epoch, seq: 1, reason: 'new data dir' })])
  })

  test('a chain that comes back empty: new epoch, wallets refunded, earlier settlements marked old', async () => {
    const { jwt, userId } = await t.signup()
    const { body: wallet } = await t.call('/sandbox-wallet', { jwt, environment: dev })
    const balances = () =>
      t.call('/dev/balances', { jwt, environment: dev, body: { address: wallet.address } }).then((r) => r.body)
    await eventually('no funded wallet', balances, (b) => BigInt(b.usdc_base) > 0n)

    const before = chain.sandboxChain.epoch
    const { body: api } = await t.call('/apis', {
      jwt,
      environment: dev,
      body: {
        name: 'Epochs',
        slug: `epochs-${Date.now()}`,
        upstream_base_url: 'http://127.0.0.1:9',
        pay_to_mode: 'user_wallet',
        pay_to_address: wallet.address,
      },
    })
    // A settlement of the current chain, as the gateway records it.
    await t.server.database.db
      .insertInto('settlements')
      .values({
        id: newId('stl'),
        api_id: api.id,
        endpoint_id: null,
        user_id: userId,
        environment: dev,
        network: chain.sandboxChain.network,
        asset: chain.sandboxChain.usdc.address,
        amount: '10000',
        payer: wallet.address,
        pay_to: wallet.address,
        transaction: `0x${'ab'.repeat(32)}`,
        method: 'GET',
        path: '/x',
        created_at: nowIso(),
        chain_epoch: before,
      })
      .execute()
    const listed = async () => (await t.call('/settlements', { jwt, environment: dev })).body.settlements
    expect(await listed()).toEqual([expect.objectContaining({ chain_epoch: before, old_chain: false })])

    const restarted = new Promise<ChainRestartInfo>((resolve) => chain.sandboxChain.once('restart', resolve))
    await chain.sandboxChain.testClient.request({ method: 'anvil_reset' as never, params: [] as never })
    const info = await restarted
    expect(info.epoch).not.toBe(before)
    expect(chain.sandboxChain.epoch).toBe(info.epoch)

    // The wallet's balance went with the old chain; it is funded again on the new one.
    await eventually(
      'the wallet was not refunded on the new chain',
      balances,
      (b) => BigInt(b.usdc_base) > 0n && BigInt(b.eth_wei) > 0n,
    )
    expect(await listed()).toEqual([expect.objectContaining({ chain_epoch: before, old_chain: true })])
    const epochs = await t.server.database.db
      .selectFrom('sandbox_chain_epochs')
      .select(['epoch', 'reason'])
      .orderBy('seq')
      .execute()
    expect(epochs.at(-1)).toEqual({ epoch: info.epoch, reason: 'chain state was reset' })
  })
})
