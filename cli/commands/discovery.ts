import type { Command } from 'commander'
import { catalogAction, listBazaarCatalog } from '../../sdk/bazaar-catalog.js'
import { createSvcClient } from '../../sdk/client.js'
import { ServiceUnavailableError } from '../../core/errors.js'
import { action, addCommand, type Call, type CliContext } from '../context.js'
import { describeAccept } from '../amounts.js'
import { parseInteger } from '../inputs.js'
import { controlUrlFor } from '../settings.js'

type CatalogFlags = { facilitator?: string; type?: string; payTo?: string; limit?: string; offset?: string }

/**
 * The facilitator to read: `--facilitator`, else svc's Sandbox catalog (`bazaar_url` of `GET /config/local-dev`, no
 * credential: svc up's facilitator, or svc serve's public `/dev/bazaar`, through any process of a team Sandbox).
 */
async function facilitatorOf(call: Call<CatalogFlags>): Promise<string> {
  if (call.options.facilitator) return call.options.facilitator.replace(/\/+$/, '')
  const local = createSvcClient({ baseUrl: controlUrlFor('development', call.settings().baseUrl) })
  const url = (await local.config.localDev()).bazaar_url
  if (!url)
    throw new ServiceUnavailableError(
      'this svc runs without its Sandbox chain, so it has no facilitator: start it with `svc up`, or pass --facilitator URL',
    )
  return url
}

/**
 * `svc discovery API_ID`: where the API's discovery documents are published; `svc discovery catalog`: the bazaar
 * catalog of svc's facilitator (or of `--facilitator URL`), as `withBazaar(...).listResources` reads it.
 */
export function registerDiscovery(program: Command, ctx: CliContext) {
  const discovery = addCommand(
    program,
    'discovery',
    "where an API's discovery documents (OpenAPI, x402 manifest) are published; `discovery catalog`: the bazaar listing",
  )
    .argument('<api-id>', 'the API id')
    .action(
      action(ctx, async (call, apiId) => {
        const summary = await call.client().discovery(apiId!)
        if (call.out.isJson) return call.out.json(summary)
        call.out.fields([
          ['primary host', summary.primary_host],
          ['openapi', summary.openapi_url],
          ['x402 manifest', summary.well_known_url],
          [
            'endpoints',
            `${summary.endpoint_count} (${summary.discoverable_endpoint_count} listed: enabled, not ephemeral)`,
          ],
        ])
        if (summary.host_urls.length > 1) {
          call.out.line()
          call.out.table(
            ['HOST', 'OPENAPI', 'MANIFEST'],
            summary.host_urls.map((h) => [
              `${h.host}${h.is_primary ? ' (primary)' : ''}`,
              h.openapi_url,
              h.well_known_url,
            ]),
            '',
          )
        }
      }),
    )

  addCommand(
    discovery,
    'catalog',
    "the bazaar catalog of svc's facilitator: the resources paid through it, as agents' x402 clients list them",
  )
    .option('--facilitator <url>', "another facilitator's catalog (e.g. the one your mainnet sellers use)")
    .option('--type <type>', 'only this type of resource: http or mcp')
    .option('--pay-to <address>', 'only the resources paying this address')
    .option('--limit <n>', 'at most this many (1-1000)', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action(
      action<CatalogFlags>(ctx, async (call) => {
        const { type, payTo } = call.options
        const limit = parseInteger(call.options.limit ?? '100', '--limit', 1, 1000)
        const offset = parseInteger(call.options.offset ?? '0', '--offset', 0, 1_000_000_000)
        const url = await facilitatorOf(call)
        const page = await listBazaarCatalog(url, { type, payTo, limit, offset })
        if (call.out.isJson) return call.out.json(page)
        call.out.table(
          ['RESOURCE', 'CALL', 'PRICE', 'PAY TO', 'UPDATED'],
          page.items.map((item) => {
            const accept = item.accepts[0]
            return [
              item.resource,
              catalogAction(item),
              accept ? `${describeAccept(accept)} (${accept.scheme})` : '-',
              accept?.payTo,
              item.lastUpdated,
            ]
          }),
          `nothing is cataloged at ${url} yet: a resource is listed once a payment for it that declares the bazaar extension is verified there`,
        )
        const { total } = page.pagination
        if (total > page.items.length)
          call.out.line(call.out.dim(`${page.items.length} of ${total} (--offset ${offset}, --limit ${limit})`))
      }),
    )
}
