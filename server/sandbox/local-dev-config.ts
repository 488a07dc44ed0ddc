import { sandboxChainMoving, ServiceUnavailableError } from '../../core/errors.js'
import { controlUrl } from '../../core/hosts.js'
import { sandboxChainId, sandboxNetwork } from '../../core/sandbox-usdc.js'
import { movingRetryAfterSeconds } from '../cluster/cluster-secret.js'
import type { ServerDeps } from '../deps.js'
import { sandboxUsdc } from '../payment-token.js'

/** The control plane's public JSON-RPC of the Sandbox chain (server/control/chain-rpc.ts). */
export const publicRpcPath = '/dev/rpc'

/**
 * The control plane's chain helpers under the chain manager's names: `{it}/faucet` and `{it}/balances` are
 * `POST /dev/faucet` and `POST /dev/balances` (the same bodies: chain/manager.ts's schemas), with a development JWT.
 */
const publicChainManagerPath = '/dev'

/**
 * `GET /config/local-dev`: the Sandbox chain and its services. `rpc_url` is the chain's RPC a buyer can use: on
 * `svc up` its Anvil (this machine's); on `svc serve`, whose Anvil stays on loopback, the Sandbox control plane's
 * public RPC (`/dev/rpc`, read-mostly: server/sandbox/public-rpc.ts) at svc's public address, which every process of a
 * team Sandbox serves (relayed to the owner's chain). A team Sandbox process that does not own the chain answers with
 * the owner's chain facts (read once per epoch), and 503 with Retry-After while the chain moves.
 * On a team Sandbox every process, the owner too (a load balancer picks which), names only what answers through
 * itself, never the owner's loopback: `chain_manager_url` is the control plane's `/dev` (faucet and balances,
 * forwarded to the owner), `facilitator_url` is null (svc serve's facilitator is reached by svc's own processes only,
 * with the cluster secret; its gateways verify and settle Sandbox payments themselves), and no twins.
 */
export function localDevConfig(deps: ServerDeps) {
  const chain = deps.chain
  const facts = chain ? undefined : deps.chainOwner?.facts()
  if (!chain && deps.chainOwner && !facts)
    throw new ServiceUnavailableError(sandboxChainMoving, { retryAfterSeconds: movingRetryAfterSeconds })
  const enabled = chain !== undefined || facts !== undefined
  const sandboxBase = controlUrl(deps.hosts, 'development')
  const rpcUrl = !enabled ? null : deps.trust ? `${sandboxBase}${publicRpcPath}` : (chain?.rpcUrl ?? null)
  const twins = chain?.twins.map((twin) => twin.describe()) ?? facts?.twins ?? []
  const team = deps.chainOwner !== undefined
  return {
    enabled,
    chain_id: facts?.chain_id ?? sandboxChainId,
    network: facts?.network ?? sandboxNetwork,
    rpc_url: rpcUrl,
    chain_manager_url: team ? `${sandboxBase}${publicChainManagerPath}` : (chain?.chainManagerUrl ?? null),
    facilitator_url: team ? null : (chain?.facilitatorUrl ?? null),
    faucet_enabled: enabled,
    native_currency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    usdc: sandboxUsdc(deps),
    // svc serve runs no twins; a team Sandbox's would be RPCs on the owner's loopback.
    twins: team ? [] : twins,
  }
}
