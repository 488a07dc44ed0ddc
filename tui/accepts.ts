import type { Accept } from '../sdk/types.js'
import { UsageError } from '../core/errors.js'
import type { Call } from './context.js'
import { parseInteger } from './inputs.js'
import { requestEnvironment } from './settings.js'

export type AcceptFlags = { asset?: string; network?: string; maxTimeout?: string }

/**
 * The one accept option of a price: `--asset`/`--network`, which default to the Sandbox USDC and network of
 * GET /config/local-dev in the Sandbox and are required elsewhere.
 */
export async function acceptsFor(call: Call<AcceptFlags>, amount: string): Promise<Accept[]> {
  let { asset, network } = call.options
  const maxTimeout = call.options.maxTimeout === undefined ? undefined : parseInteger(call.options.maxTimeout, '--max-timeout', 1, 86_400)
  if (asset === undefined || network === undefined) {
    if (requestEnvironment(call.settings()) !== 'development')
      throw new UsageError('--asset and --network are required outside the Sandbox (with --sandbox or a Sandbox key they default to the Sandbox USDC)')
    const { usdc } = await call.client('public').config.localDev()
    asset ??= usdc.address
    network ??= usdc.network
  }
  return [{ scheme: 'exact', network, asset, amount, ...(maxTimeout === undefined ? {} : { max_timeout_seconds: maxTimeout }) }]
}
