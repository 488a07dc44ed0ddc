/**
 * The event bus of processes sharing a PostgreSQL database (server/cluster/payment-events.ts), one bus per "process"
 * (each its own pool and listening connection) on one database: events published at once by several processes reach
 * a listener on another once each, by id without holes; a listener's connection killed meanwhile loses nothing (the
 * ring); the ring keeps the last `keep`; presence lapses.
 */
import { sql } from 'kysely'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { createClusterPaymentEvents } from '../../server/cluster/payment-events.js'
import { openDatabase, type OpenedDatabase } from '../../server/db/database.js'
import type { PaymentEvent, PaymentEvents, StreamEvent } from '../../server/payment-events.js'
import { paymentEventFields } from '../helpers/payment-events.js'
import { testDatabases, testDialects } from '../helpers/postgres.js'

const runs = testDialects().includes('postgres')
const databases = runs ? testDatabases('postgres') : undefined

const running: { database: OpenedDatabase; bus: PaymentEvents & { close(): Promise<void> } }[] = []
afterEach(async () => {
  for (const { database, bus } of running.splice(0)) {
    await bus.close()
    await database.close()
  }
})

/** `count` buses ("processes") on one fresh database. */
async function processes(count: number, options: Parameters<typeof createClusterPaymentEvents>[2] = {}) {
  const url = await databases!.url()
  const made = []
  for (let i = 0; i < count; i++) {
    const database = await openDatabase(url)
    const bus = createClusterPaymentEvents(database.db, database.notifications!, options)
    running.push({ database, bus })
    made.push({ database, bus })
  }
  return made
}

const event = (path: string) => paymentEventFields({ path, amount: '1000' })

const number = (id: string) => Number(id.slice(4))

/** Waits until every bus wants `user`'s events (the listener's announcement reached them). */
const announced = (buses: PaymentEvents[], user: string) =>
  vi.waitFor(() => expect(buses.map((bus) => bus.wanted(user))).toEqual(buses.map(() => true)), { timeout: 5_000 })

describe.skipIf(!runs)('payment events across processes', () => {
  test('events published at once by two processes reach a third once each, by id, without holes', async () => {
    const [listener, p1, p2] = await processes(3)
    const got: PaymentEvent[] = []
    listener!.bus.subscribe('usr_a', (event) => got.push(event))
    await announced([p1!.bus, p2!.bus], 'usr_a')
    expect(p1!.bus.wanted('usr_b')).toBe(false)
    for (let i = 0; i < 150; i++) {
      p1!.bus.publish('usr_a', event(`/p1/${i}`))
      p2!.bus.publish('usr_a', event(`/p2/${i}`))
      // Another seller's events pass by the listener without reaching it.
      if (i % 10 === 0) p2!.bus.publish('usr_b', event(`/other/${i}`))
    }
    await vi.waitFor(() => expect(got).toHaveLength(300), { timeout: 25_000 })
    const ids = got.map((event) => number(event.id))
    expect(ids).toEqual([...ids].sort((x, y) => x - y))
    expect(new Set(ids).size).toBe(300)
    // Each process's events keep the order it published them in.
    for (const who of ['p1', 'p2'])
      expect(got.filter((event) => event.path.startsWith(`/${who}/`)).map((event) => event.path)).toEqual(
        Array.from({ length: 150 }, (_, i) => `/${who}/${i}`),
      )
    // Ids have no holes: the other seller's took the ones between.
    expect(ids.at(-1)! - ids[0]! + 1).toBe(300 + 15)
    expect(await listener!.bus.since('usr_a', got[297]!.id)).toEqual(got.slice(298))
  })

  test('an event past the 8,000-byte notification limit is read from the ring, in its place', async () => {
    const [listener, publisher] = await processes(2)
    const got: PaymentEvent[] = []
    listener!.bus.subscribe('usr_a', (event) => got.push(event))
    await announced([publisher!.bus], 'usr_a')
    const long = `/files/${'x'.repeat(9_000)}`
    publisher!.bus.publish('usr_a', event('/before'))
    publisher!.bus.publish('usr_a', event(long))
    publisher!.bus.publish('usr_a', event('/after'))
    await vi.waitFor(() => expect(got.map((event) => event.path)).toEqual(['/before', long, '/after']), {
      timeout: 5_000,
    })
  })

  test("a listener's connection killed: what was published meanwhile comes from the ring, in order", async () => {
    const [listener, publisher] = await processes(2)
    const got: PaymentEvent[] = []
    listener!.bus.subscribe('usr_a', (event) => got.push(event))
    await announced([publisher!.bus], 'usr_a')
    publisher!.bus.publish('usr_a', event('/0'))
    await vi.waitFor(() => expect(got).toHaveLength(1), { timeout: 15_000 })
    const notifications = listener!.database.notifications!
    await sql`select pg_terminate_backend(${notifications.backendPid})`.execute(publisher!.database.db)
    await vi.waitFor(() => expect(notifications.listening).toBe(false), { timeout: 5_000 })
    for (let i = 1; i <= 5; i++) publisher!.bus.publish('usr_a', event(`/${i}`))
    await vi.waitFor(() => expect(notifications.listening).toBe(true), { timeout: 10_000 })
    for (let i = 6; i <= 8; i++) publisher!.bus.publish('usr_a', event(`/${i}`))
    await vi.waitFor(() => expect(got).toHaveLength(9), { timeout: 10_000 })
    expect(got.map((event) => event.path)).toEqual(Array.from({ length: 9 }, (_, i) => `/${i}`))
  })

  test("a whole-Sandbox event reaches every process's sandbox listeners and every seller's replay", async () => {
    const [listener, publisher] = await processes(2)
    const got: StreamEvent[] = []
    listener!.bus.subscribeSandbox((event) => got.push(event))
    listener!.bus.subscribe('usr_a', (event) => got.push(event))
    await announced([publisher!.bus], 'usr_a')
    publisher!.bus.publish('usr_a', event('/before'))
    publisher!.bus.broadcast({ type: 'sandbox.time_advanced', actor: 'admin', snapshot_id: null, seconds: 60 })
    await vi.waitFor(
      () => expect(got.map((event) => event.type)).toEqual(['payment.required', 'sandbox.time_advanced']),
      {
        timeout: 5_000,
      },
    )
    expect(got[1]).toMatchObject({ environment: 'development', actor: 'admin', seconds: 60 })
    expect(await listener!.bus.since('usr_b', got[0]!.id)).toEqual([got[1]])
  })

  test('the ring keeps the last `keep` events (trimmed as ids pass each hundred); since() of an unkept id gives all', async () => {
    const [{ database, bus }] = (await processes(1, { keep: 20 })) as [Awaited<ReturnType<typeof processes>>[0]]
    bus.subscribe('usr_a', () => {})
    for (let i = 0; i < 250; i++) bus.publish('usr_a', event(`/${i}`))
    const last = async () =>
      Number((await database.db.selectFrom('payment_event_counter').select('last').executeTakeFirst())?.last)
    await vi.waitFor(async () => expect(await last()).toBe(250), { timeout: 10_000 })
    const kept = (await bus.since('usr_a', 'evt_0000000000000000')) as PaymentEvent[]
    expect(kept.length).toBeGreaterThanOrEqual(20)
    expect(kept.length).toBeLessThanOrEqual(20 + 100)
    const first = 250 - kept.length
    expect(kept.map((event) => event.path)).toEqual(Array.from({ length: kept.length }, (_, i) => `/${first + i}`))
    expect(await bus.since('usr_a', 'not-an-id')).toEqual(kept)
    expect(await bus.since('usr_a', kept[9]!.id)).toEqual(kept.slice(10))
  })
})
