import type { Command } from 'commander'
import { action, addCommand, type CliContext } from '../context.js'

/** `svc discovery API_ID`: where the API's discovery documents are published. */
export function registerDiscovery(program: Command, ctx: CliContext) {
  addCommand(program, 'discovery', "where an API's discovery documents (OpenAPI, x402 manifest) are published")
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
}
