import { describe, expect, test } from 'vitest'
import { authorizationWindowReason } from '../../../chain/facilitator/exact.js'

const payload = (validAfter: string | number, validBefore: string | number) => ({
  signature: '0x',
  authorization: { from: '0x1', to: '0x2', value: '1', validAfter, validBefore, nonce: '0x3' },
})

describe("an EIP-3009 authorization's window by svc's clock", () => {
  test("the scheme's rule: validBefore at least 6 s ahead, validAfter not ahead", () => {
    const now = 1_800_000_000
    expect(authorizationWindowReason(payload('0', String(now + 6)), now)).toBeUndefined()
    expect(authorizationWindowReason(payload('0', String(now + 5)), now)).toBe(
      'invalid_exact_evm_payload_authorization_valid_before',
    )
    expect(authorizationWindowReason(payload(String(now), now + 600), now)).toBeUndefined()
    expect(authorizationWindowReason(payload(now + 1, now + 600), now)).toBe(
      'invalid_exact_evm_payload_authorization_valid_after',
    )
  })

  test('a payload without an EIP-3009 authorization (or with unreadable times) is left to the scheme', () => {
    expect(authorizationWindowReason({ permit2Authorization: {} }, 1)).toBeUndefined()
    expect(authorizationWindowReason(payload('soon', 'later'), 1)).toBeUndefined()
  })
})
