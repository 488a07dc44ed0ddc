/**
 * Load on a cluster and what the test watches while it runs: buyers paying in a loop, and the settlement journal
 * read straight from PostgreSQL (which rows belong to processes that are gone, by their advisory locks).
 */
import { decodePaymentResponseHeader } from '@x402/core/http'
import type Pg from 'pg'

export type Load = {
  /** PAYMENT-RESPONSE transactions of the paid answers buyers got (200 and a successful header). */
  answered: Set<string>
  /** Requests that got no paid answer (a socket error, a 402 after paying, a 5xx). */
  failures: () => number
  /** Resolves once `count` payments were answered in all, or rejects after `timeoutMs`. */
  until(count: number, timeoutMs?: number): Promise<void>
  /** Stops the buyers after their request in flight. */
  stop(): Promise<void>
}

/** Every buyer pays `url` in a loop until {@link Load.stop}. */
export function startLoad(buyers: { pay: typeof fetch }[], url: string): Load {
  const answered = new Set<string>()
  let failures = 0
  let stopped = false
  const waiters: { count: number; resolve: () => void }[] = []
  const tell = () => {
    for (const waiter of waiters.filter((entry) => answered.size >= entry.count)) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }
  const loops = buyers.map(async ({ pay }) => {
    while (!stopped) {
      try {
        const response = await pay(url)
        await response.arrayBuffer()
        const header = response.headers.get('payment-response')
        const settled = header ? decodePaymentResponseHeader(header) : undefined
        if (response.status === 200 && settled?.success) {
          answered.add(settled.transaction)
          tell()
        } else failures++
      } catch {
        failures++
      }
    }
  })
  return {
    answered,
    failures: () => failures,
    until(count, timeoutMs = 60_000) {
      if (answered.size >= count) return Promise.resolve()
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`load: ${answered.size} of ${count} payments answered in ${timeoutMs} ms`)),
          timeoutMs,
        )
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer)
            resolve()
          },
        })
      })
    },
    async stop() {
      stopped = true
      await Promise.all(loops)
    },
  }
}

/** A connection to the cluster's database as its superuser, for the test's own reads. */
export async function connectAdmin(url: string): Promise<Pg.Client> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return client
}

/** A session holds the advisory lock of journal row `j`'s owner (pg_locks shows a bigint key as two halves). */
const liveOwner = `
  select 1 from pg_locks l
  where l.locktype = 'advisory' and l.granted and l.objsubid = 1
    and l.classid::bigint = (hashtextextended(j.owner, 0) >> 32) & 4294967295
    and l.objid::bigint = hashtextextended(j.owner, 0) & 4294967295`

/**
 * Settlement journal rows whose owner is gone: no session holds the advisory lock of its id (server/db/process-owner.ts
 * takes `pg_advisory_lock(hashtextextended(id, 0))`; pg_locks shows a bigint key as its high and low 32 bits). Read
 * from pg_locks, so the test takes no lock a survivor's reaper might then find taken.
 */
export async function rowsOfGoneOwners(client: Pg.Client): Promise<number> {
  const { rows } = await client.query<{ count: number }>(`
    select count(*)::int as count from settlement_journal j
    where j.owner is null or not exists (${liveOwner})`)
  return rows[0]!.count
}

export async function journalRows(client: Pg.Client): Promise<number> {
  const { rows } = await client.query<{ count: number }>('select count(*)::int as count from settlement_journal')
  return rows[0]!.count
}

/** The advisory lock keys sessions hold now (a process's liveness lock among them, while it lives). */
export async function heldAdvisoryKeys(client: Pg.Client): Promise<Set<string>> {
  const { rows } = await client.query<{ key: string }>(
    `select classid::text || ':' || objid::text as key from pg_locks
     where locktype = 'advisory' and granted and objsubid = 1`,
  )
  return new Set(rows.map((row) => row.key))
}

/** A journal row of a gone owner, as the snapshot saw it. */
export type GoneRow = { payer: string; nonce: string | null; valid_before: string | null; used: boolean }

/**
 * After a process was killed: waits until PostgreSQL has ended its session (one of the advisory locks held before the
 * kill, `heldBefore`, is free: its liveness lock) and no journal row of a gone owner is left. Answers how long that
 * took from the call (ms; `undefined` when `timeoutMs` passed first), the most rows of gone owners seen, and the rows
 * of gone owners left `snapshotAtMs` after the call, each with whether its authorization was used on chain then
 * (`isUsed`).
 */
export async function watchRecovery(
  client: Pg.Client,
  heldBefore: Set<string>,
  options: { timeoutMs: number; snapshotAtMs: number; isUsed: (payer: string, nonce: string) => Promise<boolean> },
) {
  const started = performance.now()
  let most = 0
  let noticed = false
  let snapshot: GoneRow[] | undefined
  while (performance.now() - started < options.timeoutMs) {
    if (!noticed) {
      const held = await heldAdvisoryKeys(client)
      noticed = [...heldBefore].some((key) => !held.has(key))
    }
    const left = await rowsOfGoneOwners(client)
    most = Math.max(most, left)
    if (noticed && left === 0) return { ms: Math.round(performance.now() - started), most, snapshot: snapshot ?? [] }
    if (snapshot === undefined && performance.now() - started >= options.snapshotAtMs) {
      const rows = await goneOwnerRows(client)
      snapshot = await Promise.all(
        rows.map(async (row) => ({ ...row, used: row.nonce ? await options.isUsed(row.payer, row.nonce) : false })),
      )
    }
    // A poll, not a wait for a moment: the next read is the signal.
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { ms: undefined, most, snapshot: snapshot ?? [] }
}

/** The rows of {@link rowsOfGoneOwners}. */
async function goneOwnerRows(client: Pg.Client) {
  const { rows } = await client.query<Omit<GoneRow, 'used'>>(`
    select payer, nonce, valid_before from settlement_journal j
    where j.owner is null or not exists (${liveOwner})`)
  return rows
}
