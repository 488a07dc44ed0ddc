import type { SvcClient } from '../sdk/client.js'
import type { Settlement, SettlementFeed } from './model.js'

export type SettlementFeedOptions = {
  /** Settlements of the newest page: the most the panel shows. @defaultValue 50 */
  pageSize?: number
  /** Settlements per request when counting the pages after it. @defaultValue 200 (the API's maximum) */
  countPageSize?: number
}

const countOf = (settlements: Settlement[]) => {
  const old = settlements.filter((s) => s.old_chain).length
  return { current: settlements.length - old, old }
}

/**
 * A loader of the seller's {@link SettlementFeed} for a poll: each call asks for the newest page; the pages after it are
 * counted again only when that page changed (a new settlement moves one down; a new chain marks them old), so polling
 * a list that does not change costs one small request. Calls must not overlap (a poll's do not).
 */
export function createSettlementFeed(
  client: SvcClient,
  { pageSize = 50, countPageSize = 200 }: SettlementFeedOptions = {},
): () => Promise<SettlementFeed> {
  let rest: { after: string; head: string; current: number; old: number } | undefined
  return async () => {
    const page = await client.settlements.list({ limit: pageSize })
    const newest = page.settlements
    const head = countOf(newest)
    const cursor = page.next_cursor
    if (!cursor) return { newest, ...head }
    // The newest page as it was when the rest was counted: the same page means the same rest.
    const headKey = `${newest[0]?.id}:${head.old}`
    if (rest?.after !== cursor || rest.head !== headKey)
      rest = { after: cursor, head: headKey, ...(await countAfter(client, cursor, countPageSize)) }
    return { newest, current: head.current + rest.current, old: head.old + rest.old }
  }
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
