import { useStdout } from 'ink'
import { useEffect, useState } from 'react'

export type WindowSize = { columns: number; rows: number }

/** Assumed when the output is not a terminal (a pipe, a test stream): the classic 80×24. */
const fallback: WindowSize = { columns: 80, rows: 24 }

/** Erase the screen and the scrollback, cursor home. */
const clearScreen = '\u001b[2J\u001b[3J\u001b[H'

function sizeOf(stdout: NodeJS.WriteStream): WindowSize {
  return { columns: stdout.columns || fallback.columns, rows: stdout.rows || fallback.rows }
}

/**
 * The terminal's size, updated when it is resized (stdout's 'resize' event). On a terminal, a resize also repaints
 * the whole screen: terminals reflow the old lines their own way, which would leave pieces of earlier frames.
 */
export function useWindowSize(): WindowSize {
  const { stdout, write } = useStdout()
  const [size, setSize] = useState(() => sizeOf(stdout))
  useEffect(() => {
    const onResize = () => {
      // Ink's own write clears its frame, writes this, then draws the frame again from the top.
      if (stdout.isTTY) write(clearScreen)
      setSize(sizeOf(stdout))
    }
    setSize(sizeOf(stdout))
    stdout.on('resize', onResize)
    return () => void stdout.off('resize', onResize)
  }, [stdout, write])
  return size
}
