import { Router } from 'express'
import { z } from 'zod'
import { parseBody } from '../../core/http.js'
import type { ServerDeps } from '../deps.js'
import { advanceSandboxTime, getSandboxTime, resetSandboxTime } from '../sandbox/index.js'
import { type Authenticate, sandboxCallerOf, sandboxOwnerOf } from './sandbox-caller.js'

const advanceSchema = z.strictObject({ seconds: z.number() })

/**
 * The Sandbox's clocks and time travel (server/sandbox/time-travel.ts), on the Sandbox control plane. Any seller may
 * read the clocks (a buyer signs by svc's clock); moving them is the owner's (the admin token on svc serve, a local
 * caller on svc up), and every seller's event stream is told who did it.
 */
export function createTimeRoutes(deps: ServerDeps, authenticate: Authenticate): Router {
  const router = Router()
  const what = 'time travel'
  router.get('/dev/time', async (req, res) => {
    await sandboxCallerOf(req, deps, authenticate, what)
    res.json(await getSandboxTime(deps))
  })
  router.post('/dev/time/advance', async (req, res) => {
    const actor = await sandboxOwnerOf(req, deps, authenticate, what)
    const { seconds } = parseBody(advanceSchema, req.body)
    const time = await advanceSandboxTime(deps, seconds)
    deps.events?.broadcast({ type: 'sandbox.time_advanced', actor, snapshot_id: null, seconds })
    res.json(time)
  })
  router.post('/dev/time/reset', async (req, res) => {
    const actor = await sandboxOwnerOf(req, deps, authenticate, what)
    const time = await resetSandboxTime(deps)
    deps.events?.broadcast({ type: 'sandbox.time_reset', actor, snapshot_id: null, seconds: null })
    res.json(time)
  })
  return router
}
