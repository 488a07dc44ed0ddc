import { Router } from 'express'
import { z } from 'zod'
import type { Fault } from '../../chain/faults/index.js'
import { BadRequestError, NotFoundError, ServiceUnavailableError } from '../../core/errors.js'
import { exactEvmReasons, isExactEvmReason } from '../../core/fault-reasons.js'
import { cutText, echoedValueLimit, param, parseBody } from '../../core/http.js'
import { faultRecord, findOwnedApi, listApis, slugExists } from '../db/index.js'
import type { ServerDeps } from '../deps.js'
import { type Authenticate, type SandboxCaller, sandboxCallerOf, sandboxOwnerOf } from './sandbox-caller.js'
import { localDevConfig, requireSandboxChain } from '../sandbox/index.js'

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

/**
 * Fault injection and the chain's restart (`svc fault …`, `svc chain restart`); 503 without a chain. The Sandbox's
 * owner (sandbox-caller.ts) acts on every fault; a tenant (a seller's credential) on its own APIs' faults only: it
 * names one of its APIs, sees and clears only those, and another's API or fault is a 404, as if it did not exist.
 * The chain's restart is the owner's alone, and every seller's event stream is told who did it.
 */
export function createFaultRoutes(deps: ServerDeps, authenticate: Authenticate): Router {
  const router = Router()
  // The fault book is svc's, and concurrent restarts share one: they answer while the chain restarts.
  const chain = () => requireSandboxChain(deps, { whileRestarting: true })
  /** The faults the caller may see: all of them for the owner, its own APIs' for a tenant. */
  const visible = async (caller: SandboxCaller): Promise<Fault[]> => {
    const faults = await chain().faults.list()
    if (caller.owner) return faults
    const own = new Set((await listApis(deps.db, caller.principal)).map((api) => api.slug))
    return faults.filter((fault) => fault.api !== null && own.has(fault.api))
  }
  const faults = 'faults are changed'

  router.get('/dev/faults', async (req, res) => {
    const caller = await sandboxCallerOf(req, deps, authenticate, 'faults are read')
    res.json({ faults: (await visible(caller)).map(faultRecord), reasons: exactEvmReasons })
  })

  router.post('/dev/faults', async (req, res) => {
    const caller = await sandboxCallerOf(req, deps, authenticate, faults)
    const book = chain().faults
    const input = parseBody(faultSchema, req.body)
    checkEffect(input)
    let api = input.api
    if (!caller.owner) {
      if (api === undefined)
        throw new BadRequestError(
          "api: a seller's fault names one of its Sandbox APIs (a fault on every API is the admin's)",
        )
      api = (await findOwnedApi(deps.db, caller.principal, api)).slug
    } else if (api !== undefined && !(await slugExists(deps.db, 'development', api)))
      throw new NotFoundError(`no Sandbox API has the slug "${cutText(api, echoedValueLimit)}"`)
    const fault = await book.add({
      kind: input.kind,
      reason: input.reason,
      delayMs: input.delay_ms,
      status: input.status,
      drop: input.drop,
      api,
      times: input.times,
    })
    res.status(201).json(faultRecord(fault))
  })

  router.delete('/dev/faults', async (req, res) => {
    const caller = await sandboxCallerOf(req, deps, authenticate, faults)
    if (caller.owner) return void res.json({ cleared: await chain().faults.clear() })
    let cleared = 0
    for (const fault of await visible(caller)) cleared += await chain().faults.clear(fault.id)
    res.json({ cleared })
  })

  router.delete('/dev/faults/:faultId', async (req, res) => {
    const caller = await sandboxCallerOf(req, deps, authenticate, faults)
    const id = param(req.params.faultId)
    const mine = (await visible(caller)).some((fault) => fault.id === id)
    const cleared = mine ? await chain().faults.clear(id) : 0
    if (cleared === 0) throw new NotFoundError(`no fault ${cutText(id, echoedValueLimit)} is in force`)
    res.json({ cleared })
  })

  router.post('/dev/chain/restart', async (req, res) => {
    const actor = await sandboxOwnerOf(req, deps, authenticate, 'the chain is restarted')
    const running = chain()
    // Every chain svc runs comes back, as snapshots and time travel act on them all: the Sandbox chain and its twins.
    const chains = [running.sandboxChain, ...running.twins.map((twin) => twin.chain)]
    const restarts = await Promise.allSettled(chains.map((each) => each.restartKeepingState()))
    const failed = restarts.find((result) => result.status === 'rejected')
    if (failed) {
      const error = failed.reason as Error | undefined
      throw new ServiceUnavailableError(
        `the chain could not be restarted: ${cutText(String(error?.message ?? error).split('\n')[0]!, echoedValueLimit)}`,
        { cause: error },
      )
    }
    // On svc serve the RPC a caller on another host can use: the public one (/config/local-dev's rpc_url).
    const publicRpc = localDevConfig(deps).rpc_url
    const answers = await Promise.all(
      chains.map(async (each, index) => ({
        rpc_url: index === 0 && deps.trust ? (publicRpc ?? each.rpcUrl) : each.rpcUrl,
        ms: Math.round((restarts[index] as PromiseFulfilledResult<{ ms: number }>).value.ms),
        block_number: Number(await each.client.getBlockNumber()),
      })),
    )
    const [sandbox, ...twins] = answers as [(typeof answers)[number], ...typeof answers]
    deps.events?.broadcast({ type: 'sandbox.chain_restarted', actor, snapshot_id: null, seconds: null })
    res.json({
      restarted: true,
      ...sandbox,
      twins: twins.map((twin, index) => ({ name: running.twins[index]!.spec.name, ...twin })),
    })
  })

  return router
}
