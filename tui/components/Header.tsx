import { Text } from 'ink'
import { memo } from 'react'

export type HeaderProps = {
  sandboxControlUrl: string
  gatewayPort: number
  /** Whether a session is shown, and so whose data the panels have. */
  loggedIn: boolean
  /** Columns of the terminal: "not logged in" is left out rather than cut (the panels say it too). @defaultValue no limit */
  width?: number | undefined
}

/** The first line: what this is and where its control plane answers. */
export const Header = memo(function Header({
  sandboxControlUrl,
  gatewayPort,
  loggedIn,
  width = Number.POSITIVE_INFINITY,
}: HeaderProps) {
  const where = ` · ${sandboxControlUrl} · gateway port ${gatewayPort}`
  const notLoggedIn = ' · not logged in'
  const room = width - 'svc sandbox'.length - where.length
  return (
    <Text wrap="truncate-end">
      <Text bold>svc</Text>
      <Text>{' sandbox'}</Text>
      <Text dimColor>{`${where}${loggedIn || notLoggedIn.length > room ? '' : notLoggedIn}`}</Text>
    </Text>
  )
})
