/**
 * The Sandbox's faults on PostgreSQL (server/db/faults.ts, migration 2026_11_27_06), as two processes see them: each
 * its pool, its listening connection and its fault book on one database. Concurrent strikes of a `times: 5` fault
 * from both count exactly 5 (FOR UPDATE, no SKIP LOCKED); a book learns of another's fault through NOTIFY (its "no
 * faults" flag), and of its end.
 */
import { sql } from 'kysely'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { createFaultBook, type FaultBook, type FaultStore } from '../../../chain/faults/book.js'
import type { OpenedDatabase } from '../../../server/db/database.js'
import { createPostgresFaultStore } from '../../../server/db/faults.js'
import { testDatabases, testDialects } from '../../helpers/postgres.js'

const runs = testDialects().includes('postgres')
const databases = runs ? testDatabases('postgres') : undefined

const opened: OpenedDatabase[] = []
afterEach(async () => {
  for (const database of opened.splice(0)) await database.close()
})

let asked = 0

/** Two processes' fault books on one database (their databases: `opened`); the second's store through `wrap`. */
async function twoBooks(wrap: (store: FaultStore) => FaultStore = (store) => store): Promise<[FaultBook, FaultBook]> {
  const url = await databases!.url()
  const { openDatabase } = await import('../../../server/db/database.js')
  const books: FaultBook[] = []
  for (let i = 0; i < 2; i++) {
    const database = await openDatabase(url)
    opened.push(database)
    const book = createFaultBook()
    const store = createPostgresFaultStore(database.db)
    await book.keepIn(i === 1 ? wrap(store) : store)
    books.push(book)
  }
  return books as [FaultBook, FaultBook]
}

describe.runIf(runs)('faults on PostgreSQL', () => {
  test('20 concurrent strikes from two processes of a times-5 fault: exactly 5 strike, then it is gone', async () => {
    const [a, b] = await twoBooks()
    const fault = await a.add({ kind: 'settle', reason: 'invalid_exact_evm_signature', times: 5 })
    // b reads it (which raises its flag at once; the next test waits for the notification instead).
    expect((await b.list()).map((listed) => listed.id)).toEqual([fault.id])
    const strikes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).take('settle', 'weather')),
    )
    const struck = strikes.filter((taken) => taken !== undefined)
    expect(struck).toHaveLength(5)
    expect(struck.map((taken) => taken!.id)).toEqual(Array(5).fill(fault.id))
    expect(struck.map((taken) => taken!.remaining).sort()).toEqual([0, 1, 2, 3, 4])
    expect(await a.list()).toEqual([])
    expect(await b.list()).toEqual([])
  })

  test('a fault added through one book strikes through the other once NOTIFY told it; a clear ends it there', async () => {
    const [a, b] = await twoBooks()
    expect(await b.take('verify', 'weather')).toBeUndefined()
    const added = await a.add({ kind: 'verify', reason: 'invalid_exact_evm_signature', api: 'weather' })
    // No read through b: only the notification can raise its flag.
    await vi.waitFor(async () => expect((await b.take('verify', 'weather'))?.id).toBe(added.id))
    // The oldest first, the API's own or every API's; another API's payment is not struck by it.
    expect(await b.take('verify', 'other')).toBeUndefined()
    expect(await a.clear(added.id)).toBe(1)
    expect(await b.take('verify', 'weather')).toBeUndefined()
  })

  test("while a book's listening connection is lost, it asks the store on every payment: no fault is missed", async () => {
    const [a, b] = await twoBooks()
    const notifications = opened[1]!.notifications!
    const pid = notifications.backendPid
    await sql`select pg_terminate_backend(${pid})`.execute(opened[0]!.db)
    await vi.waitFor(() => expect(notifications.listening).toBe(false))
    const added = await a.add({ kind: 'settle', delayMs: 5, times: 2 })
    // Nothing told b, and nothing is read through it but the strike itself.
    expect((await b.take('settle'))?.id).toBe(added.id)
    // Listening again, it reads once more and its flag falls with the fault.
    await vi.waitFor(() => expect(notifications.listening).toBe(true))
    expect((await a.take('settle'))?.remaining).toBe(0)
    await vi.waitFor(async () => expect(await b.list()).toEqual([]))
    expect(await b.take('settle')).toBeUndefined()
  })

  test('a payment no fault targets asks the store nothing (another kind, another API); a fault of every API does', async () => {
    // A book whose store counts the strikes it is asked for, beside another process's book.
    const [a, book] = await twoBooks((store) => ({
      ...store,
      take: (kind, apiSlug) => (asked++, store.take(kind, apiSlug)),
    }))
    const fault = await a.add({ kind: 'settle', delayMs: 5, api: 'weather' })
    await vi.waitFor(async () => expect((await book.take('settle', 'weather'))?.id).toBe(fault.id))
    asked = 0
    expect(await book.take('settle', 'other')).toBeUndefined()
    expect(await book.take('verify', 'weather')).toBeUndefined()
    expect(await book.take('upstream')).toBeUndefined()
    expect(asked).toBe(0)
    const everyApi = await a.add({ kind: 'verify', reason: 'invalid_exact_evm_signature' })
    await vi.waitFor(async () => expect((await book.take('verify', 'other'))?.id).toBe(everyApi.id))
    expect(asked).toBeGreaterThan(0)
    // Cleared: once the book has heard it, no payment asks the store again.
    await a.clear()
    await vi.waitFor(async () => {
      asked = 0
      expect(await book.take('settle', 'weather')).toBeUndefined()
      expect(await book.take('verify', 'other')).toBeUndefined()
      expect(asked).toBe(0)
    })
  })

  test('clear of all, and hits counted across processes', async () => {
    const [a, b] = await twoBooks()
    const first = await a.add({ kind: 'upstream', status: 503 })
    await b.add({ kind: 'upstream', drop: true, api: 'weather', times: 2 })
    expect((await a.take('upstream', 'weather'))?.id).toBe(first.id)
    await vi.waitFor(async () => expect((await b.take('upstream', 'weather'))?.id).toBe(first.id))
    expect((await a.list()).map((fault) => [fault.status ?? 'drop', fault.hits])).toEqual([
      [503, 2],
      ['drop', 0],
    ])
    expect(await b.clear()).toBe(2)
    expect(await a.list()).toEqual([])
  })
})
