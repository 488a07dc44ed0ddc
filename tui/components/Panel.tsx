import { Box, Text } from 'ink'
import type { ReactNode } from 'react'
import { fitFirst } from '../format.js'

export type PanelProps = {
  title: string
  /**
   * Dim text after the title, on the same line; several: the fullest first, the first that fits `width` is shown (a
   * hint is shortened rather than cut).
   */
  summary?: string | readonly string[] | undefined
  /** Columns of the terminal, for a `summary` with several forms. @defaultValue the first form is shown */
  width?: number | undefined
  /** The panel has the focus (Tab): its title is marked `▸` and shown inverse. @defaultValue false */
  focused?: boolean | undefined
  children?: ReactNode
}

/** A titled section: one title line, then its lines (each cut to the width, never wrapped). */
export function Panel({ title, summary, width, focused, children }: PanelProps) {
  const text =
    typeof summary === 'string' || summary === undefined
      ? summary
      : fitFirst(summary, (width ?? Number.POSITIVE_INFINITY) - title.length - 2 - (focused ? 2 : 0))
  return (
    <Box flexDirection="column">
      <TitleLine title={title} focused={focused}>
        {text ? <Text dimColor>{text}</Text> : null}
      </TitleLine>
      {children}
    </Box>
  )
}

/** The title in bold cyan (`▸` and inverse when focused), then `children` after two spaces, on one line. */
export function TitleLine({
  title,
  focused,
  children,
}: {
  title: string
  focused?: boolean | undefined
  children?: ReactNode
}) {
  return (
    <Text wrap="truncate-end">
      {focused ? (
        <Text bold color="cyan">
          {'▸ '}
        </Text>
      ) : null}
      <Text bold color="cyan" inverse={focused}>
        {title}
      </Text>
      {children ? <Text>{'  '}</Text> : null}
      {children}
    </Text>
  )
}

/** One line of a panel, indented, cut to the width. */
export function Line({ children, dim }: { children?: ReactNode; dim?: boolean }) {
  return (
    <Text wrap="truncate-end" dimColor={dim}>
      {'  '}
      {children}
    </Text>
  )
}

/** A failure in one line, in red. */
export function ErrorLine({ message }: { message: string }) {
  return (
    <Line>
      <Text color="red">{`✖ ${message}`}</Text>
    </Line>
  )
}

/** "↑ n above" when a list is scrolled down. */
export function AboveLine({ above, what }: { above: number; what: string }) {
  return above > 0 ? <Line dim>{`↑ ${above} more ${what} above`}</Line> : null
}

/** "… n more" when a list did not fit. */
export function MoreLine({ hidden, what }: { hidden: number; what: string }) {
  return hidden > 0 ? <Line dim>{`… ${hidden} more ${what}`}</Line> : null
}
