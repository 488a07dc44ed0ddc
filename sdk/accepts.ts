import { UsageError } from '../core/errors.js'
import type { SvcClient } from './client.js'
import type { Accept, Environment } from './types.js'

export type AcceptsForOptions = {
  /** Asked for GET /config/local-dev when `network` or `asset` is left out in the Sandbox. */
  client: Pick<SvcClient, 'config'>
  /** The environment the endpoint is created in; a function is called only when `network` or `asset` is left out. */
  environment: Environment | (() => Environment | Promise<Environment>)
  /** The price in atomic units of the asset, e.g. `10000` (0.01 USDC). */
  amount: string
  /** CAIP-2 network. @defaultValue the Sandbox network, in the development environment only */
  network?: string | undefined
  /** Token contract address. @defaultValue the Sandbox USDC, in the development environment only */
  asset?: string | undefined
  /** Payment validity window in seconds. @defaultValue left out (the server's default, 300) */
  maxTimeoutSeconds?: number | undefined
  /** `exact` (amount is the price) or `upto` (amount is the maximum; the upstream's Settlement-Overrides says what is charged). @defaultValue 'exact' */
  scheme?: 'exact' | 'upto' | 'batch-settlement' | 'auth-capture' | undefined
  /** How the token moves (`extra.assetTransferMethod`). @defaultValue left out: EIP-3009 for exact, Permit2 for upto */
  assetTransferMethod?: 'eip3009' | 'permit2' | undefined
  /** The {@link UsageError}'s message when `network` or `asset` is left out outside the Sandbox (each front end names its own flags). */
  missingMessage: string
}

/**
 * The one accept option of a price: `network` and `asset` default to the Sandbox network and USDC of
 * GET /config/local-dev in the development environment and are required in production.
 */
export async function acceptsFor(options: AcceptsForOptions): Promise<Accept[]> {
  const {
    client,
    environment,
    amount,
    maxTimeoutSeconds,
    missingMessage,
    scheme = 'exact',
    assetTransferMethod,
  } = options
  let { network, asset } = options
  if (network === undefined || asset === undefined) {
    if ((typeof environment === 'function' ? await environment() : environment) !== 'development')
      throw new UsageError(missingMessage)
    const { usdc } = await client.config.localDev()
    network ??= usdc.network
    asset ??= usdc.address
  }
  return [
    {
      scheme,
      network,
      asset,
      amount,
      ...(maxTimeoutSeconds === undefined ? {} : { max_timeout_seconds: maxTimeoutSeconds }),
      ...(assetTransferMethod === undefined ? {} : { extra: { assetTransferMethod } }),
    },
  ]
}
