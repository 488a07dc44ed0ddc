import { apisPanelWants } from '../components/ApisPanel.js'
import { bazaarLineLines } from '../components/BazaarLine.js'
import { channelsLineLines } from '../components/ChannelsLine.js'
import { escrowLineLines } from '../components/EscrowLine.js'
import { faultsLineLines } from '../components/FaultsLine.js'
import { helpBarLines } from '../components/HelpBar.js'
import { newKeysPanelLines } from '../components/NewKeysPanel.js'
import { outboxPanelWants } from '../components/OutboxPanel.js'
import { payToLineLines } from '../components/PayToLine.js'
import { refusedPanelLines } from '../components/RefusedPanel.js'
import { loadedSettlements, settlementsPanelWants } from '../components/SettlementsPanel.js'
import { allocateRows, maxOffset } from '../layout.js'
import type { NewApiKey } from '../model.js'
import type { DashboardData } from './use-dashboard-data.js'
import type { PanelLimits, ScrollablePanel } from './use-navigation.js'
import type { RefreshStatus } from './use-refresh-status.js'
import { useWindowSize } from './use-window-size.js'

export type DashboardLayout = {
  columns: number
  /** Lines of the APIs, settlements and outbox lists (below their titles). */
  apis: number
  settlements: number
  outbox: number
  /** How far each list can scroll, and its page (for Page Up / Down). */
  limits: PanelLimits
  /** Lines are left over: a blank line between panels. */
  spacious: boolean
}

export type LayoutOptions = {
  /** The seed's new keys, when their banner is shown. @defaultValue none */
  newKeys?: NewApiKey[] | undefined
  /** The focused list gets the lines the others leave first. @defaultValue the lists' order */
  focus?: ScrollablePanel | undefined
  /** What the `r` key's label says: the help bar may wrap differently. */
  refresh?: RefreshStatus | undefined
}

/** Lines the settlements list keeps whatever the APIs want: a long list of APIs never hides the payments. */
export const settlementsReserve = 4

const order: ScrollablePanel[] = ['apis', 'settlements', 'outbox']

/**
 * Fits the dashboard in the terminal: one line less than its height (a frame as tall as the screen makes Ink
 * redraw everything on each update), the lists sharing what the fixed lines leave: one line each, then up to
 * {@link settlementsReserve} for the settlements, then the focused list, then APIs, settlements, outbox. The fixed
 * lines: the header, the seed's new keys while shown (title and one line each), the chain and its services (two,
 * one more while faults are injected, one more while the bazaar catalog lists something, three while there are payment channels, two while there are escrow payments), the wallet (three with a session and the pay-to line, else one), the three lists' titles, the
 * refused payments once there are some (a title and the newest few), the help bar (one line, or more in a narrow terminal).
 */
export function useLayout(
  data: Pick<
    DashboardData,
    'loggedIn' | 'apis' | 'settlements' | 'outbox' | 'faults' | 'bazaar' | 'channels' | 'payments' | 'refusals'
  >,
  { newKeys = [], focus, refresh }: LayoutOptions = {},
): DashboardLayout {
  const { columns, rows } = useWindowSize()
  const keyLines = newKeysPanelLines(newKeys)
  const refusedLines = refusedPanelLines(data.refusals)
  const fixed =
    1 +
    keyLines +
    2 +
    faultsLineLines(data.faults.data) +
    bazaarLineLines(data.bazaar.data) +
    channelsLineLines(data.channels.data) +
    escrowLineLines(data.payments.data) +
    (data.loggedIn ? 3 : 1) +
    payToLineLines(data.loggedIn) +
    3 +
    refusedLines +
    helpBarLines({ faucet: data.loggedIn, width: columns, refresh })
  const budget = rows - 1 - fixed
  const wants = [apisPanelWants(data), settlementsPanelWants(data), outboxPanelWants(data)]
  const [apis = 0, settlements = 0, outbox = 0] = allocateRows(budget, wants, {
    reserve: [0, settlementsReserve, 0],
    priority: focus ? [order.indexOf(focus)] : [],
  })
  const spare = budget - apis - settlements - outbox
  // A blank line between each two sections: header, new keys, chain, wallet, the three lists, refused payments, help.
  const gaps = 6 + (keyLines ? 1 : 0) + (refusedLines ? 1 : 0)
  const limit = (loaded: number, lines: number, total = loaded) => ({
    maxOffset: maxOffset(loaded, lines, total),
    page: Math.max(1, lines - 2),
  })
  const limits: PanelLimits = {
    apis: limit(wants[0]!, apis),
    settlements: limit(loadedSettlements(data.settlements.data), settlements, wants[1]),
    outbox: limit(wants[2]!, outbox),
  }
  return { columns, apis, settlements, outbox, limits, spacious: spare >= gaps }
}
