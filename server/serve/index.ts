/**
 * The door of server/serve/: what the other rooms of server/ use, named. Another room imports only this file
 * (test/architecture/layers.test.ts); the files inside import each other directly.
 */
export { chainListeners, shareClusterPeers } from './cluster-peers.js'
export { answerHealth, createServerLifecycle, isHealthRequest, type ServerLifecycle } from './health.js'
export { ownPeers, peersAt, peersOfUrls } from './own-peers.js'
export { readServeSecrets, type ServeSecretSources } from './serve-secrets.js'
export { assertAdmin, type ServerTrust, upstreamRefusal } from './server-trust.js'
export {
  type AuthThrottleLimits,
  createLimiter,
  defaultAuthThrottleLimits,
  type Limiter,
  type LimiterStore,
} from './throttle.js'
