import { createHash } from 'node:crypto'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { LRUCache } from 'lru-cache'
import { cutText, logLineLimit } from '../../core/http.js'
import { catalogEntryOf, type CatalogEntry, type CatalogItem } from './bazaar-entry.js'

type Recorded = { payload: PaymentPayload; requirements: PaymentRequirements; at: number }

/** Payments recorded between two turns of the event loop that are judged; more are left out (a flood of payments). */
const maxRecordedPerTurn = 1000

/** How many resources the catalog keeps unless told otherwise; past it, the least recently updated goes. */
export const defaultCatalogCapacity = 1000

/** The filters of `GET /discovery/resources` and `/discovery/search` (x402's bazaar spec), already checked. */
export type CatalogFilter = {
  type?: string | undefined
  payTo?: string | undefined
  scheme?: string | undefined
  network?: string | undefined
  /** An extension key each listed resource carries (the catalog keeps `bazaar` only). */
  extensions?: string | undefined
}
export type CatalogQuery = CatalogFilter & { limit: number; offset: number }
export type CatalogPage = { items: CatalogItem[]; total: number }

/**
 * Where the catalog keeps its entries. The facilitator starts with {@link createMemoryCatalogStore}; svc's server
 * gives it one over its SQLite file once the database is open (server/bazaar-catalog-store.ts), so the catalog
 * outlives a restart. Both keep at most `capacity` entries, evicting the least recently updated.
 */
export type CatalogStore = {
  /** Adds or replaces entries by key (the latest accepts only), then evicts past the capacity. */
  put(entries: CatalogEntry[]): Promise<void>
  /** Newest first (`lastUpdated`), filtered, a page of it, and how many match. */
  list(query: CatalogQuery): Promise<CatalogPage>
  /** Entries whose listing contains `text` (case-insensitive), newest first, at most `limit`. */
  search(text: string, filter: CatalogFilter, limit: number): Promise<CatalogPage>
}

export type BazaarCatalog = {
  /** Catalogs the resource a settled payment names, off the payment's path (never throws). */
  record(payload: PaymentPayload, requirements: PaymentRequirements): void
  list(query: CatalogQuery): Promise<CatalogPage>
  search(text: string, filter: CatalogFilter, limit: number): Promise<CatalogPage>
  /** Moves the catalog to `store` (what the memory held goes with it). */
  keepIn(store: CatalogStore): Promise<void>
  /** Resolves once every payment recorded so far is in the store. */
  flushed(): Promise<void>
}

export type BazaarCatalogOptions = {
  log?: ((message: string) => void) | undefined
  now?: (() => number) | undefined
  /** @defaultValue {@link defaultCatalogCapacity} */
  capacity?: number | undefined
}

/**
 * svc's bazaar catalog: what the facilitator's payments declare (`extensions.bazaar`), one entry per resource and
 * method (or MCP tool), served by `GET /discovery/resources` (chain/facilitator/bazaar-routes.ts). Recording costs
 * the payment next to nothing: payments queue, and are judged (chain/facilitator/bazaar-entry.ts) and written
 * together on the next turn of the event loop, after the payment's answer (the same resource paid a thousand times
 * between two writes is one write).
 */
export function createBazaarCatalog(options: BazaarCatalogOptions = {}): BazaarCatalog {
  const { log, now = Date.now, capacity = defaultCatalogCapacity } = options
  let store = createMemoryCatalogStore(capacity)
  /** Payments recorded and not yet judged (judging waits until the payment's answer is on its way). */
  let recorded: Recorded[] = []
  let writing: Promise<void> = Promise.resolve()
  let scheduled = false
  // A refusal is logged once per distinct extension, not once per payment.
  const verdicts = new LRUCache<string, string>({ max: 1000 })

  function refuse(payload: PaymentPayload, reason: string) {
    const fingerprint = createHash('sha256')
      .update(JSON.stringify(payload.extensions ?? {}))
      .digest('hex')
    if (verdicts.get(fingerprint) === reason) return
    verdicts.set(fingerprint, reason)
    log?.(cutText(`facilitator: ${payload.resource?.url ?? 'a resource'} is not cataloged: ${reason}`, logLineLimit))
  }

  function flush() {
    scheduled = false
    const batch = recorded
    recorded = []
    const entries = new Map<string, CatalogEntry>()
    for (const { payload, requirements, at } of batch) {
      let verdict: ReturnType<typeof catalogEntryOf>
      try {
        verdict = catalogEntryOf(payload, requirements, at)
      } catch (error) {
        verdict = { rejected: String(error) }
      }
      if (verdict && 'rejected' in verdict) refuse(payload, verdict.rejected)
      else if (verdict) entries.set(verdict.entry.key, verdict.entry)
    }
    if (!entries.size) return
    const target = store
    writing = writing
      .then(() => target.put([...entries.values()]))
      .catch((error: unknown) =>
        log?.(cutText(`facilitator: the bazaar catalog could not be written: ${String(error)}`, logLineLimit)),
      )
  }

  function record(payload: PaymentPayload, requirements: PaymentRequirements) {
    if (payload.extensions?.bazaar === undefined) return
    // Bounded: past this many between two turns of the event loop, the rest wait for a later payment.
    if (recorded.length >= maxRecordedPerTurn) return
    recorded.push({ payload, requirements, at: now() })
    if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }

  /** Every payment recorded so far, written: a listing asked after a payment was answered shows it. */
  async function flushed() {
    if (scheduled) flush()
    await writing
  }

  return {
    record,
    async list(query) {
      await flushed()
      return store.list(query)
    },
    async search(text, filter, limit) {
      await flushed()
      return store.search(text, filter, limit)
    },
    async keepIn(next) {
      await flushed()
      const held = await store.list({ limit: capacity, offset: 0 })
      store = next
      if (held.items.length)
        writing = writing.then(() => next.put(held.items.map((item) => entryOfItem(item, requirementsOf(item)))))
      await writing
    },
    flushed,
  }
}

const requirementsOf = (item: CatalogItem) => item.accepts[0] as PaymentRequirements

/** The entry an item was made from (its key and filters are functions of the item). */
export function entryOfItem(item: CatalogItem, requirements: PaymentRequirements): CatalogEntry {
  const action = (item.metadata.toolName ?? item.metadata.method ?? '') as string
  return {
    key: `${item.type} ${action} ${item.resource}`,
    type: item.type,
    payTo: requirements.payTo,
    scheme: requirements.scheme,
    network: requirements.network,
    updatedAt: Date.parse(item.lastUpdated),
    item,
  }
}

/** Whether an entry passes the filters (`payTo` compared without case: EVM addresses are written either way). */
export function matchesFilter(entry: CatalogEntry, filter: CatalogFilter): boolean {
  return (
    (filter.type === undefined || entry.type === filter.type) &&
    (filter.payTo === undefined || entry.payTo.toLowerCase() === filter.payTo.toLowerCase()) &&
    (filter.scheme === undefined || entry.scheme === filter.scheme) &&
    (filter.network === undefined || entry.network === filter.network) &&
    (filter.extensions === undefined || Object.hasOwn(entry.item.extensions ?? {}, filter.extensions))
  )
}

/** The catalog in memory (a facilitator without svc's database): bounded, least recently updated out first. */
export function createMemoryCatalogStore(capacity = defaultCatalogCapacity): CatalogStore {
  // A Map iterates in insertion order: deleting before setting keeps it ordered by update, oldest first.
  const entries = new Map<string, CatalogEntry>()
  const newestFirst = (filter: CatalogFilter, text?: string) =>
    [...entries.values()]
      .reverse()
      .filter(
        (entry) =>
          matchesFilter(entry, filter) &&
          (text === undefined || JSON.stringify(entry.item).toLowerCase().includes(text.toLowerCase())),
      )
  return {
    async put(batch) {
      for (const entry of batch) {
        entries.delete(entry.key)
        entries.set(entry.key, entry)
      }
      for (const key of entries.keys()) {
        if (entries.size <= capacity) break
        entries.delete(key)
      }
    },
    async list({ limit, offset, ...filter }) {
      const all = newestFirst(filter)
      return { items: all.slice(offset, offset + limit).map((entry) => entry.item), total: all.length }
    },
    async search(text, filter, limit) {
      const all = newestFirst(filter, text)
      return { items: all.slice(0, limit).map((entry) => entry.item), total: all.length }
    },
  }
}
