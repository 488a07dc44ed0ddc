import { Box, Text } from 'ink'
import { Fragment, memo } from 'react'
import { formatClock } from '../format.js'
import type { RefreshStatus } from '../hooks/use-refresh-status.js'

export type HelpBarProps = {
  /** Show the faucet key (it needs a session). */
  faucet: boolean
  /** Columns of the terminal: keys that do not fit go on another line, never cut. @defaultValue one line */
  width?: number | undefined
  /** What the last `r` did: its label says "refreshing…", then "refreshed HH:MM:SS". @defaultValue idle */
  refresh?: RefreshStatus | undefined
}

type Key = readonly [key: string, what: string]

const separator = ' · '
/** ` f ` then ` fund wallet`. */
const widthOf = ([key, what]: Key) => key.length + 2 + 1 + what.length

function refreshLabel(status: RefreshStatus | undefined): string {
  if (status?.state === 'refreshing') return 'refreshing…'
  if (status?.state === 'refreshed') return `refreshed ${formatClock(new Date(status.at).toISOString())}`
  return 'refresh'
}

function keysOf(faucet: boolean, refresh: RefreshStatus | undefined): Key[] {
  return [
    ...(faucet ? [['f', 'fund wallet'] as const] : []),
    ['r', refreshLabel(refresh)],
    ['tab', 'panels'],
    ['?', 'help'],
    ['q', 'quit'],
  ]
}

/** The keys in lines of at most `width` columns, in order (a key wider than a line gets a line of its own). */
function wrapKeys(keys: Key[], width: number): Key[][] {
  const lines: Key[][] = []
  let used = 0
  for (const key of keys) {
    const line = lines.at(-1)
    if (line && used + separator.length + widthOf(key) <= width) {
      line.push(key)
      used += separator.length + widthOf(key)
    } else {
      lines.push([key])
      used = widthOf(key)
    }
  }
  return lines
}

/** Lines the help bar takes at `width` columns. */
export function helpBarLines({ faucet, width = Number.POSITIVE_INFINITY, refresh }: HelpBarProps): number {
  return wrapKeys(keysOf(faucet, refresh), width).length
}

/** The keys, on the last line (or lines, in a terminal too narrow for them). */
export const HelpBar = memo(function HelpBar({ faucet, width = Number.POSITIVE_INFINITY, refresh }: HelpBarProps) {
  return (
    <Box flexDirection="column">
      {wrapKeys(keysOf(faucet, refresh), width).map((line) => (
        <Text key={line.map(([key]) => key).join('')} wrap="truncate-end">
          {line.map(([key, what], i) => (
            <Fragment key={key}>
              {i > 0 ? <Text dimColor>{separator}</Text> : null}
              <Text bold inverse>{` ${key} `}</Text>
              <Text color={key === 'r' && refresh?.state === 'refreshing' ? 'yellow' : undefined}>{` ${what}`}</Text>
            </Fragment>
          ))}
        </Text>
      ))}
    </Box>
  )
})
