import { useCallback, useEffect, useRef, useState } from 'react'

/** What the `r` key shows: nothing yet, "refreshing…" while the polls load, then when they last finished. */
export type RefreshStatus = { state: 'idle' } | { state: 'refreshing' } | { state: 'refreshed'; at: number }

/**
 * `refresh` with visible feedback: `status` is "refreshing" from the press until every poll has loaded again, then
 * "refreshed" at that time. A press while one runs starts another (its answer is the newer one).
 */
export function useRefreshStatus(refresh: () => Promise<void>): { status: RefreshStatus; run(): void } {
  const [status, setStatus] = useState<RefreshStatus>({ state: 'idle' })
  const latest = useRef(0)
  const mounted = useRef(true)
  useEffect(() => {
    mounted.current = true
    return () => void (mounted.current = false)
  }, [])
  const run = useCallback(() => {
    const press = ++latest.current
    setStatus({ state: 'refreshing' })
    const done = () => {
      if (mounted.current && press === latest.current) setStatus({ state: 'refreshed', at: Date.now() })
    }
    refresh().then(done, done)
  }, [refresh])
  return { status, run }
}
