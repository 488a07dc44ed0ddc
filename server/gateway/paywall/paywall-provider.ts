import type { PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { paywallHtml } from './paywall-html.js'
import type { PaywallState } from './paywall-state.js'

/**
 * @x402/paywall 2.12.0's provider interfaces, restated: a builder collects network handlers, and the provider renders
 * a 402 with the first handler that supports one of its accepts. svc does not depend on the package itself: its EVM
 * handler looks chains up in viem's list and reads balances through public RPCs (so chain 845320402 fails, and nothing
 * works offline), and its dependencies (wagmi, WalletConnect, Solana and Algorand kits) would come along unused.
 */
export type PaywallConfig = {
  appName?: string
  currentUrl?: string
  testnet?: boolean
}

export type PaywallNetworkHandler<Config extends PaywallConfig = PaywallConfig> = {
  supports(requirement: PaymentRequirements): boolean
  generateHtml(requirement: PaymentRequirements, paymentRequired: PaymentRequired, config: Config): string
}

export type PaywallProvider<Config extends PaywallConfig = PaywallConfig> = {
  /** The page for `paymentRequired`, or undefined when no handler supports any of its accepts. */
  generateHtml(paymentRequired: PaymentRequired, config?: Partial<Config>): string | undefined
}

/** `createPaywall().withNetwork(handler).withConfig(config).build()`, as @x402/paywall's builder reads. */
export function createPaywall<Config extends PaywallConfig>() {
  const handlers: PaywallNetworkHandler<Config>[] = []
  let base: Partial<Config> = {}
  const builder = {
    withNetwork(handler: PaywallNetworkHandler<Config>) {
      handlers.push(handler)
      return builder
    },
    withConfig(config: Partial<Config>) {
      base = { ...base, ...config }
      return builder
    },
    build(): PaywallProvider<Config> {
      return {
        generateHtml(paymentRequired, config) {
          const merged = { ...base, ...config } as Config
          for (const requirement of paymentRequired.accepts)
            for (const handler of handlers)
              if (handler.supports(requirement)) return handler.generateHtml(requirement, paymentRequired, merged)
          return undefined
        },
      }
    },
  }
  return builder
}

/** What svc's page needs beyond x402's config: the route, the environment, the Sandbox chain and faucet. */
export type SvcPaywallConfig = PaywallConfig & Omit<PaywallState, 'paymentRequired' | 'apiName'>

/** svc's EVM handler: every `eip155:*` accept, paid in the browser by svc's own bundle (browser/main.ts). */
export const svcEvmPaywall: PaywallNetworkHandler<SvcPaywallConfig> = {
  supports: (requirement) => requirement.network.startsWith('eip155:'),
  generateHtml: (_requirement, paymentRequired, config) => {
    const { appName = 'x402 API', currentUrl: _url, testnet: _testnet, ...rest } = config
    return paywallHtml({ ...rest, apiName: appName, paymentRequired })
  },
}
