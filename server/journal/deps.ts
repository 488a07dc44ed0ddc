import type { Kysely } from 'kysely'
import type { PublicClient } from 'viem'
import type { ChainServices } from '../../chain/services.js'
import type { Clock } from '../../core/clock.js'
import type { Database } from '../db/index.js'
import type { ProductionChains } from './production-chains.js'

/**
 * What the journal reads of the server's deps (server/deps.ts's `ServerDeps` is one), declared here so journal/ stays
 * below the rooms that build them.
 */
export type JournalDeps = {
  db: Kysely<Database>
  /** The sandbox chain services; without them Sandbox rows wait for a start with them. */
  chain?: ChainServices | undefined
  /**
   * svc serve --sandbox-chain shared: who owns the team Sandbox's chain (server/cluster/). Without `chain`, recovery
   * reads the owner's chain through it.
   */
  chainOwner?: { reader(): JournalChainReader | undefined } | undefined
  /** The RPCs of production networks (--rpc): recovery checks their unfinished payments there. @defaultValue none */
  productionChains?: ProductionChains | undefined
  log?: ((message: string) => void) | undefined
  /** The data dir: a write that fails because it is full or read-only answers a 503 naming it. */
  dataDir?: string | undefined
  /**
   * svc's clock: ttl endpoints, session JWTs and verification tokens are judged by it; `svc time advance` moves it.
   * @defaultValue the machine's clock (which never moves)
   */
  clock?: Clock | undefined
}

/** The chain as recovery reads it on a process that does not own it (server/cluster/chain-owner-view.ts's `RemoteChainReader`). */
export type JournalChainReader = {
  client: PublicClient
  network: string
  epoch: string
  restarting: boolean
}
