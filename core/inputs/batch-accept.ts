import type { z } from 'zod'

/**
 * The withdraw delay bounds of @x402/evm's batch-settlement scheme (its MIN_WITHDRAW_DELAY and MAX_WITHDRAW_DELAY,
 * which match the contract's and are not exported): a buyer can take an unspent deposit back this long after asking.
 */
export const minWithdrawDelaySeconds = 900
export const maxWithdrawDelaySeconds = 2_592_000
/** The schedule of a receiver's channel manager when its accepts set none (seconds). */
export const defaultClaimIntervalSeconds = 60
export const defaultSettleIntervalSeconds = 60

/**
 * The `extra` fields of a batch-settlement accept. `minDeposit` and `withdrawDelay` are the package's own (it reads
 * `extra.minDeposit` and advertises `extra.withdrawDelay`); `claimIntervalSeconds` and `settleIntervalSeconds` are
 * svc's: how often the seller's channel manager claims vouchers and settles what it claimed.
 */
export type BatchExtra = {
  minDeposit?: string
  withdrawDelay?: number
  claimIntervalSeconds?: number
  settleIntervalSeconds?: number
}

/** Fields the scheme writes into the 402 itself: a seller cannot set them. */
const reservedFields = ['receiverAuthorizer', 'channelState', 'voucherState'] as const

const integerIn = (value: unknown, min: number, max: number) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max

/**
 * The rules of a `batch-settlement` accept, added to `ctx` (zod's refinement context): the deposit policy
 * (`minDeposit`: atomic units, at least the price, as the scheme takes the larger of both), the withdraw delay (the
 * package's bounds), the claim and settle schedule, and no Permit2 gas sponsoring, upfront flow or scheme-owned field.
 */
export function checkBatchAccept(
  accept: { amount: string; extra?: Record<string, unknown> | undefined },
  ctx: z.RefinementCtx,
): void {
  const extra = accept.extra ?? {}
  const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: ['extra', field], message })
  const min = extra.minDeposit
  if (min !== undefined) {
    if (typeof min !== 'string' || !/^[1-9][0-9]{0,77}$/.test(min))
      issue('minDeposit', 'must be a positive integer of atomic units without leading zeros, as a string')
    else if (/^[0-9]+$/.test(accept.amount) && BigInt(min) < BigInt(accept.amount))
      issue('minDeposit', `must be at least the amount (${accept.amount}): a deposit pays the first request`)
  }
  const delay = extra.withdrawDelay
  if (delay !== undefined && !integerIn(delay, minWithdrawDelaySeconds, maxWithdrawDelaySeconds))
    issue(
      'withdrawDelay',
      `must be an integer number of seconds between ${minWithdrawDelaySeconds} and ${maxWithdrawDelaySeconds} (the batch-settlement contract's bounds)`,
    )
  for (const field of ['claimIntervalSeconds', 'settleIntervalSeconds'] as const)
    if (extra[field] !== undefined && !integerIn(extra[field], 1, 86_400))
      issue(field, 'must be an integer number of seconds between 1 and 86400')
  if (extra.paymentFlow !== undefined && extra.paymentFlow !== 'authorization')
    issue('paymentFlow', 'batch-settlement charges a voucher after the upstream answered: only "authorization"')
  if (extra.gasSponsoring !== undefined)
    issue('gasSponsoring', 'batch-settlement deposits need no Permit2 approval sponsoring: leave it out')
  for (const field of reservedFields)
    if (extra[field] !== undefined) issue(field, 'is written by the batch-settlement scheme: leave it out')
}

/**
 * One scheme per network serves a resource server, and a channel's withdraw delay is part of its identity: every
 * batch-settlement accept of an endpoint names the same delay.
 */
export function checkBatchAccepts(
  accepts: readonly { scheme: string; extra?: Record<string, unknown> | undefined }[],
  ctx: z.RefinementCtx,
): void {
  const delays = new Set(
    accepts
      .filter((accept) => accept.scheme === 'batch-settlement')
      .map((accept) => accept.extra?.withdrawDelay ?? minWithdrawDelaySeconds),
  )
  if (delays.size > 1)
    ctx.addIssue({
      code: 'custom',
      message: 'the batch-settlement accepts of an endpoint must name the same extra.withdrawDelay',
    })
}

/** The withdraw delay an accept's channels have (seconds). */
export const withdrawDelayOf = (extra: Record<string, unknown> | undefined): number =>
  typeof extra?.withdrawDelay === 'number' ? extra.withdrawDelay : minWithdrawDelaySeconds
