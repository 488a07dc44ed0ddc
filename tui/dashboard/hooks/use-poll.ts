import { useCallback, useEffect, useRef, useState } from 'react'
import type { Loadable } from '../model.js'

export type Poll<T> = Loadable<T> & {
  /** Loads again now (after the load under way, if any) instead of waiting for the period. */
  refresh(): void
}

/**
 * Calls `load` now and then every `periodMs` after the previous call settles (calls never overlap), until unmount.
 * A rejection becomes `error` (one line, by `describe`) and clears `data`; `load` undefined means nothing to poll.
 */
export function usePoll<T>(load: (() => Promise<T>) | undefined, periodMs: number, describe: (error: unknown) => string): Poll<T> {
  const [state, setState] = useState<Loadable<T>>({})
  const kick = useRef<() => void>(() => {})
  const loadRef = useRef(load)
  const describeRef = useRef(describe)
  loadRef.current = load
  describeRef.current = describe
  const active = load !== undefined

  useEffect(() => {
    if (!active) return
    let stopped = false
    let running = false
    let again = false
    let timer: NodeJS.Timeout | undefined

    const tick = async () => {
      clearTimeout(timer)
      if (running) {
        again = true
        return
      }
      running = true
      try {
        const data = await loadRef.current!()
        if (!stopped) setState({ data })
      } catch (error) {
        if (!stopped) setState({ error: describeRef.current(error) })
      } finally {
        running = false
        if (!stopped) timer = again ? setTimeout(tick, 0) : setTimeout(tick, periodMs)
        again = false
      }
    }
    kick.current = () => void tick()
    void tick()
    return () => {
      stopped = true
      clearTimeout(timer)
      kick.current = () => {}
    }
  }, [active, periodMs])

  const refresh = useCallback(() => kick.current(), [])
  return { ...state, refresh }
}
