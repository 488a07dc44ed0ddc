import { useInput, useStdin } from 'ink'

export type KeyActions = {
  onQuit(): void
  onFaucet(): void
  onRefresh(): void
  /** Tab (+1) / Shift-Tab (-1). */
  onMove?(step: 1 | -1): void
  /** ↑ ↓ (one line), Page Up / Page Down (`pages`). */
  onScroll?(lines: number, pages?: boolean): void
  /** Home / End. */
  onJump?(to: 'top' | 'bottom'): void
  /** `?`. */
  onHelp?(): void
  /** Esc: closes what is open (the help). */
  onEscape?(): void
  /** `k`: hides the new-key banner, or shows it again. */
  onToggleKeys?(): void
  /** While the help is open only `?`, Esc and quit act. @defaultValue false */
  helpOpen?: boolean
}

/**
 * The dashboard's keys: `q` or Ctrl-C quit, `f` funds the Sandbox wallet, `r` refreshes now, Tab / Shift-Tab move
 * between panels, the arrows (Page Up / Down, Home / End) scroll the focused one, `k` hides or shows the new key, `?`
 * opens the help. Inactive without a raw-mode stdin.
 */
export function useKeys(actions: KeyActions): void {
  const { isRawModeSupported } = useStdin()
  useInput(
    (input, key) => {
      const { onQuit, onFaucet, onRefresh, onMove, onScroll, onJump, onHelp, onEscape, onToggleKeys } = actions
      if (input === 'q' || input === 'Q' || (key.ctrl && input === 'c') || input === '\u0003') return onQuit()
      if (input === '?') return onHelp?.()
      if (key.escape) return onEscape?.()
      if (actions.helpOpen) return
      if (key.tab) return onMove?.(key.shift ? -1 : 1)
      if (key.upArrow) return onScroll?.(-1)
      if (key.downArrow) return onScroll?.(1)
      if (key.pageUp) return onScroll?.(-1, true)
      if (key.pageDown) return onScroll?.(1, true)
      if (key.home) return onJump?.('top')
      if (key.end) return onJump?.('bottom')
      if (input === 'f' || input === 'F') return onFaucet()
      if (input === 'r' || input === 'R') return onRefresh()
      if (input === 'k' || input === 'K') return onToggleKeys?.()
    },
    { isActive: isRawModeSupported },
  )
}
