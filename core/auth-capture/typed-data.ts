/**
 * The EIP-712 data of the auth-capture scheme (x402 scheme_auth_capture_evm.md @3659f12), as viem's
 * `signTypedData` / `hashTypedData` / `verifyTypedData` take it:
 * - the receiver authorizer's consent to a `charge`, `capture`, `void` or `refund` (v1.1 types, `feeAmount`), in the
 *   operator domain `{name: "x402 Auth Capture Operator", version: "1", chainId, verifyingContract: captureAuthorizer}`;
 * - the client's token authorization: ERC-3009 `ReceiveWithAuthorization` (the token's domain) or Permit2
 *   `PermitTransferFrom` (the canonical Permit2's domain), as `@x402/evm`'s client signs them.
 */
import { type Address, getAddress, type Hex } from 'viem'
import type { Eip3009Authorization, Permit2Authorization } from './types.js'

/** The canonical Uniswap Permit2 (the same on every chain, the Sandbox's included). */
export const permit2Address: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

/** The domain of every authorizer signature: the operator (`extra.captureAuthorizer`) is `verifyingContract`. */
export const operatorDomain = (chainId: number, captureAuthorizer: Address) =>
  ({
    name: 'x402 Auth Capture Operator',
    version: '1',
    chainId,
    verifyingContract: getAddress(captureAuthorizer),
  }) as const

export const chargeTypes = {
  Charge: [
    { name: 'paymentInfoHash', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'tokenCollector', type: 'address' },
    { name: 'collectorDataHash', type: 'bytes32' },
    { name: 'feeAmount', type: 'uint256' },
    { name: 'feeReceiver', type: 'address' },
  ],
} as const
export const captureTypes = {
  Capture: [
    { name: 'paymentInfoHash', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'feeAmount', type: 'uint256' },
    { name: 'feeReceiver', type: 'address' },
    { name: 'expectedCapturableAmount', type: 'uint256' },
    { name: 'expectedRefundableAmount', type: 'uint256' },
  ],
} as const
export const voidTypes = { Void: [{ name: 'paymentInfoHash', type: 'bytes32' }] } as const
export const refundTypes = {
  Refund: [
    { name: 'paymentInfoHash', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'tokenCollector', type: 'address' },
    { name: 'expectedCapturableAmount', type: 'uint256' },
    { name: 'expectedRefundableAmount', type: 'uint256' },
  ],
} as const

/** Which operator and chain an authorizer signature is for. */
export type OperatorScope = { chainId: number; captureAuthorizer: Address }
type Amount = bigint | string

export const chargeTypedData = (
  scope: OperatorScope,
  message: {
    paymentInfoHash: Hex
    amount: Amount
    tokenCollector: Address
    collectorDataHash: Hex
    feeAmount: Amount
    feeReceiver: Address
  },
) => ({
  domain: operatorDomain(scope.chainId, scope.captureAuthorizer),
  types: chargeTypes,
  primaryType: 'Charge' as const,
  message: {
    paymentInfoHash: message.paymentInfoHash,
    amount: BigInt(message.amount),
    tokenCollector: getAddress(message.tokenCollector),
    collectorDataHash: message.collectorDataHash,
    feeAmount: BigInt(message.feeAmount),
    feeReceiver: getAddress(message.feeReceiver),
  },
})

export const captureTypedData = (
  scope: OperatorScope,
  message: {
    paymentInfoHash: Hex
    amount: Amount
    feeAmount: Amount
    feeReceiver: Address
    expectedCapturableAmount: Amount
    expectedRefundableAmount: Amount
  },
) => ({
  domain: operatorDomain(scope.chainId, scope.captureAuthorizer),
  types: captureTypes,
  primaryType: 'Capture' as const,
  message: {
    paymentInfoHash: message.paymentInfoHash,
    amount: BigInt(message.amount),
    feeAmount: BigInt(message.feeAmount),
    feeReceiver: getAddress(message.feeReceiver),
    expectedCapturableAmount: BigInt(message.expectedCapturableAmount),
    expectedRefundableAmount: BigInt(message.expectedRefundableAmount),
  },
})

export const voidTypedData = (scope: OperatorScope, message: { paymentInfoHash: Hex }) => ({
  domain: operatorDomain(scope.chainId, scope.captureAuthorizer),
  types: voidTypes,
  primaryType: 'Void' as const,
  message: { paymentInfoHash: message.paymentInfoHash },
})

export const refundTypedData = (
  scope: OperatorScope,
  message: {
    paymentInfoHash: Hex
    amount: Amount
    tokenCollector: Address
    expectedCapturableAmount: Amount
    expectedRefundableAmount: Amount
  },
) => ({
  domain: operatorDomain(scope.chainId, scope.captureAuthorizer),
  types: refundTypes,
  primaryType: 'Refund' as const,
  message: {
    paymentInfoHash: message.paymentInfoHash,
    amount: BigInt(message.amount),
    tokenCollector: getAddress(message.tokenCollector),
    expectedCapturableAmount: BigInt(message.expectedCapturableAmount),
    expectedRefundableAmount: BigInt(message.expectedRefundableAmount),
  },
})

export const receiveWithAuthorizationTypes = {
  ReceiveWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** The client's ERC-3009 authorization as it signed it: the token's domain (`extra.name`, `extra.version`). */
export const receiveWithAuthorizationTypedData = (
  token: { chainId: number; address: Address; name: string; version: string },
  authorization: Eip3009Authorization,
) => ({
  domain: {
    name: token.name,
    version: token.version,
    chainId: token.chainId,
    verifyingContract: getAddress(token.address),
  },
  types: receiveWithAuthorizationTypes,
  primaryType: 'ReceiveWithAuthorization' as const,
  message: {
    from: getAddress(authorization.from),
    to: getAddress(authorization.to),
    value: BigInt(authorization.value),
    validAfter: BigInt(authorization.validAfter),
    validBefore: BigInt(authorization.validBefore),
    nonce: authorization.nonce,
  },
})

export const permitTransferFromTypes = {
  PermitTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
} as const

/** The client's Permit2 authorization as it signed it: Permit2's domain, no witness (the nonce binds the payment). */
export const permitTransferFromTypedData = (chainId: number, authorization: Permit2Authorization) => ({
  domain: { name: 'Permit2', chainId, verifyingContract: permit2Address },
  types: permitTransferFromTypes,
  primaryType: 'PermitTransferFrom' as const,
  message: {
    permitted: { token: getAddress(authorization.permitted.token), amount: BigInt(authorization.permitted.amount) },
    spender: getAddress(authorization.spender),
    nonce: BigInt(authorization.nonce),
    deadline: BigInt(authorization.deadline),
  },
})
