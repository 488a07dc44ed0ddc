import type { Request } from 'express'
import { getAddress, isAddress, type Address } from 'viem'
import type { ChainServices } from '../../chain/services.js'
import { BadRequestError, sandboxChainMoving, ServiceUnavailableError } from '../../core/errors.js'
import { clusterFaucetPath, movingRetryAfterSeconds } from '../cluster/index.js'
import type { SandboxDeps } from './deps.js'
import { parseJson, readBody } from './public-rpc.js'

/** What one faucet click of the paywall page sends the demo wallet. */
export const demoFaucetUsdc = '10'

export type DemoFunding = { address: string; funded_usdc: string; transaction: string | null; balances: unknown }

/** The demo wallet's address of a faucet request's body (`{"address": "0x…"}`). */
export async function demoFaucetAddress(req: Request): Promise<Address> {
  const body = parseJson(await readBody(req, 1024)) as { address?: unknown } | null
  const address = body?.address
  if (typeof address !== 'string' || !isAddress(address, { strict: false }))
    throw new BadRequestError('address must be an 0x address of 40 hex digits')
  return getAddress(address)
}

async function fund(chain: ChainServices, address: Address): Promise<DemoFunding> {
  const funded = await chain.manager.fund(address, 'usdc', demoFaucetUsdc)
  return {
    address: funded.address,
    funded_usdc: demoFaucetUsdc,
    transaction: funded.transactions.usdc ?? null,
    balances: funded.balances,
  }
}

/** The chain owner's side of a team Sandbox's demo faucet (server/cluster/cluster-routes.ts). */
export async function demoFaucet(chain: ChainServices, req: Request): Promise<DemoFunding> {
  return fund(chain, await demoFaucetAddress(req))
}

/**
 * Funds the paywall's demo wallet at `address`: on this process's chain, or on a team Sandbox process that does not
 * own it, through the owner (rate-limited here, per the buyer's address, before it is asked).
 */
export async function fundDemoWallet(
  deps: Pick<SandboxDeps, 'chain' | 'chainOwner'>,
  address: Address,
): Promise<DemoFunding> {
  if (deps.chain) return fund(deps.chain, address)
  const owner = deps.chainOwner?.ownerRoute(clusterFaucetPath)
  const moving = new ServiceUnavailableError(sandboxChainMoving, { retryAfterSeconds: movingRetryAfterSeconds })
  if (!owner) throw moving
  const answer = await fetch(owner.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...owner.headers },
    body: JSON.stringify({ address }),
  }).catch(() => undefined)
  if (!answer || answer.status >= 500) throw moving
  if (!answer.ok) throw new Error(`the Sandbox chain's owner refused the demo faucet (${answer.status})`)
  return (await answer.json()) as DemoFunding
}
