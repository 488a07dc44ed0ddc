import type { PaymentPayload } from '@x402/core/types'
import { z } from 'zod'
import type { Clock } from '../../core/clock.js'
import { cutText, echoedValueLimit, errorMessageLimit } from '../../core/http.js'
import { depositWindowReason } from '../batch-settlement/index.js'
import { address, bytes32, hexBytes, permit2Authorization, uint256 } from '../evm-shape.js'

/**
 * The fields of the exact EVM scheme that x402's own schemas leave open (`@x402/core/schemas` types the scheme
 * payload as any record and amounts and addresses as any string), checked before `@x402/evm` turns them into
 * BigInts and checksummed addresses, which throws on a malformed one. Unknown extra keys are allowed, as x402 does.
 * Below them, the scheme's authorization window as svc's facilitator judges it by svc's clock.
 */

const optionalText = z.string({ error: 'expected a string' }).optional()

/** Payment requirements of the exact scheme on an `eip155:*` network. */
export const exactEvmRequirementsSchema = z.object({
  asset: address,
  payTo: address,
  amount: uint256,
  maxTimeoutSeconds: z
    .number({ error: 'expected a whole number of seconds' })
    .int({ error: 'expected a whole number of seconds' })
    .nonnegative({ error: 'expected a whole number of seconds' }),
  extra: z
    .object({ name: optionalText, version: optionalText }, { error: 'expected an object {name, version}' })
    .nullish(),
})

/** The exact scheme's EIP-3009 payload: a signature over a `TransferWithAuthorization`. */
export const eip3009PayloadSchema = z.object(
  {
    signature: hexBytes,
    authorization: z.object(
      { from: address, to: address, value: uint256, validAfter: uint256, validBefore: uint256, nonce: bytes32 },
      { error: 'expected {from, to, value, validAfter, validBefore, nonce}' },
    ),
  },
  { error: 'expected {signature, authorization}' },
)

/** The exact scheme's Permit2 payload (`extra.assetTransferMethod: "permit2"`): a signature over a witness transfer to the exact proxy. */
export const exactPermit2PayloadSchema = z.object(
  {
    signature: hexBytes,
    permit2Authorization: permit2Authorization(
      z.object({ to: address, validAfter: uint256 }, { error: 'expected {to, validAfter}' }),
    ),
  },
  { error: 'expected {signature, permit2Authorization}' },
)

/** The upto scheme's payload: a Permit2 signature over a witness transfer to the upto proxy, naming the facilitator. */
export const uptoPermit2PayloadSchema = z.object(
  {
    signature: hexBytes,
    permit2Authorization: permit2Authorization(
      z.object(
        { to: address, facilitator: address, validAfter: uint256 },
        { error: 'expected {to, facilitator, validAfter}' },
      ),
    ),
  },
  { error: 'expected {signature, permit2Authorization}' },
)

/** The EVM schemes svc's facilitator judges: `exact` (EIP-3009 or Permit2) and `upto` (Permit2). */
export const evmSchemes = ['exact', 'upto'] as const

/** Whether requirements (or a payload's `accepted`) name an EVM scheme svc judges ({@link evmSchemes}) on an EVM network. */
export function isExactEvm(requirements: { scheme?: unknown; network?: unknown }): boolean {
  return (
    (evmSchemes as readonly unknown[]).includes(requirements.scheme) &&
    typeof requirements.network === 'string' &&
    requirements.network.startsWith('eip155:')
  )
}

/**
 * The shape of the scheme payload a payment of these requirements carries: upto's Permit2 payload, the exact scheme's
 * Permit2 payload when the payload has a `permit2Authorization` (as `@x402/evm` routes it), else EIP-3009's.
 */
export function schemePayloadSchema(requirements: { scheme?: unknown }, schemePayload: unknown): z.ZodType {
  if (requirements.scheme === 'upto') return uptoPermit2PayloadSchema
  const isPermit2 =
    typeof schemePayload === 'object' && schemePayload !== null && 'permit2Authorization' in schemePayload
  return isPermit2 ? exactPermit2PayloadSchema : eip3009PayloadSchema
}

/** What is wrong with `value` under `schema`, as one bounded line naming the first problem (`prefix.path: …`), or undefined. */
export function shapeProblem(schema: z.ZodType, value: unknown, prefix: string): string | undefined {
  const result = schema.safeParse(value)
  if (result.success) return undefined
  return describeIssue(prefix, result.error.issues[0])
}

/** One issue of a zod schema (ours or x402's) as `prefix.path: message`, path and message cut to bounded lengths. */
export function describeIssue(
  prefix: string,
  issue: { path: readonly PropertyKey[]; message: string } | undefined,
): string {
  const path = cutText([prefix, ...(issue?.path ?? []).map(String)].filter(Boolean).join('.'), echoedValueLimit)
  const message = cutText(issue?.message ?? 'invalid', errorMessageLimit - path.length - 2)
  return path ? `${path}: ${message}` : message
}

/** The exact EVM scheme's reasons for an authorization outside its window (as @x402/evm names them). */
export const validBeforeExpiredReason = 'invalid_exact_evm_payload_authorization_valid_before'
export const validAfterInFutureReason = 'invalid_exact_evm_payload_authorization_valid_after'

/** Seconds an authorization must still be valid for when it is judged (the scheme's own margin for the settlement). */
const settleMarginSeconds = 6

/**
 * Why an EIP-3009 authorization is outside its window at `nowSeconds` (the scheme's own rule: `validBefore` at
 * least 6 s ahead, `validAfter` not ahead), or undefined (inside it, or no EIP-3009 authorization in the payload).
 * @x402/evm judges the window by the machine's clock; the Sandbox facilitator asks this with svc's clock when
 * `svc time advance` has moved it.
 */
export function authorizationWindowReason(payload: PaymentPayload['payload'], nowSeconds: number): string | undefined {
  const authorization = (payload as { authorization?: { validBefore?: unknown; validAfter?: unknown } } | undefined)
    ?.authorization
  const validBefore = toSeconds(authorization?.validBefore)
  const validAfter = toSeconds(authorization?.validAfter)
  if (validBefore !== undefined && validBefore < BigInt(nowSeconds + settleMarginSeconds))
    return validBeforeExpiredReason
  if (validAfter !== undefined && validAfter > BigInt(nowSeconds)) return validAfterInFutureReason
  return undefined
}

/**
 * Why an authorization refused by svc's clock would have passed by the machine's: the buyer signed by the machine's
 * clock while `svc time advance` has moved svc's ahead. Undefined when the offset does not explain the refusal.
 */
export function offsetExplains(payload: PaymentPayload, clock: Clock): string | undefined {
  const machineNow = Math.floor((clock.now() - clock.offsetMs) / 1000)
  const byMachine = authorizationWindowReason(payload.payload, machineNow) ?? depositWindowReason(payload, machineNow)
  if (clock.offsetMs <= 0 || byMachine !== undefined) return undefined
  return `svc's clock is ${Math.round(clock.offsetMs / 1000)} s ahead of the machine's (svc time advance): the buyer signed by the machine's clock; sign by svc's (GET /dev/time on the Sandbox control plane; svc pay and startSandbox's buyer do), or svc revert to a snapshot taken before`
}

function toSeconds(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
  if (typeof value === 'string' && /^\d{1,78}$/.test(value)) return BigInt(value)
  return undefined
}
