import { useInput, useStdin } from 'ink'

export type KeyActions = {
  onQuit(): void
  onFaucet(): void
  onRefresh(): void
}

/** The dashboard's keys: `q` or Ctrl-C quit, `f` funds the Sandbox wallet, `r` refreshes now. Inactive without a raw-mode stdin. */
export function useKeys({ onQuit, onFaucet, onRefresh }: KeyActions): void {
  const { isRawModeSupported } = useStdin()
  useInput(
    (input, key) => {
      if (input === 'q' || input === 'Q' || (key.ctrl && input === 'c') || input === '\u0003') return onQuit()
      if (input === 'f' || input === 'F') return onFaucet()
      if (input === 'r' || input === 'R') return onRefresh()
    },
    { isActive: isRawModeSupported },
  )
}
