import { Text } from 'ink'
import { memo } from 'react'
import { loginHints } from '../errors.js'
import { fit, formatClock, formatPrice, shortHex } from '../format.js'
import { scrollWindow } from '../layout.js'
import type { Loadable, Settlement, SettlementFeed } from '../model.js'
import { AboveLine, ErrorLine, Line, MoreLine, Panel } from './Panel.js'

export type SettlementsPanelProps = {
  loggedIn: boolean
  /** The newest settlements and how many there are in all: "… n more" counts those the page left out too. */
  settlements: Loadable<SettlementFeed>
  /** The sandbox USDC's address: amounts in it are shown in USDC. */
  usdc: string
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

const col = { time: 8, amount: 13, payer: 16, tx: 14, undelivered: 12 }

/**
 * The seller's latest Sandbox settlements on the running chain, newest first: time, method and path, amount, payer
 * and transaction; a buyer charged without getting the answer is marked "no answer" in red. Those of an earlier chain
 * are only counted.
 */
export const SettlementsPanel = memo(function SettlementsPanel({
  loggedIn,
  settlements,
  usdc,
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
  // Charged without the answer (the buyer left after the settlement, or svc stopped mid-payment): marked on its line.
  const undelivered = shown.some((s) => !s.delivered)
  // Narrow terminals drop the transaction, then the payer, before the path gets too short.
  const markWidth = undelivered ? col.undelivered : 0
  const showTx = width >= 72 + markWidth
  const showPayer = width >= 56 + markWidth
  const pathWidth = Math.max(
    8,
    width - 2 - col.time - col.amount - 6 - (showPayer ? col.payer + 2 : 0) - (showTx ? col.tx + 2 : 0) - markWidth,
  )
  return (
    <Panel title={title} summary={[`newest first${earlier}`, 'newest first']} width={width} focused={focused}>
      <AboveLine above={above} what="settlements" />
      {shown.map((s) => (
        <Line key={s.id}>
          <Text dimColor>{formatClock(s.created_at)}</Text>
          <Text>{`  ${fit(`${s.method} ${s.path}`, pathWidth, true)}`}</Text>
          <Text color="green">{`  ${fit(formatPrice(s, usdc), col.amount, true)}`}</Text>
          {undelivered ? <Text color="red">{s.delivered ? ' '.repeat(col.undelivered) : '  no answer '}</Text> : null}
          {showPayer ? <Text>{`  from ${shortHex(s.payer)}`}</Text> : null}
          {/* An upto payment settled at 0 has no transaction. */}
          {showTx ? <Text dimColor>{s.transaction ? `  tx ${shortHex(s.transaction)}` : '  no tx (0)'}</Text> : null}
        </Line>
      ))}
      <MoreLine hidden={hidden} what="settlements" />
    </Panel>
  )
})
