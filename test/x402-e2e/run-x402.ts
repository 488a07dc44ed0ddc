import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { transformSync } from 'esbuild'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const root = here('../../')
/**
 * x402's sources run with `svc/register` first, as the README tells a user to (what the package's `svc/register`
 * is: dist/sdk/register.js, which the test run builds first): it resolves `x402-e2e.dev.localhost` for Node and gives
 * `@x402/evm` the sandbox USDC as the default asset of eip155:845320402 (the servers' `"$0.001"` prices).
 */
const nodeArgs = ['--import', here('../../dist/sdk/register.js')]
/** The programs transpiled so far by this process: their .mjs files. */
const programs = new Map<string, string>()

/**
 * One of x402's e2e programs (`clients/fetch`, `servers/hono`, …) as a plain ES module: its index.ts transpiled by
 * esbuild, as x402's harness (`tsx index.ts`) has it transpiled at every start, kept by content under
 * node_modules/.cache so its imports resolve from the repo's node_modules. Through tsx's loader each start spent
 * ~2.4 s of CPU loading viem and the x402 packages (50 starts a run); as a module, ~0.8 s.
 */
function program(name: string): string {
  const known = programs.get(name)
  if (known) return known
  const source = readFileSync(here(`./${name}/index.ts`), 'utf8')
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16)
  const dir = join(root, 'node_modules', '.cache', 'svc-x402-e2e')
  const file = join(dir, `${name.replace('/', '-')}-${hash}.mjs`)
  mkdirSync(dir, { recursive: true })
  const { code } = transformSync(source, { loader: 'ts', format: 'esm', target: 'node20', sourcefile: name })
  // Written whole under a name of its own, then renamed: both test files may write the same program at once.
  const temp = `${file}.${process.pid}`
  writeFileSync(temp, code)
  renameSync(temp, file)
  programs.set(name, file)
  return file
}

export type ClientName = 'fetch' | 'axios'
export type ServerName = 'express' | 'hono'

/** What x402's e2e clients print as their last line (e2e/clients/text-client-protocol.txt). */
export type ClientResult = {
  success: boolean
  data?: { message?: string; timestamp?: string; method?: string }
  status_code?: number
  payment_response?: { success: boolean; transaction: string; network: string; payer: string; amount?: string }
  error?: string
}

/** A fresh buyer funded by the chain manager's faucet (10 ETH, 1,000 USDC), optionally with Permit2 approved. */
export async function fundedBuyer(chainManagerUrl: string, options: { approvePermit2?: boolean } = {}) {
  const key = generatePrivateKey()
  const address = privateKeyToAccount(key).address
  const response = await fetch(`${chainManagerUrl}/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address, ...(options.approvePermit2 ? { approve_permit2: true } : {}) }),
  })
  if (!response.ok) throw new Error(`faucet: ${response.status} ${await response.text()}`)
  return { key, address }
}

/**
 * Runs one of x402's e2e clients (test/x402-e2e/clients/<name>/index.ts) as a child process with its own environment
 * variables, and parses its JSON last line. A client that dies without one (it throws on a refused payment) gives
 * `{ success: false, error }` with its stderr.
 */
export async function runClient(
  name: ClientName,
  env: { RESOURCE_SERVER_URL: string; ENDPOINT_PATH: string; privateKey: string; rpcUrl: string; network: string },
): Promise<ClientResult & { exitCode: number | null }> {
  const child = spawn(process.execPath, [...nodeArgs, program(`clients/${name}`)], {
    cwd: root,
    env: {
      ...process.env,
      RESOURCE_SERVER_URL: env.RESOURCE_SERVER_URL,
      ENDPOINT_PATH: env.ENDPOINT_PATH,
      // The 2.10-era sources read EVM_PRIVATE_KEY; the foundation's newer ones CLIENT_EVM_PRIVATE_KEY.
      EVM_PRIVATE_KEY: env.privateKey,
      CLIENT_EVM_PRIVATE_KEY: env.privateKey,
      EVM_NETWORK: env.network,
      EVM_RPC_URL: env.rpcUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => (stdout += chunk))
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  const last = stdout.trim().split('\n').at(-1) ?? ''
  try {
    return { ...(JSON.parse(last) as ClientResult), exitCode }
  } catch {
    // The thrown error's own line (`Error: …`), not the source line Node quotes above it.
    const thrown = stderr.split('\n').find((line) => /^\w*Error\b/.test(line))
    const error = (thrown ?? stderr.trim()).slice(0, 500)
    return { success: false, error, exitCode }
  }
}

/** A port free now (x402's servers take a PORT, not 0); never one of 4022-4060, which x402's harness kills. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export type RunningServer = { url: string; stop(): Promise<void> }

/**
 * Starts one of x402's e2e servers (test/x402-e2e/servers/<name>/index.ts) on a free port with the environment the
 * harness gives it (PORT, FACILITATOR_URL, EVM_NETWORK, EVM_PAYEE_ADDRESS, EVM_PERMIT2_ASSET, EVM_RPC_URL); resolves
 * once its /health answers.
 */
export async function startServer(
  name: ServerName,
  env: { facilitatorUrl: string; network: string; payTo: string; usdc: string; rpcUrl: string; port: number },
): Promise<RunningServer> {
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, program(`servers/${name}`)], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(env.port),
      FACILITATOR_URL: env.facilitatorUrl,
      EVM_NETWORK: env.network,
      EVM_PAYEE_ADDRESS: env.payTo,
      EVM_PERMIT2_ASSET: env.usdc,
      EVM_RPC_URL: env.rpcUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const url = `http://localhost:${env.port}`
  // Its banner ("Server: http://localhost:PORT") comes once it listens; the routes are checked against the
  // facilitator's /supported at the first request, which /health does not make.
  await new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', (line) => line.includes(`Server:`) && resolve())
    child.once('exit', (code) => reject(new Error(`x402's ${name} server exited with ${code}: ${output.slice(-2000)}`)))
  })
  return {
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const gone = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await gone
    },
  }
}
