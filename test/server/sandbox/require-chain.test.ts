import { describe, expect, test } from 'vitest'
import type { ChainServices } from '../../../chain/services.js'
import { sandboxChainNotRunning, sandboxChainRestarting } from '../../../core/errors.js'
import { requireSandboxChain } from '../../../server/sandbox/require-chain.js'

// The one guard of whatever needs the Sandbox chain (time travel, snapshots, faults, the wallet and chain helper
// routes): its two 503s. The routes' own tests reach it over HTTP (sandbox-wallet.test.ts: no chain).
const chainThatIs = (restarting: boolean) => ({ sandboxChain: { restarting } }) as unknown as ChainServices

describe('requireSandboxChain', () => {
  test('without a chain: 503 with the one message', () => {
    expect(() => requireSandboxChain({})).toThrowError(
      expect.objectContaining({ status: 503, code: 'unavailable', message: sandboxChainNotRunning }),
    )
    expect(() => requireSandboxChain({ chain: undefined }, { whileRestarting: true })).toThrowError(
      sandboxChainNotRunning,
    )
  })

  test('a restarting chain: 503 "retry in a moment", unless the caller can work while it restarts', () => {
    const restarting = chainThatIs(true)
    expect(() => requireSandboxChain({ chain: restarting })).toThrowError(
      expect.objectContaining({ status: 503, message: sandboxChainRestarting }),
    )
    expect(requireSandboxChain({ chain: restarting }, { whileRestarting: true })).toBe(restarting)
    const running = chainThatIs(false)
    expect(requireSandboxChain({ chain: running })).toBe(running)
  })

  test('the messages, as callers and the README read them', () => {
    expect([sandboxChainNotRunning, sandboxChainRestarting]).toEqual([
      'the Sandbox chain is not running (start svc with `svc up`)',
      'the Sandbox chain is restarting: retry in a moment',
    ])
  })
})
