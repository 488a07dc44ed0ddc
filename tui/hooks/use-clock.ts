import { useEffect, useState } from 'react'

export type ClockOptions = {
  /** Time between ticks. @defaultValue 1000 */
  periodMs?: number
  /** Whether anything counts down: an inactive clock keeps its last time and never wakes the dashboard. @defaultValue true */
  active?: boolean
}

/** `Date.now()`, updated every `periodMs` while `active` (for countdowns). */
export function useClock({ periodMs = 1000, active = true }: ClockOptions = {}): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!active) return
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), periodMs)
    return () => clearInterval(timer)
  }, [periodMs, active])
  return now
}
