import { HttpRequestError } from 'viem'
import { SvcApiError } from '../../sdk/client.js'

/** The hint every panel that needs a session gives. */
export const loginHint = 'not logged in: `svc signup --sandbox` or `svc login --sandbox` (shown here at once)'

/**
 * One line for a panel: what failed, without library stack or multi-line details. The SDK's messages already read
 * "cannot reach … is svc up running?"; a rejected session says how to log in again.
 */
export function describeError(error: unknown, context: { rpcUrl?: string } = {}): string {
  if (error instanceof SvcApiError) {
    if (error.status === 401) return `session rejected (${error.message}): run \`svc login --sandbox\``
    return error.status === 0 ? error.message : `${error.message} (HTTP ${error.status})`
  }
  if (error instanceof HttpRequestError || (error as { cause?: unknown })?.cause instanceof HttpRequestError)
    return `cannot reach the chain RPC${context.rpcUrl ? ` at ${context.rpcUrl}` : ''}: is svc up running?`
  const { shortMessage, message } = (error ?? {}) as { shortMessage?: unknown; message?: unknown }
  const text = typeof shortMessage === 'string' ? shortMessage : typeof message === 'string' ? message : String(error)
  return text.split('\n')[0]!.trim() || 'unknown error'
}
