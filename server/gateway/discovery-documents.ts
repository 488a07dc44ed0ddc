import type { Request, Response } from 'express'
import type { Kysely } from 'kysely'
import { findDefaultAsset } from '@x402/evm'
import { sandboxNetwork } from '../../core/sandbox-usdc.js'
import { type ApiRow, type Database, type EndpointRow, insertionOrder } from '../db/index.js'
import { gatewayHost, type Hosts, publicOrigin } from '../../core/hosts.js'
import { sandboxUsdc } from '../sandbox/index.js'
import type { ServerDeps } from '../deps.js'
import { buildOpenApiDocument, buildWellKnown, type DocumentInput } from './discovery-openapi.js'

export type DiscoveryHandlers = {
  /** GET /openapi.json on a gateway host. */
  openapi(req: Request, res: Response, api: ApiRow): Promise<void>
  /** GET /.well-known/x402.json on a gateway host. */
  wellKnown(req: Request, res: Response, api: ApiRow): Promise<void>
}

/**
 * The endpoints both discovery documents list: enabled, not ephemeral (no ttl, so no expires_at), in creation order.
 * The GET /apis/{id}/discovery summary counts the same rows.
 */
export function discoverableEndpoints(db: Kysely<Database>, apiId: string): Promise<EndpointRow[]> {
  return db
    .selectFrom('endpoints')
    .selectAll()
    .where('api_id', '=', apiId)
    .where('enabled', '=', 1)
    .where('ttl_seconds', 'is', null)
    .where('expires_at', 'is', null)
    .orderBy('created_at', 'asc')
    .orderBy(insertionOrder(db))
    .execute()
}

/** info.contact.email: the API's discovery_contact_email, else the owner's email once verified, else none. */
export async function contactEmail(db: Kysely<Database>, api: ApiRow): Promise<string | null> {
  if (api.discovery_contact_email) return api.discovery_contact_email
  const owner = await db
    .selectFrom('users')
    .select(['email', 'email_verified_at'])
    .where('id', '=', api.user_id)
    .executeTakeFirst()
  return owner?.email_verified_at ? owner.email : null
}

/** True for a USDC with 6 decimals: the Sandbox USDC, or a USDC of @x402/evm's default asset table. */
export function usdcMatcher(deps: ServerDeps): DocumentInput['isUsdc'] {
  const sandbox = sandboxUsdc(deps)
  return (network, asset) => {
    if (network === sandboxNetwork)
      return asset.toLowerCase() === sandbox.address.toLowerCase() && sandbox.decimals === 6
    try {
      const known = findDefaultAsset(asset, network as `${string}:${string}`)
      return known?.symbol === 'USDC' && known.decimals === 6
    } catch {
      return false
    }
  }
}

/**
 * The origin a client reached the gateway at: the Host header's name (it routed the request here, so it is this API's;
 * only its shape is checked), with the public scheme and port `svc serve` was given (--public-scheme, --public-port;
 * behind a TLS proxy the Host has no port and the scheme is https), else the request's own (X-Forwarded-Proto from a
 * trusted proxy, express's `req.protocol`); on a direct URL, its `http://127.0.0.1:{port}/gateway/{host}`.
 */
function originOf(req: Request, hosts: Hosts, api: ApiRow): string {
  const header = req.headers.host?.trim().toLowerCase() ?? ''
  // The direct URL (server/app.ts: svc up's listener address, whose Host it checked): the buyer's, prefix and all.
  if (req.baseUrl) return `${req.protocol}://${header}${req.baseUrl}`
  const match = /^([a-z0-9.-]+)(?::([0-9]{1,5}))?$/.exec(header)
  if (!match) return publicOrigin(hosts, gatewayHost(hosts, api.environment, api.slug))
  if (hosts.public) return publicOrigin(hosts, match[1]!)
  return `${req.protocol === 'https' ? 'https' : 'http'}://${header}`
}

/**
 * The public discovery documents of a gateway host, rebuilt from the database on every request (never cached:
 * `Cache-Control: no-store`). Links use the Host header the request came with, so a custom domain advertises itself.
 */
export function createDiscoveryHandlers(deps: ServerDeps): DiscoveryHandlers {
  const isUsdc = usdcMatcher(deps)

  async function input(req: Request, api: ApiRow): Promise<DocumentInput> {
    const [endpoints, email] = await Promise.all([discoverableEndpoints(deps.db, api.id), contactEmail(deps.db, api)])
    return { api, endpoints, origin: originOf(req, deps.hosts, api), contactEmail: email, isUsdc }
  }

  function send(res: Response, document: unknown) {
    res.set('cache-control', 'no-store')
    res.type('application/json').send(JSON.stringify(document))
  }

  return {
    async openapi(req, res, api) {
      send(res, buildOpenApiDocument(await input(req, api)))
    },
    async wellKnown(req, res, api) {
      send(res, buildWellKnown(await input(req, api)))
    },
  }
}
