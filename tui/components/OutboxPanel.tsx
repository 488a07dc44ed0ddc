import { Text } from 'ink'
import { memo } from 'react'
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

const commandOf = (token: string) => `svc verify-email ${token}`

/** The local outbox, newest first: when (if there is room), to whom, and the command that verifies the address (or the subject). */
export const OutboxPanel = memo(function OutboxPanel({ outbox, width, rows }: OutboxPanelProps) {
  const title = 'Outbox'
  if (outbox.error) return <Panel title={title}>{rows === 0 ? null : <ErrorLine message={outbox.error} />}</Panel>
  if (!outbox.data) return <Panel title={title} summary="loading…" />
  if (!outbox.data.length)
    return <Panel title={title} summary="no mails yet (verification mails of `svc signup` land here)" />
  const { shown, hidden } = visibleItems(outbox.data, rows ?? Number.POSITIVE_INFINITY)
  // The `svc verify-email` command is whole first (a cut token verifies nothing); the address gets what is left, at
  // least 10 columns, and the time only when there is room for both.
  const command = Math.max(0, ...shown.map((m) => (m.token ? commandOf(m.token).length : 0)))
  const room = width - 2 - 2 - command
  const showTime = room - 10 >= 10
  const toWidth = Math.min(32, Math.max(10, room - (showTime ? 10 : 0)))
  return (
    <Panel title={title} summary="verification mails, newest first">
      {shown.map((m) => (
        <Line key={m.id}>
          {showTime ? <Text dimColor>{`${formatClock(m.created_at)}  `}</Text> : null}
          <Text>{fit(m.to, toWidth, true)}</Text>
          {m.token ? <Text color="yellow">{`  ${commandOf(m.token)}`}</Text> : <Text>{`  ${m.subject}`}</Text>}
        </Line>
      ))}
      <MoreLine hidden={hidden} what="mails" />
    </Panel>
  )
})
