import type { RequestHandler } from 'express'

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
