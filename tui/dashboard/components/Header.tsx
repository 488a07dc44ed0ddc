import { Text } from 'ink'

export type HeaderProps = {
  sandboxControlUrl: string
  gatewayPort: number
  /** Whether a session is shown, and so whose data the panels have. */
  loggedIn: boolean
}

/** The first line: what this is and where its control plane answers. */
export function Header({ sandboxControlUrl, gatewayPort, loggedIn }: HeaderProps) {
  return (
    <Text wrap="truncate-end">
      <Text bold>svc</Text>
      <Text>{' sandbox'}</Text>
      <Text dimColor>{` · ${sandboxControlUrl} · gateway port ${gatewayPort}${loggedIn ? '' : ' · not logged in'}`}</Text>
    </Text>
  )
}
