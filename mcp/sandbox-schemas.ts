import { z } from 'zod'
import type { Fault } from '../sdk/types.js'
import { orNull } from './schemas.js'

/**
 * What the Sandbox tools (snapshots, time travel, faults) share. Their routes (/dev/…) take no credential but answer
 * direct callers on this machine, on the Sandbox control plane, only: with a svc_live_ key or a svc elsewhere they
 * refuse, and the tool's error result carries the route's own message (server/openapi.yaml is the authority).
 */
export const sandboxNeeds = 'any scopes, for the local Sandbox only: a svc_sandbox_ key and svc running on this machine'

export const snapshotOutput = z.looseObject({
  id: z.string(),
  created_at: z.string(),
  chain_block: z.number(),
})

export const sandboxTimeOutput = z.looseObject({
  chain_time: z.number(),
  chain_block: z.number(),
  svc_time: z.string(),
  offset_seconds: z.number(),
})

export const faultOutput = z.looseObject({
  id: z.string(),
  kind: z.enum(['verify', 'settle', 'upstream']),
  reason: orNull(z.string(), 'no reason (an upstream fault, or a settle delay only)'),
  delay_ms: orNull(z.number(), 'no delay'),
  status: orNull(z.number(), 'not an upstream status'),
  drop: z.boolean(),
  api: orNull(z.string(), 'every API'),
  times: orNull(z.number(), 'until cleared'),
  remaining: orNull(z.number(), 'until cleared'),
  hits: z.number(),
  created_at: z.string(),
})

/** "3600 s ahead of the machine's", or "the machine's time" without an offset. */
export const describeOffset = (seconds: number) =>
  seconds === 0 ? "the machine's time" : `${seconds} s ahead of the machine's`

/** The chain's and svc's clocks in one sentence. */
export function describeTime(time: z.input<typeof sandboxTimeOutput>): string {
  const chain = new Date(time.chain_time * 1000).toISOString()
  return `The chain is at ${chain} (block ${time.chain_block}); svc's clock is ${time.svc_time} (${describeOffset(time.offset_seconds)}).`
}

/** A fault in one line: its id, what it does, where, and how many strikes are left. */
export function describeFault(fault: Fault): string {
  const effect =
    fault.kind === 'upstream'
      ? fault.drop
        ? 'the upstream drops the connection'
        : fault.status !== null
          ? `the upstream answers ${fault.status}`
          : `the upstream answers ${fault.delay_ms} ms later`
      : [
          fault.reason !== null ? `${fault.kind} answers ${fault.reason}` : '',
          fault.delay_ms !== null ? `settles ${fault.delay_ms} ms later` : '',
        ]
          .filter(Boolean)
          .join(', ')
  const where = fault.api ? `API ${fault.api}` : 'every API'
  const left = fault.remaining === null ? 'until cleared' : `${fault.remaining} of ${fault.times} strikes left`
  return `${fault.id}: ${effect}; ${where}; ${left}; ${fault.hits} hits`
}
