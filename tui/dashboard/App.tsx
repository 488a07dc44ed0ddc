import { Box, useApp } from 'ink'
import { ApisPanel } from './components/ApisPanel.js'
import { ChainPanel } from './components/ChainPanel.js'
import { Header } from './components/Header.js'
import { HelpBar } from './components/HelpBar.js'
import { OutboxPanel } from './components/OutboxPanel.js'
import { SettlementsPanel } from './components/SettlementsPanel.js'
import { WalletPanel } from './components/WalletPanel.js'
import { useClock } from './hooks/use-clock.js'
import { useDashboardData } from './hooks/use-dashboard-data.js'
import { useKeys } from './hooks/use-keys.js'
import { useLayout } from './hooks/use-layout.js'
import type { DashboardOptions } from './model.js'

/** The `svc up` dashboard: live data from the hooks, laid out to the terminal's size; `q` or Ctrl-C exits. */
export function App(options: DashboardOptions) {
  const { urls } = options
  const { exit } = useApp()
  const data = useDashboardData(options)
  const layout = useLayout(data)
  const now = useClock()
  useKeys({ onQuit: () => exit(), onFaucet: data.fund, onRefresh: data.refresh })
  const { loggedIn } = data
  const width = layout.columns
  return (
    // No explicit width: Ink sizes the root to the terminal itself, so a frame drawn before this component hears of a
    // resize is cut to the new width rather than wrapped.
    <Box flexDirection="column" rowGap={layout.spacious ? 1 : 0}>
      <Header sandboxControlUrl={urls.sandbox_control_url} gatewayPort={urls.gateway_port} loggedIn={loggedIn} />
      <ChainPanel chainId={urls.chain_id} network={urls.network} rpcUrl={urls.rpc_url} chain={data.chain} />
      <WalletPanel loggedIn={loggedIn} wallet={data.wallet} faucet={data.faucet} width={width} />
      <ApisPanel loggedIn={loggedIn} apis={data.apis} usdc={urls.usdc} now={now} width={width} rows={layout.apis} />
      <SettlementsPanel loggedIn={loggedIn} settlements={data.settlements} usdc={urls.usdc} width={width} rows={layout.settlements} />
      <OutboxPanel outbox={data.outbox} width={width} rows={layout.outbox} />
      <HelpBar faucet={loggedIn} />
    </Box>
  )
}
