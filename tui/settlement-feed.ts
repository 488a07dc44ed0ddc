import type { SvcClient } from '../sdk/client.js'
import type { SessionRevenue, Settlement, SettlementFeed } from './model.js'

export type SettlementFeedOptions = {
  /** Settlements of the newest page: the most the panel shows. @defaultValue 50 */
  pageSize?: number
  /** Settlements per request when counting the pages after it. @defaultValue 200 (the API's maximum) */
  countPageSize?: number
  /** The session's start (ISO 8601): the feed sums the revenue of the settlements since. @defaultValue no revenue */
  since?: string | undefined
}

const countOf = (settlements: Settlement[]) => {
  const old = settlements.filter((s) => s.old_chain).length
  return { current: settlements.length - old, old }
}

/**
 * A loader of the seller's {@link SettlementFeed} for a poll: each call asks for the newest page; the pages after it are
 * counted again only when that page changed (a new settlement moves one down; a new chain marks them old), so polling
 * a list that does not change costs one small request. With `since`, the revenue since then comes from that page
 * when it reaches back that far, else from the settlements since then, asked again only when the page changed too.
 * Calls must not overlap (a poll's do not).
 */
export function createSettlementFeed(
  client: SvcClient,
  { pageSize = 50, countPageSize = 200, since }: SettlementFeedOptions = {},
): () => Promise<SettlementFeed> {
  let rest: { after: string; head: string; current: number; old: number } | undefined
  let revenue: { head: string; session: SessionRevenue } | undefined
  return async () => {
    const page = await client.settlements.list({ limit: pageSize })
    const newest = page.settlements
    const head = countOf(newest)
    const cursor = page.next_cursor
    // The newest page as it was when the rest was counted: the same page means the same rest.
    const headKey = `${newest[0]?.id}:${head.old}`
    let session: SessionRevenue | undefined
    if (since !== undefined) {
      // The page is newest first: when its oldest is older than `since`, every settlement since is on it.
      const oldest = newest.at(-1)
      if (!cursor || (oldest && oldest.created_at < since)) session = revenueOf(newest, since)
      else {
        if (revenue?.head !== headKey)
          revenue = { head: headKey, session: revenueOf(await listSince(client, since, countPageSize), since) }
        session = revenue.session
      }
    }
    if (!cursor) return { newest, ...head, session }
    if (rest?.after !== cursor || rest.head !== headKey)
      rest = { after: cursor, head: headKey, ...(await countAfter(client, cursor, countPageSize)) }
    return { newest, current: head.current + rest.current, old: head.old + rest.old, session }
  }
}

/** The revenue of the settlements of the running chain made since `since`, summed exactly per asset. */
function revenueOf(settlements: Settlement[], since: string): SessionRevenue {
  const sums = new Map<string, bigint>()
  let count = 0
  for (const s of settlements) {
    if (s.old_chain || s.created_at < since) continue
    count++
    const asset = s.asset.toLowerCase()
    sums.set(asset, (sums.get(asset) ?? 0n) + BigInt(s.amount))
  }
  return { since, count, amounts: Object.fromEntries([...sums].map(([asset, sum]) => [asset, sum.toString()])) }
}

/** Every settlement made since `since` (GET /settlements with `from`), page by page. */
async function listSince(client: SvcClient, since: string, limit: number): Promise<Settlement[]> {
  const all: Settlement[] = []
  for (let next: string | null | undefined; next !== null; ) {
    const page = await client.settlements.list({ from: since, limit, ...(next ? { cursor: next } : {}) })
    all.push(...page.settlements)
    next = page.next_cursor
  }
  return all
}

/** Counts the settlements after `cursor`, page by page: on the running chain and on earlier ones. */
async function countAfter(client: SvcClient, cursor: string, limit: number): Promise<{ current: number; old: number }> {
  const total = { current: 0, old: 0 }
  for (let next: string | null = cursor; next; ) {
    const page = await client.settlements.list({ limit, cursor: next })
    const counted = countOf(page.settlements)
    total.current += counted.current
    total.old += counted.old
    next = page.next_cursor
  }
  return total
}
