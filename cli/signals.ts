export type FirstSignalOptions = {
  /** @defaultValue ['SIGTERM', 'SIGINT'] */
  signals?: readonly NodeJS.Signals[] | undefined
  /**
   * Aborted: the listeners go, a moment later (never within the signal's own handling). For a command that ends and
   * leaves the process running, as the CLI's tests run it; a command that ends with the process needs none.
   */
  until?: AbortSignal | undefined
}

/**
 * The first of `signals` from now on; another one then exits at once with code 1 (`say` tells why). Its listeners are
 * `process.on`, kept for good or until `until`, never `process.once`: a listener removed while the signal is being
 * handled lets another library's exit handler (signal-exit, loaded by execa when a child such as Anvil is spawned)
 * find itself alone and re-raise the signal, killing svc before it stopped (a CI flake of `svc serve`).
 */
export function firstSignal(say: (line: string) => void, options: FirstSignalOptions = {}): Promise<NodeJS.Signals> {
  const { signals = ['SIGTERM', 'SIGINT'], until } = options
  return new Promise((resolve) => {
    let first: NodeJS.Signals | undefined
    const on = (name: NodeJS.Signals) => {
      if (first === undefined) return resolve((first = name))
      say(`svc: ${name} again: exiting without waiting`)
      process.exit(1)
    }
    for (const name of signals) process.on(name, on)
    // Later (setImmediate): `until` may be aborted by the very signal being handled; signal-exit must still see `on`.
    const release = () => {
      for (const name of signals) process.off(name, on)
    }
    until?.addEventListener('abort', () => setImmediate(release), { once: true })
  })
}

/** How long svc's stop may take after a signal (and, for `svc serve`, after its drain) before svc exits anyway. */
export const stopTimeoutMs = 30_000

/**
 * Waits for `stop`, at most `timeoutMs`: a stop that hangs (a step waiting on something that will never answer) must
 * not keep svc running after a signal. Then svc exits with code 1, saying so; Anvil's watchdog stops Anvil, which
 * dumps its chain on the way out.
 */
export async function stopWithin(
  stop: Promise<void>,
  say: (line: string) => void,
  options: { timeoutMs?: number | undefined; exit?: ((code: number) => void) | undefined } = {},
): Promise<void> {
  const { timeoutMs = stopTimeoutMs, exit = (code) => process.exit(code) } = options
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs)
  })
  const outcome = await Promise.race([stop.then(() => 'stopped' as const), late]).finally(() => clearTimeout(timer))
  if (outcome === 'stopped') return
  say(`svc: the stop did not finish within ${timeoutMs / 1000} s: exiting without waiting`)
  exit(1)
}
