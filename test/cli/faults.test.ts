/**
 * `svc fault …`, `svc chain restart` and `svc listen --forward-to` against a running sandbox, with the official
 * `@x402/fetch` client (the test handle's buyer) paying; and docs/sandbox-tools.md's blocks, run as written against
 * the same sandbox.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { verifyEventSignature } from '../../core/event-signature.js'
import { createSvcClient } from '../../sdk/client.js'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { startUpstream } from '../server/gateway/helpers.js'
import { createCli, svcBin, type Cli } from './harness.js'
import { createSellerApi } from '../helpers/seller-api.js'
import { docBlock, root } from '../docs/blocks.js'

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

/** A free port on 127.0.0.1 (taken and given back: the receiver below listens on it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  server.close()
  await once(server, 'close')
  return port
}

/** Lines a child prints, as they come. */
function linesOf(stream: NodeJS.ReadableStream): string[] {
  const lines: string[] = []
  createInterface({ input: stream }).on('line', (line) => lines.push(line))
  return lines
}

describe("docs/sandbox-tools.md's blocks, run against this sandbox", () => {
  let dir: string
  let env: NodeJS.ProcessEnv
  beforeAll(() => {
    // `svc` on the PATH is this checkout's; the TypeScript blocks import "svc" as a project does (the package's own
    // name resolves to it from inside the repository), and express from its node_modules.
    dir = mkdtempSync(join(root, '.tmp-sandbox-tools-'))
    writeFileSync(join(dir, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${svcBin}" "$@"\n`, { mode: 0o755 })
    env = { ...cli.env, PATH: `${dir}:${process.env.PATH}`, SVC_BASE_URL: sandbox.sandboxControlUrl }
  })
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }))

  const run = (command: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(command, args, { cwd: dir, env: { ...env, ...extra } })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk) => (stdout += chunk))
      child.stderr.on('data', (chunk) => (stderr += chunk))
      child.on('exit', (code) => resolve({ code, stdout, stderr }))
    })

  test('sandbox-tools.sh: faults, a snapshot, time travel, a revert and a chain restart, each command as written', async () => {
    const block = docBlock('sandbox-tools.sh')
    expect(block.page).toBe('docs/sandbox-tools.md')
    const before = (await cli.json([...base, 'time'])).offset_seconds as number
    const result = await run('bash', ['-euo', 'pipefail', '-c', block.code])
    // A block that stops half-way leaves its faults: the next tests must not meet them.
    if (result.code !== 0) await sandbox.faults.clear()
    expect(result.code, result.stderr).toBe(0)
    const sandboxUrl = sandbox.sandboxControlUrl
    expect(result.stdout).toMatch(
      new RegExp(`^flt_\\w+ on ${sandboxUrl}: verify answers invalid_exact_evm_signature`, 'm'),
    )
    expect(result.stdout).toMatch(new RegExp(`^cleared 6 faults of ${sandboxUrl}$`, 'm'))
    expect(result.stdout.split('\n')).toContain('invalid_exact_evm_transaction_failed')
    expect(result.stdout).toMatch(new RegExp(`^offset +\\+${before + 7200} s$`, 'm'))
    expect(result.stdout).toMatch(new RegExp(`^reverted ${sandboxUrl} to snap_\\w+ `, 'm'))
    expect(result.stdout).toMatch(new RegExp(`^the chain of ${sandboxUrl} restarted on ${sandbox.rpcUrl}`, 'm'))
    // The revert put svc's clock back (as far as the chain allows); no fault is left; the buyer pays.
    expect((await cli.json([...base, 'time'])).offset_seconds).toBeLessThanOrEqual(before)
    expect(await cli.ok([...base, 'fault', 'list'])).toBe('no faults in force\n')
    expect((await sandbox.buyer.fetch(url)).status).toBe(200)
  })

  test("faucet.sh: the curl line funds an address (PORT: the chain manager's)", async () => {
    const address = '0x00000000000000000000000000000000000Fa0CE'
    const port = new URL(sandbox.chainManagerUrl).port
    const code = docBlock('faucet.sh').code.replace('PORT', port).replace('0xYourAddress', address)
    const result = await run('bash', ['-euo', 'pipefail', '-c', code])
    expect(result.code, result.stderr).toBe(0)
    const answer = JSON.parse(result.stdout)
    expect(answer).toMatchObject({ funded: expect.anything(), balances: expect.anything() })
    expect(BigInt(answer.balances.usdc_base)).toBe(1_000_000_000n)
  })

  test("webhook-receiver.ts behind the `svc listen --forward-to` of the page, whose output is the page's sample", async () => {
    const sample = docBlock('svc listen --forward-to').code.trimEnd().split('\n')
    const command = sample[0]!
    expect(command).toMatch(/^\$ svc listen /)
    const port = await freePort()
    const pageUrl = /--forward-to (\S+)/.exec(command)![1]!
    const hook = pageUrl.replace(/:\d+\//, `:${port}/`)
    const args = command
      .slice('$ svc '.length)
      .split(' ')
      .map((arg) => (arg === pageUrl ? hook : arg))
    const listen = spawn(process.execPath, [svcBin, ...args], {
      cwd: dir,
      // A config dir of its own: the secret is new, as on a first run.
      env: { ...env, SVC_API_KEY: sandbox.seller.apiKey, SVC_CONFIG_DIR: join(dir, 'config') },
    })
    const stdout = linesOf(listen.stdout)
    const stderr = linesOf(listen.stderr)
    writeFileSync(join(dir, 'webhook-receiver.ts'), docBlock('webhook-receiver.ts').code)
    let receiver: ReturnType<typeof spawn> | undefined
    try {
      await expect
        .poll(() => stderr.some((line) => line.startsWith('listening for payment events')), { timeout: 15_000 })
        .toBe(true)
      const secret = /the signing secret is (whsec_\w+)/.exec(stderr.join('\n'))![1]!
      receiver = spawn(process.execPath, ['--import', 'tsx', 'webhook-receiver.ts'], {
        cwd: dir,
        env: { ...env, PORT: String(port), SVC_WEBHOOK_SECRET: secret },
      })
      const received = linesOf(receiver.stdout!)
      const receiverErr = linesOf(receiver.stderr!)
      // The receiver is up once it refuses a request whose signature is not svc's.
      await expect
        .poll(
          async () =>
            (
              await fetch(`http://127.0.0.1:${port}/webhooks/svc`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'svc-signature': 't=1,v1=00' },
                body: '{}',
              }).catch(() => undefined)
            )?.status,
          { timeout: 20_000, interval: 200 },
        )
        .toBe(400)
      expect((await sandbox.buyer.fetch(url)).status).toBe(200)
      // Every event reached the receiver, its signature verified (204), the settlement among them.
      await expect.poll(() => received, { timeout: 15_000 }).toContain('payment.settled weather')
      expect(receiverErr).toEqual([])
      await expect.poll(() => stderr.filter((line) => line.includes(' delivered to ')).length).toBeGreaterThanOrEqual(3)

      // The page's sample is what svc listen printed, but for the times, ids, addresses, secret, the receiver's and
      // svc's ports and the config dir.
      const normal = (line: string) =>
        line
          .replace(/whsec_\w+/, 'whsec_…')
          .replace(/evt_\w+/, 'evt_…')
          .replace(/0x[0-9a-fA-F]{6}…[0-9a-fA-F]{4}/g, '0x…')
          .replace(/^\d\d:\d\d:\d\d\.\d{3}/, 'HH:MM:SS.mmm')
          .replace(hook, pageUrl)
          .replace(/sandbox\.localhost:\d+/, 'sandbox.localhost:4020')
          .replace(join(dir, 'config'), '~/.config/svc')
      const printed = [...stderr, ...stdout].map(normal)
      const shown = sample.slice(1).map(normal)
      expect(stderr.slice(0, 3).map(normal)).toEqual(shown.slice(0, 3))
      expect(shown.filter((line) => !printed.includes(line))).toEqual([])
    } finally {
      receiver?.kill('SIGTERM')
      const exited = once(listen, 'exit')
      listen.kill('SIGINT')
      await exited
    }
  })

  test("events-stream.ts prints the refused payment of a fault (its base URL: this sandbox's)", async () => {
    const code = docBlock('events-stream.ts').code.replace('http://sandbox.localhost:4020', sandbox.sandboxControlUrl)
    writeFileSync(join(dir, 'events-stream.ts'), code)
    const child = spawn(process.execPath, ['--import', 'tsx', 'events-stream.ts'], {
      cwd: dir,
      env: { ...env, SVC_API_KEY: sandbox.seller.apiKey },
    })
    const printed = linesOf(child.stdout)
    const errors = linesOf(child.stderr)
    try {
      // Until the stream is open, a refused payment goes unseen: refuse one a time until one is printed.
      await expect
        .poll(
          async () => {
            await sandbox.faults.add({
              kind: 'verify',
              reason: 'invalid_exact_evm_signature',
              api: 'weather',
              times: 1,
            })
            expect((await sandbox.buyer.fetch(url)).status).toBe(402)
            return printed.length
          },
          { timeout: 30_000, interval: 500 },
        )
        .toBeGreaterThan(0)
      expect(errors).toEqual([])
      expect(printed[0]).toMatch(/^weather \/weather\/Lima invalid_exact_evm_signature /)
    } finally {
      await sandbox.faults.clear()
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    }
  })
})
