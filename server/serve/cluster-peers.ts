import { hostname } from 'node:os'
import type { Kysely } from 'kysely'
import { toSvcError } from '../../core/errors.js'
import {
  type ClusterProcess,
  type Database,
  deleteClusterProcess,
  listClusterProcesses,
  type Notifications,
  type ProcessOwner,
  saveClusterProcess,
} from '../db/index.js'
import type { ChainServices } from '../../chain/services.js'
import { isLoopbackAddress, plainAddress } from '../../core/address-list.js'
import type { OwnPeer } from './own-peers.js'

/** The channel `cluster_processes`' trigger notifies on every change (migration 2026_12_07_00). */
const channel = 'svc_cluster_processes'

/**
 * The other `svc serve` processes of a PostgreSQL database, as their rows of `cluster_processes` name them: no upstream
 * may target one of them, whatever `--allow-upstream` admits (server/serve/server-trust.ts).
 */
export type ClusterPeers = {
  /**
   * The other process `address:port` (a plain address) reaches, by its listener's name, or undefined; as last read.
   * Any loopback address reaches a loopback listener of a process of this machine on its port (one bound to every
   * address answers 127.0.0.2 too); another machine's loopback listeners are not this one's.
   */
  refusal(address: string, port: number): string | undefined
  /** Reads the rows again (before an API's upstream is judged). A failed read keeps what was known. */
  refresh(): Promise<void>
  /** Names this process's listeners again (its Sandbox chain came or went). */
  publish(listeners: OwnPeer[]): Promise<void>
  /** Stops listening and removes this process's row. */
  close(): Promise<void>
}

/** The Sandbox chain's services this process runs, as listeners (named as server/upstream/own-listeners.ts names them). */
export function chainListeners(
  chain: Pick<ChainServices, 'rpcUrl' | 'chainManagerUrl' | 'facilitatorUrl'> | undefined,
): OwnPeer[] {
  if (!chain) return []
  return [
    { url: chain.rpcUrl, name: "svc's chain RPC" },
    { url: chain.chainManagerUrl, name: "svc's chain manager" },
    { url: chain.facilitatorUrl, name: "svc's facilitator" },
  ].map(({ url, name }) => {
    const parsed = new URL(url)
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port)
    const address = parsed.hostname === 'localhost' ? '127.0.0.1' : plainAddress(parsed.hostname)
    return { address, port, name }
  })
}

/**
 * Names this process's `listeners` in the database and keeps the other processes' listeners up to date: read at
 * start, again on each change (LISTEN/NOTIFY) and after a lost connection listens again. Rows of processes that are
 * gone (killed: no stop removed them) are removed at start, and later by the reaper (server/cluster/reaper.ts).
 */
export async function shareClusterPeers(options: {
  db: Kysely<Database>
  notifications: Notifications
  owner: ProcessOwner
  listeners: OwnPeer[]
  log?: ((message: string) => void) | undefined
}): Promise<ClusterPeers> {
  const { db, notifications, owner, log = () => {} } = options
  const host = hostname()
  let known: OwnPeer[] = []
  let started = 0
  let applied = 0
  let mine = options.listeners
  let closing = false
  const peersOf = (processes: ClusterProcess[]) =>
    processes
      .filter((process) => process.owner !== owner.id)
      .flatMap((process) =>
        process.listeners
          .filter((listener) => process.host === host || !isLoopbackAddress(listener.address))
          .map((listener) => ({ address: listener.address, port: listener.port ?? undefined, name: listener.name })),
      )
  const refresh = async () => {
    const seq = ++started
    try {
      const processes = await listClusterProcesses(db)
      // A later read may have finished first: the latest read wins.
      if (seq < applied) return
      applied = seq
      known = peersOf(processes)
      // This process's row removed by another's reaper (its liveness lock was free too long: a connection that stayed
      // away): it names its listeners again, or they would be nobody's.
      if (!closing && !processes.some((process) => process.owner === owner.id))
        await publish(mine).catch((error) =>
          log(`svc: naming this process's listeners in the database failed: ${toSvcError(error).message}`),
        )
    } catch (error) {
      log(`svc: reading the cluster's processes failed: ${toSvcError(error).message}`)
    }
  }
  const publish = (listeners: OwnPeer[]) => {
    mine = listeners
    return saveClusterProcess(db, { owner: owner.id, host, listeners }, new Date().toISOString())
  }

  for (const process of await listClusterProcesses(db))
    if (process.owner !== owner.id && (await owner.isGone(process.owner))) await deleteClusterProcess(db, process.owner)
  await publish(options.listeners)
  const subscription = notifications.subscribe(channel, { message: () => void refresh(), reset: () => void refresh() })
  await subscription.ready
  await refresh()
  return {
    refusal(address, port) {
      const loopback = isLoopbackAddress(address)
      return known.find(
        (peer) =>
          (peer.port === undefined || peer.port === port) &&
          (peer.address === address || (loopback && isLoopbackAddress(peer.address))),
      )?.name
    },
    refresh,
    async publish(listeners) {
      await publish(listeners).catch((error) =>
        log(`svc: naming this process's listeners in the database failed: ${toSvcError(error).message}`),
      )
    },
    async close() {
      closing = true
      await subscription.stop()
      await deleteClusterProcess(db, owner.id).catch(() => {})
    },
  }
}
