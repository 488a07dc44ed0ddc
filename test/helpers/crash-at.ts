/**
 * `kill -9` of `svc up` at the dangerous step of a change to the chain (issue 21): svc is told to stop there
 * (SVC_PAUSE_AT, core/pause-point.ts), killed, its Anvil stopped by the watchdog (SIGTERM: Anvil dumps on exit), and
 * started again on the same data dir by the test.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createPublicClient, erc20Abi, http, parseAbiItem, type Address } from 'viem'
import { expect, vi } from 'vitest'
import { isProcessRunning } from '../../core/os-process.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { startSvcProcess, type SvcProcess } from './svc-process.js'

const seedFile = fileURLToPath(new URL('../../fixtures/demo-seed.yaml', import.meta.url))

/** svc up on `dataDir` with the demo seed, paused at `pauseAt` when given; `running` collects it for the teardown. */
export async function startSeeded(running: SvcProcess[], dataDir: string, pauseAt?: string) {
  const env = pauseAt ? { ...process.env, SVC_PAUSE_AT: pauseAt } : process.env
  const svc = await startSvcProcess(['--data-dir', dataDir, '--seed', seedFile], env, { ephemeral: false })
  running.push(svc)
  return svc
}

/** Waits until svc says it paused at `step`, kills it with SIGKILL, and waits until the watchdog stopped its Anvil. */
export async function killAt(svc: SvcProcess, dataDir: string, step: string) {
  await vi.waitFor(() => expect(svc.stderr()).toContain(`paused at ${step}`), { timeout: 30_000, interval: 20 })
  await killNow(svc, dataDir)
}

/** Kills svc with SIGKILL now and waits until the watchdog stopped its Anvil (which saves the chain on the way). */
export async function killNow(svc: SvcProcess, dataDir: string) {
  const anvilPid = Number(readFileSync(join(dataDir, 'anvil.pid'), 'utf8'))
  svc.child.kill('SIGKILL')
  await new Promise((resolve) => svc.child.once('exit', resolve))
  await vi.waitFor(() => expect(isProcessRunning(anvilPid)).toBe(false), { timeout: 10_000, interval: 20 })
}

export const post = (url: string, body?: unknown) =>
  localFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

export async function usdcBalance(svc: SvcProcess, address: Address) {
  const client = createPublicClient({ transport: http(svc.ready.rpc_url) })
  return client.readContract({ address: svc.ready.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [address] })
}

/** Calls the Sandbox control plane as the seed's account; an answer of 400 or more throws. */
export async function seedSeller(svc: SvcProcess) {
  const { email, password } = svc.ready.seed
  const login = await post(`${svc.ready.sandbox_control_url}/auth/login`, { email, password })
  const { token } = (await login.json()) as { token: string }
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await localFetch(`${svc.ready.sandbox_control_url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const answer = await response.json()
    if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`)
    return answer
  }
}

/**
 * A new API of the seed's seller in front of the demo upstream (`GET /weather/{city}`), paid to a new `receiver`
 * with the given accepts: its record and endpoint.
 */
export async function seedApiWith(svc: SvcProcess, slug: string, receiver: Address, accepts: unknown[]) {
  const call = await seedSeller(svc)
  const { apis } = await call('GET', '/apis')
  const demo = apis.find((api: { slug: string }) => api.slug === 'weather')
  const api = await call('POST', '/apis', {
    name: slug,
    slug,
    upstream_base_url: demo.upstream_base_url,
    pay_to_mode: 'user_wallet',
    pay_to_address: receiver,
  })
  const endpoint = await call('POST', `/apis/${api.id}/endpoints`, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts,
    request_schema: { type: 'object' },
    response_schema: { type: 'object' },
  })
  return { call, api, endpoint }
}

/** The demo seller's settlements, through the Sandbox control plane as the seed's account. */
export async function ledger(svc: SvcProcess) {
  const { email, password } = svc.ready.seed
  const login = await post(`${svc.ready.sandbox_control_url}/auth/login`, { email, password })
  const { token } = (await login.json()) as { token: string }
  const response = await localFetch(`${svc.ready.sandbox_control_url}/settlements?limit=200`, {
    headers: { authorization: `Bearer ${token}` },
  })
  const page = (await response.json()) as { settlements: { transaction: string; old_chain: boolean }[] }
  return page.settlements
}

/** The transactions of the EIP-3009 authorizations `payer` used on the chain. */
export async function usedOnChain(svc: SvcProcess, payer: Address) {
  const client = createPublicClient({ transport: http(svc.ready.rpc_url) })
  const logs = await client.getLogs({
    address: svc.ready.usdc as Address,
    event: parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)'),
    args: { authorizer: payer },
    fromBlock: 0n,
  })
  return logs.map((log) => log.transactionHash)
}
