import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import {
  type CatalogFilter,
  type CatalogItem,
  type CatalogStore,
  defaultCatalogCapacity,
} from '../../chain/facilitator/index.js'
import { connectionOf } from './database.js'
import { dialectOf } from './dialect.js'
import { statementOf, writeAsOwn } from './own-write.js'
import type { Database } from './tables.js'

type Query = SelectQueryBuilder<Database, 'bazaar_resources', object>

function filtered(query: Query, filter: CatalogFilter): Query {
  let q = query
  if (filter.type !== undefined) q = q.where('type', '=', filter.type)
  if (filter.payTo !== undefined) q = q.where('pay_to', '=', filter.payTo.toLowerCase())
  if (filter.scheme !== undefined) q = q.where('scheme', '=', filter.scheme)
  if (filter.network !== undefined) q = q.where('network', '=', filter.network)
  // Each entry keeps its `bazaar` extension only (chain/facilitator/bazaar-catalog.ts, catalogEntryOf).
  if (filter.extensions !== undefined && filter.extensions !== 'bazaar') q = q.where(sql<boolean>`1 = 0`)
  return q
}

async function page(query: Query, limit: number, offset: number) {
  const [rows, count] = await Promise.all([
    query.select('item').orderBy('updated_at', 'desc').orderBy('key').limit(limit).offset(offset).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { items: rows.map((row) => JSON.parse(row.item) as CatalogItem), total: Number(count.n) }
}

type CatalogEntry = Parameters<CatalogStore['put']>[0][number]

/** A listing's row written (SQLite), its values in the order of {@link rowValues}. */
const upsertSql = `insert into "bazaar_resources" ("key", "type", "pay_to", "scheme", "network", "item", "updated_at")
  values (?, ?, ?, ?, ?, ?, ?) on conflict ("key") do update set "type" = excluded."type", "pay_to" = excluded."pay_to",
  "scheme" = excluded."scheme", "network" = excluded."network", "item" = excluded."item", "updated_at" = excluded."updated_at"`
/** The rows past the capacity (the parameter), least recently updated, deleted (SQLite). */
const evictSql = `delete from "bazaar_resources" where "key" in (select "key" from "bazaar_resources"
  order by "updated_at" desc, "key" limit -1 offset ?)`

const rowValues = (entry: CatalogEntry) => [
  entry.key,
  entry.type,
  entry.payTo.toLowerCase(),
  entry.scheme,
  entry.network,
  JSON.stringify(entry.item),
  entry.updatedAt,
]

/**
 * The bazaar catalog in svc's database (table `bazaar_resources`; SQLite or PostgreSQL), given to the facilitator once the database
 * is open: a resource's row is replaced by its latest listing, and past `capacity` rows the least recently updated
 * are deleted in the same transaction. On svc's SQLite file the statements are prepared once and run on its
 * connection as the gateway's own writes (server/db/own-write.ts): a payment's listing does not empty the gateway's
 * caches of APIs and endpoints, which every write through Kysely does (the next request read them all again).
 */
export function createSqliteCatalogStore(db: Kysely<Database>, capacity = defaultCatalogCapacity): CatalogStore {
  const postgres = dialectOf(db).name === 'postgres'
  const connection = postgres ? undefined : connectionOf(db)
  const putOnConnection = connection?.transaction((entries: CatalogEntry[]) => {
    const upsert = statementOf(connection, upsertSql)
    for (const entry of entries) upsert.run(...rowValues(entry))
    statementOf(connection, evictSql).run(capacity)
  })
  return {
    async put(entries) {
      if (!entries.length) return
      // While Kysely holds a transaction on the connection, a statement run now would land inside it: Kysely waits.
      if (connection && putOnConnection && !connection.inTransaction)
        return writeAsOwn(connection, () => putOnConnection.immediate(entries))
      await db.transaction().execute(async (trx) => {
        for (const entry of entries)
          await trx
            .insertInto('bazaar_resources')
            .values({
              key: entry.key,
              type: entry.type,
              pay_to: entry.payTo.toLowerCase(),
              scheme: entry.scheme,
              network: entry.network,
              item: JSON.stringify(entry.item),
              updated_at: entry.updatedAt,
            })
            .onConflict((oc) =>
              oc.column('key').doUpdateSet((eb) => ({
                type: eb.ref('excluded.type'),
                pay_to: eb.ref('excluded.pay_to'),
                scheme: eb.ref('excluded.scheme'),
                network: eb.ref('excluded.network'),
                item: eb.ref('excluded.item'),
                updated_at: eb.ref('excluded.updated_at'),
              })),
            )
            .execute()
        const overflow = trx.selectFrom('bazaar_resources').select('key').orderBy('updated_at', 'desc').orderBy('key')
        // SQLite takes an offset only after a limit (-1: none); PostgreSQL refuses a negative one.
        await trx
          .deleteFrom('bazaar_resources')
          .where('key', 'in', (postgres ? overflow : overflow.limit(-1)).offset(capacity))
          .execute()
      })
    },
    list({ limit, offset, ...filter }) {
      return page(filtered(db.selectFrom('bazaar_resources'), filter), limit, offset)
    },
    search(text, filter, limit) {
      const needle = text.toLowerCase()
      const matching = filtered(db.selectFrom('bazaar_resources'), filter).where(
        postgres ? sql<boolean>`strpos(lower(item), ${needle}) > 0` : sql<boolean>`instr(lower(item), ${needle}) > 0`,
      )
      return page(matching, limit, 0)
    },
  }
}
