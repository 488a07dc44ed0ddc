import type { ApiRow } from '../db/tables.js'
import type { GatewayStore, TrafficRow } from '../db/gateway-store.js'

export type TrafficCounter = 'requests' | 'payment_required' | 'paid_requests'

export type TrafficStats = {
  /** Counts one event of the API on today's (UTC) row. */
  count(api: ApiRow, counter: TrafficCounter): void
  /** Writes the counts gathered so far (upserts into `api_daily_stats`). */
  flush(): Promise<void>
  /** Flushes and stops the timer. */
  close(): Promise<void>
}

/**
 * Gateway traffic per API and UTC day, counted in memory and written at most every `flushEveryMs` (and on close),
 * so a request costs no write of its own. One upsert per API and day per flush adds the counts to the row.
 */
export function createTrafficStats(
  store: GatewayStore | Promise<GatewayStore>,
  options: { flushEveryMs?: number; log?: ((message: string) => void) | undefined } = {},
): TrafficStats {
  const { flushEveryMs = 250, log = () => {} } = options
  let pending = new Map<string, TrafficRow>()
  let timer: NodeJS.Timeout | undefined
  let flushing: Promise<void> = Promise.resolve()

  function count(api: ApiRow, counter: TrafficCounter) {
    const day = new Date().toISOString().slice(0, 10)
    const key = `${api.id}|${day}`
    let row = pending.get(key)
    if (!row) {
      row = {
        api_id: api.id,
        user_id: api.user_id,
        environment: api.environment,
        day,
        requests: 0,
        payment_required: 0,
        paid_requests: 0,
      }
      pending.set(key, row)
    }
    row[counter]++
    timer ??= setTimeout(() => void flush(), flushEveryMs).unref()
  }

  function flush(): Promise<void> {
    clearTimeout(timer)
    timer = undefined
    const rows = [...pending.values()]
    pending = new Map()
    // Flushes run one after another, so counts are never written out of order.
    flushing = flushing
      .then(async () => (rows.length ? (await store).addTraffic(rows) : undefined))
      .catch((error: unknown) => log(`gateway: writing traffic stats failed: ${(error as Error).message}`))
    return flushing
  }

  return { count, flush, close: flush }
}
