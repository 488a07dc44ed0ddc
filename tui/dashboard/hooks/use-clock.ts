import { useEffect, useState } from 'react'

/** `Date.now()`, updated every `periodMs` (for countdowns). @defaultValue periodMs 1000 */
export function useClock(periodMs = 1000): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), periodMs)
    return () => clearInterval(timer)
  }, [periodMs])
  return now
}
