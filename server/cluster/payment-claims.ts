import { toSvcError } from '../../core/errors.js'
import { compilePattern } from '../../core/path-pattern.js'
import {
  claimEndpoint,
  journalHolderOf,
  type PaymentIdClaims,
  postgresPaymentIdClaims,
  processOwnerOf,
  releaseEndpoint,
  sharedByProcesses,
  usedUpEndpoints,
} from '../db/index.js'
import type { ClusterDeps } from './deps.js'
import { releaseDroppedSettlement } from './dropped-settlement.js'
import {
  type Claim,
  createPaymentLocks,
  endpointInUse,
  paymentInUse,
  type PaymentLocks,
  type SettlementJournal,
  usedUpMessage,
} from '../journal/index.js'

export type PostgresPaymentClaimsOptions = {
  /**
   * How long a one-time endpoint's claim holds: longer than any payment takes (upstream deadline, verify, settle), so
   * it never runs out under a live request; the claim of a process that died is free again after it. @defaultValue 300_000
   */
  endpointHoldMs?: number | undefined
}

const usedUp: Claim = { ok: false, reason: 'endpoint-used-up', message: usedUpMessage }

/**
 * A payment held by a process that is gone (a load balancer sent it again after that process died): the reaper of a
 * live process resolves the row (server/cluster/reaper.ts, within a second of the death). Nothing was sent yet
 * (`claimed`): the row is freed, and the retry is served. Its settlement was sent (`settling`): that call may still
 * be under way at the facilitator, so the chain decides, read at once and then again after 0.25 s, doubling up to
 * 10 s, until the authorization's validBefore; a retry is paid if it was not (a used authorization is refused then).
 * A Sandbox settlement that can no longer land (not on the chain, not in its pool, not being settled:
 * server/cluster/dropped-settlement.ts) is given up as soon as a retry asks, which is then paid afresh. Meanwhile a
 * 503 with Retry-After, not the 402 of a payment in use: nothing is wrong with the payment, and nothing is charged
 * twice.
 */
export const orphanedPayment = {
  claimed: {
    ok: false,
    reason: 'payment-orphaned',
    message: 'this payment was taken by an svc process that stopped before settling it: retry in a few seconds',
    retryAfter: 2,
  },
  settling: {
    ok: false,
    reason: 'payment-orphaned',
    message:
      'an svc process that stopped was settling this payment; svc is reading the chain for it: retry in a few seconds',
    retryAfter: 5,
  },
} as const satisfies Record<string, Claim>

/**
 * Why a payment's claim was refused: its holder is alive (in use), or gone (orphaned, {@link orphanedPayment});
 * undefined when nobody holds it any more (its row was freed since, by its process or a reaper): claim it again.
 */
async function inUse(deps: ClusterDeps, paymentId: string): Promise<Claim | undefined> {
  const holder = await journalHolderOf(deps.db, paymentId)
  if (!holder) return undefined
  if (holder.owner === null || !(await processOwnerOf(deps.db).isGone(holder.owner))) return paymentInUse
  return holder.state === 'claimed' ? orphanedPayment.claimed : orphanedPayment.settling
}

/**
 * The gateway's payment claims, chosen once when the gateway is created: one process on a SQLite file keeps them in
 * memory ({@link createPaymentLocks}); any number of processes on PostgreSQL share them as rows
 * ({@link createPostgresPaymentClaims}).
 */
export function createPaymentClaims(deps: ClusterDeps, journal: SettlementJournal): PaymentLocks {
  return sharedByProcesses(deps.db) ? createPostgresPaymentClaims(deps, journal) : createPaymentLocks()
}

/**
 * The gateway's claims on PostgreSQL, shared by every process on the database (issue 26 item 3):
 * - a payment's claim is its settlement journal row, written now with this process as its owner (one statement:
 *   `INSERT … ON CONFLICT (payment_id) DO …  RETURNING`, server/db/settlement-journal.ts `claimJournalRow`): one
 *   request per payment across all processes, so one upstream call and one settlement per authorization. A refused
 *   or failed payment deletes its row before it is answered; a settled one's row is the journal's from then on; a
 *   process that dies leaves its rows, with its owner id, to whoever reaps them.
 * - a one-time endpoint's claim is a row of `endpoint_claims` (server/db/endpoint-claims.ts), which becomes the
 *   endpoint's tombstone in the statement that records its settlement and deletes it: every process answers 410.
 */
export function createPostgresPaymentClaims(
  deps: ClusterDeps,
  journal: SettlementJournal,
  options: PostgresPaymentClaimsOptions = {},
): PaymentLocks {
  const { endpointHoldMs = 300_000 } = options
  const owner = processOwnerOf(deps.db).id
  const log = deps.log ?? ((message: string) => console.error(message))
  return {
    async claim({ paymentId, ephemeral, entry }) {
      // A row freed between the refused claim and the look at its holder: claimed again (a few times at most).
      for (let tries = 1; !(await journal.claim(entry())); tries++) {
        const refused = await inUse(deps, paymentId)
        // Its process died settling it: once that settlement can no longer land, the payment is paid afresh.
        if (refused === orphanedPayment.settling && (await releaseDroppedSettlement(deps, paymentId))) continue
        if (refused) return refused
        if (tries >= 3) return paymentInUse
      }
      if (ephemeral) {
        const endpoint = await claimEndpoint(deps.db, ephemeral, owner, endpointHoldMs).catch(async (error) => {
          await journal.release(paymentId)
          throw error
        })
        if (endpoint !== 'claimed') {
          await journal.release(paymentId)
          return endpoint === 'used-up' ? usedUp : endpointInUse
        }
      }
      return {
        ok: true,
        async release(consumed) {
          // A used-up endpoint's claim is its tombstone now (written with its settlement's record).
          await Promise.all([
            journal.release(paymentId),
            ephemeral && !consumed ? releaseEndpoint(deps.db, ephemeral.id, owner) : undefined,
          ]).catch((error: unknown) =>
            // The answer stands; the claim stays until this process is gone (the reaper) or its time runs out.
            log(`svc: releasing the claim of a payment failed: ${toSvcError(error).message}`),
          )
        },
      }
    },
    // The tombstone is written with the settlement's record (server/db/postgres/gateway-store.ts): nothing to remember
    // here.
    consumed() {},
    async wasConsumed(apiId, method, path) {
      const tombstones = await usedUpEndpoints(deps.db, apiId)
      return tombstones.some((row) => {
        const pattern = compilePattern(row.method, row.path_pattern)
        return pattern.method === method && pattern.regex.test(path)
      })
    },
    // PostgreSQL has no snapshots to revert to.
    reset() {},
  }
}

/** The payment-identifier ids in flight across processes: rows on PostgreSQL; undefined on SQLite (one process). */
export function paymentIdClaimsOf(deps: ClusterDeps): PaymentIdClaims | undefined {
  return sharedByProcesses(deps.db) ? postgresPaymentIdClaims(deps.db, processOwnerOf(deps.db)) : undefined
}
