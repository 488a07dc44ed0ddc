import { sandboxChainMoving, ServiceUnavailableError } from '../../core/errors.js'
import { controlUrl } from '../../core/hosts.js'
import { sandboxChainId, sandboxNetwork } from '../../core/sandbox-usdc.js'
import { movingRetryAfterSeconds } from '../cluster/index.js'
import type { SandboxDeps } from './deps.js'
import { sandboxUsdc } from './payment-token.js'

/** The control plane's public JSON-RPC of the Sandbox chain (server/control/chain-rpc.ts). */
export const publicRpcPath = '/dev/rpc'

/**
 * The control plane's chain helpers under the chain manager's names: `{it}/faucet` and `{it}/balances` are
 * `POST /dev/faucet` and `POST /dev/balances` (the same bodies: chain/manager.ts's schemas), with a development JWT.
 */
const publicChainManagerPath = '/dev'

/**
 * Where `svc serve` publishes the Sandbox facilitator's bazaar catalog (server/control/bazaar-catalog.ts): a
 * facilitator URL whose `/discovery/resources` and `/discovery/search` are the catalog's, as
 * `withBazaar(new HTTPFacilitatorClient({ url }))` reads it (its `/verify` and `/settle` are not served there).
 */
export const publicBazaarPath = '/dev/bazaar'

/**
 * `GET /config/local-dev`: the Sandbox chain and its services. On `svc up` they are this machine's (its Anvil, chain
 * manager and facilitator on loopback, as its caller is). On `svc serve` (one process with its own chain, or a team
 * Sandbox's) every URL answers through the process's public address, never a loopback another host cannot reach:
 * `rpc_url` is the Sandbox control plane's public RPC (`/dev/rpc`, read-mostly: server/sandbox/public-rpc.ts),
 * `chain_manager_url` its `/dev` (`{it}/faucet`, `{it}/balances` with a development JWT), `bazaar_url` its
 * `/dev/bazaar` (the facilitator's catalog), `facilitator_url` null (svc serve's facilitator verifies and settles
 * for svc's own gateways only: in process, or for a team Sandbox's other processes with the cluster secret), no twins.
 * A team Sandbox process that does not own the chain answers with the owner's chain facts (read once per epoch) and
 * relays those routes to the owner; 503 with Retry-After while the chain moves.
 */
export function localDevConfig(deps: SandboxDeps) {
  const chain = deps.chain
  const facts = chain ? undefined : deps.chainOwner?.facts()
  if (!chain && deps.chainOwner && !facts)
    throw new ServiceUnavailableError(sandboxChainMoving, { retryAfterSeconds: movingRetryAfterSeconds })
  const enabled = chain !== undefined || facts !== undefined
  const sandboxBase = controlUrl(deps.hosts, 'development')
  // svc serve (its trust settings given): buyers are on other hosts.
  const server = deps.trust !== undefined || deps.chainOwner !== undefined
  const publicUrl = (path: string) => (enabled ? `${sandboxBase}${path}` : null)
  return {
    enabled,
    chain_id: facts?.chain_id ?? sandboxChainId,
    network: facts?.network ?? sandboxNetwork,
    rpc_url: server ? publicUrl(publicRpcPath) : (chain?.rpcUrl ?? null),
    chain_manager_url: server ? publicUrl(publicChainManagerPath) : (chain?.chainManagerUrl ?? null),
    facilitator_url: server ? null : (chain?.facilitatorUrl ?? null),
    bazaar_url: server ? publicUrl(publicBazaarPath) : (chain?.facilitatorUrl ?? null),
    faucet_enabled: enabled,
    native_currency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    usdc: sandboxUsdc(deps),
    // svc serve runs no twins (a team Sandbox's would be RPCs on the owner's loopback).
    twins: server ? [] : (chain?.twins.map((twin) => twin.describe()) ?? []),
  }
}
