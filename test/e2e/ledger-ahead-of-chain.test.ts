/**
 * Recovery in both directions (issue 21.2): a chain that comes back older than the ledger (here: the previous saved
 * copy put in place of the last one) leaves settlements the chain lacks; the next start marks them `old_chain` and
 * says so, instead of listing transactions that do not exist.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { ledger, post, startSeeded, usedOnChain } from '../helpers/crash-at.js'
import type { SvcProcess } from '../helpers/svc-process.js'

const dataDir = mkdtempSync(join(tmpdir(), 'svc-ledger-ahead-'))
const running: SvcProcess[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const buyer = privateKeyToAccount(generatePrivateKey())

async function pay(svc: SvcProcess, times: number) {
  const client = new x402Client().register(svc.ready.network, new ExactEvmScheme(buyer))
  client.setSpendControls({
    allowedAssets: [{ network: svc.ready.network, asset: svc.ready.usdc, maxAmountPerPayment: '1000000' }],
  })
  const paying = wrapFetchWithPayment(localFetch, client)
  for (let i = 0; i < times; i++) {
    const response = await paying(`${svc.ready.seed.apis[0].gateway_url}/weather/paris`)
    await response.arrayBuffer()
    expect(response.status).toBe(200)
  }
}

describe('a chain older than the ledger', () => {
  test('the settlements it lacks are marked old_chain at the next start, and the log says so', async () => {
    const first = await startSeeded(running, dataDir)
    await post(`${first.ready.chain_manager_url}/faucet`, { address: buyer.address })
    await pay(first, 1)
    await first.stop()
    const second = await startSeeded(running, dataDir)
    await pay(second, 2)
    await second.stop()
    // The chain as it was after the first run (the copy the second run's save kept).
    const chainDir = join(dataDir, 'chain')
    copyFileSync(join(chainDir, 'state.prev.json'), join(chainDir, 'state.json'))

    const third = await startSeeded(running, dataDir)
    const onChain = await usedOnChain(third, buyer.address)
    expect(onChain).toHaveLength(1)
    const rows = await ledger(third)
    expect(rows).toHaveLength(3)
    const current = rows.filter((row) => !row.old_chain).map((row) => row.transaction)
    expect(current).toEqual(onChain)
    expect(third.stderr()).toContain('2 settlement(s) in the ledger are not on the chain')
  })
})
