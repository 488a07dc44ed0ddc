import { PostgresAdapter, sql, type ColumnDataType, type Expression, type Kysely, type RawBuilder } from 'kysely'

/** The databases svc runs on: a SQLite file (`svc up`, the default) or a PostgreSQL server (`svc serve`). */
export type DialectName = 'sqlite' | 'postgres'

/**
 * What differs between the dialects, built once per database (`openDatabase` builds it; {@link dialectOf} finds it
 * again from the Kysely instance). Only server/db reads `name`: the layers above ask what they need through the
 * functions below ({@link sharedByProcesses}, {@link forUpdate}).
 */
export type Dialect = {
  /** Which dialect (read only inside server/db). */
  readonly name: DialectName
  /** Whether other processes share the database (PostgreSQL: any number of `svc serve`; SQLite: one process). */
  readonly sharedByProcesses: boolean
  /**
   * Column types that differ between the dialects. On SQLite they are what the migrations always wrote (a data dir
   * migrated before keeps its schema); on PostgreSQL, `integer` is 4 bytes, so a column that can pass 2^31
   * (milliseconds) is `bigint` there, and binary data is `bytea`.
   */
  readonly columnTypes: { bigint: ColumnDataType; blob: ColumnDataType | Expression<unknown> }
  /**
   * Insertion order, for rows created in the same millisecond (an import): SQLite's `rowid`, PostgreSQL's `seq`
   * identity column (migration 2026_11_26_07, on apis, endpoints and domains).
   */
  readonly insertionOrder: RawBuilder<unknown>
  /** A select locking the rows it reads until its transaction ends: `for update` on PostgreSQL; as is on SQLite. */
  forUpdate<Q extends { forUpdate(): Q }>(query: Q): Q
}

const sqliteDialect: Dialect = {
  name: 'sqlite',
  sharedByProcesses: false,
  columnTypes: { bigint: 'integer', blob: 'blob' },
  insertionOrder: sql`rowid`,
  // SQLite's one connection writes one transaction at a time: nothing to lock.
  forUpdate: (query) => query,
}

const postgresDialect: Dialect = {
  name: 'postgres',
  sharedByProcesses: true,
  columnTypes: { bigint: 'bigint', blob: 'bytea' },
  insertionOrder: sql`seq`,
  forUpdate: (query) => query.forUpdate(),
}

const dialects = new WeakMap<Kysely<any>, Dialect>()

/** The dialect `db` speaks (inside server/db: a migration or a repository asks when the two need different SQL). */
export function dialectOf(db: Kysely<any>): Dialect {
  let dialect = dialects.get(db)
  if (!dialect) {
    dialect = db.getExecutor().adapter instanceof PostgresAdapter ? postgresDialect : sqliteDialect
    // A transaction is a Kysely of its own, made per transaction: only the database's own instance is kept.
    if (!db.isTransaction) dialects.set(db, dialect)
  }
  return dialect
}

/**
 * Whether other processes share `db` (PostgreSQL): what is claimed, counted or locked across processes then lives in
 * the database; on a SQLite file (one process) it lives in memory.
 */
export function sharedByProcesses(db: Kysely<any>): boolean {
  return dialectOf(db).sharedByProcesses
}

/**
 * `db`'s way of locking the rows a select reads until its transaction ends (`for update` on PostgreSQL; the query as
 * is on SQLite). Take it once (when a repository is created), not per query.
 */
export function forUpdate(db: Kysely<any>): Dialect['forUpdate'] {
  return dialectOf(db).forUpdate
}

/** Column types that differ between the dialects (see {@link Dialect.columnTypes}). */
export function columnTypes(db: Kysely<any>): Dialect['columnTypes'] {
  return dialectOf(db).columnTypes
}

/** Insertion order, for rows created in the same millisecond (see {@link Dialect.insertionOrder}). */
export function insertionOrder(db: Kysely<any>): RawBuilder<unknown> {
  return dialectOf(db).insertionOrder
}
