/**
 * The auth-capture scheme's shapes as they travel (x402 scheme_auth_capture_evm.md @3659f12): amounts are decimal
 * strings of atomic units, expiries and fee bounds numbers, `salt`/`saltNonce` 0x-prefixed 32-byte hex. The same as
 * `@x402/evm`'s (which exports the payload types but not all of their parts), written here so core/ names them once
 * for the facilitator, the gateway, the server scheme and the `svc` package.
 */
import type { Address, Hex } from 'viem'

export const authCaptureScheme = 'auth-capture' as const

/** The two flows (`extra.paymentFlow`): a hold then capture/void (`escrow`, default) or a terminal `charge`. */
export const authCapturePaymentFlows = ['escrow', 'authorization'] as const
export type AuthCapturePaymentFlow = (typeof authCapturePaymentFlows)[number]

/** When an escrow payment's finalize runs (`extra.captureMode`): in the paid request (`sync`, default) or later. */
export const authCaptureCaptureModes = ['sync', 'deferred'] as const
export type AuthCaptureCaptureMode = (typeof authCaptureCaptureModes)[number]

/** How the payer's token moves into the escrow (`extra.assetTransferMethod`). */
export const authCaptureTransferMethods = ['eip3009', 'permit2'] as const
export type AuthCaptureTransferMethod = (typeof authCaptureTransferMethods)[number]

/** The operator types the spec names; svc implements `delegated` only (the others are refused). */
export const authCaptureOperatorTypes = ['delegated', 'custom', 'policy'] as const
export type AuthCaptureOperatorType = (typeof authCaptureOperatorTypes)[number]

/** The three lifecycle operations a resource server authors (`payload.type`). */
export const authCaptureLifecycleTypes = ['capture', 'void', 'refund'] as const
export type AuthCaptureLifecycleType = (typeof authCaptureLifecycleTypes)[number]

/** The escrow's `PaymentInfo` struct as the wire carries it (canonical Solidity names). */
export type PaymentInfo = {
  operator: Address
  payer: Address
  receiver: Address
  token: Address
  /** uint120, decimal string. */
  maxAmount: string
  preApprovalExpiry: number
  authorizationExpiry: number
  refundExpiry: number
  minFeeBps: number
  maxFeeBps: number
  feeReceiver: Address
  /** uint256 as 32-byte hex. */
  salt: Hex
}

/** `requirements.extra` of an auth-capture accept, after extra.ts normalised it (absent addresses are zero). */
export type AuthCaptureExtra = {
  name: string
  version: string
  /** As given (checksummed), or undefined when omitted: the nonce decides the set then. */
  authCaptureEscrow: Address | undefined
  captureAuthorizer: Address
  receiverAuthorizer: Address
  policy: Address
  operatorType: 'delegated'
  paymentFlow: AuthCapturePaymentFlow
  /** Escrow flow only; `sync` when omitted there, undefined on the authorization flow. */
  captureMode: AuthCaptureCaptureMode | undefined
  captureDeadline: number
  refundDeadline: number
  minFeeBps: number
  maxFeeBps: number
  feeRecipient: Address
  assetTransferMethod: AuthCaptureTransferMethod
}

/** ERC-3009 `ReceiveWithAuthorization` fields of an EIP-3009 collect payload. */
export type Eip3009Authorization = {
  from: Address
  to: Address
  value: string
  validAfter: string
  validBefore: string
  nonce: Hex
}

/** Permit2 `PermitTransferFrom` fields of a Permit2 collect payload (`nonce` is the signature nonce as a decimal). */
export type Permit2Authorization = {
  from: Address
  permitted: { token: Address; amount: string }
  spender: Address
  nonce: string
  deadline: string
}

/** The four fields a server adds to a charge-flow payload before /settle (v1.1: `feeAmount`). */
export type ChargeCompletion = {
  amount: string
  feeAmount: string
  feeReceiver: Address
  authorizerSignature: Hex
}

type CollectBase = {
  signature: Hex
  salt: Hex
  /** Present iff the salt is bound (non-zero receiverAuthorizer or policy). */
  saltNonce?: Hex
} & Partial<ChargeCompletion>

export type Eip3009CollectPayload = CollectBase & { authorization: Eip3009Authorization }
export type Permit2CollectPayload = CollectBase & { permit2Authorization: Permit2Authorization }
/** What the client signs and sends: settles as `authorize` (escrow flow) or `charge` (authorization flow). */
export type CollectPayload = Eip3009CollectPayload | Permit2CollectPayload

type LifecycleBase = { paymentInfo: PaymentInfo; saltNonce: Hex; authorizerSignature: Hex }
export type CapturePayload = LifecycleBase & {
  type: 'capture'
  amount: string
  feeAmount: string
  feeReceiver: Address
  expectedCapturableAmount: string
  expectedRefundableAmount: string
  /** A sync partial close-out: void the rest in the same /settle. */
  voidAuthorizerSignature?: Hex
}
export type VoidPayload = LifecycleBase & { type: 'void' }
export type RefundPayload = LifecycleBase & {
  type: 'refund'
  amount: string
  expectedCapturableAmount: string
  expectedRefundableAmount: string
}
/** What a resource server authors for `POST /settle` after the collect. */
export type LifecyclePayload = CapturePayload | VoidPayload | RefundPayload

/** The escrow's `paymentState(paymentInfoHash)`. */
export type PaymentState = { hasCollectedPayment: boolean; capturableAmount: bigint; refundableAmount: bigint }

/** A refusal: an `invalid_auth_capture_evm_*` reason (or `invalid_network`) and what exactly was wrong. */
export type Refusal = { reason: string; message: string }
export type Judged<T> = ({ ok: true } & T) | ({ ok: false } & Refusal)
