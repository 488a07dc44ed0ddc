import type { Request, Response } from 'express'
import type { ApiRow } from '../db/tables.js'
import type { ControlDeps } from '../control/context.js'

export type DiscoveryHandlers = {
  /** GET /openapi.json on a gateway host. */
  openapi(req: Request, res: Response, api: ApiRow): Promise<void>
  /** GET /.well-known/x402.json on a gateway host. */
  wellKnown(req: Request, res: Response, api: ApiRow): Promise<void>
}

// TODO(issue 4): the discovery documents.
export function createDiscoveryHandlers(_deps: ControlDeps): DiscoveryHandlers {
  return {
    async openapi(_req, res) {
      res.status(501).json({ error: 'not implemented' })
    },
    async wellKnown(_req, res) {
      res.status(501).json({ error: 'not implemented' })
    },
  }
}
