import { Box, Text } from 'ink'
import { memo } from 'react'
import { Line, TitleLine } from './Panel.js'

export type HelpOverlayProps = {
  /** The faucet key is listed (it needs a session). */
  faucet: boolean
  /** The new-key banner's key is listed (`svc up --seed` made keys). */
  newKeys: boolean
}

type Entry = readonly [keys: string, what: string]

/** Every key, one a line. */
export function helpEntries({ faucet, newKeys }: HelpOverlayProps): Entry[] {
  return [
    ['Tab / Shift-Tab', 'move between APIs, Settlements and Outbox (▸ marks it)'],
    ['↑ ↓', 'scroll the focused panel a line'],
    ['PgUp PgDn', 'scroll it a page'],
    ['Home End', 'to its top or its end'],
    ...(faucet ? [['f', 'fund the Sandbox wallet (ETH and USDC from the faucet)'] as const] : []),
    ['r', 'refresh every panel now'],
    ...(newKeys ? [['k', 'hide the new API key, or show it again'] as const] : []),
    ['?  Esc', 'close this help'],
    ['q  Ctrl-C', 'quit (stops the sandbox)'],
  ]
}

/** Lines the overlay takes: its title and one per key. */
export const helpOverlayLines = (props: HelpOverlayProps) => 1 + helpEntries(props).length

/** The `?` overlay: every key and what it does, in place of the panels. */
export const HelpOverlay = memo(function HelpOverlay(props: HelpOverlayProps) {
  const entries = helpEntries(props)
  const width = Math.max(...entries.map(([keys]) => keys.length))
  return (
    <Box flexDirection="column">
      <TitleLine title="Keys">
        <Text dimColor>? or Esc closes</Text>
      </TitleLine>
      {entries.map(([keys, what]) => (
        <Line key={keys}>
          <Text bold>{keys.padEnd(width)}</Text>
          <Text>{`  ${what}`}</Text>
        </Line>
      ))}
    </Box>
  )
})
