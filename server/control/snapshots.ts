import { Router } from 'express'
import { sandboxChainNotRunning, ServiceUnavailableError } from '../../core/errors.js'
import type { ServerDeps } from '../deps.js'
import type { SnapshotStore } from '../sandbox/snapshots.js'
import { localSandboxOnly } from './local-sandbox.js'

/** Whole-sandbox snapshots (server/sandbox/snapshots.ts): local callers, Sandbox control plane, no credential. */
export function createSnapshotRoutes(deps: ServerDeps): Router {
  const router = Router()
  const local = localSandboxOnly(deps, 'snapshots')
  const store = (): SnapshotStore => {
    // The store is there whenever the chain is; take and revert refuse a restarting chain (requireSandboxChain).
    if (!deps.snapshots) throw new ServiceUnavailableError(sandboxChainNotRunning)
    return deps.snapshots
  }

  router.get('/dev/snapshots', local, (_req, res) => void res.json({ snapshots: store().list() }))
  router.post('/dev/snapshots', local, async (_req, res) => void res.status(201).json(await store().take()))
  router.post(
    '/dev/snapshots/:snapshotId/revert',
    local,
    async (req, res) => void res.json(await store().revert(String(req.params.snapshotId))),
  )
  return router
}
