import { createHash } from 'node:crypto'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { LRUCache } from 'lru-cache'
import { cutText, logLineLimit } from '../../core/http.js'
import {
  BAZAAR,
  extractDiscoveryInfo,
  validateDiscoveryExtensionSpec,
  type DiscoveryInfo,
  type DiscoveryResource,
} from '@x402/extensions/bazaar'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

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
 * the payment next to nothing: payments queue, and are judged ({@link catalogEntryOf}, below) and written
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

/** The size limits of a catalog entry: a payer writes what the catalog keeps, so every part of it is bounded. */
export const catalogLimits = {
  /** The `bazaar` extension (info and schema) as JSON, in characters. */
  extensionChars: 16_384,
  /** The whole entry (the extension, the accepts, the metadata) as JSON, in characters. */
  entryChars: 32_768,
  resourceUrlChars: 2048,
  descriptionChars: 500,
  mimeTypeChars: 100,
} as const

/**
 * One resource of the bazaar catalog, as `GET /discovery/resources` lists it: `@x402/extensions`' `DiscoveryResource`
 * (resource, type, x402Version, accepts, lastUpdated, description, mimeType, serviceName, tags, iconUrl, extensions),
 * with `discoveryInfo` (what x402's e2e suite reads) and `metadata` (the item shape of x402's first bazaar and of
 * x402 #2582) beside it.
 */
export type CatalogItem = DiscoveryResource & {
  discoveryInfo: DiscoveryInfo
  metadata: Record<string, unknown>
}

/** A catalog entry: its key (one per resource and method or tool), what it is filtered by, and the item. */
export type CatalogEntry = {
  key: string
  type: string
  payTo: string
  scheme: string
  network: string
  /** Milliseconds since the epoch: the entry's `lastUpdated`, and the order of eviction (oldest first). */
  updatedAt: number
  item: CatalogItem
}

/** What a payment makes of the catalog: an entry, a refusal saying why, or nothing (no bazaar extension). */
export type CatalogVerdict = { entry: CatalogEntry } | { rejected: string } | undefined

/**
 * The catalog entry of a settled payment, by `@x402/extensions`' own facilitator helpers: the spec's
 * invariants (`validateDiscoveryExtensionSpec`) and the info validated against its schema (`validateDiscoveryExtension`'s
 * rules, its schema compiled once: {@link discoveryExtensionProblem}, below), then `extractDiscoveryInfo`
 * (the canonical URL, routeTemplate checked, the service metadata sanitized). Only the `bazaar` extension is echoed: the payload's other extensions (a sign-in
 * signature, a payment id) are the buyer's, not the listing's.
 */
export function catalogEntryOf(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  now: number,
): CatalogVerdict {
  if (payload.x402Version !== 2) return undefined
  const extension = payload.extensions?.[BAZAAR.key]
  if (extension === undefined) return undefined
  if (typeof extension !== 'object' || extension === null || Array.isArray(extension))
    return { rejected: 'the bazaar extension is not an object' }
  const extensionJson = JSON.stringify(extension)
  if (extensionJson.length > catalogLimits.extensionChars)
    return {
      rejected: `the bazaar extension is ${extensionJson.length} characters of JSON, more than ${catalogLimits.extensionChars}`,
    }
  const invalid = discoveryExtensionProblem(extension as Record<string, unknown>)
  if (invalid) return { rejected: `the bazaar extension is invalid: ${invalid}` }
  const discovered = safely(() => extractDiscoveryInfo(payload, requirements, false))
  if (!discovered) return { rejected: "the payment's resource.url is not a URL" }
  const resource = discovered.resourceUrl
  if (resource.length > catalogLimits.resourceUrlChars)
    return { rejected: `the resource URL is longer than ${catalogLimits.resourceUrlChars} characters` }
  const type = discovered.discoveryInfo.input.type
  const action = 'toolName' in discovered ? discovered.toolName : (discovered.method ?? '')
  const described = {
    ...(discovered.description ? { description: cutText(discovered.description, catalogLimits.descriptionChars) } : {}),
    ...(discovered.mimeType ? { mimeType: cutText(discovered.mimeType, catalogLimits.mimeTypeChars) } : {}),
    ...(discovered.serviceName ? { serviceName: discovered.serviceName } : {}),
    ...(discovered.tags ? { tags: discovered.tags } : {}),
    ...(discovered.iconUrl ? { iconUrl: discovered.iconUrl } : {}),
  }
  const item: CatalogItem = {
    resource,
    type,
    x402Version: payload.x402Version,
    // The latest payment's terms only: a resource's entry never accumulates the accepts of earlier payments.
    accepts: [requirements],
    lastUpdated: new Date(now).toISOString(),
    ...described,
    extensions: { [BAZAAR.key]: extension },
    discoveryInfo: discovered.discoveryInfo,
    metadata: {
      ...described,
      ...('toolName' in discovered ? { toolName: discovered.toolName } : { method: discovered.method }),
      ...('routeTemplate' in discovered && discovered.routeTemplate ? { routeTemplate: discovered.routeTemplate } : {}),
    },
  }
  const itemChars = JSON.stringify(item).length
  if (itemChars > catalogLimits.entryChars)
    return { rejected: `the entry is ${itemChars} characters of JSON, more than ${catalogLimits.entryChars}` }
  return {
    entry: {
      key: `${type} ${action} ${resource}`,
      type,
      payTo: requirements.payTo,
      scheme: requirements.scheme,
      network: requirements.network,
      updatedAt: now,
      item,
    },
  }
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

/**
 * `@x402/extensions`' `validateDiscoveryExtension`, with each schema compiled once. The package builds an Ajv and
 * compiles the schema on every call (50–90 ms on a busy machine), and svc's gateway declares one schema per endpoint
 * but a new `info` per request (a dynamic route's `pathParams`): on the payment's event loop that cost would reach
 * the buyer. Same rules as the package (test/chain/facilitator/bazaar-catalog.test.ts compares the two): a schema
 * with a `$ref` or `$id` that is not a same-document fragment is refused, then `info` is validated against it with
 * Ajv's 2020-12 dialect, `strict: false`, `allErrors: true`; errors read `{instancePath or (root)}: {message}`.
 */
let ajv: Ajv2020 | undefined
const compiled = new LRUCache<string, { schema: object; validate: ValidateFunction | string }>({
  max: 500,
  // One Ajv for all of them: an evicted schema leaves it too, so it does not grow without bound.
  dispose: ({ schema }) => void ajv?.removeSchema(schema),
})

const fingerprintOf = (json: string) => createHash('sha256').update(json).digest('base64')

/** The package's rule: a `$ref` or `$id` anywhere that is not a string starting with `#`. */
function hasExternalReference(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasExternalReference)
  if (node === null || typeof node !== 'object') return false
  return Object.entries(node).some(
    ([key, value]) =>
      ((key === '$ref' || key === '$id') && (typeof value !== 'string' || !value.startsWith('#'))) ||
      hasExternalReference(value),
  )
}

function validatorOf(schema: unknown): ValidateFunction | string {
  if (hasExternalReference(schema)) return 'schema must not contain external $ref/$id references'
  const json = JSON.stringify(schema ?? null)
  const key = fingerprintOf(json)
  const known = compiled.get(key)
  if (known) return known.validate
  // A copy: Ajv keys its cache by the object, and the payload's may be mutated by its owner.
  const own = JSON.parse(json) as object
  let validate: ValidateFunction | string
  try {
    ajv ??= new Ajv2020({ strict: false, allErrors: true })
    validate = ajv.compile(own)
  } catch (error) {
    validate = `Schema validation failed: ${error instanceof Error ? error.message : String(error)}`
  }
  compiled.set(key, { schema: own, validate })
  return validate
}

/**
 * Why the extension fails the bazaar spec's invariants (`validateDiscoveryExtensionSpec`, the package's) or its own
 * schema (the package's `validateDiscoveryExtension` rules, above), or undefined when it passes.
 */
export function discoveryExtensionProblem(extension: Record<string, unknown>): string | undefined {
  const spec = problems(validateDiscoveryExtensionSpec(extension).errors)
  if (spec) return spec
  const validate = validatorOf(extension.schema)
  if (typeof validate === 'string') return cutText(validate, 300)
  if (validate(extension.info)) return undefined
  return (
    problems(validate.errors?.map((error) => `${error.instancePath || '(root)'}: ${error.message}`)) ??
    'Unknown validation error'
  )
}

/** The first few validation errors as one bounded line, or undefined when there are none. */
function problems(errors: string[] | undefined): string | undefined {
  if (!errors?.length) return undefined
  return cutText(errors.slice(0, 3).join('; '), 300)
}
