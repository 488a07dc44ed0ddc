/**
 * docs/escrow.md's blocks (and the README's escrow section, a copy of its first), run as a reader runs them against
 * a real svc (Anvil, svc's facilitator, the SQLite control plane and the gateway, on port 0) with Get started's demo
 * seed and the demo upstream: the shell walk-through
 * with `svc` on the PATH (an auth-capture endpoint, `svc pay`, a partial capture, the void of the rest, a refund, then
 * another hold reclaimed by the buyer after `svc time advance`); the SDK script; the seed file, applied; and the
 * `@x402/express` seller with svc's `AuthCaptureServerScheme`, run with tsx and paid by `svc pay`. The chain's USDC
 * balances and svc's records are checked after each.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type ChainServices, startChainServices } from '../../chain/services.js'
import type { Listening } from '../../core/http.js'
import { startDemoUpstream } from '../../fixtures/demo-upstream.js'
import { packageDeployment, specDeployment } from '../../core/auth-capture/deployments.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { applySeed, parseSeed, readSeedFile } from '../../sdk/seed.js'
import { type Cli, createCli, docsShell } from '../cli/harness.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { docBlock, pageText, root } from './blocks.js'

let chain: ChainServices
let t: TestServer
let demo: Listening
let cli: Cli
let bash: ReturnType<typeof docsShell>['bash']
/** A directory inside the repository, so the TypeScript blocks import "svc" as a project does (the package's name). */
let project: string
const buyerKey = generatePrivateKey()
const buyer = privateKeyToAccount(buyerKey).address
/** The pay-to address of the demo's API `weather` and of the page's express seller. */
const payTo: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
const asBuyer = { SVC_EVM_PRIVATE_KEY: buyerKey }

/** A page's block with the Sandbox's port (4020 on the page) this test's. */
const onThisSvc = (name: string) => docBlock(name).code.replaceAll(':4020/', `:${t.server.port}/`)

const usdcOf = (address: Address) =>
  chain.sandboxChain.client.readContract({
    address: chain.sandboxChain.usdc.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })
const balances = async () => ({ buyer: await usdcOf(buyer), payTo: await usdcOf(payTo) })

beforeAll(async () => {
  ;[chain, demo] = await Promise.all([startChainServices(), startDemoUpstream()])
  t = await startTestServer({ chain })
  await chain.manager.fund(buyer)
  // The page starts from Get started's demo: `svc up --seed fixtures/demo-seed.yaml`, its seller logged in.
  const seed = parseSeed(readSeedFile(join(root, 'fixtures', 'demo-seed.yaml')), { demo_upstream: demo.url })
  const urls = { controlUrl: t.server.controlUrl, sandboxControlUrl: t.server.sandboxControlUrl }
  const { jwt } = await applySeed(seed, urls)
  cli = createCli({ SVC_BASE_URL: t.server.sandboxControlUrl, SVC_JWT: jwt })
  ;({ bash } = docsShell(cli))
  mkdirSync(join(root, 'test-artifacts'), { recursive: true })
  project = mkdtempSync(join(root, 'test-artifacts', 'escrow-docs-'))
}, 120_000)
afterAll(async () => {
  if (project) rmSync(project, { recursive: true, force: true })
  await t?.stop()
  await chain?.stop()
  await demo?.close()
})

/** Runs a TypeScript block of the page as the page says: `npx tsx --import svc/register FILE`, in `project`. */
function startBlock(name: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  writeFileSync(join(project, name), docBlock(name).code)
  const child = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['--import', 'svc/register', name], {
    cwd: project,
    env: { ...process.env, ...env },
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  return { child, output: () => output }
}
async function runBlock(name: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const { child, output } = startBlock(name, env)
  const [code] = await once(child, 'exit')
  return { code, output: output() }
}

/** Each test spawns several `svc` processes (and tsx): bounds for a loaded machine. */
const slow = 120_000

const paymentsOf = async (state?: string) =>
  (await cli.json(['payments', 'list', ...(state ? ['--state', state] : [])])).payments as Record<string, any>[]

describe("docs/escrow.md's walk-through (bash, svc on the PATH)", () => {
  test(
    'escrow.sh then escrow-moves.sh: a hold of 0.01, 0.006 captured, the rest voided, 0.002 refunded',
    async () => {
      const start = await balances()
      const result = await bash(`${onThisSvc('escrow.sh')}\n${onThisSvc('escrow-moves.sh')}`, asBuyer)
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const id = /^captured 0\.006 USDC of (esc_\w+): captured 0\.006\/0\.01, held 0\.004 \(0x[0-9a-f]{64}\)$/m.exec(
        result.stdout,
      )?.[1]
      expect(id, result.stdout).toBeDefined()
      expect(result.stdout).toMatch(/^paid: settled held 0\.01 USDC in escrow tx 0x[0-9a-f]{64} /m)
      expect(result.stdout).toMatch(new RegExp(`^voided 0\\.004 USDC of ${id}: captured 0\\.006/0\\.01 \\(0x`, 'm'))
      expect(result.stdout).toMatch(
        new RegExp(`^refunded 0\\.002 USDC of ${id}: captured 0\\.006/0\\.01, refunded 0\\.002 \\(0x`, 'm'),
      )
      expect(result.stdout).toMatch(/^state\s+captured 0\.006\/0\.01, refunded 0\.002$/m)
      // The chain: the buyer paid 0.004 in all (0.01 held, 0.004 voided back, 0.002 refunded), the pay-to has it.
      expect(await balances()).toEqual({ buyer: start.buyer - 4_000n, payTo: start.payTo + 4_000n })
      const [payment] = await paymentsOf()
      expect(payment).toMatchObject({
        id,
        method: 'GET',
        path: '/weather/lisbon',
        capture_mode: 'deferred',
        state: 'captured',
        authorized: '10000',
        captured: '6000',
        voided: '4000',
        refunded: '2000',
      })
    },
    slow,
  )

  test(
    'escrow-sdk.ts: adds the deferred /jobs endpoint; captures 0.006 of each hold and voids the rest',
    async () => {
      const pay = await cli.run(['pay', `${t.gatewayUrl('weather')}/weather/lisbon`], asBuyer)
      expect(pay.code, pay.stderr).toBe(0)
      const [held] = await paymentsOf('authorized')
      const key = (
        await cli.json([
          'keys',
          'create',
          '--name',
          'jobs',
          '--scopes',
          'apis:read,endpoints:write,settlements:read,payments:write',
          '--sandbox',
        ])
      ).key as string
      const start = await balances()
      const { code, output } = await runBlock('escrow-sdk.ts', {
        SVC_BASE_URL: t.server.sandboxControlUrl,
        SVC_API_KEY: key,
      })
      expect(code, output).toBe(0)
      expect(output).toMatch(new RegExp(`^${held!.id} 0x[0-9a-f]{64} captured 4000\\n$`))
      expect(await balances()).toEqual({ buyer: start.buyer + 4_000n, payTo: start.payTo + 6_000n })
      const { endpoints } = await cli.json(['endpoints', 'list', 'weather'])
      expect(endpoints.find((e: { path_pattern: string }) => e.path_pattern === '/jobs').accepts[0]).toMatchObject({
        scheme: 'auth-capture',
        amount: '10000',
        extra: expect.objectContaining({ captureMode: 'deferred', captureDeadlineSeconds: 3600 }),
      })
    },
    slow,
  )

  test(
    'escrow-seed.yaml: applied, its endpoint offers auth-capture, deferred, with its deadlines',
    async () => {
      const file = join(project, 'escrow-seed.yaml')
      writeFileSync(file, docBlock('escrow-seed.yaml').code)
      const seed = parseSeed(readSeedFile(file))
      const applied = await applySeed(seed, {
        controlUrl: t.server.controlUrl,
        sandboxControlUrl: t.server.sandboxControlUrl,
      })
      expect(applied.apis).toMatchObject([{ slug: 'bookings', created: true, endpoints_created: 1 }])
      const unpaid = await localFetch(`${t.gatewayUrl('bookings')}/book`, { method: 'POST' })
      expect(unpaid.status).toBe(402)
      const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString('utf8'))
      const now = Math.floor(Date.parse((await cli.json(['time'])).svc_time) / 1000)
      expect(required.accepts).toEqual([
        expect.objectContaining({
          scheme: 'auth-capture',
          amount: '10000',
          payTo,
          extra: expect.objectContaining({ captureMode: 'deferred', paymentFlow: 'escrow' }),
        }),
      ])
      const { captureDeadline, refundDeadline } = required.accepts[0].extra
      expect(captureDeadline - now).toBeGreaterThan(3_600 - 120)
      expect(captureDeadline - now).toBeLessThanOrEqual(3_600 + 120)
      expect(refundDeadline - now).toBeGreaterThan(604_800 - 120)
    },
    slow,
  )

  test(
    'escrow-seller.ts: @x402/express with AuthCaptureServerScheme on svc facilitator; sync captured, deferred captured later',
    async () => {
      const port = await freePort()
      const seller = startBlock('escrow-seller.ts', {
        FACILITATOR_URL: chain.facilitatorUrl,
        RECEIVER_AUTHORIZER_KEY: generatePrivateKey(),
        PORT: String(port),
      })
      try {
        await expect.poll(seller.output, { timeout: 60_000 }).toContain('Seller listening on')
        const start = await balances()
        const book = await cli.run(['pay', `http://localhost:${port}/book`], asBuyer)
        expect(book.stderr).toBe('')
        expect(book.stdout).toMatch(/^paid: settled charged 0\.01 USDC tx 0x[0-9a-f]{64} /m)
        expect(book.stdout).toContain('{"booked":true}')
        const job = await cli.run(['pay', `http://localhost:${port}/job`], asBuyer)
        expect(job.stdout).toMatch(/^paid: settled held 0\.01 USDC in escrow tx 0x[0-9a-f]{64} /m)
        await expect.poll(seller.output, { timeout: 20_000 }).toMatch(/^captured 6000 of 0x[0-9a-f]{64}$/m)
        await expect
          .poll(balances, { timeout: 20_000 })
          .toEqual({ buyer: start.buyer - 16_000n, payTo: start.payTo + 16_000n })
      } finally {
        seller.child.kill()
        if (seller.child.exitCode === null) await once(seller.child, 'exit')
      }
    },
    slow,
  )

  test(
    'escrow-reclaim.sh: another hold; after svc time advance 2d the buyer reclaims it, and svc records it',
    async () => {
      const start = await balances()
      const result = await bash(onThisSvc('escrow-reclaim.sh'), asBuyer)
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/^paid: settled held 0\.01 USDC in escrow tx 0x/m)
      expect(result.stdout).toMatch(/^reclaimed 0\.01 USDC of 0x[0-9a-f]{64} \(0x[0-9a-f]{64}\)$/m)
      expect(await balances()).toEqual(start)
      await expect.poll(async () => (await paymentsOf('reclaimed')).length).toBe(1)
      const [reclaimed] = await paymentsOf('reclaimed')
      expect(reclaimed).toMatchObject({
        path: '/weather/lisbon',
        authorized: '10000',
        reclaimed: '10000',
        captured: '0',
      })
    },
    slow,
  )
})

describe("docs/escrow.md's addresses", () => {
  test(
    'the two v1.1 sets are the ones svc installs (code at each), /supported names the package set and the operator',
    async () => {
      const page = pageText('docs/escrow.md')
      const rows = [...page.matchAll(/^\| (.+?) \| `(0x\w{40})` \| `(0x\w{40})` \| `(0x\w{40})` \| `(0x\w{40})` \|$/gm)]
      const { version } = JSON.parse(readFileSync(join(root, 'node_modules/@x402/evm/package.json'), 'utf8'))
      const set = (d: typeof specDeployment) => [
        d.escrow,
        d.eip3009Collector,
        d.permit2Collector,
        d.operatorRefundCollector,
      ]
      expect(rows.map((row) => [row[1], ...row.slice(2)])).toEqual([
        ["x402's EVM binding", ...set(specDeployment)],
        [`the installed \`@x402/evm\` ${version}`, ...set(packageDeployment)],
      ])
      for (const address of [...set(specDeployment), ...set(packageDeployment)])
        expect((await chain.sandboxChain.client.getCode({ address }))?.length ?? 0, address).toBeGreaterThan(2)
      const supported = (await (await fetch(`${chain.facilitatorUrl}/supported`)).json()) as {
        kinds: { scheme: string; extra?: Record<string, unknown> }[]
      }
      const kind = supported.kinds.find((k) => k.scheme === 'auth-capture')!
      const operator = /relayer account `(0x\w{40})` as\s+`captureAuthorizer`/.exec(page)?.[1]
      expect(kind.extra).toMatchObject({ captureAuthorizer: operator, authCaptureEscrow: packageDeployment.escrow })
    },
    slow,
  )
})

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  server.close()
  await once(server, 'close')
  return port
}
