import { sql } from 'kysely'
import { toSvcError } from '../../core/errors.js'
import { deleteClusterProcess, ownerLockHeld, processOwnerOf, sharedByProcesses } from '../db/index.js'
import type { ClusterDeps } from './deps.js'
import { type ChannelRowResolver, type ResolveJournalOptions, resolveSettlementJournal } from '../journal/index.js'

export type JournalReaperOptions<D extends ClusterDeps = ClusterDeps> = {
  /** How often the owners of unfinished rows are looked at (one query, no lock taken). @defaultValue 250 */
  everyMs?: number | undefined
  /**
   * How long rows left for a later try (an authorization unused yet within its validBefore) wait before the first
   * next try; each wait after is twice the one before. @defaultValue 250
   */
  retryKeptFirstMs?: number | undefined
  /** The longest wait between tries of rows left for a later try. @defaultValue 10_000 */
  retryKeptAfterMs?: number | undefined
  /**
   * How long after the database restarted (while this process ran) no owner is taken for gone: the restart ended
   * every session, so every process's liveness lock is free until its connection is back. @defaultValue 10_000
   */
  restartGraceMs?: number | undefined
  /**
   * How long an owner's liveness lock is seen free, look after look, before the owner is taken for gone: a live
   * process whose liveness connection alone dropped (a network blip) has it free until it is open again (0.1–0.5 s).
   * @defaultValue 1_000
   */
  ownerGraceMs?: number | undefined
  /**
   * Resolves a gone owner's pending channel actions (server/channels/action-recovery.ts's `resolveChannelActions`,
   * passed in by server/start/: the channels room stands above cluster/).
   */
  resolveChannelActions: (
    deps: D,
    options: { owner?: string | undefined },
  ) => Promise<{ landed: number; notSent: number; gone: number; kept: number }>
  /** Resolves a gone owner's channel journal rows (server/channels/journal.ts's `resolveChannelJournalRow`). */
  channelRow: ChannelRowResolver<D>
  /** Resolves a gone owner's escrow collect rows (server/escrow's `escrowJournalResolver`). */
  escrowRow?: ResolveJournalOptions<D>['escrowRow']
}

export type JournalReaper = {
  /** Looks once: the owners of unfinished rows that are gone, their rows resolved. @returns the owners reaped */
  reapOnce(): Promise<string[]>
  /** Stops looking and waits for a look under way. */
  close(): Promise<void>
}

/**
 * The reaper of a database several processes share (PostgreSQL): every `everyMs`, one query lists the owners named in
 * unfinished settlement journal rows and pending channel actions other than this process, and whether a session
 * holds each one's liveness lock (server/db/process-owner.ts `ownerLockHeld`, read from pg_locks: no lock taken, so
 * it is cheap to ask four times a second and a dead process is noticed within a quarter of a second of PostgreSQL
 * ending its session). For an owner whose lock nobody holds, the lock is tried: the process that takes it alone
 * resolves the owner's rows on the chain as start-up recovery does (server/journal/recovery.ts: used → recorded as
 * charged without an answer; unused → freed once that is final, at its validBefore), then gives the lock back. A live
 * owner's rows are never touched. Rows left for a later try (an authorization unused yet: its settlement may still be
 * on its way at the facilitator, as when the process died a moment after sending it) are tried again after
 * `retryKeptFirstMs`, then after waits twice as long each time up to `retryKeptAfterMs`: a settlement that lands soon
 * after its process died is recorded soon after it lands, and one that never comes costs a read every 10 s at most.
 * For `restartGraceMs` after the database restarted under a running process, no owner is taken for gone: the restart
 * ended every session at once, and a live process's lock is free until its liveness connection is open again.
 * An owner is taken for gone once its lock was free for `ownerGraceMs` (a live process whose liveness connection alone
 * dropped takes it again meanwhile); a gone owner's row of the cluster's processes (server/serve/cluster-peers.ts) is
 * removed with its rows, so its listeners are no longer refused as upstreams.
 * On SQLite (one process per data dir) there is no reaper: start-up recovery and the sweeper do it.
 * @returns undefined on SQLite
 */
export function startJournalReaper<D extends ClusterDeps>(
  deps: D,
  options: JournalReaperOptions<D>,
): JournalReaper | undefined {
  if (!sharedByProcesses(deps.db)) return undefined
  const {
    everyMs = 250,
    retryKeptFirstMs = 250,
    retryKeptAfterMs = 10_000,
    restartGraceMs = 10_000,
    ownerGraceMs = 1_000,
    resolveChannelActions,
    channelRow,
    escrowRow,
  } = options
  const startedAt = Date.now()
  const log = deps.log ?? ((message: string) => console.error(message))
  const me = processOwnerOf(deps.db)
  /** Owners whose rows were left for a later try: when that is, and how long the last wait was. */
  const later = new Map<string, { at: number; waitMs: number }>()
  /** Owners whose lock was free at every look since this time (ms). */
  const freeSince = new Map<string, number>()
  let looking: Promise<string[]> | undefined

  async function reapOwner(owner: string): Promise<boolean> {
    const reaped = await me.whileGone(owner, async () => {
      // Its row of the cluster's processes: no longer refused as an upstream (the trigger tells the other processes).
      await deleteClusterProcess(deps.db, owner)
      const journal = await resolveSettlementJournal(deps, { owner, channelRow, escrowRow })
      const actions = await resolveChannelActions(deps, { owner })
      const resolved =
        journal.recovered + journal.undelivered + journal.notSettled + journal.unverifiable + journal.alreadyRecorded
      if (resolved + actions.landed + actions.notSent + actions.gone > 0)
        log(
          `svc: the process ${owner} is gone: ${resolved} unfinished payment(s) and ${actions.landed + actions.notSent + actions.gone} channel action(s) it left were resolved from the chain (${journal.recovered} charged without an answer)`,
        )
      if (journal.kept + actions.kept > 0) {
        const last = later.get(owner)?.waitMs
        const waitMs = last === undefined ? retryKeptFirstMs : Math.min(last * 2, retryKeptAfterMs)
        later.set(owner, { at: Date.now() + waitMs, waitMs })
      } else later.delete(owner)
      return true
    })
    return reaped === true
  }

  async function look(): Promise<string[]> {
    const owners = deps.db
      .selectFrom('settlement_journal')
      .select('owner')
      .where('owner', 'is not', null)
      .where('owner', '<>', me.id)
      .union(
        deps.db
          .selectFrom('channel_actions')
          .select('owner')
          .where('state', '=', 'pending')
          .where('owner', 'is not', null)
          .where('owner', '<>', me.id),
      )
      // A process killed (SIGKILL) left its row of the cluster's processes: its listeners stay refused until it goes.
      .union(deps.db.selectFrom('cluster_processes').select('owner').where('owner', '<>', me.id))
    const rows = await deps.db
      .selectFrom(owners.as('owners'))
      .select([
        'owners.owner',
        ownerLockHeld(sql.ref('owners.owner')).as('held'),
        sql<number>`extract(epoch from now() - pg_postmaster_start_time()) * 1000`.as('up_ms'),
      ])
      .execute()
    const reaped: string[] = []
    const now = Date.now()
    // The database restarted after this process started, a moment ago: the live processes' locks are not back yet.
    const upMs = Number(rows[0]?.up_ms ?? Number.POSITIVE_INFINITY)
    if (upMs < Math.min(now - startedAt, restartGraceMs)) return reaped
    for (const { owner, held } of rows) {
      if (owner === null) continue
      if (held) {
        freeSince.delete(owner)
        continue
      }
      // Free at one look is not gone: a live process whose liveness connection alone dropped takes its lock again
      // within half a second, and its rows in flight are its own (recovered meanwhile, its settlement would be
      // recorded as charged without an answer, and the buyer refused as a replay, while it was about to answer).
      const since = freeSince.get(owner) ?? now
      freeSince.set(owner, since)
      if (now - since < ownerGraceMs || (later.get(owner)?.at ?? 0) > now) continue
      if (await reapOwner(owner)) reaped.push(owner)
    }
    for (const owner of later.keys()) if (!rows.some((row) => row.owner === owner)) later.delete(owner)
    for (const owner of freeSince.keys()) if (!rows.some((row) => row.owner === owner)) freeSince.delete(owner)
    return reaped
  }

  const reapOnce = () => {
    looking ??= look().finally(() => (looking = undefined))
    return looking
  }
  /** A look failed since the last that did not: said once, not four times a second while the database is away. */
  let failing = false
  const timer = setInterval(() => {
    reapOnce().then(
      () => (failing = false),
      (error: unknown) => {
        if (!failing) log(`svc: looking for the rows of processes that are gone failed: ${toSvcError(error).message}`)
        failing = true
      },
    )
  }, everyMs)
  timer.unref()
  return {
    reapOnce,
    async close() {
      clearInterval(timer)
      await looking?.catch(() => {})
    },
  }
}
