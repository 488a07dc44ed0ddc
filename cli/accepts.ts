import type { Command } from 'commander'
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
} & ExtraFlags

/** What `--payment-flow` and `--gas-sponsoring` set in every accept's `extra` (add and update). */
export type ExtraFlags = { paymentFlow?: string; gasSponsoring?: string }

const schemes = ['exact', 'upto', 'batch-settlement'] as const
const transferMethods = ['eip3009', 'permit2'] as const
const paymentFlows = ['authorization', 'upfront'] as const
const gasSponsorings = ['eip2612GasSponsoring', 'erc20ApprovalGasSponsoring'] as const
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
  const extra = extraFromFlags(call.options)
  const accepts = await acceptsFor({
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
  return extra ? withExtra(accepts, extra) : accepts
}

/**
 * `extra.paymentFlow` and `extra.gasSponsoring` from `--payment-flow` and `--gas-sponsoring` (undefined: neither
 * given). Only the names are checked here; the control plane judges the combination (upto is never upfront, gas
 * sponsoring needs Permit2) and says why.
 */
export function extraFromFlags(flags: ExtraFlags): Record<string, string> | undefined {
  const paymentFlow = oneOf(flags.paymentFlow, paymentFlows, '--payment-flow')
  const gasSponsoring = oneOf(flags.gasSponsoring, gasSponsorings, '--gas-sponsoring')
  if (paymentFlow === undefined && gasSponsoring === undefined) return undefined
  return {
    ...(paymentFlow === undefined ? {} : { paymentFlow }),
    ...(gasSponsoring === undefined ? {} : { gasSponsoring }),
  }
}

/** `accepts` with `extra` merged into each one's `extra`. */
export const withExtra = (accepts: Accept[], extra: Record<string, string>): Accept[] =>
  accepts.map((accept) => ({ ...accept, extra: { ...accept.extra, ...extra } }))

/** `--payment-flow` and `--gas-sponsoring`, for `endpoints add` and `update`. */
export function withExtraFlags(command: Command): Command {
  return command
    .option(
      '--payment-flow <flow>',
      'authorization (the default: settle after the upstream answered below 400) or upfront (settle, then call the upstream; not with upto)',
    )
    .option(
      '--gas-sponsoring <extension>',
      'Permit2 only: the one gas sponsoring extension the 402 declares, eip2612GasSponsoring or erc20ApprovalGasSponsoring (default: both)',
    )
}
