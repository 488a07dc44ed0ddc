import { z } from 'zod'
import { address, bytes32, hexBytes, permit2Authorization, uint256 } from '../evm-shape.js'

/**
 * The shapes of x402's `batch-settlement` payloads (`@x402/evm`'s types), checked before the scheme turns their
 * fields into BigInts and checksummed addresses, which throws on a malformed one (a client mistake is a 400, not a
 * 500). Unknown extra keys are allowed, as x402 does; an unknown `type` is left to the scheme, which refuses it.
 */

const uint40 = z
  .number({ error: 'expected a whole number of seconds' })
  .int()
  .min(0)
  .max(2 ** 40 - 1)
/** An ERC-3009 deposit's salt: a uint256 as hex (the client's random nonce). */
const hexUint = z.custom<string>((value) => typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value), {
  error: 'expected a uint256 as hex (0x + up to 64 hex digits)',
})

const channelConfig = z.object(
  {
    payer: address,
    payerAuthorizer: address,
    receiver: address,
    receiverAuthorizer: address,
    token: address,
    withdrawDelay: uint40,
    salt: bytes32,
  },
  { error: 'expected {payer, payerAuthorizer, receiver, receiverAuthorizer, token, withdrawDelay, salt}' },
)
const voucher = z.object(
  { channelId: bytes32, maxClaimableAmount: uint256, signature: hexBytes },
  { error: 'expected {channelId, maxClaimableAmount, signature}' },
)
const claim = z.object(
  {
    voucher: z.object(
      { channel: channelConfig, maxClaimableAmount: uint256 },
      { error: 'expected {channel, maxClaimableAmount}' },
    ),
    signature: hexBytes,
    totalClaimed: uint256,
  },
  { error: 'expected {voucher, signature, totalClaimed}' },
)
const claims = z.array(claim, { error: 'expected an array of voucher claims' })

const schemas: Record<string, z.ZodType> = {
  deposit: z.object({
    channelConfig,
    voucher,
    deposit: z.object(
      {
        amount: uint256,
        authorization: z.union(
          [
            z.object({
              erc3009Authorization: z.object(
                { validAfter: uint256, validBefore: uint256, salt: hexUint, signature: hexBytes },
                { error: 'expected {validAfter, validBefore, salt, signature}' },
              ),
            }),
            z.object({
              permit2Authorization: permit2Authorization(
                z.object({ channelId: bytes32 }, { error: 'expected {channelId}' }),
              ).extend({
                signature: hexBytes,
              }),
            }),
          ],
          { error: 'expected {erc3009Authorization} or {permit2Authorization}' },
        ),
      },
      { error: 'expected {amount, authorization}' },
    ),
  }),
  voucher: z.object({ channelConfig, voucher }),
  refund: z.object({
    channelConfig,
    voucher,
    amount: uint256.optional(),
    refundNonce: uint256.optional(),
    claims: claims.optional(),
    refundAuthorizerSignature: hexBytes.optional(),
    claimAuthorizerSignature: hexBytes.optional(),
  }),
  claim: z.object({ claims, claimAuthorizerSignature: hexBytes.optional() }),
  settle: z.object({ receiver: address, token: address }),
}

/** The schema of a batch-settlement payload of this `type`, or undefined (an unknown type: the scheme refuses it). */
export function batchSettlementPayloadSchema(schemePayload: unknown): z.ZodType | undefined {
  const type = (schemePayload as { type?: unknown } | null)?.type
  return typeof type === 'string' ? schemas[type] : undefined
}
