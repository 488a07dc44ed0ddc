import { apisPanelWants } from '../components/ApisPanel.js'
import { faultsLineLines } from '../components/FaultsLine.js'
import { helpBarLines } from '../components/HelpBar.js'
import { newKeysPanelLines } from '../components/NewKeysPanel.js'
import { outboxPanelWants } from '../components/OutboxPanel.js'
import { settlementsPanelWants } from '../components/SettlementsPanel.js'
import { allocateRows } from '../layout.js'
import type { NewApiKey } from '../model.js'
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

/**
 * Fits the dashboard in the terminal: one line less than its height (a frame as tall as the screen makes Ink
 * redraw everything on each update), the lists sharing what the fixed lines leave, APIs first. The fixed lines: the
 * header, the seed's new keys (title and one line each), the chain and its services (two, three while faults are
 * injected), the wallet (three with a
 * session, else one), the three lists' titles, the help bar (one line, or more in a narrow terminal).
 */
export function useLayout(
  data: Pick<DashboardData, 'loggedIn' | 'apis' | 'settlements' | 'outbox' | 'faults'>,
  newKeys: NewApiKey[] = [],
): DashboardLayout {
  const { columns, rows } = useWindowSize()
  const keyLines = newKeysPanelLines(newKeys)
  const fixed =
    1 +
    keyLines +
    2 +
    faultsLineLines(data.faults.data) +
    (data.loggedIn ? 3 : 1) +
    3 +
    helpBarLines({ faucet: data.loggedIn, width: columns })
  const budget = rows - 1 - fixed
  const wants = [apisPanelWants(data), settlementsPanelWants(data), outboxPanelWants(data)]
  const [apis = 0, settlements = 0, outbox = 0] = allocateRows(budget, wants)
  const spare = budget - apis - settlements - outbox
  // A blank line between each two sections: header, new keys, chain, wallet, the three lists, help.
  const gaps = 6 + (keyLines ? 1 : 0)
  return { columns, apis, settlements, outbox, spacious: spare >= gaps }
}
