/**
 * `svc fault …`, `svc chain restart` and `svc listen --forward-to` against a running sandbox, with the official
 * `@x402/fetch` client (the test handle's buyer) paying.
 */
import { spawn } from 'node:child_process'
import { createServer, type IncomingMessage } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { verifyEventSignature } from '../../core/event-signature.js'
import { createSvcClient } from '../../sdk/client.js'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { startUpstream } from '../server/gateway/helpers.js'
import { createCli, svcBin, type Cli } from './harness.js'
import { createSellerApi } from '../helpers/seller-api.js'

let sandbox: TestSandbox
let upstream: Awaited<ReturnType<typeof startUpstream>>
let cli: Cli
let base: string[]
let url: string

beforeAll(async () => {
  ;[sandbox, upstream] = await Promise.all([startSandbox(), startUpstream()])
  const { gatewayUrl } = await createSellerApi(sandbox, {
    slug: 'weather',
    name: 'Weather',
    upstreamUrl: upstream.url,
    endpoints: [{ path_pattern: '/weather/{city}', response_schema: { type: 'object' } }],
  })
  url = `${gatewayUrl}/weather/Lima`
  cli = createCli()
  base = ['--base-url', sandbox.sandboxControlUrl]
})
afterAll(async () => {
  await sandbox?.stop()
  await upstream?.stop()
})

describe('svc fault', () => {
  test('add, list, clear: a paying client meets the fault, then not', async () => {
    const added = await cli.json([
      ...base,
      'fault',
      'add',
      'verify',
      '--reason',
      'invalid_exact_evm_payload_authorization_valid_before',
      '--api',
      'weather',
      '--times',
      '2',
    ])
    // Issue 35, item 5: a command that changes the sandbox names it.
    expect(added).toMatchObject({
      kind: 'verify',
      api: 'weather',
      times: 2,
      remaining: 2,
      sandbox_url: sandbox.sandboxControlUrl,
    })
    const listed = await cli.ok([...base, 'fault', 'list'])
    expect(listed).toContain(added.id)
    expect(listed).toContain('verify answers invalid_exact_evm_payload_authorization_valid_before')
    const refused = await sandbox.buyer.fetch(url)
    expect(refused.status).toBe(402)
    expect(((await refused.json()) as { error: string }).error).toContain(
      'invalid_exact_evm_payload_authorization_valid_before',
    )
    expect(await cli.ok([...base, 'fault', 'clear', added.id])).toBe(
      `cleared 1 fault of ${sandbox.sandboxControlUrl}\n`,
    )
    expect(await cli.ok([...base, 'fault', 'add', 'upstream', '--drop', '--times', '1'])).toMatch(
      new RegExp(`^flt_\\w+ on ${sandbox.sandboxControlUrl}: upstream drops the connection, every API, 1 of 1\\n$`),
    )
    expect(await cli.json([...base, 'fault', 'clear'])).toEqual({ cleared: 1, sandbox_url: sandbox.sandboxControlUrl })
    expect(await cli.ok([...base, 'fault', 'list'])).toBe('no faults in force\n')
    expect((await sandbox.buyer.fetch(url)).status).toBe(200)
  })

  test('usage errors exit 2 with one line: an unknown reason, a kind without its effect', async () => {
    const unknown = await cli.run([...base, 'fault', 'add', 'verify', '--reason', 'because'])
    expect(unknown).toMatchObject({ code: 2, stdout: '' })
    expect(unknown.stderr).toMatch(
      /^svc: --reason "because" is not a reason of the exact scheme: `svc fault reasons` lists the \d+ there are\n$/,
    )
    expect(await cli.run([...base, 'fault', 'add', 'upstream'])).toMatchObject({
      code: 2,
      stderr: 'svc: svc fault add upstream takes one of --status CODE, --delay-ms N and --drop (and --times, --api)\n',
    })
    expect((await cli.run([...base, 'fault', 'add', 'upstream', '--status', '200'])).code).toBe(2)
    expect((await cli.run([...base, 'fault', 'add', 'network', '--drop'])).code).toBe(2)
    const noApi = await cli.run([...base, 'fault', 'add', 'upstream', '--drop', '--api', 'nope'])
    expect(noApi).toMatchObject({ code: 1, stderr: 'svc: no Sandbox API has the slug "nope"\n' })
    expect((await cli.ok(['fault', 'reasons'])).split('\n')).toContain('invalid_exact_evm_signature')
  })

  test('svc chain restart keeps the chain: the buyer still pays', async () => {
    const restarted = await cli.json([...base, 'chain', 'restart'])
    expect(restarted).toMatchObject({
      restarted: true,
      rpc_url: sandbox.rpcUrl,
      sandbox_url: sandbox.sandboxControlUrl,
    })
    expect(await cli.ok([...base, 'chain', 'restart'])).toMatch(
      new RegExp(`^the chain of ${sandbox.sandboxControlUrl} restarted on ${sandbox.rpcUrl} with its state`),
    )
    expect((await sandbox.buyer.fetch(url)).status).toBe(200)
  })
})

describe('svc listen', () => {
  test('a key without settlements:read is refused: exit 1, one line', async () => {
    const { key } = await createSvcClient({
      baseUrl: sandbox.sandboxControlUrl,
      jwt: sandbox.seller.jwt,
      environment: 'development',
    }).keys.create({ name: 'no stream', scopes: ['apis:read'] })
    expect(await cli.run([...base, 'listen'], { SVC_API_KEY: key })).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'svc: insufficient scope\n',
    })
    expect((await cli.run([...base, 'listen', '--forward-to', 'ftp://x'], { SVC_API_KEY: key })).code).toBe(2)
  })

  test('SIGTERM the moment it listens: exit 0, the way Ctrl-C ends it', async () => {
    const child = spawn(process.execPath, [svcBin, ...base, 'listen'], {
      env: { ...cli.env, SVC_API_KEY: sandbox.seller.apiKey },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    const exited = once(child, 'exit')
    let stderr = ''
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderr += `${line}\n`
      if (line.startsWith('listening for payment events')) child.kill('SIGTERM')
    })
    const [code, signal] = await exited
    expect({ code, signal }).toEqual({ code: 0, signal: null })
    expect(stderr).toMatch(/^listening for payment events of every API/)
  })
})

describe('svc listen --forward-to', () => {
  test('a settlement arrives at the local URL, signed with the secret svc listen printed; a failed delivery is retried; a sandbox.* change is forwarded too', async () => {
    const deliveries: { headers: IncomingMessage['headers']; body: string }[] = []
    let refusedOnce = false
    const receiver = createServer((req, res) => {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => {
        // The first delivery is refused: it must come again.
        if (!refusedOnce) {
          refusedOnce = true
          return void res.writeHead(503).end()
        }
        deliveries.push({ headers: req.headers, body })
        res.writeHead(204).end()
      })
    })
    receiver.listen(0, '127.0.0.1')
    await once(receiver, 'listening')
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/svc`

    const child = spawn(
      process.execPath,
      [svcBin, ...base, 'listen', '--json', '--api', 'weather', '--forward-to', hook],
      {
        env: { ...cli.env, SVC_API_KEY: sandbox.seller.apiKey },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    try {
      const stderr = createInterface({ input: child.stderr! })
      const stdout = createInterface({ input: child.stdout! })
      const printed: string[] = []
      stdout.on('line', (line) => printed.push(line))
      let secret = ''
      await new Promise<void>((resolve, reject) => {
        stderr.on('line', (line) => {
          const match = /the signing secret is (whsec_[0-9a-f]+)$/.exec(line)
          if (match) secret = match[1]!
          if (line.startsWith('listening for payment events of weather')) resolve()
        })
        child.once('exit', (code) => reject(new Error(`svc listen exited with ${code}`)))
      })
      expect(secret).toMatch(/^whsec_/)

      expect((await sandbox.buyer.fetch(url)).status).toBe(200)
      // payment.required (refused once, then delivered), payment.verified, payment.settled, in order.
      await expect.poll(() => deliveries.length, { timeout: 15_000 }).toBe(3)
      const types = deliveries.map((delivery) => delivery.headers['svc-event-type'])
      expect(types).toEqual(['payment.required', 'payment.verified', 'payment.settled'])
      const settled = deliveries[2]!
      expect(settled.headers['content-type']).toBe('application/json')
      expect(verifyEventSignature(secret, settled.headers['svc-signature'] as string, settled.body)).toBe(true)
      expect(verifyEventSignature('whsec_wrong', settled.headers['svc-signature'] as string, settled.body)).toBe(false)
      expect(
        verifyEventSignature(
          secret,
          settled.headers['svc-signature'] as string,
          settled.body.replace('10000', '10001'),
        ),
      ).toBe(false)
      const event = JSON.parse(settled.body)
      expect(event).toMatchObject({
        type: 'payment.settled',
        api_slug: 'weather',
        payer: sandbox.buyer.address,
        charged: true,
        id: settled.headers['svc-event-id'],
      })
      expect(event.transaction).toMatch(/^0x[0-9a-f]{64}$/)
      // --json: one JSON object a line, the same events.
      await expect.poll(() => printed.length).toBe(3)
      expect(printed.map((line) => JSON.parse(line).type)).toEqual(types)

      // A whole-Sandbox change the stream shows this credential is forwarded too, signed, with who made it.
      await sandbox.advanceTime(60)
      await expect.poll(() => deliveries.length, { timeout: 15_000 }).toBe(4)
      const changed = deliveries[3]!
      expect(changed.headers['svc-event-type']).toBe('sandbox.time_advanced')
      expect(verifyEventSignature(secret, changed.headers['svc-signature'] as string, changed.body)).toBe(true)
      expect(JSON.parse(changed.body)).toMatchObject({
        type: 'sandbox.time_advanced',
        actor: 'local',
        seconds: 60,
        id: changed.headers['svc-event-id'],
      })
      await expect.poll(() => printed.length).toBe(4)
    } finally {
      const exited = once(child, 'exit')
      child.kill('SIGINT')
      const [code] = await exited
      expect(code).toBe(0)
      receiver.close()
    }
  })
})
