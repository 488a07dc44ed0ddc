import { HTTPFacilitatorClient, x402ResourceServer, type FacilitatorClient } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { UptoEvmScheme } from '@x402/evm/upto/server'
import type { ResourceServerExtension, SchemeNetworkServer } from '@x402/core/types'
import { bazaarResourceServerExtension } from '@x402/extensions/bazaar'
import { createInProcessFacilitatorClient } from '../../chain/facilitator/client.js'
import type { PaymentsDeps } from './deps.js'
import type { ApiRow } from '../db/tables.js'
import { errorCode, sandboxChainMoving, ServiceUnavailableError } from '../../core/errors.js'
import { cutText, logLineLimit } from '../../core/http.js'
import { clusterFacilitatorPath, movingRetryAfterSeconds } from '../cluster/index.js'

/** The facilitator of an API cannot be used: no chain, no SVC_FACILITATOR_URL, or it does not answer. */
export class FacilitatorUnavailableError extends ServiceUnavailableError {
  override name = 'FacilitatorUnavailableError'
}

/**
 * A scheme a resource server holds beside exact and upto (batch-settlement's, one per receiver:
 * server/channels/servers.ts).
 */
export type ExtraScheme = { key: string; scheme: SchemeNetworkServer }

export type ResourceServers = {
  /**
   * The initialized x402 resource server for the API's environment, with `extra`'s scheme too (one server per
   * facilitator and `extra.key`); throws {@link FacilitatorUnavailableError}.
   */
  forApi(api: ApiRow, extra?: ExtraScheme): Promise<x402ResourceServer>
  /** The client of the API's facilitator; throws {@link FacilitatorUnavailableError}. */
  facilitatorFor(api: ApiRow): FacilitatorClient
}

/**
 * One `x402ResourceServer` per facilitator URL, initialized once (it reads the facilitator's `/supported`), with the
 * exact and upto EVM schemes on every `eip155:*` network, the Bazaar extension and `extensions` (offer-receipt). Development APIs pay through the Sandbox
 * chain's facilitator, production APIs through SVC_FACILITATOR_URL. A failed start is forgotten, so the next request
 * tries again (the chain may have come up meanwhile). A facilitator that does not answer is a 503 for the buyer that
 * never names its address (the log does). The Sandbox facilitator runs in this process (when svc started the chain):
 * it is called directly, without HTTP (chain/facilitator/client.ts).
 */
export function createResourceServers(
  deps: PaymentsDeps,
  extensions: readonly ResourceServerExtension[] = [],
): ResourceServers {
  const servers = new Map<string, Promise<x402ResourceServer>>()

  function facilitatorUrl(api: ApiRow): string {
    if (api.environment === 'development') {
      const url = deps.chain?.facilitatorUrl ?? ownerFacilitatorUrl()
      if (!url)
        throw new FacilitatorUnavailableError(
          'the Sandbox chain is not running, so development APIs cannot take payments: start svc with its chain (`svc up`)',
        )
      return url
    }
    const url = deps.productionFacilitatorUrl
    if (!url)
      throw new FacilitatorUnavailableError(
        'production APIs need an x402 facilitator: set SVC_FACILITATOR_URL (or --facilitator-url) and restart svc',
      )
    return url
  }

  /**
   * A team Sandbox's process that does not own the chain (svc serve --sandbox-chain shared) pays through the owner's
   * facilitator (server/cluster/owner-facilitator-client.ts); a 503 with Retry-After while no process owns it.
   */
  function ownerFacilitatorUrl(): string | undefined {
    const owner = deps.chainOwner?.current()
    if (!owner) return undefined
    if (owner.kind !== 'remote')
      throw new FacilitatorUnavailableError(sandboxChainMoving, { retryAfterSeconds: movingRetryAfterSeconds })
    return `${owner.url}${clusterFacilitatorPath}`
  }

  function clientFor(url: string): FacilitatorClient {
    const sandbox = deps.chain?.facilitator
    if (sandbox && url === deps.chain?.facilitatorUrl) return createInProcessFacilitatorClient(sandbox)
    if (deps.chainOwner && url.endsWith(clusterFacilitatorPath))
      return deps.chainOwner.facilitatorOf(url.slice(0, -clusterFacilitatorPath.length))
    return new HTTPFacilitatorClient({ url, timeoutMs: 30_000 })
  }

  function start(url: string, key: string, extra: ExtraScheme | undefined): Promise<x402ResourceServer> {
    const server = new x402ResourceServer(clientFor(url))
      .register('eip155:*', new ExactEvmScheme())
      .register('eip155:*', new UptoEvmScheme())
      .registerExtension(bazaarResourceServerExtension)
    if (extra) server.register('eip155:*', extra.scheme)
    for (const extension of extensions) server.registerExtension(extension)
    return server.initialize().then(
      () => server,
      (error: unknown) => {
        servers.delete(key)
        const cause = (error as Error).cause ?? error
        deps.log?.(
          cutText(
            `gateway: the facilitator at ${url} does not answer: ${(cause as Error)?.message ?? String(cause)}`,
            logLineLimit,
          ),
        )
        const code = errorCode(error)
        const named = code && /^[A-Z][A-Z0-9_]*$/.test(code) ? ` (${code})` : ''
        throw new FacilitatorUnavailableError(
          `the facilitator of this API does not answer${named}: retry in a moment`,
          { cause: error, retryAfterSeconds: deps.chainOwner ? movingRetryAfterSeconds : undefined },
        )
      },
    )
  }

  return {
    forApi(api, extra) {
      const url = facilitatorUrl(api)
      const key = extra ? `${url} ${extra.key}` : url
      let server = servers.get(key)
      if (!server) {
        server = start(url, key, extra)
        servers.set(key, server)
      }
      return server
    },
    facilitatorFor: (api) => clientFor(facilitatorUrl(api)),
  }
}
