import type { Kysely } from 'kysely'
import { localWritesOf } from './local-writes.js'
import { notificationsOf } from './notifications.js'
import type { Database } from './tables.js'

/** The tables whose rows the gateway caches: a write to one moves `cache_version` (PostgreSQL's triggers). */
export const cachedTables = ['apis', 'endpoints', 'domains'] as const

/** The channel on which `cache_version`'s triggers notify its new number (migration 2026_11_27_05). */
export const cacheChannel = 'svc_cache'

/**
 * The label the gateway's caches (APIs, endpoints, domains) are kept under, on PostgreSQL: it changes whenever
 * `cache_version` did, whoever wrote.
 */
export type CacheVersion = {
  /**
   * The label now: a number from memory while the process listens on `svc_cache` and wrote nothing since; otherwise
   * (not listening yet, a lost connection, a write of this process) the database's version, read.
   */
  current(): number | Promise<number>
  /** The label from memory when {@link current} would answer it without a read, else undefined; nothing changes. */
  known(): number | undefined
  /** The label after reading the database's version (before a 404: what another process just wrote is found). */
  fresh(): Promise<number>
  /** Changes the label (this process changed a cached row by raw SQL, which the triggers notify a moment later). */
  bump(): void
  close(): Promise<void>
}

/**
 * Keeps `cache_version` in memory from its notifications. A lost listening connection drops every cache (the label
 * changes) and the version is read per request until the connection listens again and the version was read anew.
 */
export function watchCacheVersion(db: Kysely<Database>): CacheVersion {
  const notifications = notificationsOf(db)
  const writes = localWritesOf(db)
  /** The database's version last seen, and the label derived from it. */
  let seen = -1
  let label = 0
  /** Listening, and the version read since: the label in memory is current. */
  let trusted = false
  /** Counts connection losses: a read started before one may not make the label trusted. */
  let losses = 0

  const observe = (version: number) => {
    if (version !== seen) {
      seen = version
      label++
    }
    return label
  }
  const read = async () => {
    const row = await db.selectFrom('cache_version').select('version').where('id', '=', 1).executeTakeFirst()
    return observe(Number(row?.version ?? 0))
  }
  /** Reads the version, then trusts the memory unless the connection broke meanwhile. */
  const settle = async () => {
    const before = losses
    await read()
    if (before === losses && notifications?.listening) trusted = true
  }
  const subscription = notifications?.subscribe(cacheChannel, {
    message(payload) {
      const version = Number(payload)
      // Notifications come in commit order; a read may have seen a later number already.
      if (version > seen) {
        seen = version
        label++
      }
    },
    lost() {
      trusted = false
      losses++
      label++
    },
    reset() {
      label++
      void settle().catch(() => {})
    },
  })
  void subscription?.ready.then((listening) => (listening ? settle() : undefined)).catch(() => {})

  return {
    current() {
      // `take` first: the flag is spent by this read, which starts after the write committed.
      if (writes?.take() || !trusted) return read()
      return label
    },
    known: () => (trusted && !writes?.pending() ? label : undefined),
    fresh: read,
    bump() {
      label++
    },
    async close() {
      await subscription?.stop()
    },
  }
}
