/**
 * The lifecycle payloads a resource server authors for an auth-capture payment (capture, void, refund) and the
 * completion of a client's collect into a terminal charge, built and signed by the receiver authorizer. Pure: no chain.
 */
import { type Address, getAddress, type Hex } from 'viem'
import type { AuthCaptureDeployment } from './deployments.js'
import { collectorDataHash, paymentInfoHash } from './hashes.js'
import { collectorDataOf, type Reopened } from './reopen.js'
import { captureTypedData, chargeTypedData, type OperatorScope, refundTypedData, voidTypedData } from './typed-data.js'
import type {
  CapturePayload,
  ChargeCompletion,
  CollectPayload,
  PaymentInfo,
  RefundPayload,
  VoidPayload,
} from './types.js'

/** What signs an authorizer's typed data: a viem LocalAccount, or anything with its `signTypedData`. */
export type TypedDataSigner = { signTypedData: (typedData: never) => Promise<Hex> }
type Sign = (typedData: unknown) => Promise<Hex>
const signerOf =
  (signer: TypedDataSigner): Sign =>
  (typedData) =>
    (signer.signTypedData as unknown as Sign).call(signer, typedData)

/** A payment as its lifecycle payloads name it: the stored paymentInfo and saltNonce, on a set and chain. */
export type LifecycleTarget = {
  chainId: number
  deployment: AuthCaptureDeployment
  paymentInfo: PaymentInfo
  saltNonce: Hex
}
const scopeOf = (target: LifecycleTarget): OperatorScope => ({
  chainId: target.chainId,
  captureAuthorizer: target.paymentInfo.operator,
})
const idOf = (target: LifecycleTarget): Hex =>
  paymentInfoHash(target.chainId, target.deployment.escrow, target.paymentInfo)

/** What a capture moves and expects: `paymentState`'s balances as read just before. */
export type CaptureOperation = {
  amount: bigint | string
  feeAmount?: bigint | string
  feeReceiver?: Address
  expectedCapturableAmount: bigint | string
  expectedRefundableAmount: bigint | string
}

/**
 * A signed `capture` payload of `amount` with the balances expected on chain (`paymentState`); `voidRest` adds the
 * `voidAuthorizerSignature` of a sync partial close-out. The fee is `feeAmount` (default 0) to `feeReceiver`
 * (default the payment's).
 */
export async function buildCapture(
  target: LifecycleTarget,
  operation: CaptureOperation & { voidRest?: boolean },
  signer: TypedDataSigner,
): Promise<CapturePayload> {
  const sign = signerOf(signer)
  const id = idOf(target)
  const feeAmount = String(operation.feeAmount ?? 0n)
  const feeReceiver = getAddress(operation.feeReceiver ?? target.paymentInfo.feeReceiver)
  const message = {
    amount: String(operation.amount),
    feeAmount,
    feeReceiver,
    expectedCapturableAmount: String(operation.expectedCapturableAmount),
    expectedRefundableAmount: String(operation.expectedRefundableAmount),
  }
  const payload: CapturePayload = {
    type: 'capture',
    paymentInfo: target.paymentInfo,
    saltNonce: target.saltNonce,
    ...message,
    authorizerSignature: await sign(captureTypedData(scopeOf(target), { paymentInfoHash: id, ...message })),
  }
  if (operation.voidRest)
    payload.voidAuthorizerSignature = await sign(voidTypedData(scopeOf(target), { paymentInfoHash: id }))
  return payload
}

/** A signed `void` payload: the hold goes back to the payer. */
export async function buildVoid(target: LifecycleTarget, signer: TypedDataSigner): Promise<VoidPayload> {
  return {
    type: 'void',
    paymentInfo: target.paymentInfo,
    saltNonce: target.saltNonce,
    authorizerSignature: await signerOf(signer)(voidTypedData(scopeOf(target), { paymentInfoHash: idOf(target) })),
  }
}

/** A signed `refund` payload of `amount` (through the set's OperatorRefundCollector) with the expected balances. */
export async function buildRefund(
  target: LifecycleTarget,
  operation: {
    amount: bigint | string
    expectedCapturableAmount: bigint | string
    expectedRefundableAmount: bigint | string
  },
  signer: TypedDataSigner,
): Promise<RefundPayload> {
  const message = {
    amount: String(operation.amount),
    expectedCapturableAmount: String(operation.expectedCapturableAmount),
    expectedRefundableAmount: String(operation.expectedRefundableAmount),
  }
  return {
    type: 'refund',
    paymentInfo: target.paymentInfo,
    saltNonce: target.saltNonce,
    ...message,
    authorizerSignature: await signerOf(signer)(
      refundTypedData(scopeOf(target), {
        paymentInfoHash: idOf(target),
        tokenCollector: target.deployment.operatorRefundCollector,
        ...message,
      }),
    ),
  }
}

/**
 * The charge flow's completion of a client's collect payload before /settle: `amount` (at most the requirements'),
 * `feeAmount` (default 0) to `feeReceiver` (default the payment's fee recipient) and the receiver authorizer's
 * `Charge` signature over them and the collector data. The client's own fields stay as they are.
 */
export async function completeCharge<P extends CollectPayload>(
  input: {
    chainId: number
    reopened: Pick<Reopened, 'deployment' | 'paymentInfo' | 'paymentInfoHash'>
    method: 'eip3009' | 'permit2'
    payload: P
    amount: bigint | string
    feeAmount?: bigint | string
    feeReceiver?: Address
  },
  signer: TypedDataSigner,
): Promise<P & ChargeCompletion> {
  const { reopened, payload } = input
  const amount = String(input.amount)
  const feeAmount = String(input.feeAmount ?? 0n)
  const feeReceiver = getAddress(input.feeReceiver ?? reopened.paymentInfo.feeReceiver)
  const tokenCollector =
    input.method === 'eip3009' ? reopened.deployment.eip3009Collector : reopened.deployment.permit2Collector
  const authorizerSignature = await signerOf(signer)(
    chargeTypedData(
      { chainId: input.chainId, captureAuthorizer: reopened.paymentInfo.operator },
      {
        paymentInfoHash: reopened.paymentInfoHash,
        amount,
        tokenCollector,
        collectorDataHash: collectorDataHash(collectorDataOf(payload)),
        feeAmount,
        feeReceiver,
      },
    ),
  )
  return { ...payload, amount, feeAmount, feeReceiver, authorizerSignature }
}
