import type { x402Facilitator } from '@x402/core/facilitator'
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import type { Express, Response } from 'express'
import { sandboxChainRestarting } from '../../core/errors.js'
import { createErrorHandler, createJsonApp, notFoundHandler } from '../../core/http.js'
import type { SandboxChain } from '../sandbox-chain.js'
import type { BazaarCatalog } from './bazaar-catalog.js'
import { createBazaarRoutes } from './bazaar-routes.js'
import { parseFacilitatorRequest } from './client.js'

/** The Retry-After (seconds) of a 503 while the chain restarts (a restart takes about half a second). */
const chainRestartRetryAfterSeconds = 1

export type FacilitatorAppDeps = {
  facilitator: x402Facilitator
  /** The Sandbox chain (`/health`). */
  chain: SandboxChain
  judgeVerify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse | 'chain-down'>
  judgeSettle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse | 'chain-down'>
  catalog: BazaarCatalog
  log?: ((message: string) => void) | undefined
}

/**
 * The facilitator's HTTP face, as x402's facilitators serve it: `GET /supported`, `POST /verify`, `POST /settle` (a
 * malformed request is a 400 in the verdict's shape; a chain that cannot judge, a 503 with Retry-After), `GET /health`
 * and the bazaar's `/discovery/resources`.
 */
export function createFacilitatorApp(deps: FacilitatorAppDeps): Express {
  const { facilitator, chain, judgeVerify, judgeSettle, catalog } = deps
  const app = createJsonApp()
  app.get('/health', (_req, res) => void res.json({ ok: true, network: chain.network, generation: chain.generation }))
  app.get('/supported', (_req, res) => void res.json(facilitator.getSupported()))
  /** A 503 with Retry-After; `body` keeps the verdict's shape, so x402's client raises a Verify/SettleError (status 503). */
  const unavailable = (res: Response, body: object) =>
    void res
      .status(503)
      .set('retry-after', String(chainRestartRetryAfterSeconds))
      .json({ error: sandboxChainRestarting, ...body })

  app.post('/verify', async (req, res) => {
    const parsed = parseFacilitatorRequest(req.body)
    if ('error' in parsed)
      return void res
        .status(400)
        .json({ error: parsed.error, isValid: false, invalidReason: parsed.reason, invalidMessage: parsed.error })
    const answer = await judgeVerify(parsed.payload, parsed.requirements)
    if (answer === 'chain-down')
      return unavailable(res, {
        isValid: false,
        invalidReason: 'chain_unavailable',
        invalidMessage: sandboxChainRestarting,
      })
    res.json(answer)
  })
  app.post('/settle', async (req, res) => {
    const parsed = parseFacilitatorRequest(req.body)
    if ('error' in parsed)
      return void res.status(400).json({
        error: parsed.error,
        success: false,
        errorReason: parsed.reason,
        errorMessage: parsed.error,
        transaction: '',
        network: '',
      })
    const answer = await judgeSettle(parsed.payload, parsed.requirements)
    if (answer === 'chain-down')
      return unavailable(res, {
        success: false,
        errorReason: 'chain_unavailable',
        errorMessage: sandboxChainRestarting,
        transaction: '',
        network: parsed.requirements.network,
      })
    res.json(answer)
  })
  app.use(createBazaarRoutes(catalog))
  app.use(notFoundHandler)
  app.use(createErrorHandler({ log: deps.log }))
  return app
}
