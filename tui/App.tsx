import { Box, useApp } from 'ink'
import { useCallback } from 'react'
import { ApisPanel, apisPanelCountsDown } from './components/ApisPanel.js'
import { ChainPanel } from './components/ChainPanel.js'
import { FaultsLine } from './components/FaultsLine.js'
import { Header } from './components/Header.js'
import { HelpBar } from './components/HelpBar.js'
import { NewKeysPanel } from './components/NewKeysPanel.js'
import { OutboxPanel } from './components/OutboxPanel.js'
import { ServicesLine } from './components/ServicesLine.js'
import { SettlementsPanel } from './components/SettlementsPanel.js'
import { WalletPanel } from './components/WalletPanel.js'
import { useClock } from './hooks/use-clock.js'
import { useDashboardData } from './hooks/use-dashboard-data.js'
import { useKeys } from './hooks/use-keys.js'
import { useLayout } from './hooks/use-layout.js'
import type { DashboardOptions, NewApiKey } from './model.js'

const noKeys: NewApiKey[] = []

/**
 * The `svc up` dashboard: live data from the hooks, laid out to the terminal's size; `q` or Ctrl-C exits. Panels are
 * memoized and the polls keep their state when nothing changed, so an idle dashboard renders nothing; the clock only
 * ticks while a ttl counts down.
 */
export function App(options: DashboardOptions) {
  const { urls, newKeys = noKeys } = options
  const { exit } = useApp()
  const data = useDashboardData(options)
  const layout = useLayout(data, newKeys)
  // ttl countdowns run on svc's clock: the machine's plus the offset `svc time advance` adds.
  const now = useClock({ active: apisPanelCountsDown(data.apis) }) + (data.chain.data?.clockOffsetSeconds ?? 0) * 1000
  const quit = useCallback(() => exit(), [exit])
  useKeys({ onQuit: quit, onFaucet: data.fund, onRefresh: data.refresh })
  const { loggedIn } = data
  const width = layout.columns
  return (
    // No explicit width: Ink sizes the root to the terminal itself, so a frame drawn before this component hears of a
    // resize is cut to the new width rather than wrapped.
    <Box flexDirection="column" rowGap={layout.spacious ? 1 : 0}>
      <Header
        sandboxControlUrl={urls.sandbox_control_url}
        gatewayPort={urls.gateway_port}
        loggedIn={loggedIn}
        width={width}
      />
      <NewKeysPanel keys={newKeys} width={width} />
      <Box flexDirection="column">
        <ChainPanel chainId={urls.chain_id} network={urls.network} rpcUrl={urls.rpc_url} chain={data.chain} />
        <ServicesLine chainManagerUrl={urls.chain_manager_url} facilitatorUrl={urls.facilitator_url} />
        <FaultsLine faults={data.faults.data} />
      </Box>
      <WalletPanel loggedIn={loggedIn} wallet={data.wallet} faucet={data.faucet} width={width} />
      <ApisPanel loggedIn={loggedIn} apis={data.apis} usdc={urls.usdc} now={now} width={width} rows={layout.apis} />
      <SettlementsPanel
        loggedIn={loggedIn}
        settlements={data.settlements}
        usdc={urls.usdc}
        width={width}
        rows={layout.settlements}
      />
      <OutboxPanel outbox={data.outbox} width={width} rows={layout.outbox} />
      <HelpBar faucet={loggedIn} width={width} />
    </Box>
  )
}
