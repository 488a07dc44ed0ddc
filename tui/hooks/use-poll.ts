import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { Loadable } from '../model.js'

export type Poll<T> = Loadable<T> & {
  /**
   * Loads again now (after the load under way, if any) instead of waiting for the period; resolves once that load is
   * done (at once when there is nothing to poll, or once the poll stops).
   */
  refresh(): Promise<void>
}

export type PollOptions = {
  /** Time from the end of one load to the start of the next, while the data is live (see `idlePeriodMs`). */
  periodMs: number
  /** One line for a failed load. */
  describe: (error: unknown) => string
  /**
   * The period once nothing changed for `liveMs`: the data, `wake` or a `refresh()`. An idle dashboard then asks
   * seldom; a change makes the poll live again. @defaultValue periodMs
   */
  idlePeriodMs?: number | undefined
  /** How long the poll stays at `periodMs` after a change. @defaultValue 5 × periodMs */
  liveMs?: number | undefined
  /** A value whose change loads at once and makes the poll live (e.g. the chain's block number). @defaultValue undefined */
  wake?: unknown
  /** Whose data this is (e.g. the session): when it changes, the data is cleared and loaded again at once. @defaultValue undefined */
  owner?: unknown
}

/** A stable text of `data` to compare loads by (bigints included, as the chain's numbers are). */
function fingerprint(data: unknown): string {
  return (
    JSON.stringify(data, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value)) ?? 'undefined'
  )
}

/**
 * Calls `load` now and then every `periodMs` after the previous call settles (calls never overlap), until unmount;
 * every `idlePeriodMs` once nothing changed for `liveMs`. A rejection becomes `error` (one line, by `describe`) and
 * clears `data`; `load` undefined means nothing to poll. A load that finds what the last one found sets no state, so
 * it renders nothing: an idle dashboard draws nothing.
 */
export function usePoll<T>(load: (() => Promise<T>) | undefined, options: PollOptions): Poll<T> {
  const { periodMs, idlePeriodMs = periodMs, liveMs = 5 * periodMs, wake, owner } = options
  const [state, setState] = useState<Loadable<T>>({})
  const kick = useRef<() => Promise<void>>(async () => {})
  const loadRef = useRef(load)
  const describeRef = useRef(options.describe)
  loadRef.current = load
  describeRef.current = options.describe
  const active = load !== undefined

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new owner (another seller logged in) starts the poll afresh
  useEffect(() => {
    if (!active) return
    let stopped = false
    let running = false
    let again = false
    let timer: NodeJS.Timeout | undefined
    let last: string | undefined
    let changedAt = Date.now()
    /** Those waiting for the next load to finish (see `refresh`). */
    let waiting: (() => void)[] = []
    const show = (next: Loadable<T>, seen: string) => {
      if (stopped || seen === last) return
      last = seen
      changedAt = Date.now()
      setState(next)
    }

    const tick = async () => {
      clearTimeout(timer)
      if (running) {
        again = true
        return
      }
      running = true
      const served = waiting
      waiting = []
      try {
        const data = await loadRef.current!()
        show({ data }, `data:${fingerprint(data)}`)
      } catch (error) {
        const message = describeRef.current(error)
        show({ error: message }, `error:${message}`)
      } finally {
        running = false
        for (const resolve of served) resolve()
        const period = Date.now() - changedAt < liveMs ? periodMs : idlePeriodMs
        if (!stopped) timer = setTimeout(tick, again ? 0 : period)
        again = false
      }
    }
    kick.current = () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve)
        changedAt = Date.now()
        void tick()
      })
    void tick()
    return () => {
      stopped = true
      clearTimeout(timer)
      kick.current = async () => {}
      for (const resolve of waiting) resolve()
      // Another owner's data must not show while the next owner's loads.
      setState((current) => (current.data === undefined && current.error === undefined ? current : {}))
    }
  }, [active, periodMs, idlePeriodMs, liveMs, owner])

  // A new `wake` value (not the first one): load now, and be live again.
  const woken = useRef(wake)
  useEffect(() => {
    if (Object.is(woken.current, wake)) return
    woken.current = wake
    void kick.current()
  }, [wake])

  const refresh = useCallback(() => kick.current(), [])
  return useMemo(() => ({ ...state, refresh }), [state, refresh])
}
