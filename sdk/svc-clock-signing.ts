import type { SchemeNetworkClient } from '@x402/core/types'

/**
 * A scheme client that signs payment windows by svc's clock instead of the machine's: after `svc time advance`, svc
 * (its facilitator and its chain) judges an authorization by a clock hours or days ahead, and one signed by the
 * machine's clock has expired before it is sent.
 *
 * The official schemes read `Date.now()` and sign `now + maxTimeoutSeconds` as the end of the window (EIP-3009's
 * validBefore, Permit2's deadline); the scheme is handed requirements whose `maxTimeoutSeconds` also covers how far
 * svc's clock is ahead, so the window ends `maxTimeoutSeconds` after svc's now. The payload still names the
 * requirements the seller offered (`accepted`), as the gateway expects. `aheadSeconds` is asked at every payment.
 */
export function signingBySvcClock<Scheme extends SchemeNetworkClient>(
  scheme: Scheme,
  aheadSeconds: () => number | Promise<number>,
): SchemeNetworkClient {
  return {
    scheme: scheme.scheme,
    ...(scheme.schemeHooks ? { schemeHooks: scheme.schemeHooks } : {}),
    ...(scheme.findDefaultAsset ? { findDefaultAsset: scheme.findDefaultAsset.bind(scheme) } : {}),
    async createPaymentPayload(x402Version, requirements, context) {
      const ahead = Math.ceil(await aheadSeconds())
      const shifted =
        ahead > 0 ? { ...requirements, maxTimeoutSeconds: requirements.maxTimeoutSeconds + ahead } : requirements
      return scheme.createPaymentPayload(x402Version, shifted, context)
    },
  }
}
