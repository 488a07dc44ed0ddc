import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { SvcClient } from '../sdk/client.js'
import type { Environment } from '../sdk/types.js'
import type { McpContext } from './tool.js'
import { registerAddFault } from './tools/add-fault.js'
import { registerAdvanceTime } from './tools/advance-time.js'
import { registerClearFaults } from './tools/clear-faults.js'
import { registerCreateApi } from './tools/create-api.js'
import { registerCreateEndpoint } from './tools/create-endpoint.js'
import { registerDiscoveryUrls } from './tools/discovery-urls.js'
import { registerGetStats } from './tools/get-stats.js'
import { registerGetTime } from './tools/get-time.js'
import { registerImportOpenApi } from './tools/import-openapi.js'
import { registerListApis } from './tools/list-apis.js'
import { registerListEndpoints } from './tools/list-endpoints.js'
import { registerListFaults } from './tools/list-faults.js'
import { registerListPayments } from './tools/list-payments.js'
import { registerListSettlements } from './tools/list-settlements.js'
import { registerListSnapshots } from './tools/list-snapshots.js'
import { registerCapturePayment, registerRefundPayment, registerVoidPayment } from './tools/move-payment.js'
import { registerRevertSnapshot } from './tools/revert-snapshot.js'
import { registerSetDiscoveryGuidance } from './tools/set-discovery-guidance.js'
import { registerSnapshot } from './tools/snapshot.js'
import { registerUpdateEndpointSchemas } from './tools/update-endpoint-schemas.js'

export type CreateMcpServerOptions = {
  /** A control-plane client with an API key (the MCP server takes API keys only; the control plane enforces the scopes). */
  client: SvcClient
  /** The key's environment, from its prefix. @defaultValue asked once from GET /auth/me when a tool needs it */
  environment?: Environment | undefined
  /** @defaultValue the package version */
  version?: string | undefined
}

/** Registers each `svc_*` tool; the order is the order of tools/list. */
const tools = [
  registerListApis,
  registerCreateApi,
  registerSetDiscoveryGuidance,
  registerDiscoveryUrls,
  registerListEndpoints,
  registerCreateEndpoint,
  registerUpdateEndpointSchemas,
  registerImportOpenApi,
  registerGetStats,
  registerListSettlements,
  registerListPayments,
  registerCapturePayment,
  registerVoidPayment,
  registerRefundPayment,
  registerSnapshot,
  registerListSnapshots,
  registerRevertSnapshot,
  registerGetTime,
  registerAdvanceTime,
  registerListFaults,
  registerAddFault,
  registerClearFaults,
]

/** The svc MCP tool server: thin `svc_*` tools over the control-plane routes, connected to any transport by the caller. */
export function createMcpServer(options: CreateMcpServerOptions): McpServer {
  const { client, version = '0.1.0' } = options
  let environment: Promise<Environment> | undefined = options.environment && Promise.resolve(options.environment)
  const ctx: McpContext = {
    client,
    environment: () =>
      (environment ??= client.auth.me().then(
        (me) => me.environment,
        (error: unknown) => {
          environment = undefined
          throw error
        },
      )),
  }
  const server = new McpServer(
    { name: 'svc', title: 'svc control plane', version },
    {
      instructions:
        'Tools to run paid (x402) APIs on svc with an API key: create an API, add paid endpoints or import an OpenAPI document, set discovery guidance and schemas, read traffic, revenue and settlements. On the local Sandbox only (a svc_sandbox_ key, svc on this machine), snapshot and revert the whole Sandbox, move its time forward, and inject faults into payments and upstreams. Amounts are atomic units (USDC has 6 decimals). The key’s scopes decide what is allowed; a refusal comes back as an error result with the control plane’s message.',
    },
  )
  for (const register of tools) register(server, ctx)
  return server
}
