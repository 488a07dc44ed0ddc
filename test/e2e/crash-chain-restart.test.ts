/**
 * `kill -9` during `svc chain restart` (issue 21.1): svc is killed with the new, empty Anvil up and the chain not yet
 * loaded into it; the watchdog stops that Anvil (SIGTERM: it dumps on exit). The next start has the chain as it was.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, test } from 'vitest'
import { killAt, post, startSeeded, usdcBalance } from '../helpers/crash-at.js'
import type { SvcProcess } from '../helpers/svc-process.js'

const dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-restart-'))
const running: SvcProcess[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('kill -9 during `svc chain restart`', () => {
  test('the saved chain is intact: the next start has the balances it had', async () => {
    const holder = privateKeyToAccount(generatePrivateKey()).address
    const first = await startSeeded(running, dataDir, 'chain-restart')
    const funded = await post(`${first.ready.chain_manager_url}/faucet`, { address: holder })
    expect(funded.status).toBe(200)
    const balance = await usdcBalance(first, holder)
    expect(balance).toBeGreaterThan(0n)

    void post(`${first.ready.sandbox_control_url}/dev/chain/restart`).catch(() => {})
    await killAt(first, dataDir, 'chain-restart')

    const again = await startSeeded(running, dataDir)
    expect(await usdcBalance(again, holder)).toBe(balance)
  })
})
