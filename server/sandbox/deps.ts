import type { ClusterDeps } from '../cluster/index.js'
import type { ServerTrust } from '../serve/index.js'
import type { SandboxState } from './payment-gate.js'

/**
 * What sandbox/ reads of the server's deps (server/deps.ts's `ServerDeps` is one), declared here so sandbox/ stays
 * below the rooms that build them: the cluster's, the gate of paid requests and the server's trust.
 */
export type SandboxDeps = ClusterDeps & {
  /** The gate of paid requests and the in-memory state a revert resets (server/sandbox/payment-gate.ts). */
  sandboxState?: SandboxState | undefined
  /**
   * svc as a server (`svc serve`): admin credential instead of "from this machine", the trusted proxy's client
   * address, and the upstream guard's deny-list. @defaultValue none: `svc up`'s loopback trust
   */
  trust?: ServerTrust | undefined
}
