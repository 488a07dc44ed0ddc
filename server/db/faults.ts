import { sql, type Kysely, type Selectable } from 'kysely'
import type { Fault, FaultKind, FaultStore } from '../../chain/faults/index.js'
import { notificationsOf } from './notifications.js'
import type { SandboxFaultsTable } from './sandbox-tables.js'
import type { Database } from './tables.js'

const faultOf = (row: Selectable<SandboxFaultsTable>): Fault => ({
  id: row.id,
  kind: row.kind as FaultKind,
  reason: row.reason,
  delayMs: row.delay_ms,
  status: row.status,
  drop: row.drop,
  api: row.api,
  times: row.times,
  remaining: row.remaining,
  hits: row.hits,
  createdAt: row.created_at,
})

/** A fault as a row of sandbox_faults, and as the control plane answers it (its JSON names are the columns'). */
export function faultRecord(fault: Fault) {
  return {
    id: fault.id,
    kind: fault.kind,
    reason: fault.reason,
    delay_ms: fault.delayMs,
    status: fault.status,
    drop: fault.drop,
    api: fault.api,
    times: fault.times,
    remaining: fault.remaining,
    hits: fault.hits,
    created_at: fault.createdAt,
  }
}

/** The channel sandbox_faults' trigger notifies (migration 2026_11_27_06). */
const faultsChannel = 'svc_faults'

/** In force: until cleared, or strikes left (a used-up row lives for the moment between its last strike and its delete). */
const inForce = sql<boolean>`(remaining is null or remaining > 0)`

/**
 * The Sandbox's faults in PostgreSQL's `sandbox_faults` (migration 2026_11_27_06), shared by every svc process on the
 * database. A strike is one statement: the oldest matching fault is locked (`FOR UPDATE`, waiting for a strike in
 * another process rather than skipping it: a skipped fault would let through a payment it should strike) and counted,
 * so a fault of `times: N` strikes exactly N payments in all. The table's trigger NOTIFYs `svc_faults` when a fault is
 * added or goes; the store's watch hears it (server/db/notifications.ts), and after a lost connection listens again.
 */
export function createPostgresFaultStore(db: Kysely<Database>): FaultStore {
  return {
    async insert(fault) {
      await db.insertInto('sandbox_faults').values(faultRecord(fault)).execute()
    },
    async list() {
      const rows = await db.selectFrom('sandbox_faults').selectAll().where(inForce).orderBy('seq').execute()
      return rows.map(faultOf)
    },
    async delete(id) {
      const query = db.deleteFrom('sandbox_faults').where(inForce)
      const result = await (id === undefined ? query : query.where('id', '=', id)).executeTakeFirst()
      // Used-up rows a process left (it died between a last strike and its delete) go with a clear of all.
      if (id === undefined) await db.deleteFrom('sandbox_faults').execute()
      return Number(result.numDeletedRows)
    },
    async take(kind, apiSlug) {
      const { rows } = await sql<Selectable<SandboxFaultsTable>>`
        update sandbox_faults set hits = hits + 1, remaining = remaining - 1
        where id = (
          select id from sandbox_faults
          where kind = ${kind} and (api is null or api = ${apiSlug ?? null}) and ${inForce}
          order by seq limit 1 for update
        )
        returning *`.execute(db)
      const row = rows[0]
      if (!row) return undefined
      if (row.remaining === 0) await db.deleteFrom('sandbox_faults').where('id', '=', row.id).execute()
      return faultOf(row)
    },
    async targets() {
      const rows = await db.selectFrom('sandbox_faults').select(['kind', 'api']).distinct().where(inForce).execute()
      return rows.map((row) => ({ kind: row.kind as FaultKind, api: row.api }))
    },
    async watch(listener) {
      const notifications = notificationsOf(db)
      if (!notifications) throw new Error('the fault store needs the notifications of a PostgreSQL database')
      const subscription = notifications.subscribe(faultsChannel, {
        message: () => listener(),
        lost: () => listener(true),
        reset: () => listener(),
      })
      await subscription.ready
      return () => void subscription.stop()
    },
  }
}
