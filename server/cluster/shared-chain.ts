import type { ChainServices, StartChainServicesOptions } from '../../chain/services.js'
import { toSvcError } from '../../core/errors.js'
import {
  clearChainOwner,
  notificationsOf,
  type OpenedDatabase,
  processOwnerOf,
  publishChainEpoch,
  publishChainOwner,
} from '../db/index.js'
import type { Clock } from '../../core/clock.js'
import { startChainLease } from './chain-lease.js'

export type SharedChainOptions = Pick<StartChainServicesOptions, 'binary' | 'relay' | 'receiverAuthorizerKey'> & {
  /** Where this run keeps its Anvil's pid (the data dir's lock), so a crashed run's Anvil is stopped next time. */
  pidFile: string
  /** How the other processes reach this one (svc serve --advertise-url). */
  advertiseUrl: string
  /** How often a standby tries the lease. @defaultValue 1_000 */
  everyMs?: number | undefined
  log?: ((message: string) => void) | undefined
}

export type SharedChain = {
  /** True while this process owns the team Sandbox's chain. */
  readonly owner: boolean
  /** The chain's services while this process owns them. */
  readonly chain: ChainServices | undefined
  /** Resolves once the first try of the lease is decided (and, won, the chain is up and published). */
  readonly first: Promise<void>
  /** Gives the chain up (stopped, taken off the row) and stops trying. */
  stop(): Promise<void>
}

/** What the shared chain needs of the running server (server/start/server.ts's `RunningServer` is one). */
export type ChainHost = {
  database: Pick<OpenedDatabase, 'db' | 'connect'>
  clock: Clock
  attachChain(chain: ChainServices): Promise<void>
  detachChain(): Promise<void>
}

/**
 * `svc serve --sandbox-chain shared`: this process competes for the team Sandbox's chain (server/cluster/chain-lease.ts).
 * Won, it names itself in `sandbox_chain_owner` with no epoch (the others answer 503 "moving" meanwhile), starts an
 * empty chain as svc does after Anvil died (Anvil on loopback, the chain manager, the facilitator), attaches it to
 * its server (server/start/chain-attachment.ts: a new epoch, wallets refunded, recovery) and publishes the epoch;
 * each later restart of its Anvil publishes the new one. Lost or stopped, it takes itself off the row, detaches
 * the chain and stops it.
 */
export function startSharedChain(server: ChainHost, options: SharedChainOptions): SharedChain {
  const db = server.database.db
  const log = options.log ?? ((message: string) => console.error(message))
  const me = processOwnerOf(db).id
  let chain: ChainServices | undefined
  const onRestart = ({ epoch }: { epoch: string }) =>
    void publishChainEpoch(db, me, epoch).catch((error) =>
      log(`svc: publishing the Sandbox chain's new epoch failed: ${toSvcError(error).message}`),
    )
  const connect = server.database.connect
  if (!connect) throw new Error('the Sandbox chain lease needs PostgreSQL')
  const lease = startChainLease({
    connect: () => connect('svc chain lease'),
    notifications: notificationsOf(db),
    everyMs: options.everyMs,
    log,
    async won() {
      const started = Date.now()
      await publishChainOwner(db, { owner: me, url: options.advertiseUrl, epoch: null })
      const { startChainServices } = await import('../../chain/services.js')
      chain = await startChainServices({
        binary: options.binary,
        relay: options.relay,
        receiverAuthorizerKey: options.receiverAuthorizerKey,
        pidFile: options.pidFile,
        watchdog: true,
        log,
        clock: server.clock,
      })
      await server.attachChain(chain)
      chain.sandboxChain.on('restart', onRestart)
      await publishChainOwner(db, { owner: me, url: options.advertiseUrl, epoch: chain.sandboxChain.epoch })
      log(
        `svc: this process owns the Sandbox chain now (epoch ${chain.sandboxChain.epoch}, up in ${Date.now() - started} ms)`,
      )
    },
    // The lease's connection broke and this process took the lease back (a PostgreSQL restart): the same chain goes
    // on; the row names it again, in case a process that held the lease meanwhile took it off.
    async retaken() {
      if (chain) await publishChainOwner(db, { owner: me, url: options.advertiseUrl, epoch: chain.sandboxChain.epoch })
    },
    async lost() {
      const stopping = chain
      chain = undefined
      await clearChainOwner(db, me).catch(() => {})
      if (!stopping) return
      stopping.sandboxChain.off('restart', onRestart)
      await server.detachChain()
      await stopping.stop()
    },
  })
  return {
    get owner() {
      return lease.held && chain !== undefined
    },
    get chain() {
      return chain
    },
    first: lease.first,
    stop: () => lease.close(),
  }
}
