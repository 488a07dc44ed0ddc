/**
 * The Sandbox chain's epochs on one PostgreSQL database shared by processes that start their chains at once (`svc
 * serve` processes started together, test/cli/serve-postgres-shared.test.ts): each epoch is recorded, each with its own
 * `seq`, where two inserts that took the same next number used to end one process ("duplicate key value violates
 * unique constraint sandbox_chain_epochs_seq_key").
 */
import { afterAll, describe, expect, test } from 'vitest'
import { type OpenedDatabase, openDatabase } from '../../../server/db/database.js'
import { insertChainEpoch } from '../../../server/db/index.js'
import { testDatabases, testDialects } from '../../helpers/postgres.js'

const runs = testDialects().includes('postgres')
const databases = runs ? testDatabases('postgres') : undefined
const opened: OpenedDatabase[] = []
afterAll(async () => {
  for (const database of opened.splice(0)) await database.close()
})

describe.skipIf(!runs)('chain epochs on PostgreSQL', () => {
  test('processes recording their epochs at once: every epoch kept, each its own seq', async () => {
    const url = await databases!.url()
    for (let i = 0; i < 4; i++) opened.push(await openDatabase(url))
    const at = new Date().toISOString()
    const epochs: string[] = []
    for (let round = 0; round < 10; round++) {
      const these = opened.map((_, i) => `epoch-${round}-${i}`)
      epochs.push(...these)
      await Promise.all(opened.map((database, i) => insertChainEpoch(database.db, these[i]!, 'started', at)))
    }
    const rows = await opened[0]!.db.selectFrom('sandbox_chain_epochs').select(['epoch', 'seq']).execute()
    expect(rows.map((row) => row.epoch).sort()).toEqual([...epochs].sort())
    expect(new Set(rows.map((row) => Number(row.seq))).size).toBe(epochs.length)
  })
})
