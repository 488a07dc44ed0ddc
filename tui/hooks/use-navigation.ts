import { useCallback, useRef, useState } from 'react'

/** The panels a person moves between (Tab / Shift-Tab) and scrolls (arrows, Page Up / Page Down). */
export const scrollablePanels = ['apis', 'settlements', 'outbox'] as const
export type ScrollablePanel = (typeof scrollablePanels)[number]

export type PanelLimits = Record<ScrollablePanel, { maxOffset: number; page: number }>

export type Navigation = {
  /** The focused panel; none until Tab or an arrow is pressed. */
  focus: ScrollablePanel | undefined
  /**
   * The first item each panel shows, within `limits` (the layout's: how far each panel can scroll, and its page);
   * the key presses that follow scroll within them too, so a list that shrinks never leaves an offset past its end.
   */
  offsets(limits: PanelLimits): Record<ScrollablePanel, number>
  /** The help overlay (`?`) is open. */
  help: boolean
  /** Tab (+1) / Shift-Tab (-1): the next or previous panel. */
  move(step: 1 | -1): void
  /** Scrolls the focused panel (the first, if none is) by `lines`, or by pages with `pages`. */
  scroll(lines: number, pages?: boolean): void
  /** To the top or the bottom of the focused panel. */
  jump(to: 'top' | 'bottom'): void
  toggleHelp(): void
  closeHelp(): void
}

const top: Record<ScrollablePanel, number> = { apis: 0, settlements: 0, outbox: 0 }

const unlimited = { maxOffset: 0, page: 1 }

/** Focus, scroll offsets and the help overlay (the dashboard's navigation state). */
export function useNavigation(): Navigation {
  const [focus, setFocus] = useState<ScrollablePanel | undefined>(undefined)
  const [offsets, setOffsets] = useState(top)
  const [help, setHelp] = useState(false)
  const latest = useRef<{ limits: PanelLimits; focus: ScrollablePanel | undefined }>({
    limits: { apis: unlimited, settlements: unlimited, outbox: unlimited },
    focus,
  })
  latest.current.focus = focus

  const move = useCallback((step: 1 | -1) => {
    const { focus } = latest.current
    const at = focus === undefined ? (step === 1 ? -1 : 0) : scrollablePanels.indexOf(focus)
    const next = scrollablePanels[(at + step + scrollablePanels.length) % scrollablePanels.length]!
    latest.current.focus = next
    setFocus(next)
  }, [])

  const scrollTo = useCallback((offsetOf: (current: number, limit: PanelLimits[ScrollablePanel]) => number) => {
    const panel = latest.current.focus ?? scrollablePanels[0]
    latest.current.focus = panel
    setFocus(panel)
    const limit = latest.current.limits[panel]
    setOffsets((current) => {
      const next = Math.min(limit.maxOffset, Math.max(0, offsetOf(Math.min(current[panel], limit.maxOffset), limit)))
      return next === current[panel] ? current : { ...current, [panel]: next }
    })
  }, [])
  const scroll = useCallback(
    (lines: number, pages = false) => scrollTo((current, limit) => current + (pages ? lines * limit.page : lines)),
    [scrollTo],
  )
  const jump = useCallback(
    (to: 'top' | 'bottom') => scrollTo((_, limit) => (to === 'top' ? 0 : limit.maxOffset)),
    [scrollTo],
  )
  const toggleHelp = useCallback(() => setHelp((open) => !open), [])
  const closeHelp = useCallback(() => setHelp(false), [])

  const offsetsWithin = (limits: PanelLimits) => {
    latest.current.limits = limits
    return {
      apis: Math.min(offsets.apis, limits.apis.maxOffset),
      settlements: Math.min(offsets.settlements, limits.settlements.maxOffset),
      outbox: Math.min(offsets.outbox, limits.outbox.maxOffset),
    }
  }
  return { focus, offsets: offsetsWithin, help, move, scroll, jump, toggleHelp, closeHelp }
}
