import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { LRUCache } from 'lru-cache'
import { getAddress, isHex, parseAbi, parseSignature, type PublicClient } from 'viem'
import { canonicalJson } from '../../core/canonical-json.js'

/** The EIP-3009 transfer as the exact scheme simulates it for an ECDSA signature (v, r, s). */
const transferWithAuthorizationAbi = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
])

/** A prefetched simulation is used within this long, or dropped. */
const prefetchTtlMs = 2_000
/** Prefetched simulations held at most. */
const prefetchMemory = 1_024

/** The key of a contract read, as the relayer's memory of simulations has it. */
export const contractReadKey = (address: string, args: readonly unknown[] | undefined) => canonicalJson([address, args])

export type SimulationPrefetch = {
  /**
   * Starts the `transferWithAuthorization` simulation that the exact scheme's verify will ask for, so it runs on the
   * chain while the scheme recovers the signature (1.4 ms of CPU) instead of after it. Payloads it cannot read as an
   * EIP-3009 payment with an ECDSA signature are left to the scheme.
   */
  start(payload: PaymentPayload, requirements: PaymentRequirements): void
  /** The prefetched result of the read with this key (once), or undefined. */
  take(key: string): Promise<unknown> | undefined
  clear(): void
}

/**
 * Simulations started ahead of the scheme. Nothing is decided here: the scheme still makes the same call (answered
 * from here when its arguments are the ones anticipated, to the byte) and judges its outcome; a payment the scheme
 * refuses before simulating costs one `eth_call` for nothing.
 */
export function createSimulationPrefetch(client: PublicClient): SimulationPrefetch {
  const started = new LRUCache<string, Promise<unknown>>({ max: prefetchMemory, ttl: prefetchTtlMs })
  return {
    start(payload, requirements) {
      const { authorization, signature } = payload.payload as {
        authorization?: Record<string, string>
        signature?: unknown
      }
      if (!authorization || typeof signature !== 'string' || !isHex(signature) || signature.length !== 132) return
      let key: string
      let call: Parameters<PublicClient['readContract']>[0]
      try {
        const { v, yParity, r, s } = parseSignature(signature)
        const args = [
          getAddress(authorization.from!),
          getAddress(authorization.to!),
          BigInt(authorization.value!),
          BigInt(authorization.validAfter!),
          BigInt(authorization.validBefore!),
          authorization.nonce as `0x${string}`,
          Number(v ?? yParity),
          r,
          s,
        ] as const
        const address = getAddress(requirements.asset)
        key = contractReadKey(address, [...args.slice(0, 6), v ?? yParity, r, s])
        call = { address, abi: transferWithAuthorizationAbi, functionName: 'transferWithAuthorization', args }
      } catch {
        return
      }
      if (started.has(key)) return
      const result = client.readContract(call)
      result.catch(() => {})
      started.set(key, result)
    },
    take(key) {
      const result = started.get(key)
      started.delete(key)
      return result
    },
    clear: () => started.clear(),
  }
}
