import { Router } from 'express'
import { apiKeyPrefixes, controlUrl, environments } from '../../core/hosts.js'
import type { ServerDeps } from '../deps.js'
import { localDevConfig, sandboxUsdc } from '../sandbox/index.js'
import { acceptSchemes } from '../../core/inputs/endpoint.js'

/** Public configuration routes. */
export function createConfigRoutes(deps: ServerDeps): Router {
  const router = Router()

  router.get('/config/platform', (_req, res) => {
    const { hosts } = deps
    res.json({
      platform_domain: hosts.platformDomain,
      sandbox_platform_domain: hosts.sandboxPlatformDomain,
      gateway_port: hosts.port,
      base_url: controlUrl(hosts, 'production'),
      sandbox_base_url: controlUrl(hosts, 'development'),
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
