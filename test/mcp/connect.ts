import { expect } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { createSvcClient } from '../../sdk/client.js'
import { createMcpServer } from '../../mcp/server.js'
import type { TestServer } from '../helpers/control.js'

export type McpSession = {
  client: Client
  /** tools/call; the result is never a thrown protocol error for a tool failure. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>
  /** tools/call that expects success and returns its structuredContent. */
  ok(name: string, args?: Record<string, unknown>): Promise<any>
  close(): Promise<void>
}

/** The MCP server of `key` (a Sandbox key against {sandbox_base_url}) and an MCP client, linked in memory. */
export async function connectMcp(t: TestServer, key: string): Promise<McpSession> {
  return connectMcpAt(key.startsWith('svc_sandbox_') ? t.server.sandboxControlUrl : t.server.controlUrl, key)
}

/** The MCP server of `key` against the control plane at `baseUrl` and an MCP client, linked in memory. */
export async function connectMcpAt(baseUrl: string, key: string): Promise<McpSession> {
  const server = createMcpServer({ client: createSvcClient({ baseUrl, apiKey: key }) })
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: 'svc-test', version: '1.0.0' })
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)])
  // tools/list first: the client then checks structuredContent against each tool's output schema.
  await client.listTools()
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult
  return {
    client,
    call,
    async ok(name, args) {
      const result = await call(name, args)
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
      return result.structuredContent
    },
    async close() {
      await client.close()
      await server.close()
    },
  }
}

/** The text of a tool result (all its text blocks). */
export const textOf = (result: CallToolResult) =>
  result.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n')

export const payTo = '0x000000000000000000000000000000000000bEEF'

/** Calls a tool that must be refused: an isError result whose text holds `message`; answers the text. */
export async function expectRefused(session: McpSession, name: string, args: Record<string, unknown>, message: string) {
  const result = await session.call(name, args)
  expect(result.isError, `${name}: ${textOf(result)}`).toBe(true)
  expect(textOf(result)).toContain(message)
  return textOf(result)
}
