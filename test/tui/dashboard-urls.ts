import type { ChainServices } from '../../chain/services.js'
import type { RunningServer } from '../../server/start/index.js'
import type { DashboardOptions } from '../../tui/model.js'

/** What `svc up` hands the dashboard (its ready line), for a test's server and chain. */
export function dashboardUrls(server: RunningServer, chain: ChainServices): DashboardOptions['urls'] {
  return {
    control_url: server.controlUrl,
    sandbox_control_url: server.sandboxControlUrl,
    gateway_port: server.port,
    rpc_url: chain.rpcUrl,
    chain_manager_url: chain.chainManagerUrl,
    facilitator_url: chain.facilitatorUrl,
    chain_id: chain.sandboxChain.chainId,
    network: chain.sandboxChain.network,
    usdc: chain.sandboxChain.usdc.address,
  }
}
