import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { faultMessage } from '../../chain/faults/answers.js'
import type { Fault } from '../../chain/faults/book.js'
import type { ApiRow } from '../db/tables.js'
import type { PaymentsDeps } from './deps.js'
import { reasonText, type FacilitatorResult } from './facilitator-calls.js'
import type {
  GatewayRequest,
  UpstreamFailure,
  UpstreamProxy,
  UpstreamResponse,
  UpstreamTarget,
} from '../upstream/index.js'

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
