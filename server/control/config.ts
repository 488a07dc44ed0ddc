import { Router } from 'express'
import { sandboxChainId, sandboxNetwork, usdcAddress, usdcDecimals, sandboxUsdcDomain } from '../../core/sandbox-usdc.js'
import { apiKeyPrefixes, controlUrl, environments } from '../../core/hosts.js'
import type { ControlDeps } from './context.js'

/** The sandbox payment token as the control plane advertises it (also the `extra` of Sandbox accepts). */
export function sandboxUsdc(deps: ControlDeps) {
  const usdc = deps.chain?.chain.usdc
  return {
    address: usdc?.address ?? usdcAddress,
    symbol: 'USDC',
    decimals: usdc?.decimals ?? usdcDecimals,
    network: sandboxNetwork,
    extra: { name: usdc?.name ?? sandboxUsdcDomain.name, version: usdc?.version ?? sandboxUsdcDomain.version, assetTransferMethod: 'eip3009' },
  }
}

/** Public configuration routes. */
export function createConfigRoutes(deps: ControlDeps): Router {
  const router = Router()

  router.get('/config/platform', (_req, res) => {
    const { hosts } = deps
    res.json({
      platform_domain: hosts.platformDomain,
      sandbox_platform_domain: hosts.sandboxPlatformDomain,
      gateway_port: hosts.port,
      base_url: controlUrl(hosts, 'production'),
      sandbox_base_url: controlUrl(hosts, 'development'),
      environments,
      schemes: ['exact'],
      payment_tokens: [{ environment: 'development', ...sandboxUsdc(deps) }],
      api_key_prefixes: apiKeyPrefixes,
    })
  })

  router.get('/config/local-dev', (_req, res) => {
    const chain = deps.chain
    res.json({
      enabled: chain !== undefined,
      chain_id: sandboxChainId,
      network: sandboxNetwork,
      rpc_url: chain?.rpcUrl ?? null,
      chain_manager_url: chain?.chainManagerUrl ?? null,
      facilitator_url: chain?.facilitatorUrl ?? null,
      faucet_enabled: chain !== undefined,
      native_currency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      usdc: sandboxUsdc(deps),
    })
  })

  return router
}
