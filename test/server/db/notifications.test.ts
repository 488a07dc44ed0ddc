/**
 * LISTEN/NOTIFY for one process (server/db/notifications.ts), on a real PostgreSQL: a subscriber gets what another
 * connection notifies once its subscription is ready; a listening connection that is killed (pg_terminate_backend) is
 * opened again, the server's log says so, the subscribers are told (lost, then reset once they listen again), and
 * notifications flow again.
 */
import { sql } from 'kysely'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../../server/db/database.js'
import { notify, notifyPayloadLimit } from '../../../server/db/notifications.js'
import { testDatabases, testDialects } from '../../helpers/postgres.js'

const runs = testDialects().includes('postgres')
const databases = runs ? testDatabases('postgres') : undefined

const opened: OpenedDatabase[] = []
afterEach(async () => {
  for (const database of opened.splice(0)) await database.close()
})

async function open() {
  const database = await databases!.open()
  opened.push(database)
  return database
}

describe.skipIf(!runs)('notifications on PostgreSQL', () => {
  test('a subscriber gets notifications from another process once ready; stop ends them', async () => {
    const [listener, sender] = [await open(), await open()]
    const got: string[] = []
    const subscription = listener.notifications!.subscribe('svc_test', (payload) => got.push(payload))
    expect(listener.notifications!.listening).toBe(false)
    expect(await subscription.ready).toBe(true)
    expect(listener.notifications!.listening).toBe(true)
    // Different databases do not hear each other: notify on the listener's own database.
    await notify(listener.db, 'svc_test', 'one')
    await notify(listener.db, 'svc_test', 'two')
    await notify(sender.db, 'svc_test', 'elsewhere')
    await vi.waitFor(() => expect(got).toEqual(['one', 'two']), { timeout: 5_000 })
    await subscription.stop()
    await notify(listener.db, 'svc_test', 'three')
    // A later subscriber on the same channel hears it; the stopped one does not.
    const later: string[] = []
    const again = listener.notifications!.subscribe('svc_test', (payload) => later.push(payload))
    expect(await again.ready).toBe(true)
    await notify(listener.db, 'svc_test', 'four')
    await vi.waitFor(() => expect(later).toEqual(['four']), { timeout: 5_000 })
    expect(got).toEqual(['one', 'two'])
  })

  test('a killed listening connection is opened again: lost (said in the log openDatabase was given), then reset once listening again', async () => {
    const logged: string[] = []
    const database = await openDatabase(await databases!.url(), { log: (line) => logged.push(line) })
    opened.push(database)
    const console = vi.spyOn(globalThis.console, 'error')
    const seen: string[] = []
    const subscription = database.notifications!.subscribe('svc_test', {
      message: (payload) => seen.push(`message ${payload}`),
      lost: () => seen.push('lost'),
      reset: () => seen.push(`reset listening=${database.notifications!.listening}`),
    })
    expect(await subscription.ready).toBe(true)
    const pid = database.notifications!.backendPid
    expect(pid).toBeTypeOf('number')
    await sql`select pg_terminate_backend(${pid})`.execute(database.db)
    await vi.waitFor(() => expect(seen).toEqual(['lost', 'reset listening=true']), { timeout: 10_000 })
    expect(logged).toEqual([
      expect.stringMatching(/^svc: the database connection that listens for notifications broke \(.+\)$/),
    ])
    expect(console).not.toHaveBeenCalled()
    console.mockRestore()
    expect(database.notifications!.backendPid).not.toBe(pid)
    await notify(database.db, 'svc_test', 'after')
    await vi.waitFor(() => expect(seen).toEqual(['lost', 'reset listening=true', 'message after']), {
      timeout: 5_000,
    })
  })

  test('a payload past PostgreSQL limit is refused before it is sent', async () => {
    const database = await open()
    await expect(notify(database.db, 'svc_test', 'x'.repeat(notifyPayloadLimit + 1))).rejects.toThrow(
      /at most 7999 bytes/,
    )
    await notify(database.db, 'svc_test', 'x'.repeat(notifyPayloadLimit))
  })
})
