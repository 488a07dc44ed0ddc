import type { Readable, Writable } from 'node:stream'
import type { Command } from 'commander'
import { createSvcClient } from '../../sdk/client.js'
import type { Environment } from '../../sdk/types.js'
import { UsageError } from '../../core/errors.js'
import type { CliContext } from '../context.js'
import { keyEnvironment } from '../../core/hosts.js'
import { isHttpUrl } from '../../core/urls.js'
import { controlUrlFor, type GlobalOptions } from '../settings.js'

export type McpSettings = { apiKey: string; baseUrl: string; environment: Environment }

/**
 * Where and as whom `svc mcp` talks to the control plane: an API key only (`--api-key`, else SVC_API_KEY), and
 * `--base-url`, else SVC_BASE_URL, else the control plane of the key's prefix. The saved login is not used.
 */
export function mcpSettings(flags: GlobalOptions, env: NodeJS.ProcessEnv): McpSettings {
  const apiKey = (flags.apiKey || env.SVC_API_KEY || '').trim()
  if (!apiKey) {
    if (flags.jwt || env.SVC_JWT)
      throw new UsageError('svc mcp takes API keys only: set SVC_API_KEY (a JWT is not accepted)')
    throw new UsageError('svc mcp needs an API key: set SVC_API_KEY (create one with `svc keys create`); API keys only')
  }
  const environment = keyEnvironment(apiKey)
  if (!environment) throw new UsageError('SVC_API_KEY must start with svc_sandbox_ or svc_live_')
  const given = flags.baseUrl || env.SVC_BASE_URL
  let baseUrl = controlUrlFor(environment)
  if (given) {
    if (!isHttpUrl(given)) throw new UsageError(`SVC_BASE_URL must be an http(s) URL: "${given}"`)
    baseUrl = given.replace(/\/+$/, '')
  }
  return { apiKey, baseUrl, environment }
}

/** `svc mcp`: the MCP tool server on stdio. stdout carries the protocol; everything else goes to stderr. */
export function registerMcp(program: Command, ctx: CliContext) {
  program
    .command('mcp')
    .description('serve the svc_* MCP tools over stdio for an agent (API keys only: SVC_API_KEY, SVC_BASE_URL)')
    .action(async (_options: unknown, command: Command) => {
      const { apiKey, baseUrl, environment } = mcpSettings(command.optsWithGlobals() as GlobalOptions, ctx.env)
      // Loaded here, so other commands do not load the MCP SDK.
      const { AnsweringStdioTransport } = await import('../../mcp/stdio-transport.js')
      const { createMcpServer } = await import('../../mcp/server.js')
      const server = createMcpServer({ client: createSvcClient({ baseUrl, apiKey }), environment })
      // The CLI's io is the process's own streams here (processIo); the transport needs them as streams.
      const stdin = ctx.io.stdin as Readable
      const transport = new AnsweringStdioTransport(stdin, ctx.io.stdout as unknown as Writable)
      const closed = new Promise<void>((resolve) => (server.server.onclose = resolve))
      transport.onerror = (error) => ctx.io.stderr.write(`svc mcp: ${error.message.split('\n')[0]}\n`)
      // The client hung up: answer the calls it already made (they are still running), then stop.
      stdin.once('end', () => void transport.answered().then(() => server.close()))
      await server.connect(transport)
      const where = environment === 'development' ? 'Sandbox' : 'live'
      ctx.io.stderr.write(`svc mcp: serving the svc_* tools on stdio for ${baseUrl} (${where} key)\n`)
      await closed
    })
}
