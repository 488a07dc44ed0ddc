import { toSvcError } from '../../core/errors.js'
import { dialectOf } from '../db/dialect.js'
import { processOwnerOf } from '../db/process-owner.js'
import type { ServerDeps } from '../deps.js'
import { resolveChannelActions } from './channel-action-recovery.js'
import { resolveSettlementJournal } from './recovery.js'

export type JournalReaperOptions = {
  /** How often the owners of unfinished rows are looked at. @defaultValue 2_000 */
  everyMs?: number | undefined
  /** How long rows left for a later try (an authorization still within its validBefore) wait before the next. @defaultValue 10_000 */
  retryKeptAfterMs?: number | undefined
}

export type JournalReaper = {
  /** Looks once: the owners of unfinished rows that are gone, their rows resolved. @returns the owners reaped */
  reapOnce(): Promise<string[]>
  /** Stops looking and waits for a look under way. */
  close(): Promise<void>
}

/**
 * The reaper of a database several processes share (PostgreSQL): every `everyMs`, one query lists the owners named in
 * unfinished settlement journal rows and pending channel actions other than this process; for each, the owner's
 * liveness lock is tried (server/db/process-owner.ts). A free lock means the process is gone: the process that took
 * the lock alone resolves its rows on the chain as start-up recovery does (server/journal/recovery.ts: used → recorded
 * as charged without an answer; unused → freed once that is final, at its validBefore), then gives the lock back. A
 * live owner's rows are never touched. On SQLite (one process per data dir) there is no reaper: start-up recovery
 * and the sweeper do it. @returns undefined on SQLite
 */
export function startJournalReaper(deps: ServerDeps, options: JournalReaperOptions = {}): JournalReaper | undefined {
  if (dialectOf(deps.db) !== 'postgres') return undefined
  const { everyMs = 2_000, retryKeptAfterMs = 10_000 } = options
  const log = deps.log ?? ((message: string) => console.error(message))
  const me = processOwnerOf(deps.db)
  /** Owners whose rows were left for a later try, and when that is. */
  const notBefore = new Map<string, number>()
  let looking: Promise<string[]> | undefined

  async function reapOwner(owner: string): Promise<boolean> {
    const reaped = await me.whileGone(owner, async () => {
      const journal = await resolveSettlementJournal(deps, { owner })
      const actions = await resolveChannelActions(deps, { owner })
      const resolved =
        journal.recovered + journal.undelivered + journal.notSettled + journal.unverifiable + journal.alreadyRecorded
      if (resolved + actions.landed + actions.notSent + actions.gone > 0)
        log(
          `svc: the process ${owner} is gone: ${resolved} unfinished payment(s) and ${actions.landed + actions.notSent + actions.gone} channel action(s) it left were resolved from the chain (${journal.recovered} charged without an answer)`,
        )
      if (journal.kept + actions.kept > 0) notBefore.set(owner, Date.now() + retryKeptAfterMs)
      else notBefore.delete(owner)
      return true
    })
    return reaped === true
  }

  async function look(): Promise<string[]> {
    const rows = await deps.db
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
      .execute()
    const reaped: string[] = []
    const now = Date.now()
    for (const { owner } of rows) {
      if (owner === null || (notBefore.get(owner) ?? 0) > now) continue
      if (await reapOwner(owner)) reaped.push(owner)
    }
    for (const owner of notBefore.keys()) if (!rows.some((row) => row.owner === owner)) notBefore.delete(owner)
    return reaped
  }

  const reapOnce = () => {
    looking ??= look().finally(() => (looking = undefined))
    return looking
  }
  const timer = setInterval(() => {
    reapOnce().catch((error: unknown) =>
      log(`svc: looking for the rows of processes that are gone failed: ${toSvcError(error).message}`),
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
