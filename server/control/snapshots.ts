import { Router } from 'express'
import { sandboxChainNotRunning, ServiceUnavailableError } from '../../core/errors.js'
import type { ServerDeps } from '../deps.js'
import type { SnapshotStore } from '../sandbox/index.js'
import { type Authenticate, sandboxOwnerOf } from './sandbox-caller.js'

/**
 * Whole-sandbox snapshots (server/sandbox/snapshots.ts): the Sandbox's owner only (the admin token on svc serve, a
 * local caller on svc up), on the Sandbox control plane; a seller's credential is a 403 and changes nothing. A revert
 * is told to every seller's event stream with who did it.
 */
export function createSnapshotRoutes(deps: ServerDeps, authenticate: Authenticate): Router {
  const router = Router()
  const owner = (req: Parameters<typeof sandboxOwnerOf>[0]) => sandboxOwnerOf(req, deps, authenticate, 'snapshots')
  const store = (): SnapshotStore => {
    // The store is there whenever the chain is; take and revert refuse a restarting chain (requireSandboxChain).
    if (!deps.snapshots) throw new ServiceUnavailableError(sandboxChainNotRunning)
    return deps.snapshots
  }

  router.get('/dev/snapshots', async (req, res) => {
    await owner(req)
    res.json({ snapshots: store().list() })
  })
  router.post('/dev/snapshots', async (req, res) => {
    await owner(req)
    res.status(201).json(await store().take())
  })
  router.post('/dev/snapshots/:snapshotId/revert', async (req, res) => {
    const actor = await owner(req)
    const snapshotId = String(req.params.snapshotId)
    const reverted = await store().revert(snapshotId)
    deps.events?.broadcast({ type: 'sandbox.reverted', actor, snapshot_id: snapshotId, seconds: null })
    res.json(reverted)
  })
  return router
}
