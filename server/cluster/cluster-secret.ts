import { createHmac, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** The header that carries the cluster secret on svc's calls between its own processes. */
export const clusterHeader = 'x-svc-cluster'

/** Where the chain owner serves its facilitator and its Anvil's JSON-RPC on its main listener (cluster-routes.ts). */
export const clusterFacilitatorPath = '/_svc/cluster/facilitator'
export const clusterRpcPath = '/_svc/cluster/rpc'
/** Where the chain owner tells what its chain is (server/cluster/chain-facts.ts), and funds the paywall's demo wallet. */
export const clusterChainPath = '/_svc/cluster/chain'
export const clusterFaucetPath = '/_svc/cluster/faucet'
/** Whether the chain owner's facilitator is settling an authorization now (server/cluster/dropped-settlement.ts). */
export const clusterSettlingPath = '/_svc/cluster/settling'

/** Seconds a caller waits while the chain moves to another process (a takeover takes one to two). */
export const movingRetryAfterSeconds = 2

/**
 * The secret of svc's calls between its processes (the chain owner's facilitator and RPC): derived from the JWT key,
 * which every process of one svc shares (svc serve refuses nothing else: sessions must verify everywhere), so no new
 * secret has to be handed out, and nobody without that key can settle through the owner or reach its Anvil.
 */
export const clusterSecret = (jwtSecret: Uint8Array): string =>
  createHmac('sha256', jwtSecret).update('svc cluster: calls between the processes of one svc').digest('hex')

/** True when `req` carries the cluster secret. */
export function fromCluster(req: IncomingMessage, secret: string): boolean {
  const given = req.headers[clusterHeader]
  if (typeof given !== 'string' || given.length !== secret.length) return false
  return timingSafeEqual(Buffer.from(given), Buffer.from(secret))
}
