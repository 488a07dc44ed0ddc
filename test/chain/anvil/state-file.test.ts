/** With a state file the chain survives a restart of the kit; `freshChain` starts it over (a new epoch). */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { startChainServices } from '../../../chain/services.js'
import { newAccount } from '../../helpers/payments.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-chain-state-'))
const statePath = join(dir, 'chain', 'state.json')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('chain state', () => {
  test('kept across a restart: balances, contracts and the epoch; a fresh chain starts over', async () => {
    const holder = newAccount().address
    const first = await startChainServices({ statePath })
    await first.manager.fund(holder, 'usdc', '12.5')
    const epoch = first.sandboxChain.epoch
    await first.stop()
    expect(existsSync(statePath)).toBe(true)

    const again = await startChainServices({ statePath })
    try {
      expect(again.sandboxChain.epoch).toBe(epoch)
      expect(BigInt((await again.manager.balances(holder)).usdc_base)).toBe(12_500_000n)
      // The token reloaded with the state is the kit's own: the faucet still mints.
      await again.manager.fund(holder, 'usdc', '1')
      expect(BigInt((await again.manager.balances(holder)).usdc_base)).toBe(13_500_000n)
    } finally {
      await again.stop()
    }

    const fresh = await startChainServices({ statePath, freshChain: true })
    try {
      expect(fresh.sandboxChain.epoch).not.toBe(epoch)
      expect(BigInt((await fresh.manager.balances(holder)).usdc_base)).toBe(0n)
    } finally {
      await fresh.stop()
    }
  })
})
