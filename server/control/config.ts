import { createHmac } from 'node:crypto'
import { Router } from 'express'
import { apiKeyPrefixes, controlUrl, environments } from '../../core/hosts.js'
import type { ServerDeps } from '../deps.js'
import { localDevConfig, sandboxUsdc } from '../sandbox/index.js'
import { acceptSchemes } from '../../core/inputs/endpoint.js'

/**
 * Which svc this is (`instance_id` of /config/platform): derived from the key sessions are signed with, so it is the
 * same on every process of one svc and across restarts on one data dir, and another svc (even on the same port) has
 * another; the key cannot be told from it. The CLI sends a saved login only where it matches (cli/session-target.ts).
 */
export const instanceIdOf = (jwtSecret: Uint8Array): string =>
  createHmac('sha256', jwtSecret).update('svc instance id: which svc a session belongs to').digest('hex').slice(0, 12)

/** Public configuration routes. */
export function createConfigRoutes(deps: ServerDeps): Router {
  const router = Router()
  const instanceId = instanceIdOf(deps.secrets.jwtSecret)

  router.get('/config/platform', (_req, res) => {
    const { hosts } = deps
    res.json({
      platform_domain: hosts.platformDomain,
      sandbox_platform_domain: hosts.sandboxPlatformDomain,
      gateway_port: hosts.port,
      base_url: controlUrl(hosts, 'production'),
      sandbox_base_url: controlUrl(hosts, 'development'),
      instance_id: instanceId,
      environments,
      schemes: acceptSchemes,
      payment_tokens: [{ environment: 'development', ...sandboxUsdc(deps) }],
      api_key_prefixes: apiKeyPrefixes,
    })
  })

  router.get('/config/local-dev', (_req, res) => {
    res.json(localDevConfig(deps))
  })

  return router
}
