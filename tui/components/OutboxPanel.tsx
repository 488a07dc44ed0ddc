import { Text } from 'ink'
import { memo } from 'react'
import { fit, formatClock } from '../format.js'
import { scrollWindow } from '../layout.js'
import type { Loadable, OutboxMessage } from '../model.js'
import { AboveLine, ErrorLine, Line, MoreLine, Panel } from './Panel.js'

export type OutboxPanelProps = {
  outbox: Loadable<OutboxMessage[]>
  width: number
  /** Lines for the list below the title. @defaultValue all of them */
  rows?: number | undefined
  /** The first mail shown (scrolled with the arrows). @defaultValue 0 */
  offset?: number | undefined
  /** Has the focus (Tab). @defaultValue false */
  focused?: boolean | undefined
}

/** The mails still to act on: a mail whose address is verified (`used`) has nothing left to do, so it takes no line. */
export const pendingMails = (outbox: Loadable<OutboxMessage[]>): OutboxMessage[] =>
  outbox.data?.filter((m) => !m.used) ?? []

/** Lines the list wants: one per mail still to act on; one for an error or an empty outbox; none when all are used. */
export function outboxPanelWants({ outbox }: Pick<OutboxPanelProps, 'outbox'>): number {
  if (outbox.error || !outbox.data?.length) return 1
  return pendingMails(outbox).length
}

const commandOf = (token: string) => `svc verify-email ${token}`

/**
 * The local outbox, newest first: when (if there is room), to whom, and the command that verifies the address (or the
 * subject). Mails to addresses already verified are only counted in the title.
 */
export const OutboxPanel = memo(function OutboxPanel({ outbox, width, rows, offset, focused }: OutboxPanelProps) {
  const title = 'Outbox'
  if (outbox.error)
    return (
      <Panel title={title} focused={focused}>
        {rows === 0 ? null : <ErrorLine message={outbox.error} />}
      </Panel>
    )
  if (!outbox.data) return <Panel title={title} summary="loading…" focused={focused} />
  if (!outbox.data.length)
    return (
      <Panel title={title} summary="no mails yet (verification mails of `svc signup` land here)" focused={focused} />
    )
  const pending = pendingMails(outbox)
  const used = outbox.data.length - pending.length
  const usedNote = used ? `${used} used (address verified), hidden` : ''
  if (!pending.length)
    return <Panel title={title} summary={`${used} mail${used === 1 ? '' : 's'}, all used`} focused={focused} />
  const { shown, above, hidden } = scrollWindow(pending, rows ?? Number.POSITIVE_INFINITY, pending.length, offset)
  // The `svc verify-email` command is whole first (a cut token verifies nothing); the address gets what is left, at
  // least 10 columns, and the time only when there is room for both.
  const command = Math.max(0, ...shown.map((m) => (m.token ? commandOf(m.token).length : 0)))
  const room = width - 2 - 2 - command
  const showTime = room - 10 >= 10
  const toWidth = Math.min(32, Math.max(10, room - (showTime ? 10 : 0)))
  const summary = ['verification mails, newest first', usedNote].filter(Boolean)
  return (
    <Panel
      title={title}
      summary={[summary.join(' · '), usedNote || summary[0]!, used ? `${used} used, hidden` : '']}
      width={width}
      focused={focused}
    >
      <AboveLine above={above} what="mails" />
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
