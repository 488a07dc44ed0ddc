import type Pg from 'pg'
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { newId } from '../ids.js'

/**
 * This process as the owner of the rows it is working on (settlement journal rows): an id drawn at boot, never
 * reused, and how to tell whether the process behind another id is gone, so its rows may be resolved by this one.
 */
export type ProcessOwner = {
  readonly id: string
  /** True when the process that wrote rows as `owner` is gone (null: rows written before rows had owners). */
  isGone(owner: string | null): Promise<boolean>
  /**
   * Runs `work` while holding `owner`'s liveness lock, when it can be taken: the owner is gone, and no other process
   * is working on its rows meanwhile. Undefined (nothing run) when the owner lives, or another process has its lock.
   */
  whileGone<T>(owner: string, work: () => Promise<T>): Promise<T | undefined>
  /** Lets go of this process's hold (PostgreSQL: its liveness connection). */
  close(): Promise<void>
}

const owners = new WeakMap<Kysely<any>, ProcessOwner>()

/** The owner of this process on `db`: the one {@link openDatabase} registered, else a sole owner made once. */
export function processOwnerOf(db: Kysely<any>): ProcessOwner {
  let owner = owners.get(db)
  if (!owner) {
    owner = soleProcessOwner()
    owners.set(db, owner)
  }
  return owner
}

export function registerProcessOwner(db: Kysely<any>, owner: ProcessOwner): void {
  owners.set(db, owner)
}

/**
 * The owner of a database only this process uses (a SQLite file: the data dir's lock says so): every other id is an
 * earlier boot's, gone.
 */
export function soleProcessOwner(): ProcessOwner {
  const id = newId('proc')
  return {
    id,
    isGone: async (owner) => owner !== id,
    whileGone: async (owner, work) => (owner === id ? undefined : work()),
    close: async () => {},
  }
}

/** The advisory lock key of an owner id (a bigint PostgreSQL computes). */
const lockKey = (owner: string) => sql`hashtextextended(${owner}, 0)`

/**
 * A PostgreSQL condition: some session of this database holds the liveness lock of the owner id in `owner` (a column
 * or expression), as pg_locks shows it (a bigint key as its high and low 32 bits). It takes no lock, so it is cheap
 * to ask often; a false answer only says the owner may be gone: {@link ProcessOwner.whileGone} decides.
 */
export const ownerLockHeld = (owner: RawBuilder<unknown>) => sql<boolean>`exists (
  select 1 from pg_locks l
  where l.locktype = 'advisory' and l.granted and l.objsubid = 1
    and l.database = (select oid from pg_database where datname = current_database())
    and l.classid::bigint = (hashtextextended(${owner}, 0) >> 32) & 4294967295
    and l.objid::bigint = hashtextextended(${owner}, 0) & 4294967295)`

/**
 * The owner of a PostgreSQL database many processes share: a session advisory lock on the owner's key, held by a
 * connection of its own for the process's life. PostgreSQL releases it when the session ends (the process died, or
 * its machine's connection was dropped), so another process that can take the lock knows the owner is gone for good
 * (its id is never reused). A lost liveness connection is opened again and the lock taken again.
 */
export async function postgresProcessOwner(
  db: Kysely<any>,
  connect: () => Promise<Pg.Client>,
  log: (message: string) => void = (message) => console.error(message),
): Promise<ProcessOwner> {
  const id = newId('proc')
  let client: Pg.Client | undefined
  let closed = false
  /**
   * Opens the liveness connection again after it broke, until it holds the lock once more: at once (0.1 s, doubling to
   * 0.5 s while the database is out of reach), since while the lock is free the others take this process for gone.
   */
  let delay = 100
  const holdAgain = () =>
    setTimeout(() => {
      if (closed) return
      void hold().then(
        () => (delay = 100),
        () => {
          delay = Math.min(delay * 2, 500)
          holdAgain()
        },
      )
    }, delay).unref()
  const hold = async () => {
    const next = await connect()
    next.on('error', (error) => {
      if (closed) return
      log(`svc: the database connection that says this process is alive broke (${error.message}); opening it again`)
      void next.end().catch(() => {})
      holdAgain()
    })
    try {
      await next.query('select pg_advisory_lock(hashtextextended($1, 0))', [id])
    } catch (error) {
      await next.end().catch(() => {})
      throw error
    }
    client = next
  }
  await hold()
  return {
    id,
    async isGone(owner) {
      if (owner === null) return true
      if (owner === id) return false
      // A lock taken and given back at once: nobody holds it, so the owner's session is over.
      return db.connection().execute(async (connection) => {
        const { rows } = await sql<{ free: boolean }>`select pg_try_advisory_lock(${lockKey(owner)}) as free`.execute(
          connection,
        )
        if (rows[0]?.free) await sql`select pg_advisory_unlock(${lockKey(owner)})`.execute(connection)
        return rows[0]?.free === true
      })
    },
    async whileGone(owner, work) {
      if (owner === id) return undefined
      // A session lock on a connection of the pool, held while `work` runs (on other connections) and given back.
      return db.connection().execute(async (connection) => {
        const { rows } = await sql<{ free: boolean }>`select pg_try_advisory_lock(${lockKey(owner)}) as free`.execute(
          connection,
        )
        if (!rows[0]?.free) return undefined
        try {
          return await work()
        } finally {
          await sql`select pg_advisory_unlock(${lockKey(owner)})`.execute(connection)
        }
      })
    },
    async close() {
      closed = true
      await client?.end().catch(() => {})
    },
  }
}
