/**
 * svc's migrations on both dialects. A data dir migrated before svc spoke PostgreSQL keeps its schema: the old
 * migrations, made dialect-aware, must write on SQLite exactly what they wrote then (the fixture was dumped from them).
 * Every migration, later ones included, must run up, down and up again on SQLite and on PostgreSQL.
 */
import { readFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { Kysely, Migrator, NO_MIGRATIONS, SqliteDialect, sql } from 'kysely'
import { describe, expect, test } from 'vitest'
import { migrations, openDatabase } from '../../../server/db/database.js'
import { dialectOf } from '../../../server/db/dialect.js'
import { testDialects, testDatabases } from '../../helpers/postgres.js'

const provider = { getMigrations: async () => migrations }

test('on SQLite, the migrations up to 2026-11-25 write the schema they wrote before they spoke PostgreSQL', async () => {
  const sqlite = new Database(':memory:')
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) })
  try {
    const { error } = await new Migrator({ db, provider }).migrateTo('2026_11_25_05_00_00_bazaar_catalog')
    expect(error).toBeUndefined()
    const schema = sqlite
      .prepare(
        "select type, name, tbl_name, sql from sqlite_master where name not like 'kysely_%' and name not like 'sqlite_autoindex%' order by type, name",
      )
      .all()
    const before = JSON.parse(
      readFileSync(new URL('./fixtures/sqlite-schema-2026-11-25.json', import.meta.url), 'utf8'),
    )
    expect(schema).toEqual(before)
  } finally {
    await db.destroy()
  }
})

describe.each(testDialects())('every migration on %s', (dialect) => {
  const databases = testDatabases(dialect)

  test('runs up, down to nothing, and up again', async () => {
    const opened = await databases.open()
    try {
      expect(dialectOf(opened.db).name).toBe(dialect)
      const migrator = new Migrator({ db: opened.db, provider })
      const down = await migrator.migrateTo(NO_MIGRATIONS)
      expect(down.error).toBeUndefined()
      expect(down.results).toHaveLength(Object.keys(migrations).length)
      const up = await migrator.migrateToLatest()
      expect(up.error).toBeUndefined()
      expect(up.results?.map((result) => [result.migrationName, result.status])).toEqual(
        Object.keys(migrations).map((name) => [name, 'Success']),
      )
    } finally {
      await opened.close()
    }
  })

  test('2026_12_08 escrow: its tables, one transaction row per (epoch, hash, kind), and the escrow columns of settlements and their journal', async () => {
    const opened = await databases.open()
    try {
      const db = opened.db as Kysely<any>
      const row = { escrow_payment_id: 'esc_1', chain_epoch: 'e', kind: 'capture', amount: '1', fee_amount: '0' }
      const more = { transaction: '0xt', actor: 'seller', created_at: '2026' }
      await db
        .insertInto('escrow_transactions')
        .values({ ...row, ...more, id: 'etx_1' })
        .execute()
      await expect(
        db
          .insertInto('escrow_transactions')
          .values({ ...row, ...more, id: 'etx_2' })
          .execute(),
      ).rejects.toThrow()
      await db
        .insertInto('escrow_transactions')
        .values({ ...row, ...more, id: 'etx_3', kind: 'void' })
        .execute()
      const { rows } = await sql<{ n: number }>`select count(*) as n from escrow_transactions`.execute(db)
      expect(Number(rows[0]?.n)).toBe(2)
      await db.selectFrom('settlements').select('escrow_id').execute()
      await db.selectFrom('settlement_journal').select('escrow').execute()
      await db.selectFrom('escrow_actions').select(['payment_info_hash', 'owner']).execute()
      await db.selectFrom('receiver_authorizers').select(['user_id', 'encrypted_private_key']).execute()
      const payment = await db.selectFrom('escrow_payments').selectAll().execute()
      expect(payment).toEqual([])
    } finally {
      await opened.close()
    }
  })

  test.runIf(dialect === 'postgres')(
    'processes starting together migrate once, and every text column compares bytes (collation "C")',
    async () => {
      const url = await databases.url({ blank: true })
      const opened = await Promise.all([openDatabase(url), openDatabase(url), openDatabase(url)])
      try {
        const { rows } = await sql<{ table_name: string; column_name: string; collation_name: string | null }>`
          select table_name, column_name, collation_name from information_schema.columns
          where table_schema = current_schema() and data_type = 'text' and table_name not like 'kysely_%'`.execute(
          opened[0]!.db,
        )
        expect(rows.length).toBeGreaterThan(50)
        expect(rows.filter((row) => row.collation_name !== 'C')).toEqual([])
        // The cluster sorts English (a before B); svc's columns sort bytes, as SQLite does (B before a).
        const { rows: english } = await sql<{ v: string }>`
          select v from (values ('B'), ('a')) as t(v) order by v`.execute(opened[0]!.db)
        expect(english.map((row) => row.v)).toEqual(['a', 'B'])
        const user = { password_hash: 'h', password_salt: 's', email_verified_at: null, created_at: '2026' }
        await opened[0]!.db
          .insertInto('users')
          .values([
            { ...user, id: 'u_a', email: 'a@example.test' },
            { ...user, id: 'u_B', email: 'B@example.test' },
          ])
          .execute()
        const emails = await opened[1]!.db.selectFrom('users').select('email').orderBy('email').execute()
        expect(emails.map((row) => row.email)).toEqual(['B@example.test', 'a@example.test'])
      } finally {
        await Promise.all(opened.map((database) => database.close()))
      }
    },
  )
})
