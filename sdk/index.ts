/**
 * The `svc` package's entry point (the one barrel): the typed control-plane client, its errors and types, the
 * `*.localhost` helpers, the sandbox chain's facts, and the auth-capture (escrow) server scheme for `@x402/core`'s
 * `x402ResourceServer`. The test helper is `svc/testing`; `svc/register` prepares a process for the official x402
 * packages.
 */
export {
  createSvcClient,
  errorCode,
  SvcApiError,
  type SvcClient,
  type SvcClientOptions,
  type SvcRequestOptions,
} from './client.js'
export { localDispatcher, localFetch, localhostLookup } from './local-fetch.js'
export { isLocalhostSubdomain, resolveLocalhostSubdomains } from './localhost-dns.js'
export { SvcError } from '../core/errors.js'
export {
  eventSignature,
  eventSignatureHeader,
  verifyEventSignature,
  type VerifyEventSignatureOptions,
} from '../core/event-signature.js'
export {
  sandboxChainId,
  sandboxNetwork,
  sandboxUsdcDomain,
  usdcAddress,
  usdcDecimals,
  formatUsdc,
  parseUsdc,
} from '../core/sandbox-usdc.js'
export {
  AuthCaptureSchemeError,
  AuthCaptureServerScheme,
  authCaptureDeployment,
  type AuthCaptureServerSchemeOptions,
  type ReceiverAuthorizer,
} from '../core/auth-capture/server-scheme.js'
export {
  type AuthCapturePaymentRecord,
  type AuthCaptureStore,
  memoryAuthCaptureStore,
} from '../core/auth-capture/payment-store.js'
export type { AuthCaptureDeployment } from '../core/auth-capture/deployments.js'
export type * from './types.js'
