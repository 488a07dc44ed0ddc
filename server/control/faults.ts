import { Router, type Request } from 'express'
import { z } from 'zod'
import type { Fault } from '../../chain/faults/book.js'
import { BadRequestError, NotFoundError, ServiceUnavailableError } from '../../core/errors.js'
import { exactEvmReasons, isExactEvmReason } from '../../core/fault-reasons.js'
import { cutText, echoedValueLimit, param, parseBody } from '../../core/http.js'
import { slugExists } from '../db/apis.js'
import type { ServerDeps } from '../deps.js'
import { assertLocalSandboxCaller } from './local-sandbox.js'
import { requireSandboxChain } from '../sandbox/require-chain.js'

/** The longest delay a fault may add (10 minutes). */
const maxDelayMs = 600_000

const faultSchema = z.strictObject({
  kind: z.enum(['verify', 'settle', 'upstream'], { error: 'must be "verify", "settle" or "upstream"' }),
  reason: z.string().max(200).optional(),
  delay_ms: z.number().int().min(1).max(maxDelayMs).optional(),
  status: z
    .number()
    .int()
    .min(400, { error: 'must be an HTTP error status (400-599)' })
    .max(599, { error: 'must be an HTTP error status (400-599)' })
    .optional(),
  drop: z.literal(true, { error: 'must be true (leave it out otherwise)' }).optional(),
  api: z.string().min(1).max(63).optional(),
  times: z.number().int().min(1).max(1_000_000).optional(),
})

/** The one effect each kind takes: what is missing or out of place is a 400 naming it. */
function checkEffect(input: z.infer<typeof faultSchema>): void {
  const { kind, reason, delay_ms: delay, status, drop } = input
  if (reason !== undefined && !isExactEvmReason(reason))
    throw new BadRequestError(
      `reason: "${cutText(reason, echoedValueLimit)}" is not a reason of the exact scheme (${exactEvmReasons.length} are: see \`svc fault reasons\`)`,
    )
  if (kind === 'verify') {
    if (reason === undefined) throw new BadRequestError('reason: a verify fault needs the x402 reason to answer')
    if (delay !== undefined || status !== undefined || drop)
      throw new BadRequestError('a verify fault takes a reason only')
  }
  if (kind === 'settle') {
    if (reason === undefined && delay === undefined)
      throw new BadRequestError('a settle fault needs a reason, a delay_ms, or both')
    if (status !== undefined || drop) throw new BadRequestError('a settle fault takes a reason and/or a delay_ms only')
  }
  if (kind === 'upstream') {
    if (reason !== undefined) throw new BadRequestError('reason: an upstream fault takes status, delay_ms or drop')
    const effects = [status !== undefined, delay !== undefined, drop === true].filter(Boolean).length
    if (effects !== 1) throw new BadRequestError('an upstream fault takes exactly one of status, delay_ms and drop')
  }
}

/** A fault as the control plane answers it. */
export function faultRecord(fault: Fault) {
  return {
    id: fault.id,
    kind: fault.kind,
    reason: fault.reason,
    delay_ms: fault.delayMs,
    status: fault.status,
    drop: fault.drop,
    api: fault.api,
    times: fault.times,
    remaining: fault.remaining,
    hits: fault.hits,
    created_at: fault.createdAt,
  }
}

/**
 * Fault injection and the chain's restart (`svc fault …`, `svc chain restart`): local Sandbox callers only (see
 * local-sandbox.ts); 503 without a chain.
 */
export function createFaultRoutes(deps: ServerDeps): Router {
  const router = Router()
  const chainOf = (req: Request, what: string) => {
    assertLocalSandboxCaller(req, deps, what)
    // The fault book is svc's, and concurrent restarts share one: they answer while the chain restarts.
    return requireSandboxChain(deps, { whileRestarting: true })
  }
  const faults = 'faults are changed'

  router.get('/dev/faults', async (req, res) => {
    const faults = await chainOf(req, 'faults are read').faults.list()
    res.json({ faults: faults.map(faultRecord), reasons: exactEvmReasons })
  })

  router.post('/dev/faults', async (req, res) => {
    const chain = chainOf(req, faults)
    const input = parseBody(faultSchema, req.body)
    checkEffect(input)
    if (input.api !== undefined && !(await slugExists(deps.db, 'development', input.api)))
      throw new NotFoundError(`no Sandbox API has the slug "${cutText(input.api, echoedValueLimit)}"`)
    const fault = await chain.faults.add({
      kind: input.kind,
      reason: input.reason,
      delayMs: input.delay_ms,
      status: input.status,
      drop: input.drop,
      api: input.api,
      times: input.times,
    })
    res.status(201).json(faultRecord(fault))
  })

  router.delete('/dev/faults', async (req, res) => {
    res.json({ cleared: await chainOf(req, faults).faults.clear() })
  })

  router.delete('/dev/faults/:faultId', async (req, res) => {
    const id = param(req.params.faultId)
    const cleared = await chainOf(req, faults).faults.clear(id)
    if (cleared === 0) throw new NotFoundError(`no fault ${cutText(id, echoedValueLimit)} is in force`)
    res.json({ cleared })
  })

  router.post('/dev/chain/restart', async (req, res) => {
    const chain = chainOf(req, 'the chain is restarted')
    // Every chain svc runs comes back, as snapshots and time travel act on them all: the Sandbox chain and its twins.
    const chains = [chain.sandboxChain, ...chain.twins.map((twin) => twin.chain)]
    const restarts = await Promise.allSettled(chains.map((each) => each.restartKeepingState()))
    const failed = restarts.find((result) => result.status === 'rejected')
    if (failed) {
      const error = failed.reason as Error | undefined
      throw new ServiceUnavailableError(
        `the chain could not be restarted: ${cutText(String(error?.message ?? error).split('\n')[0]!, echoedValueLimit)}`,
        { cause: error },
      )
    }
    const answers = await Promise.all(
      chains.map(async (each, index) => ({
        rpc_url: each.rpcUrl,
        ms: Math.round((restarts[index] as PromiseFulfilledResult<{ ms: number }>).value.ms),
        block_number: Number(await each.client.getBlockNumber()),
      })),
    )
    const [sandbox, ...twins] = answers as [(typeof answers)[number], ...typeof answers]
    res.json({
      restarted: true,
      ...sandbox,
      twins: twins.map((twin, index) => ({ name: chain.twins[index]!.spec.name, ...twin })),
    })
  })

  return router
}
