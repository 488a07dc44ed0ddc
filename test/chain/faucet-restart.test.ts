/**
 * Faucet calls in flight while `svc chain restart` runs (issue 21.5): each one answers, funds its address once, and
 * leaves nothing in the pool to execute later (mints with the old chain's nonces); the minter's nonce is read again.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { newAccount } from '../helpers/payments.js'

let services: ChainServices
beforeAll(async () => {
  services = await startChainServices()
})
afterAll(() => services?.stop())

const faucet = (address: string) =>
  fetch(`${services.chainManagerUrl}/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address, asset: 'usdc', amount: '7' }),
  })

const usdcOf = async (address: `0x${string}`) => BigInt((await services.manager.balances(address)).usdc_base)

describe('faucet calls during a chain restart', () => {
  test('every call answers 200 and funds once; nothing is left in the pool to land later', async () => {
    const during = Array.from({ length: 24 }, () => newAccount().address)
    const restarted = services.sandboxChain.restartKeepingState()
    // Spread over the restart: some reach the old Anvil, some the new one before it holds the chain.
    const calls = during.map(async (address, i) => {
      if (i % 2) await new Promise((resolve) => setImmediate(resolve))
      if (i % 3 === 0) await restarted.catch(() => {})
      const response = await faucet(address)
      return { status: response.status, body: await response.text() }
    })
    await restarted
    const answers = await Promise.all(calls)
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([])

    // Later faucet calls would carry stale mints left in the pool to the chain.
    for (let i = 0; i < 12; i++) expect((await faucet(newAccount().address)).status).toBe(200)
    for (const address of during) expect(await usdcOf(address)).toBe(7_000_000n)
    const pool = (await services.sandboxChain.client.request({ method: 'txpool_status' as never })) as {
      pending: string
      queued: string
    }
    expect({ pending: Number(pool.pending), queued: Number(pool.queued) }).toEqual({ pending: 0, queued: 0 })
  })
})
