import { sandboxChainMoving, ServiceUnavailableError } from '../../core/errors.js'
import { controlUrl } from '../../core/hosts.js'
import { sandboxChainId, sandboxNetwork } from '../../core/sandbox-usdc.js'
import { movingRetryAfterSeconds } from '../cluster/cluster-secret.js'
import type { ServerDeps } from '../deps.js'
import { sandboxUsdc } from '../payment-token.js'

/** The control plane's public JSON-RPC of the Sandbox chain (server/control/chain-rpc.ts). */
export const publicRpcPath = '/dev/rpc'

/**
 * `GET /config/local-dev`: the Sandbox chain and its services. `rpc_url` is the chain's RPC a buyer can use: on
 * `svc up` its Anvil (this machine's); on `svc serve`, whose Anvil stays on loopback, the Sandbox control plane's
 * public RPC (`/dev/rpc`, read-mostly: server/sandbox/public-rpc.ts) at svc's public address, which every process of a
 * team Sandbox serves (relayed to the owner's chain). A team Sandbox process that does not own the chain answers with
 * the owner's chain facts (read once per epoch), and 503 with Retry-After while the chain moves.
 */
export function localDevConfig(deps: ServerDeps) {
  const chain = deps.chain
  const facts = chain ? undefined : deps.chainOwner?.facts()
  if (!chain && deps.chainOwner && !facts)
    throw new ServiceUnavailableError(sandboxChainMoving, { retryAfterSeconds: movingRetryAfterSeconds })
  const enabled = chain !== undefined || facts !== undefined
  const rpcUrl = !enabled
    ? null
    : deps.trust
      ? `${controlUrl(deps.hosts, 'development')}${publicRpcPath}`
      : (chain?.rpcUrl ?? null)
  return {
    enabled,
    chain_id: facts?.chain_id ?? sandboxChainId,
    network: facts?.network ?? sandboxNetwork,
    rpc_url: rpcUrl,
    chain_manager_url: chain?.chainManagerUrl ?? facts?.chain_manager_url ?? null,
    facilitator_url: chain?.facilitatorUrl ?? facts?.facilitator_url ?? null,
    faucet_enabled: enabled,
    native_currency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    usdc: sandboxUsdc(deps),
    twins: chain?.twins.map((twin) => twin.describe()) ?? facts?.twins ?? [],
  }
}
