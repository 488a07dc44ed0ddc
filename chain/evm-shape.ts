import { isAddress } from 'viem'
import { z } from 'zod'

/**
 * The EVM fields x402's payloads share (amounts, addresses, hashes, signatures, Permit2 authorizations), as zod
 * schemas; the exact scheme's shape (chain/facilitator/exact.ts) and the batch-settlement scheme's
 * (chain/batch-settlement/shape.ts) are built from them.
 */

const uint256Max = 2n ** 256n - 1n

/** A field that must be a string passing `test`; `message` says what is expected, for every kind of failure. */
const text = (message: string, test: (value: string) => boolean) =>
  z.custom<string>((value) => typeof value === 'string' && test(value), { error: message })

export const uint256 = text(
  'expected a uint256 as a decimal string',
  (value) => /^\d{1,78}$/.test(value) && BigInt(value) <= uint256Max,
)
export const address = text('expected an address (0x + 40 hex digits)', (value) => isAddress(value, { strict: false }))
export const bytes32 = text('expected 32 bytes of hex (0x + 64 hex digits)', (value) =>
  /^0x[0-9a-fA-F]{64}$/.test(value),
)
export const hexBytes = text('expected hex bytes (0x + an even number of hex digits)', (value) =>
  /^0x(?:[0-9a-fA-F]{2})+$/.test(value),
)

/** A Permit2 `permitWitnessTransferFrom` authorization of `@x402/evm`, with the scheme's witness. */
export const permit2Authorization = (witness: z.ZodType) =>
  z.object(
    {
      from: address,
      permitted: z.object({ token: address, amount: uint256 }, { error: 'expected {token, amount}' }),
      spender: address,
      nonce: uint256,
      deadline: uint256,
      witness,
    },
    { error: 'expected {from, permitted, spender, nonce, deadline, witness}' },
  )
