import { acceptsFor } from '../sdk/accepts.js'
import type { Accept } from '../sdk/types.js'
import { UsageError } from '../core/errors.js'
import type { Call } from './context.js'
import { parseInteger } from './inputs.js'
import { requestEnvironment } from './settings.js'

export type AcceptFlags = {
  asset?: string
  network?: string
  maxTimeout?: string
  scheme?: string
  transferMethod?: string
}

const schemes = ['exact', 'upto', 'batch-settlement'] as const
const transferMethods = ['eip3009', 'permit2'] as const
/** `value` when it is one of `allowed`, else a usage error naming `flag`. */
function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined || (allowed as readonly string[]).includes(value)) return value as T | undefined
  throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got "${value}"`)
}

/**
 * The one accept option of a price from `--asset`/`--network`/`--max-timeout`/`--scheme`/`--transfer-method` (the
 * SDK's {@link acceptsFor}): asset and network default to the Sandbox USDC and network in the Sandbox and are required
 * elsewhere.
 */
export async function acceptsFromFlags(call: Call<AcceptFlags>, amount: string): Promise<Accept[]> {
  const { asset, network, maxTimeout } = call.options
  const maxTimeoutSeconds = maxTimeout === undefined ? undefined : parseInteger(maxTimeout, '--max-timeout', 1, 86_400)
  const scheme = oneOf(call.options.scheme, schemes, '--scheme')
  const assetTransferMethod = oneOf(call.options.transferMethod, transferMethods, '--transfer-method')
  return acceptsFor({
    scheme,
    assetTransferMethod,
    client: call.client('public'),
    environment: () => requestEnvironment(call.settings()),
    amount,
    network,
    asset,
    maxTimeoutSeconds,
    missingMessage:
      '--asset and --network are required outside the Sandbox (with --sandbox or a Sandbox key they default to the Sandbox USDC)',
  })
}
