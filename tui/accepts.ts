import { acceptsFor } from '../sdk/accepts.js'
import type { Accept } from '../sdk/types.js'
import type { Call } from './context.js'
import { parseInteger } from './inputs.js'
import { requestEnvironment } from './settings.js'

export type AcceptFlags = { asset?: string; network?: string; maxTimeout?: string }

/**
 * The one accept option of a price from `--asset`/`--network`/`--max-timeout` (the SDK's {@link acceptsFor}):
 * asset and network default to the Sandbox USDC and network in the Sandbox and are required elsewhere.
 */
export async function acceptsFromFlags(call: Call<AcceptFlags>, amount: string): Promise<Accept[]> {
  const { asset, network, maxTimeout } = call.options
  const maxTimeoutSeconds = maxTimeout === undefined ? undefined : parseInteger(maxTimeout, '--max-timeout', 1, 86_400)
  return acceptsFor({
    client: call.client('public'),
    environment: () => requestEnvironment(call.settings()),
    amount,
    network,
    asset,
    maxTimeoutSeconds,
    missingMessage: '--asset and --network are required outside the Sandbox (with --sandbox or a Sandbox key they default to the Sandbox USDC)',
  })
}
