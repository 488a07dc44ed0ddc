import { useCallback, useEffect, useState } from 'react'

export type BannerOptions = {
  /** Whether there is anything to show (no new keys: no banner, no timer). */
  present: boolean
  /** The banner hides itself this long after it first showed. @defaultValue 10 minutes */
  hideAfterMs?: number
}

/**
 * A banner that is spent once read: shown at first, hidden when the user acknowledges it (`dismiss`) or after
 * `hideAfterMs`; `toggle` shows it again (the new key's secret exists nowhere else) or hides it.
 */
export function useBanner({ present, hideAfterMs = 10 * 60_000 }: BannerOptions): {
  shown: boolean
  dismiss(): void
  toggle(): void
} {
  const [shown, setShown] = useState(true)
  const [expired, setExpired] = useState(false)
  useEffect(() => {
    if (!present || expired) return
    const timer = setTimeout(() => {
      setExpired(true)
      setShown(false)
    }, hideAfterMs)
    return () => clearTimeout(timer)
  }, [present, expired, hideAfterMs])
  const dismiss = useCallback(() => {
    setExpired(true)
    setShown(false)
  }, [])
  const toggle = useCallback(() => {
    // Shown again by hand: it stays until hidden by hand.
    setExpired(true)
    setShown((current) => !current)
  }, [])
  return { shown: present && shown, dismiss, toggle }
}
