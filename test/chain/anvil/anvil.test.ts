import { describe, expect, test } from 'vitest'
import { startAnvil } from '../../../chain/anvil/anvil.js'
import { resolveAnvilBinary } from '../../../chain/anvil/binary.js'
import { SvcError } from '../../../core/errors.js'
import { sandboxChainId } from '../../../core/sandbox-usdc.js'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('startAnvil (prool)', () => {
  test('on port 0: the port Anvil chose (from its banner, as prool keeps it) answers; the pid is its process', async () => {
    const anvil = await startAnvil({ watchdog: false, poolGuard: false, mining: 'auto' })
    try {
      expect(anvil.port).toBeGreaterThan(0)
      expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`)
      const response = await fetch(anvil.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      expect(await response.json()).toMatchObject({ result: `0x${sandboxChainId.toString(16)}` })
      expect(anvil.pid).toBeGreaterThan(0)
      expect(alive(anvil.pid!)).toBe(true)
    } finally {
      await anvil.stop()
    }
    expect(alive(anvil.pid!)).toBe(false)
  })

  test("an Anvil that refuses to start: one error with the binary and Anvil's reason (its stderr, from prool's error)", async () => {
    const refused = await startAnvil({
      watchdog: false,
      poolGuard: false,
      mining: 'auto',
      extraArgs: { hardfork: 'nonsense' },
    }).catch((error: Error) => error)
    // prool stops Anvil at its first stderr chunk: the reason is whole, or cut after "Error".
    expect(refused).toBeInstanceOf(SvcError)
    expect([
      `anvil failed to start (${resolveAnvilBinary()}): Error: Unknown hardfork: nonsense`,
      `anvil failed to start (${resolveAnvilBinary()}): Error`,
    ]).toContain((refused as Error).message)
  })
})
