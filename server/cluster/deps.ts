import type { Hosts } from '../../core/hosts.js'
import type { InstallSecrets } from '../data-dir/index.js'
import type { JournalDeps } from '../journal/index.js'
import type { ChainOwnerView } from './chain-owner-view.js'

/**
 * What cluster/ reads of the server's deps (server/deps.ts's `ServerDeps` is one), declared here so cluster/ stays
 * below the rooms that build them: the journal's, and the install's secrets, the hosts and the chain owner.
 */
export type ClusterDeps = Omit<JournalDeps, 'chainOwner'> & {
  secrets: InstallSecrets
  hosts: Hosts
  /**
   * svc serve --sandbox-chain shared: who owns the team Sandbox's chain (server/cluster/). Without `chain`, this
   * process verifies and settles Sandbox payments through the owner and forwards the chain routes to it.
   */
  chainOwner?: ChainOwnerView | undefined
}
