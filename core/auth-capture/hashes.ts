/**
 * The hashes that identify an auth-capture payment (x402 scheme_auth_capture_evm.md, "Payment identity"), computed as
 * base/commerce-payments' `AuthCaptureEscrow.getHash` does:
 *   structHash       = keccak256(abi.encode(PAYMENT_INFO_TYPEHASH, paymentInfo))
 *   paymentInfoHash  = keccak256(abi.encode(chainId, escrow, structHash))       (the escrow's payment id)
 *   signatureNonce   = paymentInfoHash with payer = address(0)                   (the nonce the client signs)
 *   bound salt       = keccak256(abi.encode(SALT_BINDING_TYPEHASH, receiverAuthorizer, policy, saltNonce))
 */
import {
  type Address,
  encodeAbiParameters,
  type Hex,
  hexToBigInt,
  isAddressEqual,
  keccak256,
  toHex,
  zeroAddress,
} from 'viem'
import type { PaymentInfo } from './types.js'

export const paymentInfoTypehash: Hex = keccak256(
  toHex(
    'PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)',
  ),
)

export const saltBindingTypehash: Hex = keccak256(
  toHex('x402AuthCaptureSaltBinding(address receiverAuthorizer,address policy,uint256 saltNonce)'),
)

const paymentInfoAbi = [
  { type: 'bytes32' },
  { type: 'address' },
  { type: 'address' },
  { type: 'address' },
  { type: 'address' },
  { type: 'uint120' },
  { type: 'uint48' },
  { type: 'uint48' },
  { type: 'uint48' },
  { type: 'uint16' },
  { type: 'uint16' },
  { type: 'address' },
  { type: 'uint256' },
] as const

/** keccak256(abi.encode(PAYMENT_INFO_TYPEHASH, paymentInfo)). */
export function paymentInfoStructHash(info: PaymentInfo): Hex {
  return keccak256(
    encodeAbiParameters(paymentInfoAbi, [
      paymentInfoTypehash,
      info.operator,
      info.payer,
      info.receiver,
      info.token,
      BigInt(info.maxAmount),
      info.preApprovalExpiry,
      info.authorizationExpiry,
      info.refundExpiry,
      info.minFeeBps,
      info.maxFeeBps,
      info.feeReceiver,
      hexToBigInt(info.salt),
    ]),
  )
}

/** `AuthCaptureEscrow.getHash(paymentInfo)` on chain `chainId` for the escrow at `escrow`: the payment's id. */
export function paymentInfoHash(chainId: number, escrow: Address, info: PaymentInfo): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'address' }, { type: 'bytes32' }],
      [BigInt(chainId), escrow, paymentInfoStructHash(info)],
    ),
  )
}

/** The nonce the client's ERC-3009 / Permit2 authorization carries: the payment's id with the payer zeroed. */
export const signatureNonce = (chainId: number, escrow: Address, info: PaymentInfo): Hex =>
  paymentInfoHash(chainId, escrow, { ...info, payer: zeroAddress })

/** The bound salt: the commitment to the receiver authorizer and the policy over the client's `saltNonce`. */
export function boundSalt(receiverAuthorizer: Address, policy: Address, saltNonce: Hex): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
      [saltBindingTypehash, receiverAuthorizer, policy, hexToBigInt(saltNonce)],
    ),
  )
}

/** Whether the salt is bound: a non-zero receiver authorizer or policy. */
export const isBindOn = (receiverAuthorizer: Address, policy: Address): boolean =>
  !isAddressEqual(receiverAuthorizer, zeroAddress) || !isAddressEqual(policy, zeroAddress)

/** `keccak256(collectorData)`, the `Charge` type's `collectorDataHash`. */
export const collectorDataHash = (collectorData: Hex): Hex => keccak256(collectorData)

/** Whether `value` is a wire word: 0x and exactly 64 hex digits. */
export const isWord = (value: unknown): value is Hex => typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value)
