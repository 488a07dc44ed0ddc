import { Text } from 'ink'
import { memo } from 'react'
import { loginHints } from '../errors.js'
import { fit, formatPrice, formatTtl } from '../format.js'
import { scrollWindow } from '../layout.js'
import type { ApiWithEndpoints, Loadable } from '../model.js'
import { AboveLine, ErrorLine, Line, MoreLine, Panel } from './Panel.js'

export type ApisPanelProps = {
  loggedIn: boolean
  apis: Loadable<ApiWithEndpoints[]>
  /** The sandbox USDC's address: prices in it are shown in USDC. */
  usdc: string
  /** Now, in ms: ttl countdowns count to it. */
  now: number
  width: number
  /** Lines for the list below the title. @defaultValue all of them */
  rows?: number | undefined
  /** The first line shown (scrolled with the arrows). @defaultValue 0 */
  offset?: number | undefined
  /** Has the focus (Tab). @defaultValue false */
  focused?: boolean | undefined
}

type Item =
  | { kind: 'api'; entry: ApiWithEndpoints }
  | { kind: 'endpoint'; endpoint: ApiWithEndpoints['endpoints'][number] }
  | { kind: 'none' }

function items(apis: ApiWithEndpoints[]): Item[] {
  return apis.flatMap((entry): Item[] => [
    { kind: 'api', entry },
    ...(entry.endpoints.length
      ? entry.endpoints.map((endpoint): Item => ({ kind: 'endpoint', endpoint }))
      : [{ kind: 'none' as const }]),
  ])
}

/** Lines the list wants: an API's line, then one per endpoint; one line for an error or an empty list. */
export function apisPanelWants({ loggedIn, apis }: Pick<ApisPanelProps, 'loggedIn' | 'apis'>): number {
  return !loggedIn || apis.error || !apis.data?.length ? 1 : items(apis.data).length
}

const col = { method: 7, price: 14, maxPrice: 20, ttl: 10, enabled: 3 }

/** Whether an endpoint counts down to its expiry: the panel then needs a `now` that moves. */
export function apisPanelCountsDown(apis: Loadable<ApiWithEndpoints[]>): boolean {
  return apis.data?.some(({ endpoints }) => endpoints.some((endpoint) => endpoint.expires_at !== null)) ?? false
}

/**
 * The seller's Sandbox APIs, each with its gateway URL and its endpoints: method, path, price, ttl countdown and
 * whether it is enabled.
 */
export const ApisPanel = memo(function ApisPanel({
  loggedIn,
  apis,
  usdc,
  now,
  width,
  rows,
  offset,
  focused,
}: ApisPanelProps) {
  const title = 'APIs & endpoints'
  if (!loggedIn) return <Panel title={title} summary={loginHints} width={width} focused={focused} />
  if (apis.error)
    return (
      <Panel title={title} focused={focused}>
        {rows === 0 ? null : <ErrorLine message={apis.error} />}
      </Panel>
    )
  if (!apis.data) return <Panel title={title} summary="loading…" focused={focused} />
  const endpointCount = apis.data.reduce((n, { endpoints }) => n + endpoints.length, 0)
  const summary = `${apis.data.length} API${apis.data.length === 1 ? '' : 's'}, ${endpointCount} endpoint${endpointCount === 1 ? '' : 's'}`
  if (!apis.data.length) return <Panel title={title} summary={emptyHints} width={width} focused={focused} />
  const all = items(apis.data)
  const { shown, above, hidden } = scrollWindow(all, rows ?? Number.POSITIVE_INFINITY, all.length, offset)
  // The price column is as wide as the widest price shown ("up to 0.25 USDC"), at least its usual 14 columns.
  const prices = shown.map((item) => (item.kind === 'endpoint' ? price(item.endpoint.accepts, usdc).length : 0))
  const priceWidth = Math.min(col.maxPrice, Math.max(col.price, ...prices))
  const pathWidth = Math.max(8, width - 8 - col.method - priceWidth - col.ttl - col.enabled - 6)
  return (
    <Panel title={title} summary={summary} focused={focused}>
      <AboveLine above={above} what="lines" />
      {shown.map((item, i) =>
        item.kind === 'api' ? (
          <ApiLine key={`api-${item.entry.api.id}`} api={item.entry.api} width={width} />
        ) : item.kind === 'none' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: a 'none' line has nothing but its place to be known by
          <Line key={`none-${i}`} dim>
            {'  no endpoints yet'}
          </Line>
        ) : (
          <Line key={item.endpoint.id}>
            <Text>{`  ${fit(item.endpoint.method, col.method, true)}`}</Text>
            <Text>{fit(item.endpoint.path_pattern, pathWidth, true)}</Text>
            <Text color="green">{`  ${fit(price(item.endpoint.accepts, usdc), priceWidth, true)}`}</Text>
            <Text color={item.endpoint.expires_at ? 'yellow' : undefined} dimColor={!item.endpoint.expires_at}>
              {`  ${fit(item.endpoint.expires_at ? `ttl ${formatTtl(item.endpoint.expires_at, now)}` : 'no ttl', col.ttl, true)}`}
            </Text>
            {item.endpoint.enabled ? <Text color="green">{'  on'}</Text> : <Text color="red">{'  off'}</Text>}
          </Line>
        ),
      )}
      <MoreLine hidden={hidden} what="lines" />
    </Panel>
  )
})

const emptyHints = [
  'none yet: `svc apis create --sandbox …`, then `svc endpoints add …`',
  'none yet: `svc apis create --sandbox …`',
  'none yet',
]

/** An API's name, cut to leave room for its whole gateway URL (where buyers call it). */
function ApiLine({ api, width }: { api: ApiWithEndpoints['api']; width: number }) {
  const nameWidth = Math.max(12, width - 2 - 2 - api.gateway_url.length)
  return (
    <Line>
      <Text bold>{fit(api.name, nameWidth)}</Text>
      <Text dimColor>{`  ${api.gateway_url}`}</Text>
    </Line>
  )
}

/** The first price option ("up to …" for the upto scheme: the most a call costs), and how many more there are. */
function price(accepts: { scheme: string; asset: string; amount: string }[], usdc: string): string {
  const [first] = accepts
  if (!first) return 'free'
  const amount = formatPrice(first, usdc)
  return `${first.scheme === 'upto' ? `up to ${amount}` : amount}${accepts.length > 1 ? ` +${accepts.length - 1}` : ''}`
}
