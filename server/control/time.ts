import { Router } from 'express'
import { z } from 'zod'
import { parseBody } from '../../core/http.js'
import type { ServerDeps } from '../deps.js'
import { advanceSandboxTime, getSandboxTime, resetSandboxTime } from '../sandbox/time-travel.js'
import { localSandboxOnly } from './local-sandbox.js'

const advanceSchema = z.strictObject({ seconds: z.number() })

/** The Sandbox's clocks and time travel (server/sandbox/time-travel.ts): local callers, Sandbox control plane, no credential. */
export function createTimeRoutes(deps: ServerDeps): Router {
  const router = Router()
  const local = localSandboxOnly(deps, 'time travel')
  router.get('/dev/time', local, async (_req, res) => void res.json(await getSandboxTime(deps)))
  router.post('/dev/time/advance', local, async (req, res) => {
    const { seconds } = parseBody(advanceSchema, req.body)
    res.json(await advanceSandboxTime(deps, seconds))
  })
  router.post('/dev/time/reset', local, async (_req, res) => void res.json(await resetSandboxTime(deps)))
  return router
}
