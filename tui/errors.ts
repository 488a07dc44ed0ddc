import { ChainError, SvcApiError, toSvcError } from '../core/errors.js'

/** The hint every panel that needs a session gives. */
export const loginHint = 'not logged in: `svc signup --sandbox` or `svc login --sandbox` (shown here at once)'

/** {@link loginHint}, then shorter forms of it for narrower terminals (a panel shows the first that fits). */
export const loginHints = [
  loginHint,
  'not logged in: `svc signup --sandbox` or `svc login --sandbox`',
  'not logged in: `svc login --sandbox`',
  'not logged in',
] as const

/**
 * One line for a panel: what failed, without library stack or multi-line details. The SDK's messages already read
 * "cannot reach … is svc up running?"; a rejected session says how to log in again; a chain RPC that does not
 * answer says where it was looked for.
 */
export function describeError(error: unknown, context: { rpcUrl?: string } = {}): string {
  const svcError = toSvcError(error)
  if (svcError instanceof SvcApiError) {
    if (svcError.code === 'unauthorized') return `session rejected (${svcError.message}): run \`svc login --sandbox\``
    return svcError.code === 'unreachable' ? svcError.message : `${svcError.message} (HTTP ${svcError.status})`
  }
  if (svcError instanceof ChainError && svcError.code === 'unreachable')
    return `cannot reach the chain RPC${context.rpcUrl ? ` at ${context.rpcUrl}` : ''}: is svc up running?`
  return svcError.message.split('\n')[0]!.trim() || 'unknown error'
}
