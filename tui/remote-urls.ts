import { UsageError } from '../core/errors.js'
import { createSvcClient } from '../sdk/client.js'
import type { DashboardOptions } from './model.js'

type Platform = { base_url: string; sandbox_base_url: string; gateway_port: number }
type LocalDev = {
  enabled: boolean
  chain_id: number
  network: string
  rpc_url: string | null
  chain_manager_url: string | null
  facilitator_url: string | null
  bazaar_url: string | null
  usdc: { address: string }
}

/**
 * What the dashboard needs to watch the svc at `url` ({base_url} or {sandbox_base_url}; `svc dashboard --url`), from
 * its public configuration routes: the control planes, the gateway's port and the Sandbox chain's facts.
 */
export async function remoteDashboardUrls(
  url: string,
  fetch?: typeof globalThis.fetch,
): Promise<DashboardOptions['urls']> {
  const client = createSvcClient({ baseUrl: url, fetch })
  const [platform, localDev] = await Promise.all([
    client.request<Platform>('GET', '/config/platform'),
    client.request<LocalDev>('GET', '/config/local-dev'),
  ])
  if (!localDev.enabled) throw new UsageError(`${url} runs no Sandbox chain: there is no Sandbox to watch`)
  return {
    control_url: platform.base_url,
    sandbox_control_url: platform.sandbox_base_url,
    gateway_port: platform.gateway_port,
    rpc_url: localDev.rpc_url ?? '',
    chain_manager_url: localDev.chain_manager_url ?? '',
    facilitator_url: localDev.facilitator_url ?? '',
    bazaar_url: localDev.bazaar_url ?? '',
    chain_id: localDev.chain_id,
    network: localDev.network,
    usdc: localDev.usdc.address,
  }
}
