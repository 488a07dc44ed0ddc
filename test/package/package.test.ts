/**
 * svc as another project gets it: `npm pack`, the tarball installed into a fresh project next to the official x402
 * packages, and the docs' code blocks (docs/buy.md's buyers, docs/sell.md's SDK form and seller, the schemes' and the
 * tests' examples) written into that project and run there as the pages say (`tsx --import svc/register …`,
 * `vitest run`). The sandbox they
 * pay in is started from this repo's sources; the vitest example starts its own from the installed `svc/testing`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { createPublicClient, erc20Abi, http, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { cleanEnv, createPackedProject, installCommands, type PackedProject } from './packed-project.js'
import { docBlock, root } from '../docs/blocks.js'
import { blockAfterHeading, type ReadmeBlock } from './readme-blocks.js'

/** The docs' blocks this project writes and runs (test/docs/blocks.ts finds them on whichever page holds them). */
const blockNames = [
  'add-endpoint-sdk.ts',
  'bazaar.ts',
  'buyer-metered.ts',
  'buyer-axios.ts',
  'buyer-payment-id.ts',
  'buyer.ts',
  'facilitator.ts',
  'install-tests.sh',
  'install.sh',
  'offer-receipt.ts',
  'seller-metered.ts',
  'seller.ts',
  'siwx-buyer.ts',
  'test/faults.test.ts',
  'test/shared-sandbox.test.ts',
  'test/snapshots.test.ts',
  'test/svc-sandbox.ts',
  'test/weather.test.ts',
  'vitest.config.ts',
]
const blocks: ReadmeBlock[] = blockNames.map((name) => ({ file: name, code: docBlock(name).code }))
/**
 * The project as the README makes it: its install line (the official packages and what the examples import), then
 * what running svc in tests adds; then, for this test's type check of the examples only, TypeScript and types.
 */
const steps = [
  installCommands(block('install.sh').code),
  installCommands(block('install-tests.sh').code),
  [['npm', 'i', '-D', 'typescript@5.9.3', '@types/node@20.19.43', '@types/express@5.0.6']],
]
/** What the project could do after the README's first install line alone. */
let buyerOnly: { sqlite: boolean; up: { code: number | null; stderr: string }; client: string }
/** The README seller's payTo. */
const sellerPayTo: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

let project: PackedProject
let sandbox: TestSandbox
let upstream: Server

function block(file: string): ReadmeBlock {
  const found = blocks.find((candidate) => candidate.file === file)
  if (!found) throw new Error(`README has no block marked ${file}`)
  return found
}

/** Runs a README file with tsx and svc/register, as the README says. */
function runWithRegister(file: string, env: NodeJS.ProcessEnv) {
  return project.exec(join(project.dir, 'node_modules', '.bin', 'tsx'), ['--import', 'svc/register', file], {
    env,
    timeout: 60_000,
  })
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Starts a README seller (`file`, default seller.ts) and resolves once it prints that it listens. */
async function startSeller(env: NodeJS.ProcessEnv, file = 'seller.ts'): Promise<ChildProcess> {
  const child = spawn(join(project.dir, 'node_modules', '.bin', 'tsx'), ['--import', 'svc/register', file], {
    cwd: project.dir,
    env: cleanEnv(env),
  })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk
      if (output.includes('Seller listening on')) resolve()
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk))
    child.once('exit', (code) => reject(new Error(`the seller exited (${code}) before listening:\n${output}`)))
  })
  return child
}

/** After the first install line: no native module, the client and svc/register load, `svc up` says what it lacks. */
async function tryBuyerOnly(created: PackedProject, step: number): Promise<void> {
  if (step !== 0) return
  const sqlite = existsSync(join(created.dir, 'node_modules', 'better-sqlite3'))
  const svcBin = join(created.dir, 'node_modules', '.bin', 'svc')
  const up = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(svcBin, ['up', '--ephemeral', '--port', '0', '--no-tui'], {
      cwd: created.dir,
      env: cleanEnv(),
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk))
    child.once('exit', (code) => resolve({ code, stderr }))
  })
  const { stdout: client } = await created.exec(process.execPath, [
    '--import',
    'svc/register',
    '--input-type=module',
    '-e',
    `import { createSvcClient } from 'svc'; console.log(typeof createSvcClient({ baseUrl: 'http://sandbox.localhost:1' }).apis.list)`,
  ])
  buyerOnly = { sqlite, up, client: client.trim() }
}

beforeAll(async () => {
  upstream = createServer((req, res) =>
    res.setHeader('content-type', 'application/json').end(JSON.stringify({ path: req.url })),
  )
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  ;[project, sandbox] = await Promise.all([createPackedProject({ steps, between: tryBuyerOnly }), startSandbox()])
  console.log(
    `svc package: npm pack ${project.timings.pack.toFixed(1)} s, npm install ${project.timings.install.toFixed(1)} s`,
  )
  for (const { file, code } of blocks.filter((b) => !b.file.endsWith('.sh'))) {
    mkdirSync(dirname(join(project.dir, file)), { recursive: true })
    writeFileSync(join(project.dir, file), code)
  }
}, 300_000)

afterAll(async () => {
  await sandbox?.stop()
  upstream?.close()
  // Removing the installed project (its node_modules) took over 30 s on a loaded machine.
  project?.remove()
}, 120_000)

describe('the svc package, installed from its tarball', () => {
  it("README: the first install line brings no native module; svc's client and svc/register work, svc up says what it lacks", () => {
    expect(buyerOnly.sqlite).toBe(false)
    expect(buyerOnly.client).toBe('function')
    expect(buyerOnly.up.code).toBe(2)
    expect(buyerOnly.up.stderr.trim()).toBe(
      'svc: starting svc needs better-sqlite3, which is not installed: npm i -D better-sqlite3@12.11.1',
    )
  })

  it('README: the buyer is the example of @x402/fetch README, unchanged', () => {
    const official = readFileSync(join(project.dir, 'node_modules', '@x402', 'fetch', 'README.md'), 'utf8')
    expect(block('buyer.ts').code).toBe(blockAfterHeading(official, '### Basic Usage with EVM'))
  })

  it('docs: the axios buyer is the example of @x402/axios README (v2), unchanged', () => {
    const official = readFileSync(join(project.dir, 'node_modules', '@x402', 'axios', 'README.md'), 'utf8')
    expect(block('buyer-axios.ts').code).toBe(blockAfterHeading(official, '### Basic Usage with EVM'))
  })

  it('provides the svc command and the .d.ts of svc, svc/testing and svc/register (tsc on the README examples)', async () => {
    const { stdout } = await project.exec(join(project.dir, 'node_modules', '.bin', 'svc'), ['--help'])
    expect(stdout).toMatch(/\bup\b/)
    writeFileSync(
      join(project.dir, 'uses-svc.ts'),
      [
        `import 'svc/register'`,
        `import { createSvcClient, localFetch, sandboxNetwork, SvcApiError, type Api, type SvcClient } from 'svc'`,
        `import { startSandbox, type TestSandbox } from 'svc/testing'`,
        `const client: SvcClient = createSvcClient({ baseUrl: 'http://sandbox.localhost:4020', fetch: localFetch })`,
        `export const apis: Promise<Api[]> = client.apis.list()`,
        `export const start: () => Promise<TestSandbox> = startSandbox`,
        `export const facts = [sandboxNetwork satisfies 'eip155:845320402', SvcApiError]`,
      ].join('\n'),
    )
    const tsconfig = {
      compilerOptions: {
        module: 'NodeNext',
        target: 'ES2022',
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        types: ['node'],
      },
    }
    writeFileSync(
      join(project.dir, 'tsconfig.json'),
      JSON.stringify({
        ...tsconfig,
        files: [
          'uses-svc.ts',
          'add-endpoint-sdk.ts',
          'vitest.config.ts',
          'test/svc-sandbox.ts',
          'test/weather.test.ts',
          'test/snapshots.test.ts',
          'test/faults.test.ts',
          'test/shared-sandbox.test.ts',
        ],
      }),
    )
    await project.exec(process.execPath, [join(project.dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'])
  })

  it('ships the seed file JSON Schema at schemas/seed.schema.json, exported as svc/seed.schema.json', async () => {
    const shipped = join(project.dir, 'node_modules', 'svc', 'schemas', 'seed.schema.json')
    expect(readFileSync(shipped, 'utf8')).toBe(readFileSync(join(root, 'schemas', 'seed.schema.json'), 'utf8'))
    const { stdout } = await project.exec(process.execPath, ['-p', `require.resolve('svc/seed.schema.json')`])
    expect(realpathSync(stdout.trim())).toBe(realpathSync(shipped))
  })

  it("svc/register from CommonJS reaches @x402/evm's CommonJS build", async () => {
    const script = `require('svc/register'); const { ExactEvmScheme } = require('@x402/evm/exact/server'); new ExactEvmScheme().parsePrice('$0.01', 'eip155:845320402').then((price) => console.log(JSON.stringify(price)))`
    const { stdout } = await project.exec(process.execPath, ['-e', script])
    expect(JSON.parse(stdout)).toEqual({
      amount: '10000',
      asset: sandbox.usdc.address,
      extra: { name: 'USDC', version: '2' },
    })
  })

  it('README: the buyer (@x402/fetch) pays a Sandbox API at http://{slug}.dev.localhost:PORT', async () => {
    const { client } = sandbox.seller
    const api = await client.apis.create({
      name: 'Packed',
      slug: 'packed',
      upstream_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    })
    await client.endpoints.create(api.id, {
      method: 'GET',
      path_pattern: '/hello',
      accepts: [{ scheme: 'exact', network: sandbox.network, asset: sandbox.usdc.address, amount: '10000' }],
    })
    const { stdout, stderr } = await runWithRegister('buyer.ts', {
      EVM_PRIVATE_KEY: sandbox.buyer.privateKey,
      API_URL: `${sandbox.gatewayUrl('packed')}/hello`,
    })
    expect(stderr).toBe('')
    expect(stdout).toMatch(/Payment details: \{[^}]*success: true/)
    expect(stdout).toContain(`Response data: { path: '/hello' }`)
    expect((await client.settlements.list({})).settlements).toHaveLength(1)
  })

  it('README: the payment-identifier buyer retries with its id and is charged once', async () => {
    const { client } = sandbox.seller
    const api = await client.apis.create({
      name: 'Packed idempotent',
      slug: 'packed-id',
      upstream_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    })
    await client.endpoints.create(api.id, {
      method: 'GET',
      path_pattern: '/once',
      accepts: [{ scheme: 'exact', network: sandbox.network, asset: sandbox.usdc.address, amount: '10000' }],
    })
    const { stdout, stderr } = await runWithRegister('buyer-payment-id.ts', {
      EVM_PRIVATE_KEY: sandbox.buyer.privateKey,
      API_URL: `${sandbox.gatewayUrl('packed-id')}/once`,
    })
    expect(stderr).toBe('')
    expect(stdout).toBe('200 200 same settlement\n')
    expect((await client.settlements.list({ api_id: api.id })).settlements).toHaveLength(1)
  })

  it('docs: the axios buyer (@x402/axios 2.11) pays a Sandbox API', async () => {
    const { client } = sandbox.seller
    const api = await client.apis.create({
      name: 'Packed axios',
      slug: 'packed-axios',
      upstream_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    })
    await client.endpoints.create(api.id, {
      method: 'GET',
      path_pattern: '/axios',
      accepts: [{ scheme: 'exact', network: sandbox.network, asset: sandbox.usdc.address, amount: '10000' }],
    })
    const { stdout, stderr } = await runWithRegister('buyer-axios.ts', {
      EVM_PRIVATE_KEY: sandbox.buyer.privateKey,
      API_URL: `${sandbox.gatewayUrl('packed-axios')}/axios`,
    })
    expect(stderr).toBe('')
    expect(stdout).toMatch(/Payment details: \{[^}]*success: true/)
    expect(stdout).toContain(`Response data: { path: '/axios' }`)
    expect((await client.settlements.list({ api_id: api.id })).settlements).toHaveLength(1)
  })

  it('docs: the SDK form of "Add an endpoint with a price" (createSvcClient from svc) prices GET /forecast/{city} at 0.01 USDC', async () => {
    const { stdout, stderr } = await runWithRegister('add-endpoint-sdk.ts', {
      SVC_BASE_URL: sandbox.sandboxControlUrl,
      SVC_API_KEY: sandbox.seller.apiKey,
    })
    expect(stderr).toBe('')
    const url = `${sandbox.gatewayUrl('weather')}/forecast/paris`
    expect(stdout).toBe(`${url} 10000\n`)
    // The buyer's view: the gateway asks 0.01 USDC of the Sandbox USDC for the route.
    const unpaid = await sandbox.fetch(url)
    expect(unpaid.status).toBe(402)
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString('utf8'))
    expect(required.accepts).toEqual([
      expect.objectContaining({
        scheme: 'exact',
        network: sandbox.network,
        asset: sandbox.usdc.address,
        amount: '10000',
      }),
    ])
  })

  it("README: the seller (@x402/express on svc's facilitator) sells '$0.01' and { amount, asset } to the buyer", async () => {
    const port = await freePort()
    const seller = await startSeller({ FACILITATOR_URL: sandbox.facilitatorUrl, PORT: String(port) })
    try {
      for (const route of ['/protected-route', '/priced-in-usdc']) {
        const { stdout, stderr } = await runWithRegister('buyer.ts', {
          EVM_PRIVATE_KEY: sandbox.buyer.privateKey,
          API_URL: `http://localhost:${port}${route}`,
        })
        expect(stderr).toBe('')
        expect(stdout).toMatch(/Payment details: \{[^}]*success: true/)
        expect(stdout).toContain('Response data: { message:')
      }
    } finally {
      seller.kill()
    }
    const chain = createPublicClient({ transport: http(sandbox.rpcUrl) })
    const balance = await chain.readContract({
      address: sandbox.usdc.address as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [sellerPayTo],
    })
    expect(balance).toBe(20_000n)
  })

  it('README: exact through Permit2 (a sponsored permit, a sponsored approval) and upto (settling what was used) with the official packages', async () => {
    const port = await freePort()
    const seller = await startSeller(
      { FACILITATOR_URL: sandbox.facilitatorUrl, PORT: String(port) },
      'seller-metered.ts',
    )
    try {
      const { stdout, stderr } = await runWithRegister('buyer-metered.ts', {
        EVM_PRIVATE_KEY: sandbox.buyer.privateKey,
        RPC_URL: sandbox.rpcUrl,
        SELLER_URL: `http://localhost:${port}`,
      })
      expect(stderr).toBe('')
      expect(stdout).toBe('/permit2 200 true the price\n/approval 200 true the price\n/metered 200 true 1234\n')
    } finally {
      seller.kill()
    }
    const chain = createPublicClient({ transport: http(sandbox.rpcUrl) })
    const balance = await chain.readContract({
      address: sandbox.usdc.address as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: ['0x90F79bf6EB2c4f870365E785982E1f101E93b906'],
    })
    expect(balance).toBe(10_000n + 10_000n + 1234n)
    // The approval the buyer signed for /approval is on chain: Permit2 may spend the buyer's USDC without limit.
    const allowance = await chain.readContract({
      address: sandbox.usdc.address as Address,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [sandbox.buyer.address, '0x000000000022D473030F116dDEE9F6B43aC78BA3'],
    })
    expect(allowance).toBe(2n ** 256n - 1n)
  })

  it("README: sign-in-with-x (the package's client extension) pays once, then signs in; offer-receipt verifies offer and receipt", async () => {
    const { client } = sandbox.seller
    const api = await client.apis.create({
      name: 'Extensions',
      slug: 'extensions',
      upstream_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    })
    const accepts = [
      { scheme: 'exact' as const, network: sandbox.network, asset: sandbox.usdc.address, amount: '10000' },
    ]
    await client.endpoints.create(api.id, {
      method: 'GET',
      path_pattern: '/members',
      accepts,
      siwx: { access_seconds: 3600 },
    })
    await client.endpoints.create(api.id, { method: 'GET', path_pattern: '/quote', accepts })
    const env = { EVM_PRIVATE_KEY: sandbox.buyer.privateKey }
    const signedIn = await runWithRegister('siwx-buyer.ts', {
      ...env,
      API_URL: `${sandbox.gatewayUrl('extensions')}/members`,
    })
    expect(signedIn.stderr).toBe('')
    expect(signedIn.stdout).toBe('first 200 paid\nsecond 200 signed in\n')
    const signed = await runWithRegister('offer-receipt.ts', {
      ...env,
      API_URL: `${sandbox.gatewayUrl('extensions')}/quote`,
    })
    expect(signed.stderr).toBe('')
    expect(signed.stdout).toBe('offer 10000 0x000000000000000000000000000000000000bEEF\nreceipt true true\n')
    const settlements = (await client.settlements.list({ api_id: api.id })).settlements
    expect(settlements).toHaveLength(2)
  })

  it("README: the facilitator block reads svc's facilitator", async () => {
    const { stdout } = await runWithRegister('facilitator.ts', { FACILITATOR_URL: sandbox.facilitatorUrl })
    expect(stdout).toContain(`network: 'eip155:845320402'`)
    expect(stdout).toContain(`scheme: 'upto'`)
    expect(stdout).toContain(`[ 'eip2612GasSponsoring', 'bazaar', 'erc20ApprovalGasSponsoring' ]`)
  })

  it("README: withBazaar lists the gateway's endpoint the buyer paid above, with its discovery info", async () => {
    const { stdout, stderr } = await runWithRegister('bazaar.ts', { FACILITATOR_URL: sandbox.facilitatorUrl })
    expect(stderr).toBe('')
    // Every route the blocks above paid is listed (newest first), /hello among them.
    expect(stdout).toMatch(/^[1-9]\d* \[/)
    expect(stdout).toContain(`'${sandbox.gatewayUrl('packed')}/hello 10000'`)
    expect(stdout).toContain(`input: { type: 'http', queryParams: {}, method: 'GET' }`)
    expect(stdout).toContain('schema: {')
  })

  it('README: the vitest globalSetup with startSandbox() from svc/testing, and the suite that reverts to a snapshot between tests, pass in the project', async () => {
    const { stdout } = await project.exec(join(project.dir, 'node_modules', '.bin', 'vitest'), ['run'], {
      env: { CI: 'true' },
      timeout: 120_000,
    })
    expect(stdout).toMatch(/Tests\s+8 passed/)
    // Two sandboxes start in the project (the globalSetup's, and the faults example's own): the run may take as long as exec allows.
  }, 120_000)
})
