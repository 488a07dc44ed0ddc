import { Text } from 'ink'
import { memo } from 'react'
import { fit, formatClock, shortHex } from '../format.js'
import type { PaymentEvent } from '../../sdk/types.js'
import type { RefusalsView } from '../model.js'
import { ErrorLine, Line, Panel } from './Panel.js'

export type RefusedPanelProps = {
  /** The refused payments seen so far; none (and no error): the panel is not drawn. */
  refusals: RefusalsView
  width: number
}

/** Refused payments listed under the title: the newest; the title counts them all. */
export const refusedShown = 3

/** How many lines {@link RefusedPanel} takes: none until a payment is refused, then its title and the newest few. */
export const refusedPanelLines = ({ newest, total, error }: RefusalsView) =>
  error ? 2 : total ? 1 + Math.min(newest.length, refusedShown) : 0

/** The columns before the request: the indent, the time and its gap. */
const lead = 2 + 8 + 2

/**
 * The payments verify or settle refused while the dashboard runs (fed by the live event stream), newest first: time,
 * API and request, the x402 reason code (in red, never cut while the request can give way), the payer and what the
 * buyer was told (as far as the line goes). Not drawn before the first one.
 */
export const RefusedPanel = memo(function RefusedPanel({ refusals, width }: RefusedPanelProps) {
  const { newest, total, error } = refusals
  const title = 'Refused payments'
  if (error)
    return (
      <Panel title={title}>
        <ErrorLine message={`event stream: ${error}`} />
      </Panel>
    )
  if (!total) return null
  const shown = newest.slice(0, refusedShown)
  const requestOf = (event: PaymentEvent) => `${event.api_slug} ${event.method} ${event.path}`
  const reasonOf = (event: PaymentEvent) => event.reason ?? `HTTP ${event.status}`
  // The request column: as wide as the longest, narrowed (to 16 at least) so that the longest reason fits whole.
  const longest = (texts: string[]) => Math.max(0, ...texts.map((text) => text.length))
  const requestWidth = Math.min(
    longest(shown.map(requestOf)),
    Math.max(16, width - lead - 2 - longest(shown.map(reasonOf))),
  )
  const reasonWidth = longest(shown.map(reasonOf))
  return (
    <Panel
      title={title}
      summary={[`${total} since the dashboard started, newest first`, `${total}, newest first`, String(total)]}
      width={width}
    >
      {shown.map((event) => {
        // What the line has left after the reason: the payer if it fits whole, then the message, cut.
        let room = width - lead - requestWidth - 2 - reasonWidth
        const payer = event.payer ? `  from ${shortHex(event.payer)}` : ''
        const withPayer = payer.length <= room ? payer : ''
        room -= withPayer.length
        const message = event.error && room >= 2 + 12 ? `  ${fit(event.error, room - 2)}` : ''
        return (
          <Line key={event.id}>
            <Text dimColor>{formatClock(event.created_at)}</Text>
            <Text>{`  ${fit(requestOf(event), requestWidth, true)}`}</Text>
            <Text color="red">{`  ${reasonOf(event)}`}</Text>
            {withPayer || message ? <Text>{' '.repeat(reasonWidth - reasonOf(event).length)}</Text> : null}
            {withPayer ? <Text>{withPayer}</Text> : null}
            {message ? <Text dimColor>{message}</Text> : null}
          </Line>
        )
      })}
    </Panel>
  )
})
