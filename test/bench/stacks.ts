/**
 * The two stacks of issue 11, each in processes of its own, and the buyers that pay them with the official
 * `@x402/fetch` client:
 * - svc: `svc up --seed fixtures/demo-seed.yaml` (one Node process with its Anvil child), buyers paying
 *   `weather.dev.localhost:PORT/weather/paris`, proxied to the demo upstream svc serves itself;
 * - reference: `@x402/express` in front of the same demo upstream (reference-gateway.ts), paying through an
 *   `@x402/evm` facilitator over HTTP with a nonce manager and 100 ms polling, on a plain Anvil of its own
 *   (reference-facilitator.ts).
 */
import { fileURLToPath } from 'node:url'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { Address } from 'viem'
import { localFetch } from '../../sdk/local-fetch.js'
import { newAccount } from '../helpers/payments.js'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { startBenchScript, stopChild } from './processes.js'
import type { ReferenceGatewayConfig } from './reference-gateway.js'

export const demoSeed = fileURLToPath(new URL('../../fixtures/demo-seed.yaml', import.meta.url))
/** The demo seed's price of GET /weather/{city} (0.01 USDC) and pay-to address. */
export const weatherPrice = '10000'
export const weatherPayTo: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
const responseSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, forecast: { type: 'string' }, temperature_c: { type: 'number' } },
}

export type StackName = 'svc' | 'reference'

export type Stack = {
  name: StackName
  /** The paid resource. */
  url: string
  /** For raw requests (the unpaid 402s): where to connect, and the Host header. */
  origin: string
  host: string
  rpcUrl: string
  usdc: { address: Address; name: string; version: string }
  network: `${string}:${string}`
  payTo: Address
  /** How often its Anvil's pool guard re-sent stuck transactions (foundry-rs/foundry#10122), when it can tell. */
  unstuck(): Promise<number | undefined>
  /** Processes whose memory and CPU count for the stack (each with its descendants). */
  pids: number[]
  /** Gives `address` USDC base units (default 100 USDC) on the stack's chain. */
  fund(address: Address, amount?: bigint): Promise<void>
  /** A new buyer with `amount` USDC base units (default 100 USDC), paying through `@x402/fetch`. */
  newBuyer(amount?: bigint): Promise<typeof fetch>
  stop(): Promise<void>
}

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`)
  return response.json() as Promise<any>
}

/** A factory of exact buyers: each a new account, funded by `fund`, paying through `@x402/fetch`. */
export function buyerOf(network: `${string}:${string}`, asset: Address, fund: (address: Address) => Promise<void>) {
  return async () => {
    const account = newAccount()
    await fund(account.address)
    const client = new x402Client().register(network, new ExactEvmScheme(account))
    client.setSpendControls({ allowedAssets: [{ network, asset, maxAmountPerPayment: weatherPrice }] })
    return wrapFetchWithPayment(localFetch, client)
  }
}

const svcBin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))

/**
 * `svc up --json --port 0 --auto-verify …` as users run it (bin/svc.js, a Node process of its own, with `nodeArgs`
 * such as `--cpu-prof`), resolved with its ready line and the time it took.
 */
export async function spawnSvcUp(args: string[], nodeArgs: string[] = [], bin = svcBin) {
  const started = performance.now()
  const child = spawn(process.execPath, [...nodeArgs, bin, 'up', '--json', '--port', '0', '--auto-verify', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr = `${stderr}${chunk}`.slice(-4_000)))
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`svc up exited with ${code} before it was ready: ${stderr.trim()}`)))
  })
  return {
    child,
    ready: JSON.parse(line) as Record<string, any>,
    readyMs: performance.now() - started,
    stop: () => stopChild(child),
  }
}

/**
 * `svc up --seed fixtures/demo-seed.yaml` (ephemeral, or in `dataDir` to keep its chain dumped every 30 s as users
 * run it; `nodeArgs` for its Node process, `args` for the command, such as `--relay viem`).
 */
export async function startSvcStack(
  /** `bin`: another build's bin/svc.js (a before-and-after run). */
  options: { dataDir?: string; nodeArgs?: string[]; args?: string[]; bin?: string } = {},
): Promise<Stack & { readyMs: number; ready: Record<string, any> }> {
  const args = [
    '--seed',
    demoSeed,
    ...(options.dataDir ? ['--data-dir', options.dataDir] : ['--ephemeral']),
    ...(options.args ?? []),
  ]
  const svc = await spawnSvcUp(args, options.nodeArgs, options.bin)
  const { ready } = svc
  const info = (await (await fetch(`${ready.chain_manager_url}/chain`)).json()) as {
    network: `${string}:${string}`
    usdc: Stack['usdc']
  }
  const gateway = new URL(
    `${(ready.seed.apis as { slug: string; gateway_url: string }[]).find((api) => api.slug === 'weather')!.gateway_url}`,
  )
  const fund = async (address: Address, amount = 100_000_000n) =>
    void (await post(`${ready.chain_manager_url}/faucet`, {
      address,
      asset: 'usdc',
      amount: String(Number(amount) / 1e6),
    }))
  return {
    name: 'svc',
    url: `${gateway.origin}/weather/paris`,
    origin: `http://127.0.0.1:${gateway.port}`,
    host: gateway.host,
    rpcUrl: ready.rpc_url,
    usdc: info.usdc,
    network: info.network,
    payTo: weatherPayTo,
    pids: [svc.child.pid!],
    readyMs: svc.readyMs,
    ready,
    fund,
    // svc's guard runs silently inside svc.
    unstuck: async () => undefined,
    newBuyer: (amount) => buyerOf(info.network, info.usdc.address, (address) => fund(address, amount))(),
    stop: async () => void (await svc.stop()),
  }
}

type FacilitatorReady = {
  facilitator_url: string
  rpc_url: string
  network: `${string}:${string}`
  usdc: Stack['usdc']
}

/** The reference facilitator (with its Anvil) and the reference gateway, each a process of its own. */
export async function startReferenceStack(): Promise<Stack> {
  const facilitator = await startBenchScript<FacilitatorReady>('reference-facilitator.ts')
  try {
    const { usdc, network } = facilitator.ready
    const config: ReferenceGatewayConfig = {
      facilitatorUrl: facilitator.ready.facilitator_url,
      network,
      payTo: weatherPayTo,
      price: {
        amount: weatherPrice,
        asset: usdc.address,
        extra: { name: usdc.name, version: usdc.version, assetTransferMethod: 'eip3009' },
      },
      responseSchema,
    }
    const gateway = await startBenchScript<{ port: number }>('reference-gateway.ts', [JSON.stringify(config)])
    const fund = async (address: Address, amount = 100_000_000n) =>
      void (await post(`${facilitator.ready.facilitator_url}/fund`, { address, amount: String(amount) }))
    return {
      name: 'reference',
      url: `http://127.0.0.1:${gateway.ready.port}/weather/paris`,
      origin: `http://127.0.0.1:${gateway.ready.port}`,
      host: `127.0.0.1:${gateway.ready.port}`,
      rpcUrl: facilitator.ready.rpc_url,
      usdc,
      network,
      payTo: weatherPayTo,
      pids: [gateway.child.pid!, facilitator.child.pid!],
      fund,
      unstuck: async () =>
        ((await (await fetch(`${facilitator.ready.facilitator_url}/unstuck`)).json()) as { unstuck: number }).unstuck,
      newBuyer: (amount) => buyerOf(network, usdc.address, (address) => fund(address, amount))(),
      stop: async () => {
        await gateway.stop()
        await facilitator.stop()
      },
    }
  } catch (error) {
    await facilitator.stop()
    throw error
  }
}
