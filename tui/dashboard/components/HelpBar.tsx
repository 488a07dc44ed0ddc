import { Text } from 'ink'
import { Fragment } from 'react'

export type HelpBarProps = {
  /** Show the faucet key (it needs a session). */
  faucet: boolean
}

/** The keys, on the last line. */
export function HelpBar({ faucet }: HelpBarProps) {
  const keys: [string, string][] = [...(faucet ? ([['f', 'fund wallet']] as [string, string][]) : []), ['r', 'refresh'], ['q', 'quit']]
  return (
    <Text wrap="truncate-end">
      {keys.map(([key, what], i) => (
        <Fragment key={key}>
          {i > 0 ? <Text dimColor>{' · '}</Text> : null}
          <Text bold inverse>{` ${key} `}</Text>
          <Text>{` ${what}`}</Text>
        </Fragment>
      ))}
    </Text>
  )
}
