import { Text } from 'ink'
import { memo } from 'react'
import { catalogAction } from '../../sdk/bazaar-catalog.js'
import type { BazaarCatalogView } from '../model.js'

export type BazaarLineProps = {
  /** The facilitator's bazaar catalog, newest first; empty (or unknown): the line is not drawn. */
  catalog: BazaarCatalogView | undefined
}

/** `GET weather.dev.localhost/weather/:city`: a listed resource, short (no scheme, no port). */
export function catalogEntrySummary(item: BazaarCatalogView['newest'][number]): string {
  const url = URL.canParse(item.resource) ? new URL(item.resource) : undefined
  return `${catalogAction(item)} ${url ? `${url.hostname}${url.pathname}` : item.resource}`
}

/** How many lines {@link BazaarLine} takes: one while the catalog lists something. */
export const bazaarLineLines = (catalog: BazaarCatalogView | undefined) => (catalog?.total ? 1 : 0)

/**
 * One line under the services' while the facilitator's bazaar catalog lists resources (`svc discovery catalog`):
 * how many, and the newest, in short.
 */
export const BazaarLine = memo(function BazaarLine({ catalog }: BazaarLineProps) {
  if (!catalog?.total) return null
  return (
    <Text wrap="truncate-end">
      <Text color="cyan">{`  bazaar catalog (${catalog.total}) `}</Text>
      <Text>{catalog.newest.map(catalogEntrySummary).join(' · ')}</Text>
    </Text>
  )
})
