import { getAddress, isAddress } from 'viem'
import { z } from 'zod'

/** zod error for a field: `required` when it is missing, `message` when it has the wrong type or value. */
export const required =
  (message: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? 'required' : message

/** An EVM address in any case, checksummed. */
export const evmAddress = (missing = 'required') =>
  z
    .string({ error: (issue) => (issue.input === undefined ? missing : 'expected an EVM address') })
    .refine((value) => isAddress(value, { strict: false }), {
      error: 'not an EVM address (0x followed by 40 hex digits)',
    })
    .transform((value) => getAddress(value))
