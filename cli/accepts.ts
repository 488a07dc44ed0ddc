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

/**
 * What `--payment-flow`, `--gas-sponsoring` and the escrow flags (`--capture-mode`, `--capture-deadline`,
 * `--refund-deadline`) set in every accept's `extra` (add and update).
 */
export type ExtraFlags = {
  paymentFlow?: string
  gasSponsoring?: string
  captureMode?: string
  captureDeadline?: string
  refundDeadline?: string
}

const schemes = ['exact', 'upto', 'batch-settlement', 'auth-capture'] as const
const transferMethods = ['eip3009', 'permit2'] as const
const paymentFlows = ['authorization', 'upfront', 'escrow'] as const
const captureModes = ['sync', 'deferred'] as const
const durationUnits: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 }

/** `3600`, `90s`, `15m`, `2h`, `7d` → seconds; anything else is a usage error naming `flag`. */
function durationOf(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined
  const match = /^(\d{1,12})([smhd]?)$/.exec(text.trim())
  const seconds = match ? Number(match[1]) * durationUnits[match[2] || 's']! : Number.NaN
  if (!Number.isSafeInteger(seconds) || seconds < 1)
    throw new UsageError(`${flag} must be a duration in seconds (or 15m, 2h, 7d), got "${text}"`)
  return seconds
}
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
export function extraFromFlags(flags: ExtraFlags): Record<string, string | number> | undefined {
  const paymentFlow = oneOf(flags.paymentFlow, paymentFlows, '--payment-flow')
  const gasSponsoring = oneOf(flags.gasSponsoring, gasSponsorings, '--gas-sponsoring')
  const captureMode = oneOf(flags.captureMode, captureModes, '--capture-mode')
  const captureDeadlineSeconds = durationOf(flags.captureDeadline, '--capture-deadline')
  const refundDeadlineSeconds = durationOf(flags.refundDeadline, '--refund-deadline')
  const extra = {
    ...(paymentFlow === undefined ? {} : { paymentFlow }),
    ...(gasSponsoring === undefined ? {} : { gasSponsoring }),
    ...(captureMode === undefined ? {} : { captureMode }),
    ...(captureDeadlineSeconds === undefined ? {} : { captureDeadlineSeconds }),
    ...(refundDeadlineSeconds === undefined ? {} : { refundDeadlineSeconds }),
  }
  return Object.keys(extra).length === 0 ? undefined : extra
}

/** `accepts` with `extra` merged into each one's `extra`. */
export const withExtra = (accepts: Accept[], extra: Record<string, string | number>): Accept[] =>
  accepts.map((accept) => ({ ...accept, extra: { ...accept.extra, ...extra } }))

/** `--payment-flow`, `--gas-sponsoring` and the escrow flags, for `endpoints add` and `update`. */
export function withExtraFlags(command: Command): Command {
  return command
    .option(
      '--payment-flow <flow>',
      'authorization (the default: settle after the upstream answered below 400) or upfront (settle, then call the upstream; not with upto); auth-capture: escrow (the default: hold, then capture) or authorization (one charge after the upstream answered)',
    )
    .option(
      '--capture-mode <mode>',
      'auth-capture, escrow flow: sync (the default: captured when the upstream answers) or deferred (held for you to capture, void or let expire: svc payments capture)',
    )
    .option('--capture-deadline <duration>', 'auth-capture: how long a hold can be captured, e.g. 1d (default 1d)')
    .option('--refund-deadline <duration>', 'auth-capture: how long a capture can be refunded, e.g. 7d (default 7d)')
    .option(
      '--gas-sponsoring <extension>',
      'Permit2 only: the one gas sponsoring extension the 402 declares, eip2612GasSponsoring or erc20ApprovalGasSponsoring (default: both)',
    )
}
