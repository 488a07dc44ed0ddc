import type { FacilitatorClient } from '@x402/core/server'
import type { Kysely } from 'kysely'
import { createPublicClient, http, type PublicClient } from 'viem'
import { sandboxChain } from '../../chain/viem-chain.js'
import { toSvcError } from '../../core/errors.js'
import { sandboxNetwork } from '../../core/sandbox-usdc.js'
import {
  chainOwnerChannel,
  type ChainOwnerRow,
  type Database,
  type Notifications,
  processOwnerOf,
  quietWhileUnreachable,
  readChainOwner,
} from '../db/index.js'
import { type ChainFacts, readChainFacts } from './chain-facts.js'
import { clusterHeader, clusterRpcPath } from './cluster-secret.js'
import { createOwnerFacilitatorClient } from './owner-facilitator-client.js'

/** Who owns the team Sandbox's chain, as this process sees it. */
export type ChainOwnerState =
  | { kind: 'self' }
  /** Another process, up with its chain at `epoch`, reached at `url`. */
  | { kind: 'remote'; owner: string; url: string; epoch: string }
  /** Nobody right now: the owner died and its successor's chain is not up yet. */
  | { kind: 'none' }

/** The chain as recovery reads it on a process that does not own it: the owner's Anvil, through the owner. */
export type RemoteChainReader = {
  client: PublicClient
  network: string
  epoch: string
  restarting: boolean
}

/**
 * `svc serve --sandbox-chain shared`: the chain owner named in `sandbox_chain_owner` (read at start, on every
 * `svc_chain_owner` notification, and every `everyMs`, when the named owner's liveness lock is also tried, so an
 * owner killed before a successor wrote its row reads as none), and the clients of it: its facilitator and its RPC,
 * both reached through its main listener with the cluster secret.
 */
export type ChainOwnerView = {
  /** This process's owner id (server/db/process-owner.ts), the one the lease publishes. */
  readonly me: string
  current(): ChainOwnerState
  /** The remote owner's facilitator (one client per owner URL). */
  facilitatorOf(url: string): FacilitatorClient
  /** The remote owner's chain for recovery; undefined without a remote owner. */
  reader(): RemoteChainReader | undefined
  /**
   * A route of the remote owner's listener (`/_svc/cluster/rpc`: its Anvil's JSON-RPC) and the secret's header to
   * send it; undefined without a remote owner.
   */
  ownerRoute(path: string): { url: string; headers: Record<string, string> } | undefined
  /**
   * What the remote owner's chain is (chain id, USDC, its services), read from the owner once per epoch when the row
   * names it; undefined without a remote owner, or until it was read.
   */
  facts(): ChainFacts | undefined
  /** Reads the row now (tests, and the lease after a change of its own). */
  refresh(): Promise<void>
  close(): Promise<void>
}

export async function createChainOwnerView(options: {
  db: Kysely<Database>
  notifications?: Notifications | undefined
  secret: string
  everyMs?: number | undefined
  log?: ((message: string) => void) | undefined
}): Promise<ChainOwnerView> {
  const { db, secret, everyMs = 1_000 } = options
  const log = options.log ?? ((message: string) => console.error(message))
  const owner = processOwnerOf(db)
  let row: ChainOwnerRow | undefined
  let alive = false
  const facilitators = new Map<string, FacilitatorClient>()
  const clients = new Map<string, PublicClient>()
  let reading: Promise<void> | undefined
  let again = false
  const failures = quietWhileUnreachable(log)
  /** The remote owner's chain facts, of the epoch they were read at. */
  let facts: ChainFacts | undefined

  async function read(): Promise<void> {
    const next = await readChainOwner(db)
    const nextAlive = next !== undefined && (next.owner === owner.id || !(await owner.isGone(next.owner)))
    // A new remote epoch: its facts are read before the view says so, so a page or a config of it has them.
    if (nextAlive && next.owner !== owner.id && next.epoch !== null && facts?.epoch !== next.epoch)
      facts = await readChainFacts(next.url, secret).catch((error) => {
        log(`svc: reading the Sandbox chain of its owner failed (read again soon): ${toSvcError(error).message}`)
        return facts
      })
    row = next
    alive = nextAlive
  }
  /** One read at a time; a change told meanwhile reads once more after it. */
  function refresh(): Promise<void> {
    if (reading) {
      again = true
      return reading
    }
    reading = read()
      .then(failures.ok, (error) =>
        failures.failed(error, `svc: reading the Sandbox chain owner failed: ${toSvcError(error).message}`),
      )
      .finally(() => {
        reading = undefined
        if (again) {
          again = false
          void refresh()
        }
      })
    return reading
  }
  const subscription = options.notifications?.subscribe(chainOwnerChannel, {
    message: () => void refresh(),
    reset: () => void refresh(),
  })
  await subscription?.ready
  await refresh()
  const timer = setInterval(() => void refresh(), everyMs)
  timer.unref()

  const current = (): ChainOwnerState => {
    if (!row || !alive) return { kind: 'none' }
    if (row.owner === owner.id) return { kind: 'self' }
    if (row.epoch === null) return { kind: 'none' }
    return { kind: 'remote', owner: row.owner, url: row.url, epoch: row.epoch }
  }
  return {
    me: owner.id,
    current,
    facilitatorOf(url) {
      let client = facilitators.get(url)
      if (!client) facilitators.set(url, (client = createOwnerFacilitatorClient(url, secret)))
      return client
    },
    reader() {
      const state = current()
      if (state.kind !== 'remote') return undefined
      let client = clients.get(state.url)
      if (!client) {
        const rpc = `${state.url}${clusterRpcPath}`
        client = createPublicClient({
          chain: sandboxChain(rpc),
          transport: http(rpc, { fetchOptions: { headers: { [clusterHeader]: secret } }, retryCount: 0 }),
        }) as PublicClient
        clients.set(state.url, client)
      }
      return { client, network: sandboxNetwork, epoch: state.epoch, restarting: false }
    },
    ownerRoute(path) {
      const state = current()
      if (state.kind !== 'remote') return undefined
      return { url: `${state.url}${path}`, headers: { [clusterHeader]: secret } }
    },
    facts() {
      const state = current()
      return state.kind === 'remote' && facts?.epoch === state.epoch ? facts : undefined
    },
    refresh,
    async close() {
      clearInterval(timer)
      await subscription?.stop()
      await reading
    },
  }
}
