import { PostgresAdapter, sql, type ColumnDataType, type Expression, type Kysely, type RawBuilder } from 'kysely'

/** The databases svc runs on: a SQLite file (`svc up`, the default) or a PostgreSQL server (`svc serve`). */
export type Dialect = 'sqlite' | 'postgres'

/** The dialect `db` speaks (a migration or a repository asks when the two need different SQL). */
export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

/**
 * Column types that differ between the dialects. On SQLite they are what the migrations always wrote (a data dir
 * migrated before keeps its schema); on PostgreSQL, `integer` is 4 bytes, so a column that can pass 2^31 (milliseconds)
 * is `bigint` there, and binary data is `bytea`.
 */
export function columnTypes(db: Kysely<any>): { bigint: ColumnDataType; blob: ColumnDataType | Expression<unknown> } {
  return dialectOf(db) === 'postgres' ? { bigint: 'bigint', blob: 'bytea' } : { bigint: 'integer', blob: 'blob' }
}

/**
 * Insertion order, for rows created in the same millisecond (an import): SQLite's `rowid`, PostgreSQL's `seq` identity
 * column (migration 2026_11_26_07, on apis, endpoints and domains).
 */
export function insertionOrder(db: Kysely<any>): RawBuilder<unknown> {
  return dialectOf(db) === 'postgres' ? sql`seq` : sql`rowid`
}
