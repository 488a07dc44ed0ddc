/**
 * `kill -9` during `svc revert` (issue 21.2): svc is killed with the chain reverted and the ledger not yet; the
 * watchdog stops Anvil (SIGTERM: it dumps on exit). The next start has the chain and the ledger agreeing.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { killAt, ledger, post, startSeeded, usedOnChain } from '../helpers/crash-at.js'
import type { SvcProcess } from '../helpers/svc-process.js'

const dirs: string[] = []
const running: SvcProcess[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Pays 1, snapshots, pays 3 more, reverts to the snapshot with svc killed at `step`, and starts svc again. */
async function crashRevertAt(step: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-revert-'))
  dirs.push(dataDir)
  const buyer = privateKeyToAccount(generatePrivateKey())
  const first = await startSeeded(running, dataDir, step)
  await post(`${first.ready.chain_manager_url}/faucet`, { address: buyer.address })
  const client = new x402Client().register(first.ready.network, new ExactEvmScheme(buyer))
  client.setSpendControls({
    allowedAssets: [{ network: first.ready.network, asset: first.ready.usdc, maxAmountPerPayment: '1000000' }],
  })
  const pay = wrapFetchWithPayment(localFetch, client)
  const paid = async () => {
    const response = await pay(`${first.ready.seed.apis[0].gateway_url}/weather/paris`)
    await response.arrayBuffer()
    expect(response.status).toBe(200)
  }
  await paid()
  const snapshot = (await (await post(`${first.ready.sandbox_control_url}/dev/snapshots`)).json()) as { id: string }
  for (let i = 0; i < 3; i++) await paid()
  expect(await usedOnChain(first, buyer.address)).toHaveLength(4)

  void post(`${first.ready.sandbox_control_url}/dev/snapshots/${snapshot.id}/revert`).catch(() => {})
  await killAt(first, dataDir, step)

  const again = await startSeeded(running, dataDir)
  const onChain = await usedOnChain(again, buyer.address)
  const recorded = (await ledger(again)).filter((row) => !row.old_chain).map((row) => row.transaction)
  return { again, onChain, recorded }
}

describe('kill -9 during `svc revert`', () => {
  test('after the chain is reverted, before the revert is recorded: undone, the ledger equals the chain', async () => {
    const { onChain, recorded } = await crashRevertAt('revert')
    expect(new Set(recorded)).toEqual(new Set(onChain))
    expect(onChain).toHaveLength(4)
  })

  test('after the revert is recorded, before the ledger is put back: finished, the ledger equals the chain', async () => {
    const { again, onChain, recorded } = await crashRevertAt('revert-recorded')
    expect(new Set(recorded)).toEqual(new Set(onChain))
    expect(onChain).toHaveLength(1)
    expect(again.stderr()).toContain('finished the revert that svc was killed in the middle of')
  })
})
