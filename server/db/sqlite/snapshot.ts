import { chmodSync } from 'node:fs'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../tables.js'

/**
 * Copies of the whole database for the Sandbox's snapshots (server/sandbox/snapshots.ts): `VACUUM INTO` a file of its own,
 * and back by replacing every table's rows in one transaction, so the connection (and the gateway's second one) stay
 * open and readers never see half a revert. The schema's own bookkeeping (Kysely's migration tables) is left alone.
 */

/** Writes a copy of the database to `file` (which must not exist), readable by its owner only. */
export async function writeDatabaseSnapshot(db: Kysely<Database>, file: string): Promise<void> {
  await sql`vacuum into ${file}`.execute(db)
  chmodSync(file, 0o600)
}

/** The tables whose rows a snapshot holds: every table but SQLite's and Kysely's own (sqlite_sequence is kept). */
async function listSnapshotTables(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{
    name: string
  }>`select name from main.sqlite_master where type = 'table' and name not like 'kysely_%' and (name not like 'sqlite_%' or name = 'sqlite_sequence')`.execute(
    db,
  )
  return rows.map((row) => row.name)
}

/** Replaces every table's rows with those of the copy in `file`, in one transaction. */
export async function restoreDatabaseSnapshot(db: Kysely<Database>, file: string): Promise<void> {
  const tables = await listSnapshotTables(db)
  // ATTACH cannot run inside a transaction.
  await sql`attach database ${file} as svc_snapshot`.execute(db)
  try {
    await db.transaction().execute(async (trx) => {
      // Rows come back in any order: foreign keys are checked when the transaction commits.
      await sql`pragma defer_foreign_keys = on`.execute(trx)
      for (const table of tables) await sql`delete from ${sql.id('main', table)}`.execute(trx)
      for (const table of tables)
        await sql`insert into ${sql.id('main', table)} select * from ${sql.id('svc_snapshot', table)}`.execute(trx)
    })
  } finally {
    await sql`detach database svc_snapshot`.execute(db)
  }
}
