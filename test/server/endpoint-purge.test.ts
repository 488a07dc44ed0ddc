import { afterEach, describe, expect, test, vi } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../server/db/database.js'
import { countEndpoints, findEndpoint, listEndpoints, purgeAllExpired } from '../../server/db/endpoints.js'
import { startEndpointPurge } from '../../server/db/endpoint-purge.js'
import { insertSellerRows } from '../helpers/seller-rows.js'

let database: OpenedDatabase | undefined
afterEach(async () => {
  vi.useRealTimers()
  await database?.close()
  database = undefined
})

/** A database with one API and three endpoints: one without ttl, one expired, one that expires in an hour. */
async function seeded() {
  database = await openDatabase(':memory:')
  const { db } = database
  await insertSellerRows(database, {
    environment: 'production',
    endpoints: [
      { id: 'kept', path_pattern: '/kept' },
      {
        id: 'expired',
        path_pattern: '/expired',
        ttl_seconds: 60,
        expires_at: new Date(Date.now() - 1000).toISOString(),
      },
      {
        id: 'live',
        path_pattern: '/live',
        ttl_seconds: 3600,
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    ],
  })
  const ids = async () => (await db.selectFrom('endpoints').select('id').orderBy('id').execute()).map((row) => row.id)
  return { db, ids }
}

describe('expired endpoint purge', () => {
  test('reads leave expired endpoints out without deleting them', async () => {
    const { db, ids } = await seeded()
    expect((await listEndpoints(db, 'a1')).map((row) => row.id)).toEqual(['kept', 'live'])
    await expect(findEndpoint(db, 'a1', 'expired')).rejects.toThrow('endpoint not found')
    expect((await findEndpoint(db, 'a1', 'live')).id).toBe('live')
    expect(await countEndpoints(db, 'a1')).toEqual({ total: 2, discoverable: 1 })
    expect(await ids()).toEqual(['expired', 'kept', 'live'])
  })

  test('purgeAllExpired deletes only the expired ephemeral endpoints', async () => {
    const { db, ids } = await seeded()
    expect(await purgeAllExpired(db)).toBe(1)
    expect(await ids()).toEqual(['kept', 'live'])
    expect(await purgeAllExpired(db)).toBe(0)
  })

  test('startEndpointPurge purges on its timer; stop clears the timer and waits for a purge under way', async () => {
    const { db, ids } = await seeded()
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const stop = startEndpointPurge(db, { everyMs: 1000 })
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(999)
    expect(await ids()).toEqual(['expired', 'kept', 'live'])
    vi.advanceTimersByTime(1)
    await stop()
    expect(await ids()).toEqual(['kept', 'live'])
    expect(vi.getTimerCount()).toBe(0)
  })
})
