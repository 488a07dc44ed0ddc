import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { authorizationFields } from '../../core/eip3009-authorization.js'
import { toSvcError } from '../../core/errors.js'
import {
  abandonJournalRow,
  type ApiRow,
  claimJournalRow,
  databaseUnreachable,
  type EndpointRow,
  type GatewayStore,
  type JournalState,
  processOwnerOf,
  releaseJournalClaim,
  type SettlementJournalRow,
  sharedByProcesses,
} from '../db/index.js'
import type { JournalDeps } from './deps.js'
import { newId, nowIso } from '../ids.js'
import type { ChannelActionDetail } from '../../chain/batch-settlement/index.js'
import { type ChannelRowResolver, type ResolveJournalOptions, resolveSettlementJournal } from './recovery.js'
import { dataDirProblem } from '../data-dir/index.js'

/** A payment about to be settled, as its journal row names it. */
/** A channel's deposit or refund as its journal row keeps it (`settlement_journal.channel_action`, JSON). */
export type JournaledChannelAction = {
  kind: 'deposit' | 'refund'
  channelId: string
  receiver: string
  token: string
  withdrawDelay: number
  /** The price of the request a deposit paid (its first voucher). */
  price: string
  /** A deposit's authorization expiry (seconds): unused before it, it may still land. */
  validBefore: string | null
  /** The chain's latest block when it began: its logs are looked for from there. */
  fromBlock: string
  detail: ChannelActionDetail
}

export type JournalEntry = {
  api: ApiRow
  endpoint: EndpointRow
  ephemeral: boolean
  requirements: PaymentRequirements
  payload: PaymentPayload
  /** What the settlement asks for (upto: the upstream's charge). @defaultValue the requirements' amount */
  amount?: string | undefined
  /** The payment's identity (server/payments/identifier.ts). */
  paymentId: string
  payer: string
  method: string
  path: string
  chainEpoch: string
  /** A payment channel's deposit or refund: what recovery looks for on the chain (server/channels/journal.ts). */
  channelAction?: JournaledChannelAction | undefined
}

export type SettlementJournal = {
  /**
   * PostgreSQL: claims a payment for this process by writing its row now (state `claimed`), so that no other request,
   * in any process, works on it at the same time; false when a row of the payment is held (server/db/settlement-
   * journal.ts `claimJournalRow`). {@link begin} then turns that row into the settlement's, or {@link release} removes it.
   */
  claim(entry: JournalEntry): Promise<boolean>
  /** Lets go of the claim of `paymentId` when no settlement was begun for it (nothing when one was). */
  release(paymentId: string): Promise<void>
  /** Writes the row of a payment before its settlement is sent (its claimed row, if any); resolves with the row's id. */
  begin(entry: JournalEntry): Promise<string>
  /**
   * Ends a row whose outcome is known: its settlement recorded as `settlementId` and its answer written (`delivered`)
   * or not, or no settlement (a replay of a payment recorded earlier).
   */
  finish(id: string, settlementId?: string, delivered?: boolean): void
  /**
   * Writes a settlement's record (`write`, resolving with its id). When the data dir is full or read-only, the money
   * has moved all the same: the record is kept in memory, written (with the row's `finish`) as soon as the disk
   * allows, and the call resolves with `settlementId` (if svc stops first, the next start finds it from the journal row).
   */
  record(id: string, settlementId: string, write: () => Promise<string | undefined>): Promise<string | undefined>
  /**
   * Leaves a row whose settlement failed or broke off: it is checked on the chain once it is `graceMs` old (PostgreSQL:
   * marked `abandoned`, so that a retry of the payment, through any process, may take it over as SQLite's does).
   * `refusedFor`: the facilitator's reason when it answered that the settlement failed; a {@link finalRefusal} marks
   * the row `refused` (on both dialects), and its unused authorization is then freed without waiting for validBefore.
   */
  abandon(id: string, refusedFor?: string): Promise<void>
  /** Stops the sweeper and waits for the writes under way. */
  close(): Promise<void>
}

export type SettlementJournalOptions<D extends JournalDeps = JournalDeps> = {
  /** How often abandoned rows are looked for. @defaultValue 30_000 */
  sweepEveryMs?: number | undefined
  /** Age of an abandoned row before it is checked on the chain (longer than any settlement takes). @defaultValue 120_000 */
  graceMs?: number | undefined
  /** How often writes kept for a full or read-only data dir are tried again. @defaultValue 1_000 */
  retryEveryMs?: number | undefined
  /** Resolves a channel deposit's or refund's row (server/channels/journal.ts's `resolveChannelJournalRow`, passed in by the gateway). */
  channelRow?: ChannelRowResolver<D> | undefined
  /** Resolves an escrow collect's row (server/escrow's `escrowJournalResolver`, passed in by the gateway). */
  escrowRow?: ResolveJournalOptions<D>['escrowRow']
}

/**
 * The gateway's settlement journal: a row is written before a settlement is sent and removed when the paid answer was
 * written, so a settlement is never on the chain without a trace here. Rows carry this process's id (server/db/
 * process-owner.ts): at start, rows a process that died left behind are resolved (server/journal/recovery.ts); meanwhile, rows of settlements that failed or broke off are resolved
 * by a sweeper once they are old enough. A buyer charged without getting the answer is recorded as such.
 */
export function createSettlementJournal<D extends JournalDeps>(
  deps: D,
  store: GatewayStore | Promise<GatewayStore>,
  options: SettlementJournalOptions<D> = {},
): SettlementJournal {
  const { sweepEveryMs = 30_000, graceMs = 120_000, retryEveryMs = 1_000, channelRow, escrowRow } = options
  const log = deps.log ?? ((message: string) => console.error(message))
  const owner = processOwnerOf(deps.db).id
  const shared = sharedByProcesses(deps.db)
  const inFlight = new Set<string>()
  /** Claimed rows no settlement was begun for yet, by payment id. */
  const claims = new Map<string, string>()
  const writes = new Set<Promise<void>>()
  let sweeping: Promise<unknown> | undefined
  const timer = setInterval(() => {
    sweeping ??= resolveSettlementJournal(deps, {
      before: new Date(Date.now() - graceMs).toISOString(),
      skip: inFlight,
      channelRow,
      escrowRow,
    })
      // The database may be away (a PostgreSQL restart): the next sweep tries again; a rejection here would end the
      // process.
      .catch((error: unknown) =>
        log(
          `svc: resolving unfinished payments failed (tried again in ${sweepEveryMs / 1000} s): ${toSvcError(error).message}`,
        ),
      )
      .finally(() => (sweeping = undefined))
  }, sweepEveryMs)
  timer.unref()
  const kept = createKeptWrites(deps, retryEveryMs, (id) => inFlight.delete(id))

  function track(id: string, write: Promise<void>) {
    const tracked = write
      .catch((error: unknown) =>
        log(`svc: closing the settlement journal entry ${id} failed: ${toSvcError(error).message}`),
      )
      .finally(() => {
        if (!kept.has(id)) inFlight.delete(id)
        writes.delete(tracked)
      })
    writes.add(tracked)
  }

  return {
    async claim(entry) {
      const row = buildJournalRow(entry, owner, 'claimed')
      inFlight.add(row.id)
      let won = false
      try {
        won = await claimJournalRow(deps.db, row)
      } catch (error) {
        // The database went away under the insert (a PostgreSQL restart): it may have committed all the same, so the
        // row is deleted once the database can be reached (nothing was sent for it).
        if (kept.storageFailed(error)) kept.add(row.id, () => releaseJournalClaim(deps.db, row.id), error)
        throw error
      } finally {
        if (won) claims.set(entry.paymentId, row.id)
        else if (!kept.has(row.id)) inFlight.delete(row.id)
      }
      return won
    },
    async release(paymentId) {
      const id = claims.get(paymentId)
      if (id === undefined) return
      claims.delete(paymentId)
      const write = () => releaseJournalClaim(deps.db, id)
      try {
        await write()
      } catch (error) {
        // The database could not be reached (a PostgreSQL restart): the claim is let go of once it can.
        if (!kept.storageFailed(error)) throw error
        return kept.add(id, write, error)
      } finally {
        if (!kept.has(id)) inFlight.delete(id)
      }
    },
    async begin(entry) {
      // A production payment names the block its settlement cannot be older than, where svc has the network's RPC.
      const fromBlock =
        entry.api.environment === 'production'
          ? ((await deps.productionChains?.startBlock(entry.requirements.network)) ?? null)
          : null
      // A claimed row becomes the settlement's (same id; PostgreSQL's openJournal replaces a row of the same payment).
      const claimed = claims.get(entry.paymentId)
      claims.delete(entry.paymentId)
      const row = buildJournalRow(entry, owner, 'settling', claimed)
      row.from_block = fromBlock
      inFlight.add(row.id)
      try {
        await (await store).openJournal(row)
      } catch (error) {
        // Still claimed (nothing was sent): the payment's release lets go of it.
        if (claimed !== undefined) claims.set(entry.paymentId, claimed)
        else inFlight.delete(row.id)
        throw error
      }
      return row.id
    },
    finish(id, settlementId, delivered = true) {
      const write = async () => (await store).closeJournal(id, settlementId, delivered)
      if (kept.has(id)) return kept.add(id, write)
      track(
        id,
        write().catch((error: unknown) => {
          if (!kept.storageFailed(error)) throw error
          kept.add(id, write, error)
        }),
      )
    },
    async record(id, settlementId, write) {
      try {
        return await write()
      } catch (error) {
        if (!kept.storageFailed(error)) throw error
        kept.add(id, write, error)
        return settlementId
      }
    },
    async abandon(id, refusedFor) {
      const write = async () => {
        if (finalRefusal(refusedFor)) await abandonJournalRow(deps.db, id, 'refused')
        else if (shared) await abandonJournalRow(deps.db, id)
      }
      try {
        await write()
      } catch (error) {
        // The database could not be reached (a PostgreSQL restart): the row is marked once it can.
        if (kept.storageFailed(error)) kept.add(id, write, error)
        else log(`svc: marking the settlement journal entry ${id} abandoned failed: ${toSvcError(error).message}`)
      } finally {
        if (!kept.has(id)) inFlight.delete(id)
      }
    },
    async close() {
      clearInterval(timer)
      await Promise.all([sweeping, ...writes])
      await kept.close()
    },
  }
}

/**
 * Whether a facilitator's reason for a failed settlement means nothing it sent can still land: x402's `invalid_*`
 * reasons (the payload refused when settle checked it again, before anything was sent; or its transaction reverted,
 * which uses no authorization). Any other answer (a reason that is an error's text, such as a receipt that did not
 * come in time; no answer at all) may hide a transaction still on its way, which only validBefore rules out.
 */
export function finalRefusal(reason: string | undefined): boolean {
  return reason?.startsWith('invalid_') === true
}

/**
 * The journal row of a payment about to be settled, written by `owner` (exported for the recovery tests). Its
 * `from_block` (the block its settlement cannot be older than) is null: `begin` sets it on the row when it knows one.
 */
export function buildJournalRow(
  entry: JournalEntry,
  owner: string | null = null,
  state: JournalState = 'settling',
  id = newId('jrn'),
): SettlementJournalRow {
  const { api, endpoint, requirements } = entry
  const { nonce, validBefore } = authorizationFields(entry.payload.payload)
  // Recovery asks EIP-3009's authorizationState or Permit2's nonceBitmap, whichever the nonce belongs to.
  const schemePayload = entry.payload.payload as
    | { authorization?: unknown; permit2Authorization?: unknown }
    | null
    | undefined
  const isObject = (value: unknown) => typeof value === 'object' && value !== null
  const transferMethod = isObject(schemePayload?.permit2Authorization)
    ? 'permit2'
    : isObject(schemePayload?.authorization)
      ? 'eip3009'
      : null
  return {
    id,
    payment_id: entry.paymentId,
    api_id: api.id,
    endpoint_id: endpoint.id,
    ephemeral: entry.ephemeral ? 1 : 0,
    user_id: api.user_id,
    environment: api.environment,
    network: requirements.network,
    asset: requirements.asset,
    amount: entry.amount ?? requirements.amount,
    payer: entry.payer,
    pay_to: requirements.payTo,
    transfer_method: transferMethod,
    nonce: transferMethod === null ? null : (nonce ?? null),
    valid_before: validBefore ?? null,
    method: entry.method,
    path: entry.path,
    chain_epoch: entry.chainEpoch,
    settlement_id: null,
    created_at: nowIso(),
    owner,
    from_block: null,
    state,
    channel_action: entry.channelAction === undefined ? null : JSON.stringify(entry.channelAction),
  }
}

/** A write of a journal row (its settlement's record, its end) that waits for the data dir to take it. */
type KeptWrite = { id: string; write: () => Promise<unknown> }

export type KeptWrites = {
  /** True when `error` is the data dir's (full, read-only) or a database out of reach: the write is worth keeping. */
  storageFailed(error: unknown): boolean
  /** True while writes of journal row `id` wait: a later write of the row goes behind them. */
  has(id: string): boolean
  /** Keeps `write` of row `id`, tried again in order with the others (`error`: why it failed, logged). */
  add(id: string, write: () => Promise<unknown>, error?: unknown): void
  /** Tries the kept writes once more; what still fails is left to the next start's journal recovery. */
  close(): Promise<void>
}

/**
 * The settlement journal's writes that failed on a full or read-only data dir (issue 21 item 4), or on a database that
 * could not be reached (a PostgreSQL restart, issue 35 item C), after the chain moved the money: held in memory in the order they were made and tried again every `retryEveryMs`, so the
 * settlement is recorded the moment the disk (the database) allows. `done(id)` is called once every kept write of row `id` went
 * through. Nothing is lost if svc stops first: the journal row was written before the settlement was sent, and the
 * next start finds its transaction on the chain (server/journal/recovery.ts).
 */
export function createKeptWrites(deps: JournalDeps, retryEveryMs: number, done: (id: string) => void): KeptWrites {
  const log = deps.log ?? ((message: string) => console.error(message))
  const queue: KeptWrite[] = []
  let draining: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  /** A full or read-only data dir, or a database that cannot be reached (a PostgreSQL restart): worth trying again. */
  const keepable = (error: unknown) => dataDirProblem(deps.dataDir, error) !== undefined || databaseUnreachable(error)

  async function drain() {
    while (queue.length > 0) {
      const next = queue[0]!
      try {
        await next.write()
      } catch (error) {
        if (keepable(error)) return
        log(`svc: a kept write of the settlement journal entry ${next.id} failed: ${toSvcError(error).message}`)
      }
      queue.shift()
      if (!queue.some((write) => write.id === next.id)) done(next.id)
    }
    log('svc: the data dir and the database take writes again: every settlement kept in memory is recorded')
    clearInterval(timer)
    timer = undefined
  }

  return {
    storageFailed: keepable,
    has: (id) => queue.some((write) => write.id === id),
    add(id, write, error) {
      queue.push({ id, write })
      if (error !== undefined)
        log(
          `svc: the settlement journal entry ${id} is kept in memory until the ${databaseUnreachable(error) ? 'database can be reached' : 'data dir takes writes'} again: ${toSvcError(error).message}`,
        )
      timer ??= setInterval(() => {
        draining ??= drain().finally(() => (draining = undefined))
      }, retryEveryMs)
      timer.unref()
    },
    async close() {
      clearInterval(timer)
      await draining
      if (queue.length > 0) await drain()
      if (queue.length > 0)
        log(
          `svc: ${new Set(queue.map((write) => write.id)).size} settlement(s) could not be recorded (the data dir is full or read-only): the next start records them from the journal`,
        )
    },
  }
}
