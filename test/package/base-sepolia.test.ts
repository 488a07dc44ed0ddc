/**
 * README "Your Base Sepolia code, offline": code written for Base Sepolia, x402 v2 and v1, copied from each package's
 * own README and changed only where the README says, pays on svc's Base Sepolia twin. A fresh project is made by the
 * section's install block (svc from its packed tarball, the official packages from the registry); `svc up --twin
 * base-sepolia` runs from that project; each seller listens on its README's port 3000, one at a time.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createPublicClient, erc20Abi, http, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { cleanEnv, createPackedProject, installCommands, type PackedProject } from './packed-project.js'
import { docBlock, type DocBlock, pageBlocks, scanDocs } from '../docs/blocks.js'
import { blockAfterHeading, type ReadmeBlock } from './readme-blocks.js'
import { startProjectSvc, type ProjectSvc } from './project-svc.js'

/** The page of the Base Sepolia examples (the one holding their install line), its blocks and its unmarked fences. */
const page = docBlock('base-sepolia/install.sh').page
const asBlock = (b: DocBlock): ReadmeBlock => ({ file: b.name, code: b.code })
const section = {
  blocks: pageBlocks(page)
    .filter((b) => b.kind === 'test')
    .map(asBlock),
  unmarked: scanDocs()
    .unmarked.filter((b) => b.page === page)
    .map((b) => b.first),
}
/** The v2 buyer is the one of "Using the official x402 packages" (`@x402/fetch`'s README example, unchanged). */
const v2Buyer = asBlock(docBlock('buyer.ts'))
const baseSepoliaUsdc: Address = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
/** The README sellers' payTo. */
const payTo: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const sellerUrl = 'http://localhost:3000/protected-route'
/** A payment test starts a seller and one or two buyers, each a tsx process: seconds each on a loaded machine. */
const paymentTimeout = 120_000

/**
 * Where each example comes from (the package's README in the project, the heading its block follows) and what the
 * README changed in it: each `[official, ours]` pair replaces exactly one occurrence.
 */
const origins: Record<string, { readme: string; heading: string; changes: [string, string][] }> = {
  'base-sepolia/seller-express.ts': {
    readme: '@x402/express',
    heading: '## Quick Start',
    changes: [
      ['"https://x402.org/facilitator"', 'process.env.FACILITATOR_URL'],
      ['"$0.10"', '"$0.001"'],
      ['"0xYourAddress"', `"${payTo}"`],
    ],
  },
  'base-sepolia/seller-hono.ts': {
    readme: '@x402/hono',
    heading: '## Quick Start',
    changes: [
      ['"https://x402.org/facilitator"', 'process.env.FACILITATOR_URL'],
      ['"0xYourAddress"', `"${payTo}"`],
    ],
  },
  'base-sepolia/seller-v1.ts': {
    readme: 'x402-express',
    heading: '## Quick Start',
    changes: [
      ['  }\n));', '  },\n  { url: process.env.FACILITATOR_URL }\n));'],
      ['"0xYourAddress"', `"${payTo}"`],
    ],
  },
  'base-sepolia/buyer-fetch-v1.ts': { readme: 'x402-fetch', heading: '## Example', changes: [] },
  'base-sepolia/buyer-axios-v1.ts': {
    readme: 'x402-axios',
    heading: '## Quick Start',
    changes: [
      ['"0xYourPrivateKey"', `process.env.PRIVATE_KEY as \`0x\${string}\``],
      ['"https://api.example.com"', '"http://localhost:3000"'],
      ['"/paid-endpoint"', '"/protected-route"'],
    ],
  },
}

let project: PackedProject
let svc: ProjectSvc
let twinRpcUrl: string

function block(file: string): ReadmeBlock {
  const found = section.blocks.find((candidate) => candidate.file === file)
  if (!found) throw new Error(`README has no block marked ${file}`)
  return found
}

/** A new key with the faucet's 1,000 USDC on the twin, asked for as the README does (`"network": "base-sepolia"`). */
async function fundedKey(): Promise<{ key: `0x${string}`; address: Address }> {
  const key = generatePrivateKey()
  const { address } = privateKeyToAccount(key)
  const response = await fetch(`${svc.ready.chain_manager_url}/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address, network: 'base-sepolia' }),
  })
  expect(response.status).toBe(200)
  return { key, address }
}

function usdcOnTwin(address: Address): Promise<bigint> {
  const twin = createPublicClient({ transport: http(twinRpcUrl) })
  return twin.readContract({ address: baseSepoliaUsdc, abi: erc20Abi, functionName: 'balanceOf', args: [address] })
}

const tsx = () => join(project.dir, 'node_modules', '.bin', 'tsx')

/** Whether something answers on port 3000: the status, or undefined when nothing listens. */
const statusOn3000 = () =>
  fetch(sellerUrl).then(
    (response) => response.status,
    () => undefined,
  )

/** Sellers running: afterAll stops any a timed-out test left (its `finally` never ran), so none outlives the run. */
const running = new Set<ChildProcess>()

/**
 * Runs a README seller (as written: it listens on 3000 and prints nothing) and resolves once it answers 402; `stop`
 * resolves once port 3000 is free again.
 */
async function startSeller(file: string): Promise<{ stop(): Promise<void> }> {
  if ((await statusOn3000()) !== undefined) throw new Error('port 3000 is taken: the README sellers listen there')
  const child: ChildProcess = spawn(tsx(), [file], {
    cwd: project.dir,
    env: cleanEnv({ FACILITATOR_URL: svc.ready.facilitator_url }),
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => void (output += chunk))
  child.stderr!.on('data', (chunk: Buffer) => void (output += chunk))
  running.add(child)
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  void exited.then(() => running.delete(child))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill()
    await exited
    await vi.waitFor(async () => expect(await statusOn3000()).toBeUndefined(), { timeout: 10_000, interval: 50 })
  }
  try {
    await vi.waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${file} exited (${child.exitCode}):\n${output}`)
        expect(await statusOn3000()).toBe(402)
      },
      { timeout: 30_000, interval: 50 },
    )
  } catch (error) {
    await stop()
    throw error
  }
  return { stop }
}

function runBuyer(file: string, env: NodeJS.ProcessEnv) {
  return project.exec(tsx(), [file], { env, timeout: 60_000 })
}

beforeAll(async () => {
  project = await createPackedProject({ steps: [installCommands(block('base-sepolia/install.sh').code)] })
  console.log(
    `svc package (Base Sepolia): npm pack ${project.timings.pack.toFixed(1)} s, npm install ${project.timings.install.toFixed(1)} s`,
  )
  for (const { file, code } of [...section.blocks.filter((b) => !b.file.endsWith('.sh')), v2Buyer]) {
    mkdirSync(dirname(join(project.dir, file)), { recursive: true })
    writeFileSync(join(project.dir, file), code)
  }
  svc = await startProjectSvc(project, ['--twin', 'base-sepolia'])
  twinRpcUrl = svc.ready.twins[0].rpc_url
}, 400_000)

afterAll(async () => {
  await Promise.all(
    [...running]
      .filter((child) => child.exitCode === null && child.signalCode === null)
      .map((child) => {
        child.kill()
        return new Promise((resolve) => child.once('exit', resolve))
      }),
  )
  await svc?.stop()
  // The project's node_modules (about 570 packages, the v1 ones bring wagmi and Solana's kit) took over 2 minutes to
  // remove on a loaded machine: a detached `rm -rf` removes it after this run.
  if (project) spawn('rm', ['-rf', dirname(project.dir)], { detached: true, stdio: 'ignore' }).unref()
})

describe('README: Your Base Sepolia code, offline (svc from its tarball, the official packages)', () => {
  it('every block of the page runs here; svc starts and funds a key as base-sepolia/up.sh says (svc up, POST /faucet)', () => {
    expect(section.unmarked).toEqual([])
    expect(section.blocks.map((b) => b.file).sort()).toEqual([
      'base-sepolia/buyer-axios-v1.ts',
      'base-sepolia/buyer-fetch-v1.ts',
      'base-sepolia/install.sh',
      'base-sepolia/seller-express.ts',
      'base-sepolia/seller-hono.ts',
      'base-sepolia/seller-v1.ts',
      'base-sepolia/up.sh',
    ])
    // This test starts svc with the page's `--twin base-sepolia` (on free ports) and funds keys with its faucet body.
    const [up, faucet] = block('base-sepolia/up.sh').code.trim().split('\n') as [string, string]
    expect(up).toMatch(/^npx svc up --twin base-sepolia( |$)/)
    expect(JSON.parse(/-d '(.*)'$/.exec(faucet)![1]!)).toEqual({ address: '0xYourAddress', network: 'base-sepolia' })
    expect(faucet).toContain(`localhost:${/--chain-manager-port (\d+)/.exec(up)![1]}/faucet`)
  })

  it("each example is its package's README example, changed only where the README says", () => {
    for (const [file, { readme: pkg, heading, changes }] of Object.entries(origins)) {
      const official = readFileSync(join(project.dir, 'node_modules', pkg, 'README.md'), 'utf8')
      let expected = blockAfterHeading(official, heading)
      for (const [theirs, ours] of changes) {
        expect(expected.split(theirs), `${file}: "${theirs}" once in ${pkg}'s README`).toHaveLength(2)
        expected = expected.replace(theirs, ours)
      }
      expect(block(file).code, file).toBe(expected)
    }
  })

  it('the packages installed are the versions the README names (and the x402 each v1 package runs on)', () => {
    /** The version of `pkg` as Node resolves it from `from` (a package's own node_modules first, then the project's). */
    const version = (pkg: string, from = '') => {
      const nested = join(project.dir, 'node_modules', from, 'node_modules', pkg, 'package.json')
      const file = from && existsSync(nested) ? nested : join(project.dir, 'node_modules', pkg, 'package.json')
      return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
    }
    expect({
      '@x402/express': version('@x402/express'),
      '@x402/hono': version('@x402/hono'),
      '@x402/fetch': version('@x402/fetch'),
      '@x402/evm': version('@x402/evm'),
      'x402-express': version('x402-express'),
      'x402 of x402-express': version('x402', 'x402-express'),
      'x402-fetch': version('x402-fetch'),
      'x402 of x402-fetch': version('x402', 'x402-fetch'),
      'x402-axios': version('x402-axios'),
      'x402 of x402-axios': version('x402', 'x402-axios'),
    }).toEqual({
      '@x402/express': '2.27.0',
      '@x402/hono': '2.27.0',
      '@x402/fetch': '2.27.0',
      '@x402/evm': '2.27.0',
      'x402-express': '1.2.0',
      'x402 of x402-express': '1.2.0',
      'x402-fetch': '1.2.0',
      'x402 of x402-fetch': '1.2.0',
      'x402-axios': '0.7.2',
      'x402 of x402-axios': '0.7.3',
    })
  })

  it(
    'v2: the @x402/express seller ("$0.001" on eip155:84532) is paid by @x402/fetch on the twin',
    async () => {
      const buyer = await fundedKey()
      const before = await usdcOnTwin(payTo)
      const seller = await startSeller('base-sepolia/seller-express.ts')
      try {
        const { stdout, stderr } = await runBuyer('buyer.ts', { EVM_PRIVATE_KEY: buyer.key, API_URL: sellerUrl })
        expect(stderr).toBe('')
        expect(stdout).toMatch(/Payment details: \{[^}]*success: true[^}]*network: 'eip155:84532'/)
        expect(stdout).toContain(`Response data: { message: 'This content is behind a paywall' }`)
      } finally {
        await seller.stop()
      }
      expect(await usdcOnTwin(buyer.address)).toBe(1_000_000_000n - 1_000n)
      expect(await usdcOnTwin(payTo)).toBe(before + 1_000n)
    },
    paymentTimeout,
  )

  it(
    'v2: the @x402/hono seller is paid by @x402/fetch on the twin',
    async () => {
      const buyer = await fundedKey()
      const before = await usdcOnTwin(payTo)
      const seller = await startSeller('base-sepolia/seller-hono.ts')
      try {
        const { stdout, stderr } = await runBuyer('buyer.ts', { EVM_PRIVATE_KEY: buyer.key, API_URL: sellerUrl })
        expect(stderr).toBe('')
        expect(stdout).toMatch(/Payment details: \{[^}]*success: true[^}]*network: 'eip155:84532'/)
      } finally {
        await seller.stop()
      }
      expect(await usdcOnTwin(buyer.address)).toBe(1_000_000_000n - 100_000n)
      expect(await usdcOnTwin(payTo)).toBe(before + 100_000n)
    },
    paymentTimeout,
  )

  it(
    'v1: the x402-express 1.2.0 seller (base-sepolia) is paid by x402-fetch 1.2.0 and by x402-axios 0.7.2',
    async () => {
      const [byFetch, byAxios] = [await fundedKey(), await fundedKey()]
      const before = await usdcOnTwin(payTo)
      const seller = await startSeller('base-sepolia/seller-v1.ts')
      try {
        for (const [file, buyer] of [
          ['base-sepolia/buyer-fetch-v1.ts', byFetch],
          ['base-sepolia/buyer-axios-v1.ts', byAxios],
        ] as const) {
          const { stdout, stderr } = await runBuyer(file, { PRIVATE_KEY: buyer.key, API_URL: sellerUrl })
          expect(stderr, file).toBe('')
          expect(stdout, file).toBe(`{ message: 'This content is behind a paywall' }\n`)
        }
      } finally {
        await seller.stop()
      }
      expect(await usdcOnTwin(byFetch.address)).toBe(1_000_000_000n - 100_000n)
      expect(await usdcOnTwin(byAxios.address)).toBe(1_000_000_000n - 100_000n)
      expect(await usdcOnTwin(payTo)).toBe(before + 200_000n)
    },
    paymentTimeout,
  )
})
