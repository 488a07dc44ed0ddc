import { apisPanelWants } from '../components/ApisPanel.js'
import { outboxPanelWants } from '../components/OutboxPanel.js'
import { settlementsPanelWants } from '../components/SettlementsPanel.js'
import { allocateRows } from '../layout.js'
import type { DashboardData } from './use-dashboard-data.js'
import { useWindowSize } from './use-window-size.js'

export type DashboardLayout = {
  columns: number
  /** Lines of the APIs, settlements and outbox lists (below their titles). */
  apis: number
  settlements: number
  outbox: number
  /** Lines are left over: a blank line between panels. */
  spacious: boolean
}

/** Panels that always come: header, chain, wallet (three lines with a session), three list titles, help. */
const panelGaps = 6

/**
 * Fits the dashboard in the terminal: one line less than its height (a frame as tall as the screen makes Ink
 * redraw everything on each update), the lists sharing what the fixed lines leave, APIs first.
 */
export function useLayout(data: Pick<DashboardData, 'loggedIn' | 'apis' | 'settlements' | 'outbox'>): DashboardLayout {
  const { columns, rows } = useWindowSize()
  const fixed = 1 + 1 + (data.loggedIn ? 3 : 1) + 3 + 1
  const budget = rows - 1 - fixed
  const wants = [apisPanelWants(data), settlementsPanelWants(data), outboxPanelWants(data)]
  const [apis = 0, settlements = 0, outbox = 0] = allocateRows(budget, wants)
  const spare = budget - apis - settlements - outbox
  return { columns, apis, settlements, outbox, spacious: spare >= panelGaps }
}
