import { once } from 'node:events'
import type { Request, RequestHandler, Response } from 'express'
import { type Kysely, sql } from 'kysely'
import { sandboxChainMoving, sandboxChainRestarting } from '../../core/errors.js'
import type { Database } from '../db/index.js'

/** What readiness reads (server/deps.ts's `ServerDeps` is one), declared here so serve/ stays below the rooms that build it. */
export type HealthDeps = {
  db: Kysely<Database>
  chain?:
    | {
        sandboxChain: { restarting: boolean; client: { getBlockNumber(args: { cacheTime: number }): Promise<bigint> } }
      }
    | undefined
  chainOwner?: { current(): { kind: string } } | undefined
}

/** How long a readiness check waits for the database or the chain before it calls them down. */
const checkTimeoutMs = 2_000

/** `work`, or a rejection after {@link checkTimeoutMs}. */
async function within<T>(work: Promise<T>): Promise<T> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), checkTimeoutMs)
  try {
    return await Promise.race([
      work,
      once(controller.signal, 'abort').then(() => {
        throw new Error('timed out')
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** Why the server is not ready, or undefined when it is. */
async function notReady(deps: HealthDeps, lifecycle: ServerLifecycle): Promise<string | undefined> {
  if (lifecycle.draining) return 'draining: this process is shutting down'
  try {
    await within(sql`select 1`.execute(deps.db))
  } catch {
    return 'the database does not answer'
  }
  const chain = deps.chain
  // A team Sandbox's process: not ready while no process has the chain up (this one may be starting it).
  if (!chain && deps.chainOwner && deps.chainOwner.current().kind !== 'remote') return sandboxChainMoving
  if (!chain) return undefined
  if (chain.sandboxChain.restarting) return sandboxChainRestarting
  try {
    await within(chain.sandboxChain.client.getBlockNumber({ cacheTime: 0 }))
  } catch {
    return 'the Sandbox chain does not answer'
  }
  return undefined
}

/** Whether `req` asks for a health route: GET or HEAD of /healthz or /readyz. */
export const isHealthRequest = (req: Request): boolean =>
  (req.method === 'GET' || req.method === 'HEAD') && (req.path === '/healthz' || req.path === '/readyz')

/** Answers /healthz (200 while the process serves) and /readyz (200 ready, 503 `{"error": why}` otherwise). */
export async function answerHealth(req: Request, res: Response, deps: HealthDeps, lifecycle: ServerLifecycle) {
  res.set('cache-control', 'no-store')
  if (req.path === '/healthz') return void res.json({ status: 'live' })
  const why = await notReady(deps, lifecycle)
  if (why) return void res.status(503).json({ error: why })
  // A team Sandbox's other processes: 'remote', the chain is the owner's (svc serve --sandbox-chain shared).
  res.json({ status: 'ready', database: 'ok', chain: deps.chain ? 'ok' : deps.chainOwner ? 'remote' : 'none' })
}

/**
 * A server's life as a load balancer sees it: live (`GET /healthz`), ready (`GET /readyz`: the database answers and,
 * with a Sandbox chain, the chain does), and draining (SIGTERM: readiness fails, keep-alive connections are closed
 * after their answer, in-flight requests, and the settlements inside them, finish).
 */
export type ServerLifecycle = {
  readonly draining: boolean
  /** Requests whose answer is not finished yet. */
  readonly inFlight: number
  /** The app's first middleware: counts each request until its answer closes; `Connection: close` while draining. */
  track: RequestHandler
  /** Readiness fails from now on, and every answer closes its connection. */
  startDraining(): void
  /** Resolves true once no request is in flight, false if some still are after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean>
}

export function createServerLifecycle(): ServerLifecycle {
  let draining = false
  let inFlight = 0
  const waiters = new Set<() => void>()
  const done = () => {
    inFlight--
    if (inFlight === 0) for (const wake of waiters) wake()
  }
  return {
    get draining() {
      return draining
    },
    get inFlight() {
      return inFlight
    },
    track(req, res, next) {
      if (draining) res.setHeader('connection', 'close')
      // An event stream (GET /events) has no end to wait for: it is cut when the server stops, and its client resumes
      // with Last-Event-ID elsewhere.
      if (req.headers.accept?.includes('text/event-stream')) return next()
      inFlight++
      res.once('close', done)
      next()
    },
    startDraining() {
      draining = true
    },
    async idle(timeoutMs) {
      if (inFlight === 0) return true
      let wake = () => {}
      const emptied = new Promise<true>((resolve) => {
        wake = () => resolve(true)
        waiters.add(wake)
      })
      let timer: NodeJS.Timeout | undefined
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs)
      })
      try {
        return await Promise.race([emptied, timedOut])
      } finally {
        clearTimeout(timer)
        waiters.delete(wake)
      }
    },
  }
}
