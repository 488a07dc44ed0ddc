import type { PaymentRequirements } from '@x402/core/types'
import { findMatch } from '../../core/path-pattern.js'
import { machineClock } from '../../core/clock.js'
import type { ApiRow, GatewayStore, OwnWrites } from '../db/index.js'
import type { PaidRouteLimits, ServerDeps } from '../deps.js'
import {
  type Attempt,
  builderCodeOf,
  cachedPaymentRequired,
  createEndpointTable,
  createFlowEvents,
  createGatewayFaults,
  createOfferReceipts,
  createPaymentIdentifiers,
  createResourceServers,
  createSignIns,
  createTrafficStats,
  decodePayment,
  type EventDetails,
  failed,
  type FlowContext,
  type GatewayRoute,
  journalEntryOf,
  normalizePath,
  offerFor,
  payAuthorization,
  payClaimed,
  type Payment,
  paymentIdentity,
  type PaymentOutcome,
  paymentRequired,
  type PaymentRequiredOutcome,
  type Refusal,
  retryLater,
  serveSignedIn,
  unavailable,
  v1CodeHint,
  verifyPayment,
} from '../payments/index.js'
import type { PaymentEventType } from '../payment-events.js'
import { noteSettled, settledValue } from './settled.js'
import {
  addressRefusalOf,
  createUpstreamProxy,
  type GatewayRequest,
  ownListenerPorts,
  type UpstreamProxyOptions,
} from '../upstream/index.js'
import { createSettlementJournal, type SettlementJournalOptions, usedUpMessage } from '../journal/index.js'
import { createPaymentClaims, paymentIdClaimsOf } from '../cluster/index.js'
import { cutText, echoedValueLimit } from '../../core/http.js'
import { createEscrowServers, escrowJournalResolver, facilitatorHoldVoider, payEscrow } from '../escrow/index.js'
import {
  type BatchContext,
  createBatchRecords,
  createBatchServers,
  payBatch,
  resolveChannelJournalRow,
} from '../channels/index.js'

export type PaymentFlow = {
  /**
   * Serves one gateway request for `api` (`version`: the {@link GatewayStore} version read before `api`): match the
   * route → 402, or decode the payment → match it to the requirements → lock it → verify → forward upstream →
   * settle → record. Returns how to answer; throws what the app's error handler answers: a
   * `FacilitatorUnavailableError` (503) when the API's facilitator cannot be used, anything unexpected (500).
   */
  run(request: GatewayRequest, api: ApiRow, version: number): Promise<PaymentOutcome>
  /**
   * The 402 {@link run} answers `request` when it carries no payment, if that 402 is known without waiting: the API's
   * routes read at `version`, the route's resource server and offer built, its unpaid 402 cached and fresh
   * (server/payments/offer.ts `paymentRequired`). Counted and told as run() does. Undefined otherwise, having counted
   * and told nothing: a request with PAYMENT-SIGNATURE or X-PAYMENT, an auth-capture route (its seller's server is
   * looked up anew), a 402 not cached (sign-in-with-x) or not built yet, anything that is not a 402; run() answers it.
   */
  unpaid(request: GatewayRequest, api: ApiRow, version: number): PaymentRequiredOutcome | undefined
  /** Starts the channel managers of the batch-settlement receivers (server/channels/servers.ts `startAll`). */
  startChannelManagers(): Promise<void>
  /** Writes the buffered traffic counters now (tests; otherwise every 250 ms and on close). */
  flush(): Promise<void>
  /** Releases timers, pending writes and upstream connections (server stop). */
  close(): Promise<void>
}

export type PaymentFlowOptions = UpstreamProxyOptions & {
  /** How often buffered traffic counters are written. @defaultValue 250 */
  statsFlushEveryMs?: number | undefined
  /** The settlement journal's sweeper (tests lower it). */
  journal?: SettlementJournalOptions | undefined
}

/** The resource a request for `route` asks for (`path`: its normalized path). */
function resourceOf(request: GatewayRequest, api: ApiRow, route: GatewayRoute, path: string): Attempt['resource'] {
  const { url } = request
  const queryAt = url.indexOf('?')
  return {
    url: `${request.protocol}://${request.headers.host}${request.baseUrl}${url}`,
    path,
    query: queryAt === -1 ? '' : url.slice(queryAt),
    description: route.endpoint.description ?? `${route.endpoint.method} ${route.endpoint.path_pattern} of ${api.name}`,
  }
}

/** The limits of every payment flow that sets none of its own. */
export const paidRouteDefaults: Readonly<Required<PaidRouteLimits>> = Object.freeze({
  timeoutMs: 30_000,
  maxResponseBytes: 10 * 1024 * 1024,
  statsFlushEveryMs: 250,
})

/**
 * The paid routes of the gateway, free of any web framework (an adapter turns requests into {@link GatewayRequest}s
 * and writes the {@link PaymentOutcome}s). Only priced routes are served: a request no enabled, unexpired endpoint
 * matches is a 404, never forwarded for free, so a seller cannot leak an upstream route by forgetting to price it.
 *
 * A paid request is verified, forwarded (request body streamed), and settled only when the upstream answered below
 * 400. The upstream's answer is held (up to `maxResponseBytes`) until the settlement is done and recorded: the
 * buyer gets the body only if the payment settled, and a failed settlement delivers nothing.
 */
export function createPaymentFlow(
  deps: ServerDeps,
  /** The gateway's store, shared with its API cache; the flow does not close it. */
  store: GatewayStore,
  options: PaymentFlowOptions = {},
): PaymentFlow {
  const settings = { ...paidRouteDefaults, ...options }
  const table = createEndpointTable(deps.db, deps.clock)
  const offerReceipts = createOfferReceipts(deps.secrets.offerReceiptKey)
  const servers = createResourceServers(deps, [offerReceipts.extension])
  // Payment channels (batch-settlement): a resource server per receiver, their records written as the store's own.
  const own: OwnWrites = (write) => store.own(write)
  const records = createBatchRecords(deps.db, own, () => new Date())
  const batch = createBatchServers(deps, servers, records, own)
  const signIns = createSignIns(deps)
  // Escrow payments (auth-capture): a resource server per seller, whose scheme signs as its receiver authorizer.
  const escrows = createEscrowServers(deps, servers)
  // svc's own ports, worked out once the listener has its port (they never change after; the chain restarts on its URLs).
  let ownPorts: ReadonlyMap<number, string> | undefined
  const ownListeners = () =>
    ownPorts ?? (deps.hosts.port ? (ownPorts = ownListenerPorts(deps)) : ownListenerPorts(deps))
  const proxy = createUpstreamProxy({ log: deps.log, ownListeners, refuse: addressRefusalOf(deps), ...settings })
  const stats = createTrafficStats(store, { flushEveryMs: settings.statsFlushEveryMs, log: deps.log })
  const paymentIds = createPaymentIdentifiers(store, deps.clock, deps.log ?? (() => {}), paymentIdClaimsOf(deps))
  const journal = createSettlementJournal(deps, store, {
    ...options.journal,
    channelRow: resolveChannelJournalRow,
    escrowRow: escrowJournalResolver(facilitatorHoldVoider(deps)),
  })
  // One process on a SQLite file: claims in memory; any number on PostgreSQL: claims as rows.
  const locks = createPaymentClaims(deps, journal)
  // A revert to a snapshot writes the buffered counters first, then finds the used-up one-time endpoints back.
  const unregister = deps.sandboxState?.register({ flush: () => stats.flush(), reset: () => locks.reset() })
  const events = createFlowEvents(deps)
  const clock = deps.clock ?? machineClock
  const faults = createGatewayFaults(deps, { timeoutMs: settings.timeoutMs })
  /**
   * Publishes what happened to a request of `attempt` (only when its seller listens: see server/payments/tell.ts).
   */
  const tell = (
    type: PaymentEventType,
    attempt: Attempt,
    details: EventDetails,
    requirements?: PaymentRequirements,
  ) => {
    if (!events.wanted(attempt.api)) return
    events.emit(
      type,
      {
        api: attempt.api,
        endpointId: attempt.route.endpoint.id,
        method: attempt.request.method,
        path: attempt.resource.path,
        requirements: requirements ?? attempt.offer.requirements[0],
      },
      details,
    )
  }

  // What the settle step and the flows (authorization, upfront, batch, signed-in) use (requirePayment is hoisted).
  const steps: FlowContext = {
    deps,
    store,
    journal,
    faults,
    stats,
    proxy,
    withReceipt: offerReceipts.withReceipt,
    tell,
    published: events.published,
    requirePayment,
  }
  const batchSteps: BatchContext = { ...steps, batch, records }

  async function run(request: GatewayRequest, api: ApiRow, version: number): Promise<PaymentOutcome> {
    stats.count(api, 'requests')
    const { url, method } = request
    const queryAt = url.indexOf('?')
    const path = normalizePath(queryAt === -1 ? url : url.slice(0, queryAt))
    if (path === undefined) return failed(400, 'malformed request path')
    let route = findMatch(await table.routesOf(api, version), method, path)
    // Before a 404, a version that may lag behind another process's write is read anew (read-your-writes).
    if (!route && store.fresh) {
      const again = await store.fresh()
      if (again !== version) route = findMatch(await table.routesOf(api, again), method, path)
    }
    if (!route) {
      const consumed = locks.wasConsumed(api.id, method, path)
      if (typeof consumed === 'boolean' ? consumed : await consumed) return failed(410, usedUpMessage)
      return failed(404, `no paid route for ${method} ${cutText(path, echoedValueLimit)}`)
    }
    // A missing facilitator (no chain, no SVC_FACILITATOR_URL) throws a 503 for the error handler.
    // A route that takes batch-settlement gets its receiver's resource server (its channels); the others the API's.
    // An auth-capture route gets its seller's (server/escrow/flow.ts).
    const serverOf =
      (route.batch && batch.serverFor(api, route)) ?? (route.escrow && escrows.serverFor(api)) ?? servers.forApi(api)
    const server = await serverOf
    const offerOf = offerFor(route, server, api, clock)
    const offer = await offerOf
    const attempt: Attempt = { request, api, route, server, offer, resource: resourceOf(request, api, route, path) }
    const { resource } = attempt

    const header = request.headers['payment-signature']
    const signIn = request.headers['sign-in-with-x']
    if (typeof header !== 'string' && typeof signIn === 'string' && route.endpoint.siwx_access_seconds !== null) {
      const access = await signIns.check(signIn, attempt)
      return access.ok ? serveSignedIn(steps, attempt) : requirePayment(attempt, access.error)
    }
    if (typeof header !== 'string') {
      if (request.headers['x-payment'] !== undefined)
        return requirePayment(
          attempt,
          `svc speaks x402 v2 only: send the payment in PAYMENT-SIGNATURE, not X-PAYMENT; ${v1CodeHint}`,
        )
      // The next unpaid request finds them without waiting (unpaid()).
      noteSettled(serverOf, server)
      noteSettled(offerOf, offer)
      return requirePayment(attempt)
    }
    const decoded = decodePayment(header)
    if (!decoded.ok) return requirePayment(attempt, decoded.error)
    let requirements: PaymentRequirements | undefined
    try {
      requirements = server.findMatchingRequirements(offer.requirements, decoded.payload)
    } catch {
      requirements = undefined
    }
    if (!requirements)
      return requirePayment(
        attempt,
        'the payment matches none of the accepted payment options of this route: fetch a fresh 402 and pay one of its accepts',
      )

    const builderCode = builderCodeOf(decoded.payload)
    if (!builderCode.ok) return failed(400, builderCode.error)
    const paymentId = paymentIdentity(decoded.payload, requirements)
    const payload = decoded.payload
    // Passed down to the flow that pays it, the settle step and the journal (the verify fills in its payer).
    const payment: Payment = {
      attempt,
      payload,
      requirements,
      paymentId,
      builderCode: builderCode.code,
      payer: undefined,
    }
    // A payment-identifier already paid gets its kept answer again (server/payments/identifier.ts): nothing is settled
    // twice.
    return paymentIds.around(
      {
        apiId: api.id,
        payload,
        requirements,
        paymentKey: paymentId,
        method,
        path,
        query: resource.query,
        required: route.endpoint.payment_identifier_required === 1,
      },
      {
        async verify() {
          const verified = await verifyPayment(server, payload, requirements)
          if (verified.type === 'accepted') return undefined
          if (verified.type === 'refused') return requirePayment(attempt, verified.error, { reason: verified.reason })
          return verified.type === 'failed' ? failed(502, verified.error) : unavailable(verified.error)
        },
        // One request per payment (however it is encoded), one paying request per ephemeral endpoint at a time: the
        // others are not charged.
        pay: () =>
          payClaimed(
            locks,
            {
              paymentId,
              ephemeral: route.expiresAt === null ? undefined : route.endpoint,
              pattern: route.compiled,
              entry: () => journalEntryOf(deps, payment),
            },
            // The one place that picks the flow of a payment: batch-settlement's channels, auth-capture's escrow
            // (server/escrow/flow.ts), or x402's authorization flow (exact, upto; verify → forward → settle → record,
            // or settle first when upfront).
            () =>
              requirements.scheme === 'batch-settlement'
                ? payBatch(batchSteps, payment)
                : requirements.scheme === 'auth-capture'
                  ? payEscrow(steps, payment)
                  : payAuthorization(steps, payment),
            (refusal) =>
              refusal.reason === 'endpoint-used-up'
                ? failed(410, refusal.message)
                : (retryLater(refusal) ?? requirePayment(attempt, refusal.message)),
          ),
      },
    )
  }

  function unpaid(request: GatewayRequest, api: ApiRow, version: number): PaymentRequiredOutcome | undefined {
    const { headers, url } = request
    if (headers['payment-signature'] !== undefined || headers['x-payment'] !== undefined) return undefined
    const routes = table.peek(api, version)
    if (routes === undefined) return undefined
    const queryAt = url.indexOf('?')
    const path = normalizePath(queryAt === -1 ? url : url.slice(0, queryAt))
    if (path === undefined) return undefined
    const route = findMatch(routes, request.method, path)
    if (!route || route.escrow) return undefined
    // The same resource server and offer as run()'s (a missing facilitator throws here as there).
    const server = settledValue(route.batch ? batch.serverFor(api, route)! : servers.forApi(api))
    const offer = server && settledValue(offerFor(route, server, api, clock))
    const outcome =
      offer && cachedPaymentRequired(offer, `${request.protocol}://${headers.host}${request.baseUrl}${url}`)
    if (!outcome) return undefined
    stats.count(api, 'requests')
    if (events.wanted(api)) {
      const resource = resourceOf(request, api, route, path)
      tell('payment.required', { request, api, route, server, offer, resource }, { status: 402 })
    }
    return counted(api, outcome)
  }

  /**
   * A 402 with the PaymentRequired, `error` saying why the payment sent was refused (none: no payment was sent); told
   * to the stream as payment.required, or payment.failed with `refusal`'s reason.
   */
  function requirePayment(
    attempt: Attempt,
    error?: string,
    refusal: Refusal & {
      reason?: string | undefined
      payer?: string | undefined
      requirements?: PaymentRequirements
    } = {},
  ): PaymentRequiredOutcome | Promise<PaymentRequiredOutcome> {
    if (error === undefined) tell('payment.required', attempt, { status: 402 })
    else
      tell(
        'payment.failed',
        attempt,
        { status: 402, error, reason: refusal.reason, payer: refusal.payer },
        refusal.requirements,
      )
    const outcome = paymentRequired(attempt, error, refusal)
    if (outcome instanceof Promise) return outcome.then((built) => counted(attempt.api, built))
    return counted(attempt.api, outcome)
  }

  /** Counts a 402 of the API once it is built. */
  function counted(api: ApiRow, outcome: PaymentRequiredOutcome): PaymentRequiredOutcome {
    stats.count(api, 'payment_required')
    return outcome
  }

  return {
    run,
    unpaid,
    startChannelManagers: () => batch.startAll(),
    flush: () => stats.flush(),
    async close() {
      unregister?.()
      await batch.close()
      await stats.close()
      await journal.close()
      await proxy.close()
    },
  }
}
