import { Box, useApp } from 'ink'
import { useCallback } from 'react'
import { ApisPanel, apisPanelCountsDown } from './components/ApisPanel.js'
import { BazaarLine } from './components/BazaarLine.js'
import { ChannelsLine } from './components/ChannelsLine.js'
import { ChainPanel } from './components/ChainPanel.js'
import { EscrowLine, escrowLineCountsDown } from './components/EscrowLine.js'
import { FaultsLine } from './components/FaultsLine.js'
import { Header } from './components/Header.js'
import { HelpBar } from './components/HelpBar.js'
import { HelpOverlay } from './components/HelpOverlay.js'
import { NewKeysPanel } from './components/NewKeysPanel.js'
import { OutboxPanel } from './components/OutboxPanel.js'
import { PayToLine } from './components/PayToLine.js'
import { RefusedPanel } from './components/RefusedPanel.js'
import { ServicesLine } from './components/ServicesLine.js'
import { SettlementsPanel } from './components/SettlementsPanel.js'
import { WalletPanel } from './components/WalletPanel.js'
import { useBanner } from './hooks/use-banner.js'
import { useClock } from './hooks/use-clock.js'
import { useDashboardData } from './hooks/use-dashboard-data.js'
import { useKeys } from './hooks/use-keys.js'
import { useLayout } from './hooks/use-layout.js'
import { useNavigation } from './hooks/use-navigation.js'
import { useRefreshStatus } from './hooks/use-refresh-status.js'
import type { DashboardOptions, NewApiKey } from './model.js'
import { TwinsLine } from './components/TwinsLine.js'

const noKeys: NewApiKey[] = []

/**
 * The `svc up` dashboard: live data from the hooks, laid out to the terminal's size. Tab / Shift-Tab move between the
 * lists, the arrows scroll the focused one, `?` shows every key, `q` or Ctrl-C exits. Panels are memoized and the
 * polls keep their state when nothing changed, so an idle dashboard renders nothing; the clock only ticks while a ttl
 * counts down.
 */
export function App(options: DashboardOptions) {
  const { urls, newKeys = noKeys } = options
  const { exit } = useApp()
  const data = useDashboardData(options)
  const banner = useBanner({ present: newKeys.length > 0, hideAfterMs: options.newKeysShownMs })
  const refresh = useRefreshStatus(data.refresh)
  const nav = useNavigation()
  const layout = useLayout(data, {
    newKeys: banner.shown ? newKeys : noKeys,
    focus: nav.focus,
    refresh: refresh.status,
  })
  const offsets = nav.offsets(layout.limits)
  // ttl and capture-deadline countdowns run on svc's clock: the machine's plus the offset `svc time advance` adds.
  const counting = apisPanelCountsDown(data.apis) || escrowLineCountsDown(data.payments.data)
  const now = useClock({ active: counting }) + (data.chain.data?.clockOffsetSeconds ?? 0) * 1000
  const quit = useCallback(() => exit(), [exit])
  useKeys({
    onQuit: quit,
    onFaucet: data.fund,
    onRefresh: refresh.run,
    onMove: nav.move,
    onScroll: nav.scroll,
    onJump: nav.jump,
    onHelp: nav.toggleHelp,
    onEscape: nav.closeHelp,
    onToggleKeys: newKeys.length ? banner.toggle : undefined,
    helpOpen: nav.help,
  })
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
      {nav.help ? (
        <HelpOverlay faucet={loggedIn} newKeys={newKeys.length > 0} />
      ) : (
        <>
          <NewKeysPanel keys={banner.shown ? newKeys : noKeys} width={width} hideKey />
          <Box flexDirection="column">
            <ChainPanel chainId={urls.chain_id} network={urls.network} rpcUrl={urls.rpc_url} chain={data.chain} />
            <ServicesLine chainManagerUrl={urls.chain_manager_url} facilitatorUrl={urls.facilitator_url} />
            <TwinsLine twins={urls.twins} />
            <FaultsLine faults={data.faults.data} />
            <BazaarLine catalog={data.bazaar.data} />
            <ChannelsLine channels={data.channels.data} width={width} />
            <EscrowLine payments={data.payments.data} now={now} width={width} />
          </Box>
          <Box flexDirection="column">
            <WalletPanel loggedIn={loggedIn} wallet={data.wallet} faucet={data.faucet} width={width} />
            {loggedIn ? (
              <PayToLine payTo={data.payTo} revenue={data.settlements.data?.session} usdc={urls.usdc} width={width} />
            ) : null}
          </Box>
          <ApisPanel
            loggedIn={loggedIn}
            apis={data.apis}
            usdc={urls.usdc}
            now={now}
            width={width}
            rows={layout.apis}
            offset={offsets.apis}
            focused={nav.focus === 'apis'}
          />
          <SettlementsPanel
            loggedIn={loggedIn}
            settlements={data.settlements}
            usdc={urls.usdc}
            apis={data.apis.data}
            width={width}
            rows={layout.settlements}
            offset={offsets.settlements}
            focused={nav.focus === 'settlements'}
          />
          <RefusedPanel refusals={data.refusals} width={width} />
          <OutboxPanel
            outbox={data.outbox}
            width={width}
            rows={layout.outbox}
            offset={offsets.outbox}
            focused={nav.focus === 'outbox'}
          />
        </>
      )}
      <HelpBar faucet={loggedIn} width={width} refresh={refresh.status} />
    </Box>
  )
}
