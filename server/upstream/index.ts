/**
 * The door of server/upstream/: what the other rooms of server/ use, named. Another room imports only this file
 * (test/architecture/layers.test.ts); the files inside import each other directly.
 */
export type { UpstreamDeps } from './deps.js'
export { addressRefusalOf, gatewayHopHeader, ownListenerPorts, ownListenerTargetedBy } from './own-listeners.js'
export {
  createUpstreamProxy,
  type UpstreamFailure,
  type UpstreamProxy,
  type UpstreamProxyOptions,
  type UpstreamResponse,
  upstreamTarget,
  type UpstreamTarget,
} from './proxy.js'
export type { GatewayRequest } from './request.js'
export { inferredRequestComment, inferSchemas, type JsonSchema, type ProbeOptions } from './schema-inference.js'
