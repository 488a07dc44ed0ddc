import { Text } from 'ink'
import { memo } from 'react'
import { loginHints } from '../errors.js'
import { fit, formatClock, formatPrice, shortHex } from '../format.js'
import { scrollWindow } from '../layout.js'
import type { ApiWithEndpoints, Loadable, Settlement, SettlementFeed } from '../model.js'
import { escrowStatus, escrowStatusColor } from './EscrowLine.js'
import { AboveLine, ErrorLine, Line, MoreLine, Panel } from './Panel.js'

export type SettlementsPanelProps = {
  loggedIn: boolean
  /** The newest settlements and how many there are in all: "… n more" counts those the page left out too. */
  settlements: Loadable<SettlementFeed>
  /** The sandbox USDC's address: amounts in it are shown in USDC. */
  usdc: string
  /** The seller's APIs: each settlement names the API (its slug) and, where the width allows, the upstream it served. */
  apis?: ApiWithEndpoints[] | undefined
  width: number
  /** Lines for the list below the title. @defaultValue all of them */
  rows?: number | undefined
  /** The first settlement shown (scrolled with the arrows). @defaultValue 0 */
  offset?: number | undefined
  /** Has the focus (Tab). @defaultValue false */
  focused?: boolean | undefined
}

/** Lines the list wants: one per settlement; one for an error or an empty list. */
export function settlementsPanelWants({
  loggedIn,
  settlements,
}: Pick<SettlementsPanelProps, 'loggedIn' | 'settlements'>): number {
  const current = settlements.data?.current ?? 0
  return !loggedIn || settlements.error || current === 0 ? 1 : current
}

/** The settlements of the running chain the page holds: what the panel can scroll through. */
export const loadedSettlements = (feed: SettlementFeed | undefined): number =>
  feed ? feed.newest.filter((s) => !s.old_chain).length : 0

/** Newest first, by creation time then id (as GET /settlements orders them). */
function newestFirst(settlements: Settlement[]): Settlement[] {
  return [...settlements].sort((a, b) =>
    a.created_at === b.created_at ? b.id.localeCompare(a.id) : b.created_at.localeCompare(a.created_at),
  )
}

const col = { time: 8, maxApi: 14, maxAmount: 16, status: 9, maxStatus: 30, payer: 18, tx: 16, maxUpstream: 30 }

/** The narrowest the method and path get before the payer, the transaction and the upstream give way. */
const minPath = 16

/** `host:port` of an upstream base URL (its path too, when it has one). */
function upstreamOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl)
    return `${url.host}${url.pathname === '/' ? '' : url.pathname}`
  } catch {
    return baseUrl
  }
}

/**
 * A settlement's status: an escrow payment's (x402 auth-capture) state, `held 0.01`, `captured 0.006 of 0.01`,
 * `voided`…; else whether the buyer got the answer ("delivered", or "no answer" in red: charged without it).
 */
function statusOf(s: Settlement): { text: string; color?: string | undefined; dim?: boolean } {
  if (s.escrow) {
    const text = escrowStatus(s.escrow)
    return s.delivered ? { text, color: escrowStatusColor(s.escrow) } : { text: `${text}, no answer`, color: 'red' }
  }
  return s.delivered ? { text: 'delivered', dim: true } : { text: 'no answer', color: 'red' }
}

/**
 * The seller's latest Sandbox settlements on the running chain, newest first: time, the API (its slug), method and
 * path, amount, its status (an escrow payment's state; else "delivered", or "no answer" in red: charged without the
 * answer), then as the width allows the payer, the transaction and the API's upstream. Those of an earlier chain are
 * only counted.
 */
export const SettlementsPanel = memo(function SettlementsPanel({
  loggedIn,
  settlements,
  usdc,
  apis,
  width,
  rows,
  offset,
  focused,
}: SettlementsPanelProps) {
  const title = 'Settlements'
  if (!loggedIn) return <Panel title={title} summary={loginHints} width={width} focused={focused} />
  if (settlements.error)
    return (
      <Panel title={title} focused={focused}>
        {rows === 0 ? null : <ErrorLine message={settlements.error} />}
      </Panel>
    )
  if (!settlements.data) return <Panel title={title} summary="loading…" focused={focused} />
  // Settlements of an earlier chain are not current: their transactions are gone with that chain.
  const { newest, current: count, old } = settlements.data
  const current = newest.filter((s) => !s.old_chain)
  const earlier = old ? ` (${old} from an earlier chain not shown)` : ''
  if (!count)
    return (
      <Panel
        title={title}
        summary={[`none yet: paid requests to your Sandbox APIs show here${earlier}`, `none yet${earlier}`, 'none yet']}
        width={width}
        focused={focused}
      />
    )
  const { shown, above, hidden } = scrollWindow(newestFirst(current), rows ?? Number.POSITIVE_INFINITY, count, offset)
  const apiOf = new Map(apis?.map(({ api }) => [api.id, api]))
  // A settlement of an API since deleted names its id.
  const slugOf = (s: Settlement) => apiOf.get(s.api_id)?.slug ?? s.api_id
  const apiWidth = Math.min(col.maxApi, Math.max(3, ...shown.map((s) => slugOf(s).length)))
  const amountWidth = Math.min(col.maxAmount, Math.max(0, ...shown.map((s) => formatPrice(s, usdc).length)))
  const upstreams = shown.map((s) => {
    const api = apiOf.get(s.api_id)
    return api ? upstreamOf(api.upstream_base_url) : ''
  })
  const upstreamWidth = Math.min(col.maxUpstream, Math.max(0, ...upstreams.map((u) => u.length)))
  const statuses = shown.map(statusOf)
  const statusWidth = Math.min(col.maxStatus, Math.max(col.status, ...statuses.map((status) => status.text.length)))
  // Narrow terminals drop the upstream, then the transaction, then the payer, before the path gets too short.
  const fixed = 2 + col.time + 2 + apiWidth + 1 + 2 + amountWidth + 2 + statusWidth
  const optional = [col.payer, col.tx, upstreamWidth ? 6 + upstreamWidth : 0]
  let shownColumns = 0
  let used = fixed
  while (shownColumns < optional.length && width - used - optional[shownColumns]! >= minPath)
    used += optional[shownColumns++]!
  const [showPayer, showTx, showUpstream] = [0, 1, 2].map((i) => i < shownColumns && optional[i]! > 0)
  const pathWidth = Math.max(8, width - used)
  return (
    <Panel title={title} summary={[`newest first${earlier}`, 'newest first']} width={width} focused={focused}>
      <AboveLine above={above} what="settlements" />
      {shown.map((s, i) => (
        <Line key={s.id}>
          <Text dimColor>{formatClock(s.created_at)}</Text>
          <Text bold>{`  ${fit(slugOf(s), apiWidth, true)}`}</Text>
          <Text>{` ${fit(`${s.method} ${s.path}`, pathWidth, true)}`}</Text>
          <Text color="green">{`  ${fit(formatPrice(s, usdc), amountWidth, true)}`}</Text>
          {/* No answer: charged without it (the upstream failed after an upfront settlement, the buyer left, or svc stopped mid-payment). */}
          <Text
            color={statuses[i]!.color}
            dimColor={statuses[i]!.dim}
          >{`  ${fit(statuses[i]!.text, statusWidth, true)}`}</Text>
          {showPayer ? <Text>{`  from ${shortHex(s.payer)}`}</Text> : null}
          {/* An upto payment settled at 0 has no transaction. */}
          {showTx ? (
            <Text dimColor>{(s.transaction ? `  tx ${shortHex(s.transaction)}` : '  no tx (0)').padEnd(col.tx)}</Text>
          ) : null}
          {showUpstream ? <Text dimColor>{`  via ${fit(upstreams[i]!, upstreamWidth)}`}</Text> : null}
        </Line>
      ))}
      <MoreLine hidden={hidden} what="settlements" />
    </Panel>
  )
})
