import type { FacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { sql } from 'kysely'
import {
  BatchSettlementEvmScheme,
  type BatchSettlementChannelManager,
  type ChannelStorage,
} from '@x402/evm/batch-settlement/server'
import {
  defaultClaimIntervalSeconds,
  defaultSettleIntervalSeconds,
  withdrawDelayOf,
} from '../../core/inputs/batch-accept.js'
import type { ApiRow, OwnWrites } from '../db/index.js'
import type { ChannelsDeps } from './deps.js'
import type { BatchRecords } from './records.js'
import { createChannelStorage } from './storage.js'
import { createChannelEvents } from './events.js'
import { createClaimReconciler } from './claim-reconcile.js'
import { createRecordedFacilitators } from './recorded-facilitator.js'
import { createWithdrawalWatch } from './withdrawals.js'
import { FacilitatorUnavailableError, type GatewayRoute, type ResourceServers } from '../payments/index.js'
import { cutText, logLineLimit } from '../../core/http.js'

/** A receiver's channels under one facilitator: its server scheme, storage, resource server and channel managers. */
type Receiver = {
  key: string
  chainEpoch: string
  /** The pay-to address, lowercase. */
  payTo: string
  scheme: BatchSettlementEvmScheme
  storage: ChannelStorage
  server: Promise<x402ResourceServer>
  facilitator: FacilitatorClient
  /** One per token and network, each with its schedule. */
  managers: Map<string, { manager: BatchSettlementChannelManager; claimEvery: number; settleEvery: number }>
}

export type BatchServers = {
  /** The resource server of a route with a batch-settlement accept (the API's receiver's); undefined for other routes. */
  serverFor(api: ApiRow, route: GatewayRoute): Promise<x402ResourceServer> | undefined
  /** The chain epoch a batch payment of `api` is recorded under ('' in production). */
  epochOf(api: ApiRow): string
  /**
   * Starts the channel managers of every receiver an enabled endpoint takes batch-settlement for (at the server's
   * start: vouchers a stopped svc left unclaimed are claimed and settled on schedule, without waiting for a request).
   */
  startAll(): Promise<void>
  /**
   * A refund through the gateway claimed what its channel had charged: settles it to the receiver now (the manager
   * settles only after claims of its own, so it would wait for the next one).
   */
  refunded(api: ApiRow, route: Pick<GatewayRoute, 'accepts'>, token: string): void
  /** Claims every voucher received and settles them now (each receiver and token with a channel manager). */
  claimAndSettle(): Promise<void>
  /** Stops the channel managers' timers, claiming and settling what they hold first. */
  close(): Promise<void>
}

const isBatch = (accept: { scheme: string }) => accept.scheme === 'batch-settlement'

/** The 503 of a batch-settlement Sandbox payment on a team Sandbox's process that does not own the chain. */
export const batchOnOwnerOnly =
  'batch-settlement (payment channel) Sandbox payments are taken only by the svc process that owns the Sandbox chain (svc serve --sandbox-chain shared): send them to that process'

/**
 * The package's server `BatchSettlementEvmScheme` per receiver (pay-to address) and withdraw delay: x402's resource
 * server keeps one scheme per network, and a scheme serves one receiver, so each receiver gets a resource server of
 * its own (with exact and upto too). Each scheme keeps its channels in svc's database (storage.ts),
 * under the chain epoch it runs on: a fresh Sandbox chain starts with none. Each token a receiver is paid in gets
 * the package's channel manager, started on the schedule its accepts set (the shortest, when they differ), which
 * claims the vouchers received and settles them to the receiver; its claims and settles are recorded by wrapping
 * the facilitator client it calls.
 */
export function createBatchServers(
  deps: ChannelsDeps,
  servers: ResourceServers,
  records: BatchRecords,
  own: OwnWrites,
): BatchServers {
  const receivers = new Map<string, Receiver>()
  const publish = createChannelEvents(deps.db, deps.events)
  // Buyers' withdrawals reach no route: they are read from the chains once a receiver takes channels (or svc keeps some).
  const withdrawals = createWithdrawalWatch(deps, publish, own)
  const epochOf = (api: ApiRow) => (api.environment === 'development' ? (deps.chain?.sandboxChain.epoch ?? '') : '')
  const reconciler = createClaimReconciler(deps, records, publish, own)
  const recorded = createRecordedFacilitators(deps, records, publish, reconciler)

  function receiverFor(api: ApiRow, withdrawDelay: number, network: string): Receiver {
    const chainEpoch = epochOf(api)
    const payTo = (api.pay_to_address ?? '').toLowerCase()
    const key = `${api.environment} ${payTo} ${withdrawDelay} ${chainEpoch}`
    let receiver = receivers.get(key)
    if (receiver) return receiver
    // A chain that started afresh: the receiver's managers of the old chain have nothing left to claim.
    for (const [other, old] of receivers)
      if (other.startsWith(`${api.environment} ${payTo} ${withdrawDelay} `)) {
        receivers.delete(other)
        for (const { manager } of old.managers.values()) void manager.stop()
      }
    const storage = createChannelStorage(
      deps.db,
      { chainEpoch, environment: api.environment, network, receiver: payTo, withdrawDelay },
      own,
    )
    const scheme = new BatchSettlementEvmScheme(api.pay_to_address as `0x${string}`, {
      storage,
      withdrawDelay,
      enforceMinDeposit: true,
    })
    const server = servers.forApi(api, { key: `batch ${payTo} ${withdrawDelay} ${chainEpoch}`, scheme })
    server.catch(() => receivers.delete(key))
    receiver = {
      key,
      chainEpoch,
      payTo,
      scheme,
      storage,
      server,
      facilitator: recorded(servers.facilitatorFor(api), api, chainEpoch, storage),
      managers: new Map(),
    }
    receivers.set(key, receiver)
    withdrawals.start()
    return receiver
  }

  /** Starts (or hastens) the manager of the route's batch accepts' tokens. */
  function manage(receiver: Receiver, route: Pick<GatewayRoute, 'accepts'>): void {
    for (const accept of route.accepts.filter(isBatch)) {
      const claimEvery = Number(accept.extra?.claimIntervalSeconds ?? defaultClaimIntervalSeconds)
      const settleEvery = Number(accept.extra?.settleIntervalSeconds ?? defaultSettleIntervalSeconds)
      const key = `${accept.network} ${accept.asset.toLowerCase()}`
      const held = receiver.managers.get(key)
      if (held && held.claimEvery <= claimEvery && held.settleEvery <= settleEvery) continue
      const manager =
        held?.manager ??
        receiver.scheme.createChannelManager(
          receiver.facilitator,
          accept.network as `${string}:${string}`,
          accept.asset as `0x${string}`,
        )
      const schedule = {
        manager,
        claimEvery: Math.min(claimEvery, held?.claimEvery ?? claimEvery),
        settleEvery: Math.min(settleEvery, held?.settleEvery ?? settleEvery),
      }
      if (held) void manager.stop()
      manager.start({
        claimIntervalSecs: schedule.claimEvery,
        settleIntervalSecs: schedule.settleEvery,
        onError: (error) =>
          deps.log?.(cutText(`gateway: channel manager of ${receiver.key}: ${(error as Error).message}`, logLineLimit)),
      })
      receiver.managers.set(key, schedule)
      if (!held) void settleLeftovers(receiver, manager, accept.asset)
    }
  }

  /**
   * A new manager knows of no claim to settle (it keeps that in memory): what svc recorded as claimed and not settled
   * (a svc that died between a claim and its settle) is settled now, or it would wait for the next claim.
   */
  async function settleLeftovers(receiver: Receiver, manager: BatchSettlementChannelManager, token: string) {
    try {
      const rows = await deps.db
        .selectFrom('batch_channels')
        .select(['claimed', 'settled'])
        .where('chain_epoch', '=', receiver.chainEpoch)
        .where('receiver', '=', receiver.payTo)
        .where(sql<string>`lower(token)`, '=', token.toLowerCase())
        .execute()
      if (rows.some((row) => BigInt(row.claimed) > BigInt(row.settled))) await manager.settle()
    } catch (error) {
      deps.log?.(
        cutText(
          `gateway: could not settle what ${receiver.key} had claimed: ${(error as Error).message}`,
          logLineLimit,
        ),
      )
    }
  }

  let closed = false
  let starting: Promise<void> | undefined

  function serverFor(api: ApiRow, route: Pick<GatewayRoute, 'accepts'>) {
    const batch = route.accepts.find(isBatch)
    if (!batch) return undefined
    // A team Sandbox's channels live with its chain owner's managers (claims and settles need its chain and relayer).
    if (api.environment === 'development' && !deps.chain && deps.chainOwner)
      throw new FacilitatorUnavailableError(batchOnOwnerOnly)
    const receiver = receiverFor(api, withdrawDelayOf(batch.extra), batch.network)
    manage(receiver, route)
    return receiver.server
  }

  async function startAll(): Promise<void> {
    // Withdrawals made while svc was stopped are read now, from where it had got to.
    if (await deps.db.selectFrom('batch_channels').select('channel_id').limit(1).executeTakeFirst()) withdrawals.start()
    // A production claim svc did not record before it stopped (its facilitator is not svc's) is read from the chain
    // before any manager claims from svc's totals.
    await reconciler
      .reconcile()
      .catch((error: unknown) =>
        deps.log?.(cutText(`gateway: ${(error as Error).message}: checked again before each claim`, logLineLimit)),
      )
    const rows = await deps.db
      .selectFrom('endpoints')
      .innerJoin('apis', 'apis.id', 'endpoints.api_id')
      .selectAll('apis')
      .select('endpoints.accepts as endpoint_accepts')
      .where('endpoints.enabled', '=', 1)
      .where('endpoints.accepts', 'like', '%batch-settlement%')
      .execute()
    for (const { endpoint_accepts, ...api } of rows) {
      if (closed) return
      // A Sandbox API needs the chain services; a production one the external facilitator (else the request says so).
      if (api.environment === 'development' && !deps.chain) continue
      try {
        void serverFor(api, { accepts: JSON.parse(endpoint_accepts) as GatewayRoute['accepts'] })?.catch(() => {})
      } catch (error) {
        deps.log?.(
          cutText(
            `gateway: the channel managers of ${api.slug} did not start: ${(error as Error).message}`,
            logLineLimit,
          ),
        )
      }
    }
  }

  return {
    epochOf,
    serverFor,
    refunded(api, route, token) {
      const batch = route.accepts.find(isBatch)
      if (!batch) return
      const receiver = receivers.get(
        `${api.environment} ${(api.pay_to_address ?? '').toLowerCase()} ${withdrawDelayOf(batch.extra)} ${epochOf(api)}`,
      )
      const held = receiver?.managers.get(`${batch.network} ${token.toLowerCase()}`)
      if (receiver && held) void settleLeftovers(receiver, held.manager, token)
    },
    startAll() {
      starting ??= startAll().catch((error: unknown) =>
        deps.log?.(cutText(`gateway: the channel managers did not start: ${(error as Error).message}`, logLineLimit)),
      )
      return starting
    },
    async claimAndSettle() {
      for (const receiver of receivers.values())
        for (const { manager } of receiver.managers.values()) await manager.claimAndSettle()
    },
    async close() {
      closed = true
      await starting
      await withdrawals.close()
      const all = [...receivers.values()]
      receivers.clear()
      for (const receiver of all)
        for (const { manager } of receiver.managers.values())
          await manager.stop({ flush: true }).catch((error: unknown) => {
            deps.log?.(
              cutText(`gateway: could not claim and settle on stop: ${(error as Error).message}`, logLineLimit),
            )
          })
    },
  }
}
