import type { ChainServices } from '../../chain/services.js'
import type { Hosts } from '../../core/hosts.js'
import type { ServerTrust } from '../serve/index.js'

/**
 * What upstream/ reads of the server's deps (server/deps.ts's `ServerDeps` is one), declared here so upstream/ stays
 * below the rooms that build them: svc's own listeners and the server's trust.
 */
export type UpstreamDeps = {
  hosts: Hosts
  /** The sandbox chain services: their listeners are svc's own. */
  chain?: ChainServices | undefined
  /**
   * svc as a server (`svc serve`): admin credential instead of "from this machine", the trusted proxy's client
   * address, and the upstream guard's deny-list. @defaultValue none: `svc up`'s loopback trust
   */
  trust?: ServerTrust | undefined
}
