import { spawn } from 'node:child_process'
import { PassThrough } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { UsageError } from '../../core/errors.js'
import { createMcpServer } from '../../mcp/server.js'
import { AnsweringStdioTransport } from '../../mcp/stdio-transport.js'
import { createSvcClient } from '../../sdk/client.js'
import { mcpSettings } from '../../cli/commands/mcp.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { createCli, svcBin } from '../cli/harness.js'
import { docBlock } from '../docs/blocks.js'

let t: TestServer
let key: string
beforeAll(async () => {
  t = await startTestServer()
  const { jwt } = await t.signup()
  key = await t.createKey(jwt, 'development', ['apis:read', 'apis:write'])
})
afterAll(async () => {
  await t?.stop()
})

/** The parent's environment without svc's own variables. */
const cleanEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => !entry[0].startsWith('SVC_') && entry[1] !== undefined,
    ),
  )

describe('svc mcp over stdio', () => {
  test('node bin/svc.js mcp: tools/list and a tool call through the real process', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [svcBin, 'mcp'],
      env: { ...cleanEnv(), SVC_API_KEY: key, SVC_BASE_URL: t.server.sandboxControlUrl },
      stderr: 'pipe',
    })
    let stderr = ''
    transport.stderr!.on('data', (chunk) => (stderr += chunk))
    const client = new Client({ name: 'svc-stdio-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toContain('svc_import_openapi')
      const slug = `mcp-stdio-${process.pid}`
      const args = {
        name: 'Stdio',
        slug,
        upstream_base_url: 'http://127.0.0.1:9',
        pay_to_address: '0x000000000000000000000000000000000000bEEF',
      }
      const created = await client.callTool({ name: 'svc_create_api', arguments: args })
      expect(created.isError).toBeFalsy()
      expect(created.structuredContent).toMatchObject({ slug, environment: 'development' })
      const listed = await client.callTool({ name: 'svc_list_apis', arguments: {} })
      expect((listed.structuredContent as any).apis.map((api: any) => api.slug)).toEqual([slug])
      expect(stderr).toContain(
        `svc mcp: serving the svc_* tools on stdio for ${t.server.sandboxControlUrl} (Sandbox key)`,
      )
    } finally {
      await client.close()
    }
  }, 60_000)

  test('docs: the MCP form of "Add an endpoint with a price": the client config of sell.md starts svc mcp, its tool calls price GET /forecast/{city} at 0.01 USDC', async () => {
    const server = JSON.parse(docBlock('mcp-config.json').code).mcpServers.svc
    // `npx svc` is this repo's bin/svc.js; the key is a new seller's Sandbox key with the scopes the two tools need.
    expect(server).toMatchObject({ command: 'npx', args: ['svc', 'mcp'], env: { SVC_API_KEY: 'svc_sandbox_…' } })
    const { jwt } = await t.signup()
    const docsKey = await t.createKey(jwt, 'development', [
      'apis:read',
      'apis:write',
      'endpoints:read',
      'endpoints:write',
    ])
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [svcBin, ...server.args.slice(1)],
      env: { ...cleanEnv(), ...server.env, SVC_API_KEY: docsKey, SVC_BASE_URL: t.server.sandboxControlUrl },
    })
    const client = new Client({ name: 'svc-docs-test', version: '1.0.0' })
    await client.connect(transport)
    const results: any[] = []
    try {
      for (const call of JSON.parse(docBlock('mcp-add-endpoint.json').code)) {
        const result = await client.callTool(call)
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
        results.push(result.structuredContent)
      }
    } finally {
      await client.close()
    }
    // The endpoint svc_create_endpoint made (this file's svc runs no chain, so no 402 is asked here): 0.01 USDC.
    expect(results[0]).toMatchObject({ slug: 'weather', pay_to_address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906' })
    expect(results[1]).toMatchObject({ method: 'GET', path_pattern: '/forecast/{city}' })
    expect(results[1].accepts).toEqual([
      expect.objectContaining({ scheme: 'exact', network: 'eip155:845320402', amount: '10000' }),
    ])
  }, 60_000)

  test('the process ends with exit code 0 when stdin closes, and writes nothing but protocol to stdout', async () => {
    const child = spawn(process.execPath, [svcBin, 'mcp'], {
      env: { ...cleanEnv(), SVC_API_KEY: key, SVC_BASE_URL: t.server.sandboxControlUrl },
    })
    let stdout = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stdin.end()
    const code = await new Promise((resolve) => child.once('exit', resolve))
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' })
  }, 60_000)

  test('tool calls still running when stdin closes are answered before the process exits', async () => {
    const child = spawn(process.execPath, [svcBin, 'mcp'], {
      env: { ...cleanEnv(), SVC_API_KEY: key, SVC_BASE_URL: t.server.sandboxControlUrl },
    })
    const messages: JSONRPCMessage[] = []
    const buffer = new ReadBuffer()
    child.stdout.on('data', (chunk: Buffer) => {
      buffer.append(chunk)
      for (let message = buffer.readMessage(); message; message = buffer.readMessage()) messages.push(message)
    })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    const send = (message: JSONRPCMessage) => child.stdin.write(serializeMessage(message))
    // A client that asks and hangs up at once: the handshake, three tool calls (each a control-plane request), and
    // the end of stdin, all in one write; the calls are still running when the server sees stdin end.
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'hang-up', version: '1' },
      },
    })
    send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_list_apis', arguments: {} } })
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_get_stats', arguments: { days: 3 } } })
    send({ jsonrpc: '2.0', id: 'three', method: 'tools/call', params: { name: 'svc_list_apis', arguments: {} } })
    child.stdin.end()
    expect(await exited).toBe(0)
    const answers = new Map(
      messages.filter((m): m is JSONRPCMessage & { id: string | number } => 'id' in m).map((m) => [m.id, m]),
    )
    expect([...answers.keys()].sort()).toEqual([0, 1, 2, 'three'].sort())
    expect(answers.get(1)).toMatchObject({ result: { structuredContent: { apis: expect.any(Array) } } })
    expect(answers.get('three')).toMatchObject({ result: { structuredContent: { apis: expect.any(Array) } } })
    // svc_get_stats needs stats:read, which this key lacks: an answer all the same, an error result.
    expect(answers.get(2)).toMatchObject({ result: { isError: true } })
  }, 60_000)

  test('a call the client cancels is not waited for: no answer, and nothing left unanswered', async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const server = createMcpServer({
      client: createSvcClient({ baseUrl: t.server.sandboxControlUrl, apiKey: key }),
      environment: 'development',
    })
    const transport = new AnsweringStdioTransport(stdin, stdout)
    await server.connect(transport)
    const messages: JSONRPCMessage[] = []
    const buffer = new ReadBuffer()
    stdout.on('data', (chunk: Buffer) => {
      buffer.append(chunk)
      for (let message = buffer.readMessage(); message; message = buffer.readMessage()) messages.push(message)
    })
    const initialized = new Promise((resolve) => stdout.once('data', resolve))
    stdin.write(
      serializeMessage({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      }),
    )
    await initialized
    await transport.answered()
    stdin.write(
      serializeMessage({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'svc_list_apis', arguments: {} },
      }) +
        serializeMessage({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 7, reason: 'changed my mind' },
        }),
    )
    // Far below the default bound of 30 s: settled by the cancellation, not by the timeout.
    await transport.answered()
    await server.close()
    expect(messages.map((m) => ('id' in m ? m.id : undefined))).toEqual([0])
  })

  test('without SVC_API_KEY: exit code 2 and one line; a JWT alone is refused (API keys only)', async () => {
    const cli = createCli()
    const spawned = await cli.spawn(['mcp'])
    expect(spawned.code).toBe(2)
    expect(spawned.stdout).toBe('')
    expect(spawned.stderr).toBe(
      'svc: svc mcp needs an API key: set SVC_API_KEY (create one with `svc keys create`); API keys only\n',
    )

    const jwt = await cli.run(['mcp'], { SVC_JWT: 'eyJhbGciOiJIUzI1NiJ9.e30.x' })
    expect(jwt).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc: svc mcp takes API keys only: set SVC_API_KEY (a JWT is not accepted)\n',
    })
    const odd = await cli.run(['mcp'], { SVC_API_KEY: 'not-a-key' })
    expect(odd).toMatchObject({ code: 2, stderr: 'svc: SVC_API_KEY must start with svc_sandbox_ or svc_live_\n' })
  }, 60_000)

  test('the base URL defaults from the key prefix; SVC_BASE_URL wins', () => {
    expect(mcpSettings({}, { SVC_API_KEY: 'svc_sandbox_abc' })).toEqual({
      apiKey: 'svc_sandbox_abc',
      baseUrl: 'http://sandbox.localhost:4020',
      environment: 'development',
    })
    expect(mcpSettings({}, { SVC_API_KEY: 'svc_live_abc' })).toMatchObject({
      baseUrl: 'http://api.localhost:4020',
      environment: 'production',
    })
    expect(mcpSettings({}, { SVC_API_KEY: 'svc_live_abc', SVC_BASE_URL: 'https://cp.example.test/' }).baseUrl).toBe(
      'https://cp.example.test',
    )
    expect(() => mcpSettings({}, { SVC_API_KEY: 'svc_live_abc', SVC_BASE_URL: 'ftp://x' })).toThrow(UsageError)
    expect(() => mcpSettings({}, { SVC_API_KEY: 'svc_live_abc', SVC_JWT: 'x' })).not.toThrow()
  })
})
