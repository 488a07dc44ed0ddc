/**
 * The auth-capture room of chain/, its door: x402's `auth-capture` scheme (escrow payments) on the chain: the
 * commerce-payments contracts' addresses and their installation (contracts.ts).
 * Other rooms import from here, never a file inside.
 */
export type { AuthCaptureDeployment } from './contracts.js'
export {
  authCaptureAddresses,
  authCaptureDeployments,
  authCaptureV1_0Escrow,
  installAuthCaptureContracts,
} from './contracts.js'
