import { Text } from 'ink'
import { fit, formatClock } from '../format.js'
import { visibleItems } from '../layout.js'
import type { Loadable, OutboxMessage } from '../model.js'
import { ErrorLine, Line, MoreLine, Panel } from './Panel.js'

export type OutboxPanelProps = {
  outbox: Loadable<OutboxMessage[]>
  width: number
  /** Lines for the list below the title. @defaultValue all of them */
  rows?: number | undefined
}

/** Lines the list wants: one per mail; one for an error or an empty outbox. */
export function outboxPanelWants({ outbox }: Pick<OutboxPanelProps, 'outbox'>): number {
  return outbox.error || !outbox.data?.length ? 1 : outbox.data.length
}

/** The local outbox, newest first: when, to whom, and the command that verifies the address (or the subject). */
export function OutboxPanel({ outbox, width, rows }: OutboxPanelProps) {
  const title = 'Outbox'
  if (outbox.error) return <Panel title={title}>{rows === 0 ? null : <ErrorLine message={outbox.error} />}</Panel>
  if (!outbox.data) return <Panel title={title} summary="loading…" />
  if (!outbox.data.length) return <Panel title={title} summary="no mails yet (verification mails of `svc signup` land here)" />
  const { shown, hidden } = visibleItems(outbox.data, rows ?? Number.POSITIVE_INFINITY)
  // Room for the time and `svc verify-email` with a whole token (32 characters) first; the address gets the rest.
  const toWidth = Math.min(32, Math.max(10, width - 2 - 8 - 2 - 2 - 49))
  return (
    <Panel title={title} summary="verification mails, newest first">
      {shown.map((m) => (
        <Line key={m.id}>
          <Text dimColor>{formatClock(m.created_at)}</Text>
          <Text>{`  ${fit(m.to, toWidth, true)}`}</Text>
          {m.token ? <Text color="yellow">{`  svc verify-email ${m.token}`}</Text> : <Text>{`  ${m.subject}`}</Text>}
        </Line>
      ))}
      <MoreLine hidden={hidden} what="mails" />
    </Panel>
  )
}
