/**
 * The door of server/cluster/: what the other rooms of server/ use, named. Another room imports only this file
 * (test/architecture/layers.test.ts); the files inside import each other directly.
 */
export { type ChainOwnerView, createChainOwnerView } from './chain-owner-view.js'
export { createClusterRoutes } from './cluster-routes.js'
export type { ClusterDeps } from './deps.js'
export {
  clusterChainPath,
  clusterFacilitatorPath,
  clusterFaucetPath,
  clusterHeader,
  clusterRpcPath,
  clusterSecret,
  clusterSettlingPath,
  fromCluster,
  movingRetryAfterSeconds,
} from './cluster-secret.js'
export { createPaymentClaims, paymentIdClaimsOf } from './payment-claims.js'
export { clusterEventId, createClusterPaymentEvents, eventChannel, listenerChannel } from './payment-events.js'
export { startJournalReaper } from './reaper.js'
export { type SharedChain, startSharedChain } from './shared-chain.js'
