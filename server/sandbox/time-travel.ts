import { BadRequestError, ChainError, ServiceUnavailableError } from '../../core/errors.js'
import { machineClock, type Clock } from '../../core/clock.js'
import { alignChainTime } from './chain-time.js'
import { requireSandboxChain } from './require-chain.js'
import { setChainClockOffset } from '../db/index.js'
import type { SandboxDeps } from './deps.js'

/** The Sandbox's two clocks: the chain's (its latest block) and svc's own (the machine's plus the offset). */
export type SandboxTime = {
  /** The latest block's timestamp, seconds since the epoch. */
  chain_time: number
  chain_block: number
  /** svc's clock (ttl endpoints, session JWTs, the facilitator's validBefore/validAfter check), ISO 8601. */
  svc_time: string
  /** How far svc's clock is ahead of the machine's, in seconds. */
  offset_seconds: number
}

/** The most `svc time advance` moves at once: 10 years. */
export const maxAdvanceSeconds = 10 * 365 * 24 * 3600

export const clockOf = (deps: Pick<SandboxDeps, 'clock'>): Clock => deps.clock ?? machineClock

export async function getSandboxTime(deps: SandboxDeps): Promise<SandboxTime> {
  const { sandboxChain: chain } = requireSandboxChain(deps)
  const clock = clockOf(deps)
  const block = await chain.client.getBlock({ blockTag: 'latest' }).catch((error: unknown) => {
    throw new ChainError('the chain did not answer the block query', { cause: error, code: 'unreachable' })
  })
  return {
    chain_time: Number(block.timestamp),
    chain_block: Number(block.number),
    svc_time: clock.nowIso(),
    offset_seconds: clock.offsetMs / 1000,
  }
}

/**
 * Moves svc's clock and the chain's time forward by `seconds` together (the chain: an empty block that many seconds
 * later; svc: its offset, kept with the chain's epoch in the database so a restart on the same chain keeps it).
 */
export async function advanceSandboxTime(deps: SandboxDeps, seconds: number): Promise<SandboxTime> {
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > maxAdvanceSeconds)
    throw new BadRequestError(`seconds must be a whole number from 1 to ${maxAdvanceSeconds}`)
  const chain = requireSandboxChain(deps)
  if (!deps.clock) throw new ServiceUnavailableError('this server has no clock of its own to move')
  const clock = deps.clock
  const change = async () => {
    const previous = clock.offsetMs
    clock.setOffset(previous + seconds * 1000)
    try {
      await alignChainTime(chain, clock, seconds)
    } catch (error) {
      clock.setOffset(previous)
      throw new ChainError('the chain did not move its time', { cause: error })
    }
    await setChainClockOffset(deps.db, chain.sandboxChain.epoch, clock.offsetMs)
    return getSandboxTime(deps)
  }
  return deps.sandboxState ? deps.sandboxState.exclusive(change) : change()
}

/**
 * Moves svc's clock back towards the machine's: its offset becomes 0, or, when the chain's latest block is ahead of
 * the machine's time, just enough to keep svc's clock at that block. Chain time never goes back (a block after one
 * with a later timestamp breaks what tools assume of a chain, and the chain judges authorizations by it), so after
 * `svc time advance` on the same chain the offset stays until `svc revert` to a snapshot taken before the advance.
 */
export async function resetSandboxTime(deps: SandboxDeps): Promise<SandboxTime> {
  const chain = requireSandboxChain(deps)
  if (!deps.clock) throw new ServiceUnavailableError('this server has no clock of its own to move')
  const clock = deps.clock
  const change = async () => {
    const latest = await chain.sandboxChain.client.getBlock({ blockTag: 'latest' }).catch((error: unknown) => {
      throw new ChainError('the chain did not answer the block query', { cause: error, code: 'unreachable' })
    })
    const machineNow = clock.now() - clock.offsetMs
    const chainAheadMs = Number(latest.timestamp) * 1000 - machineNow
    clock.setOffset(chainAheadMs > 0 ? Math.ceil(chainAheadMs / 1000) * 1000 : 0)
    await setChainClockOffset(deps.db, chain.sandboxChain.epoch, clock.offsetMs)
    return getSandboxTime(deps)
  }
  return deps.sandboxState ? deps.sandboxState.exclusive(change) : change()
}
