import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

/** How often Anvil writes its state while it runs, besides on exit. @defaultValue 30 s */
export const stateIntervalSeconds = 30

/**
 * Anvil's arguments (as prool names them) that keep the chain in `path` across runs: it is loaded at start when it
 * exists and `load` is true, written on exit (SIGTERM included) and every {@link stateIntervalSeconds}.
 */
export function anvilStateArgs(path: string, options: { load?: boolean } = {}): Record<string, unknown> {
  const { load = true } = options
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  return {
    dumpState: path,
    stateInterval: stateIntervalSeconds,
    ...(load && existsSync(path) ? { loadState: path } : {}),
  }
}
