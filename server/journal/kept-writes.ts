import { toSvcError } from '../../core/errors.js'
import { dataDirProblem } from '../data-dir/storage-errors.js'
import { databaseUnreachable } from '../db/database-errors.js'
import type { JournalDeps } from './deps.js'

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
