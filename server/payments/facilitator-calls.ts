/*
 * The facilitator as the gateway meets it: what the gateway asks it (`verifyPayment`, `settlePayment`: a verdict, a
 * refusal, 503 or 502, each error bounded), the Sandbox's injected faults that answer in its place, or in the
 * upstream's (`createGatewayFaults`: every step asks the faults first, then the facilitator or the upstream), and the
 * x402 resource server through which an API's facilitator is asked (`createResourceServers`).
 */
import { HTTPFacilitatorClient, x402ResourceServer, type FacilitatorClient } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { UptoEvmScheme } from '@x402/evm/upto/server'
import { bazaarResourceServerExtension } from '@x402/extensions/bazaar'
import { createInProcessFacilitatorClient } from '../../chain/facilitator/index.js'
import { errorCode, sandboxChainMoving, ServiceUnavailableError } from '../../core/errors.js'
import { clusterFacilitatorPath, movingRetryAfterSeconds } from '../cluster/index.js'
import {
  SettleError,
  VerifyError,
  type PaymentPayload,
  type PaymentRequirements,
  type ResourceServerExtension,
  type SchemeNetworkServer,
  type SettleResponse,
  type VerifyResponse,
} from '@x402/core/types'
import { cutText, echoedValueLimit, errorMessageLimit, logLineLimit } from '../../core/http.js'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { type Fault, faultMessage } from '../../chain/faults/index.js'
import type { ApiRow } from '../db/index.js'
import type { PaymentsDeps } from './deps.js'
import type {
  GatewayRequest,
  UpstreamFailure,
  UpstreamProxy,
  UpstreamResponse,
  UpstreamTarget,
} from '../upstream/index.js'

/**
 * What the facilitator made of a payment: `accepted` (with its answer), `refused` (invalid, or not settled: a 402
 * saying why), `unavailable` (it answered 503: it cannot judge payments now, e.g. its chain restarts; a 503 with
 * Retry-After), or `failed` (it could not be asked: a 502). Every `error` is bounded: the facilitator's text in it
 * is cut.
 */
export type FacilitatorResult<Response> =
  | { type: 'accepted'; response: Response }
  | {
      type: 'refused'
      error: string
      /** The scheme's reason code (`invalidReason` / `errorReason`) and its message, as the facilitator gave them. */
      reason?: string | undefined
      message?: string | undefined
      /** A refused settlement's answer (`success: false`): the `PAYMENT-RESPONSE` of the 402, as x402 sends it. */
      settled?: SettleResponse | undefined
    }
  | { type: 'unavailable'; error: string }
  | { type: 'failed'; error: string }

/** The answer to a facilitator's 503 (sent with the verdict's shape, so x402's client raises it as a Verify/SettleError). */
const unavailable = (message: string | undefined) =>
  ({
    type: 'unavailable',
    error: `the facilitator cannot judge payments right now${message ? ` (${cutText(message, echoedValueLimit)})` : ''}`,
  }) as const

/** The facilitator could not be asked (not a verdict): a 502 with its error's first line, cut. */
const failed = (what: string, error: unknown) =>
  ({
    type: 'failed',
    error: cutText(
      `the facilitator could not ${what} the payment: ${String((error as Error)?.message ?? error).split('\n')[0]}`,
      errorMessageLimit,
    ),
  }) as const

/** Verifies a payment through the API's resource server (x402's `verifyPayment`). */
export async function verifyPayment(
  server: x402ResourceServer,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
): Promise<FacilitatorResult<VerifyResponse>> {
  let verified: VerifyResponse
  try {
    verified = await server.verifyPayment(payload, requirements)
  } catch (error) {
    if (!(error instanceof VerifyError)) return failed('verify', error)
    if (error.statusCode === 503) return unavailable(error.invalidMessage)
    verified = { isValid: false, invalidReason: error.invalidReason, invalidMessage: error.invalidMessage }
  }
  if (!verified.isValid)
    return {
      type: 'refused',
      error: reasonText('the payment is invalid', verified.invalidReason, verified.invalidMessage),
      reason: verified.invalidReason,
      message: verified.invalidMessage,
    }
  return { type: 'accepted', response: verified }
}

/**
 * Settles a verified payment through the API's resource server (x402's `settlePayment`); `amount` (atomic units) is
 * what an upto payment charges, when the upstream said (x402's settlement overrides).
 */
export function settlePayment(
  server: x402ResourceServer,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  amount?: string,
): Promise<FacilitatorResult<SettleResponse>> {
  return judgeSettlement(
    server.settlePayment(payload, requirements, undefined, undefined, amount === undefined ? undefined : { amount }),
    requirements,
  )
}

/** Which settle of a payment's flow a settle is (@x402/core's `SettleContext.phase`). */
export type SettlePhase = 'before-handler' | 'after-handler' | 'cancel'

/**
 * What the facilitator made of a settlement under way (`server.settlePayment`'s promise, for `requirements`): its
 * answer, a refusal, 503 or 502. The escrow flow settles each phase of an auth-capture payment through it (the hold
 * `before-handler`, the capture `after-handler`, the void `cancel`).
 */
export async function judgeSettlement(
  settling: Promise<SettleResponse>,
  requirements: PaymentRequirements,
): Promise<FacilitatorResult<SettleResponse>> {
  let settled: SettleResponse
  try {
    settled = await settling
  } catch (error) {
    if (!(error instanceof SettleError)) return failed('settle', error)
    if (error.statusCode === 503) return unavailable(error.errorMessage)
    settled = {
      success: false,
      errorReason: error.errorReason,
      errorMessage: error.errorMessage,
      transaction: '',
      network: requirements.network,
    }
  }
  if (!settled.success)
    return {
      type: 'refused',
      error: reasonText('the payment could not be settled', settled.errorReason, settled.errorMessage),
      reason: settled.errorReason,
      message: settled.errorMessage,
      settled,
    }
  return { type: 'accepted', response: settled }
}

/** `what: reason (message)`, the facilitator's reason and message cut to bounded lengths. */
export function reasonText(what: string, reason: string | undefined, message: string | undefined): string {
  const detail = message && message !== reason ? ` (${message})` : ''
  return cutText(
    `${what}: ${cutText(String(reason ?? 'unknown reason'), echoedValueLimit)}${detail}`,
    errorMessageLimit,
  )
}

type Refusal = Extract<FacilitatorResult<never>, { type: 'refused' }>

export type GatewayFaults = {
  /** A verify fault in force for the API: the refusal the buyer gets instead of a verification (nothing is asked). */
  verify(api: ApiRow): Promise<Refusal | undefined>
  /**
   * A settle fault in force for the API: waits its delay (the buyer's abort ends the wait), then the refusal the
   * buyer gets instead of a settlement (no transaction is sent), or undefined to settle for real.
   */
  settle(api: ApiRow, signal: AbortSignal): Promise<Refusal | undefined>
  /** `proxy.forward`, or what an upstream fault in force for the API answers instead (never worth a charge). */
  forward(
    api: ApiRow,
    proxy: UpstreamProxy,
    request: GatewayRequest,
    target: UpstreamTarget,
  ): Promise<UpstreamResponse | UpstreamFailure>
}

/**
 * Faults injected for Sandbox APIs (`svc fault add`), as the gateway meets them: the faults of one API and those of
 * every API (the facilitator's HTTP routes apply the latter too, for sellers that call it over HTTP; the gateway's
 * in-process calls take none there, chain/facilitator/client.ts, so one payment meets a fault once). Production APIs
 * never meet a fault.
 */
export function createGatewayFaults(
  deps: Pick<PaymentsDeps, 'chain' | 'sandboxFaults'>,
  options: { timeoutMs: number },
): GatewayFaults {
  // A team Sandbox's process without the chain takes them from the book all its processes share (PostgreSQL).
  const take = async (kind: Fault['kind'], api: ApiRow) =>
    api.environment === 'development' ? (deps.chain?.faults ?? deps.sandboxFaults)?.take(kind, api.slug) : undefined
  const seconds = `${Math.round(options.timeoutMs / 100) / 10} s`

  return {
    async verify(api) {
      const fault = await take('verify', api)
      if (!fault) return undefined
      return {
        type: 'refused',
        error: reasonText('the payment is invalid', fault.reason ?? undefined, faultMessage(fault)),
        reason: fault.reason ?? undefined,
      }
    },
    async settle(api, signal) {
      const fault = await take('settle', api)
      if (!fault) return undefined
      if (fault.delayMs) await sleep(fault.delayMs, undefined, { signal }).catch(() => {})
      if (fault.reason === null) return undefined
      return {
        type: 'refused',
        error: reasonText('the payment could not be settled', fault.reason, faultMessage(fault)),
        reason: fault.reason,
      }
    },
    async forward(api, proxy, request, target) {
      const fault = await take('upstream', api)
      if (!fault) return proxy.forward(request, target)
      const note = `(${faultMessage(fault)})`
      if (fault.drop) return { ok: false, status: 502, error: `the upstream could not be reached (ECONNRESET) ${note}` }
      if (fault.status !== null) return answerWith(fault.status, note)
      const delayMs = fault.delayMs ?? 0
      if (delayMs >= options.timeoutMs) {
        await sleep(options.timeoutMs, undefined, { signal: request.signal }).catch(() => {})
        return { ok: false, status: 504, error: `the upstream did not answer within ${seconds} ${note}` }
      }
      await sleep(delayMs, undefined, { signal: request.signal }).catch(() => {})
      return proxy.forward(request, target)
    },
  }
}

/** An upstream answer of `status` with a JSON `{"error"}` body, as an upstream that fails would send. */
function answerWith(status: number, note: string): UpstreamResponse {
  const body = Buffer.from(JSON.stringify({ error: `the upstream answered ${status} ${note}` }))
  return {
    ok: true,
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) },
    body: Readable.from([body]),
    read: async () => body,
    done: () => {},
  }
}

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
