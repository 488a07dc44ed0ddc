import type { Request, Response } from 'express'
import type { ApiRow } from '../db/tables.js'
import type { ControlDeps } from '../control/context.js'

export type PaidRouteHandler = {
  /** Serves one gateway request for `api`: match, 402 / verify → proxy → settle. */
  handle(req: Request, res: Response, api: ApiRow): Promise<void>
  /** Releases timers and pending writes (server stop). */
  close(): Promise<void>
}

// TODO(issue 4): paid routes.
export function createPaidRouteHandler(_deps: ControlDeps): PaidRouteHandler {
  return {
    async handle(_req, res) {
      res.status(501).json({ error: 'not implemented' })
    },
    async close() {},
  }
}
