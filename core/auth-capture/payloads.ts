/**
 * An auth-capture payload read and reopened (x402 scheme_auth_capture_evm.md @3659f12, "Verification", steps 1, 6–10,
 * 12–13 for a collect; 1–3 for a lifecycle payload), and the lifecycle payloads a resource server authors, built and
 * signed. Pure: no chain, no clock but the `now` given. The chain's part (signatures, balances, `paymentState`,
 * simulation) is the facilitator's (chain/auth-capture/).
 */
import {
  type Address,
  getAddress,
  type Hex,
  hexToBigInt,
  isAddress,
  isAddressEqual,
  isHex,
  toHex,
  zeroAddress,
} from 'viem'
import type { AuthCaptureDeployment } from './deployments.js'
import { reasonPrefix } from './extra.js'
import { boundSalt, isBindOn, isWord, paymentInfoHash, signatureNonce } from './hashes.js'
import { collectorDataHash } from './hashes.js'
import { captureTypedData, chargeTypedData, type OperatorScope, refundTypedData, voidTypedData } from './typed-data.js'
import type {
  AuthCaptureExtra,
  CapturePayload,
  ChargeCompletion,
  CollectPayload,
  Eip3009CollectPayload,
  Judged,
  LifecyclePayload,
  PaymentInfo,
  Permit2CollectPayload,
  RefundPayload,
  VoidPayload,
} from './types.js'
import { authCaptureLifecycleTypes } from './types.js'

const refuse = (reason: string, message: string) => ({
  ok: false as const,
  reason: `${reasonPrefix}${reason}`,
  message,
})
const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
const isAddressText = (value: unknown): value is Address =>
  typeof value === 'string' && isAddress(value, { strict: false })
const isUintText = (value: unknown): value is string =>
  typeof value === 'string' && /^(0|[1-9][0-9]{0,77})$/.test(value)
const isSignature = (value: unknown): value is Hex => typeof value === 'string' && isHex(value) && value.length > 2

/** What a payload is: a client's collect (EIP-3009 or Permit2) or a server's lifecycle operation. */
export type ReadPayload =
  | { kind: 'eip3009'; payload: Eip3009CollectPayload }
  | { kind: 'permit2'; payload: Permit2CollectPayload }
  | { kind: 'lifecycle'; payload: LifecyclePayload }

const chargeFields = ['amount', 'feeAmount', 'feeReceiver', 'authorizerSignature'] as const

/**
 * Step 1, the shape guard: an EIP-3009 or Permit2 collect (with `signature` and `salt`; the four charge fields all or
 * none, never v1.0's `feeBps`), or a lifecycle payload (`type` capture|void|refund with its fields). `saltNonce`
 * against the bind is {@link checkSaltShape}'s, once extra is known.
 */
export function readPayload(raw: unknown): Judged<ReadPayload> {
  if (!isObject(raw)) return refuse('payload_format', 'the payload is not an object')
  if (raw.type !== undefined) return readLifecycle(raw)
  if (raw.feeBps !== undefined) return refuse('payload_format', 'feeBps is the v1.0 fee field: v1.1 takes feeAmount')
  const present = chargeFields.filter((field) => raw[field] !== undefined)
  if (present.length > 0 && present.length < chargeFields.length)
    return refuse('payload_format', `a completed charge carries ${chargeFields.join(', ')} together`)
  if (present.length === chargeFields.length) {
    if (!isUintText(raw.amount) || !isUintText(raw.feeAmount))
      return refuse('payload_format', 'amount and feeAmount must be decimal strings of atomic units')
    if (!isAddressText(raw.feeReceiver)) return refuse('payload_format', 'feeReceiver must be an address')
    if (!isSignature(raw.authorizerSignature)) return refuse('payload_format', 'authorizerSignature must be hex')
  }
  if (!isSignature(raw.signature)) return refuse('payload_format', 'signature must be hex')
  if (!isWord(raw.salt)) return refuse('payload_format', 'salt must be 0x and 64 hex digits')
  if (raw.saltNonce !== undefined && !isWord(raw.saltNonce))
    return refuse('payload_format', 'saltNonce must be 0x and 64 hex digits')
  const a = raw.authorization
  const p = raw.permit2Authorization
  if (isObject(a) && p === undefined) {
    if (
      !isAddressText(a.from) ||
      !isAddressText(a.to) ||
      !isUintText(a.value) ||
      !isUintText(a.validAfter) ||
      !isUintText(a.validBefore) ||
      !isWord(a.nonce)
    )
      return refuse('payload_format', 'authorization must have from, to, value, validAfter, validBefore and nonce')
    return { ok: true, kind: 'eip3009', payload: raw as unknown as Eip3009CollectPayload }
  }
  if (isObject(p) && a === undefined) {
    const permitted = p.permitted
    if (
      !isAddressText(p.from) ||
      !isObject(permitted) ||
      !isAddressText(permitted.token) ||
      !isUintText(permitted.amount) ||
      !isAddressText(p.spender) ||
      !isUintText(p.nonce) ||
      !isUintText(p.deadline)
    )
      return refuse(
        'payload_format',
        'permit2Authorization must have from, permitted {token, amount}, spender, nonce and deadline',
      )
    return { ok: true, kind: 'permit2', payload: raw as unknown as Permit2CollectPayload }
  }
  return refuse('payload_format', 'the payload is neither the EIP-3009 nor the Permit2 shape')
}

function readPaymentInfo(raw: unknown): PaymentInfo | undefined {
  if (!isObject(raw)) return undefined
  const addresses = ['operator', 'payer', 'receiver', 'token', 'feeReceiver'] as const
  const numbers = ['preApprovalExpiry', 'authorizationExpiry', 'refundExpiry', 'minFeeBps', 'maxFeeBps'] as const
  if (!addresses.every((field) => isAddressText(raw[field]))) return undefined
  if (!numbers.every((field) => Number.isSafeInteger(raw[field]) && (raw[field] as number) >= 0)) return undefined
  if (!isUintText(raw.maxAmount) || !isWord(raw.salt)) return undefined
  return raw as unknown as PaymentInfo
}

function readLifecycle(raw: Record<string, unknown>): Judged<ReadPayload> {
  if (!(authCaptureLifecycleTypes as readonly unknown[]).includes(raw.type))
    return refuse('payload_type', `payload.type must be "capture", "void" or "refund"`)
  if (!readPaymentInfo(raw.paymentInfo))
    return refuse('payload_format', 'paymentInfo must be the escrow PaymentInfo struct (the wire spelling)')
  if (!isWord(raw.saltNonce)) return refuse('payload_format', 'saltNonce must be 0x and 64 hex digits')
  if (raw.authorizerSignature !== undefined && !isSignature(raw.authorizerSignature))
    return refuse('payload_format', 'authorizerSignature must be hex')
  if (raw.type !== 'capture' && raw.voidAuthorizerSignature !== undefined)
    return refuse('void_authorizer_signature', `voidAuthorizerSignature is for a capture, not a ${raw.type}`)
  if (raw.type === 'capture') {
    if (raw.feeBps !== undefined) return refuse('payload_format', 'feeBps is the v1.0 fee field: v1.1 takes feeAmount')
    if (!isUintText(raw.amount) || !isUintText(raw.feeAmount) || !isAddressText(raw.feeReceiver))
      return refuse('payload_format', 'a capture carries amount, feeAmount and feeReceiver')
    if (raw.voidAuthorizerSignature !== undefined && !isSignature(raw.voidAuthorizerSignature))
      return refuse('void_authorizer_signature', 'voidAuthorizerSignature must be hex')
  }
  if (raw.type === 'refund' && !isUintText(raw.amount)) return refuse('payload_format', 'a refund carries amount')
  if (raw.type !== 'void' && (!isUintText(raw.expectedCapturableAmount) || !isUintText(raw.expectedRefundableAmount)))
    return refuse('payload_format', `a ${raw.type} carries expectedCapturableAmount and expectedRefundableAmount`)
  return { ok: true, kind: 'lifecycle', payload: raw as unknown as LifecyclePayload }
}

/** Step 1's `saltNonce` rule: present if and only if the bind is on (svc does not nonce-probe v1.0 clients). */
export function checkSaltShape(
  payload: { saltNonce?: unknown },
  extra: Pick<AuthCaptureExtra, 'receiverAuthorizer' | 'policy'>,
): Judged<object> {
  const bound = isBindOn(extra.receiverAuthorizer, extra.policy)
  if (bound && payload.saltNonce === undefined)
    return refuse('payload_format', 'the salt is bound (extra names a receiverAuthorizer): saltNonce is required')
  if (!bound && payload.saltNonce !== undefined)
    return refuse('payload_format', 'the salt is not bound (no receiverAuthorizer nor policy): leave saltNonce out')
  return { ok: true }
}

/** The top-level requirements a PaymentInfo is rebuilt from. */
export type RequirementsCore = {
  network: string
  amount: string
  asset: string
  payTo: string
  maxTimeoutSeconds: number
}

/** The chain id of an `eip155:<id>` network, or undefined (the facilitator answers `invalid_network`). */
export function chainIdOf(network: string): number | undefined {
  const match = /^eip155:([1-9][0-9]{0,15})$/.exec(network)
  return match ? Number(match[1]) : undefined
}

/** The PaymentInfo a collect commits to: extra, the requirements, the payer, its salt and its preApprovalExpiry. */
export const paymentInfoOf = (
  requirements: Pick<RequirementsCore, 'amount' | 'asset' | 'payTo'>,
  extra: AuthCaptureExtra,
  payment: { payer: Address; salt: Hex; preApprovalExpiry: number },
): PaymentInfo => ({
  operator: extra.captureAuthorizer,
  payer: getAddress(payment.payer),
  receiver: getAddress(requirements.payTo),
  token: getAddress(requirements.asset),
  maxAmount: requirements.amount,
  preApprovalExpiry: payment.preApprovalExpiry,
  authorizationExpiry: extra.captureDeadline,
  refundExpiry: extra.refundDeadline,
  minFeeBps: extra.minFeeBps,
  maxFeeBps: extra.maxFeeBps,
  feeReceiver: extra.feeRecipient,
  salt: payment.salt,
})

/** A collect's parts in common form: who pays, to which collector, how much, until when, under which nonce. */
export function collectFields(read: Extract<ReadPayload, { kind: 'eip3009' | 'permit2' }>) {
  if (read.kind === 'eip3009') {
    const a = read.payload.authorization
    return {
      payer: getAddress(a.from),
      collector: getAddress(a.to),
      value: a.value,
      validAfter: Number(a.validAfter),
      validBefore: Number(a.validBefore),
      nonce: a.nonce.toLowerCase() as Hex,
      token: undefined,
    }
  }
  const p = read.payload.permit2Authorization
  return {
    payer: getAddress(p.from),
    collector: getAddress(p.spender),
    value: p.permitted.amount,
    validAfter: 0,
    validBefore: Number(p.deadline),
    nonce: toHex(BigInt(p.nonce), { size: 32 }),
    token: getAddress(p.permitted.token),
  }
}

/** A collect reopened: the set it was signed for, its PaymentInfo and the escrow's id of it. */
export type Reopened = {
  deployment: AuthCaptureDeployment
  paymentInfo: PaymentInfo
  paymentInfoHash: Hex
  /** The wire nonce (= the payer-agnostic hash), 32-byte hex. */
  nonce: Hex
}

/**
 * Step 5's charge rule (a charge needs a receiver authorizer: `missing_receiver_authorizer`), then steps 6, 9, 10, 12
 * (the collected value) and 13 of a collect: the shape matches `assetTransferMethod`; the
 * collector is the resolved set's (`deployments`: both served sets when extra omits the escrow); Permit2's token is
 * the asset; the value is the amount; the salt reopens (bound: the commitment over `saltNonce`); the wire nonce is
 * the recomputed signature nonce of one of the sets, which is the one the payment was signed for.
 */
export function reopenCollect(input: {
  chainId: number
  requirements: Pick<RequirementsCore, 'amount' | 'asset' | 'payTo'>
  extra: AuthCaptureExtra
  deployments: readonly AuthCaptureDeployment[]
  read: Extract<ReadPayload, { kind: 'eip3009' | 'permit2' }>
}): Judged<Reopened> {
  const { chainId, requirements, extra, deployments, read } = input
  if (extra.paymentFlow === 'authorization' && isAddressEqual(extra.receiverAuthorizer, zeroAddress))
    return refuse(
      'missing_receiver_authorizer',
      'a charge (paymentFlow "authorization") needs a non-zero receiverAuthorizer',
    )
  if (read.kind !== extra.assetTransferMethod)
    return refuse(
      'payload_method_mismatch',
      `extra.assetTransferMethod is ${extra.assetTransferMethod}, the payload ${read.kind}`,
    )
  const salt = checkSaltShape(read.payload, extra)
  if (!salt.ok) return salt
  const fields = collectFields(read)
  const collectorOf = (deployment: AuthCaptureDeployment) =>
    read.kind === 'eip3009' ? deployment.eip3009Collector : deployment.permit2Collector
  const sets = deployments.filter((deployment) => isAddressEqual(collectorOf(deployment), fields.collector))
  if (sets.length === 0)
    return refuse(
      'token_collector_mismatch',
      `${read.kind === 'eip3009' ? 'authorization.to' : 'permit2Authorization.spender'} ${fields.collector} is not the ${read.kind} collector of the escrow`,
    )
  if (fields.token && !isAddressEqual(fields.token, getAddress(requirements.asset)))
    return refuse('token_mismatch', `permitted.token ${fields.token} is not the asset ${requirements.asset}`)
  if (fields.value !== requirements.amount)
    return refuse(
      'amount_mismatch',
      `the authorization's value ${fields.value} is not the amount ${requirements.amount}`,
    )
  if (read.payload.saltNonce !== undefined) {
    const expected = boundSalt(extra.receiverAuthorizer, extra.policy, read.payload.saltNonce)
    if (hexToBigInt(expected) !== hexToBigInt(read.payload.salt))
      return refuse('salt_binding_mismatch', 'salt is not the commitment to receiverAuthorizer, policy and saltNonce')
  }
  const paymentInfo = paymentInfoOf(requirements, extra, {
    payer: fields.payer,
    salt: read.payload.salt,
    preApprovalExpiry: fields.validBefore,
  })
  for (const deployment of sets) {
    const nonce = signatureNonce(chainId, deployment.escrow, paymentInfo)
    if (nonce === fields.nonce)
      return {
        ok: true,
        deployment,
        paymentInfo,
        nonce,
        paymentInfoHash: paymentInfoHash(chainId, deployment.escrow, paymentInfo),
      }
  }
  return refuse(
    'nonce_mismatch',
    "the authorization's nonce is not the payment's signature nonce for these requirements",
  )
}

/** The 6 s floor of the spec's time checks (steps 7–8). */
export const timeFloorSeconds = 6

/**
 * Steps 7 and 8 by svc's clock (`now`, unix seconds): `now + maxTimeoutSeconds ≤ captureDeadline ≤ refundDeadline`,
 * `captureDeadline > now + 6`, `validBefore ≤ captureDeadline`, `validBefore > now + 6`, `validAfter ≤ now`.
 */
export function checkCollectTimes(input: {
  now: number
  maxTimeoutSeconds: number
  extra: Pick<AuthCaptureExtra, 'captureDeadline' | 'refundDeadline'>
  validAfter: number
  validBefore: number
}): Judged<object> {
  const { now, maxTimeoutSeconds, extra, validAfter, validBefore } = input
  if (extra.refundDeadline < extra.captureDeadline)
    return refuse('deadline_ordering', 'refundDeadline is before captureDeadline')
  if (extra.captureDeadline <= now + timeFloorSeconds)
    return refuse(
      'capture_deadline_expired',
      `captureDeadline ${extra.captureDeadline} is not after now + 6 s (${now})`,
    )
  if (now + maxTimeoutSeconds > extra.captureDeadline)
    return refuse('deadline_ordering', 'now + maxTimeoutSeconds is after captureDeadline')
  if (validBefore > extra.captureDeadline)
    return refuse('deadline_ordering', `the authorization's deadline ${validBefore} is after captureDeadline`)
  if (validBefore <= now + timeFloorSeconds)
    return refuse(
      'authorization_expired',
      `the authorization's deadline ${validBefore} is not after now + 6 s (${now})`,
    )
  if (validAfter > now) return refuse('authorization_not_yet_valid', `validAfter ${validAfter} is after now (${now})`)
  return { ok: true }
}

/**
 * Lifecycle payloads are relayed only with a receiver authorizer (`lifecycle_not_relayed`), capture and void only on
 * the escrow flow (`payload_type`). Then steps 1–3: `paymentInfo.operator` is the capture authorizer, the salt reopens over `saltNonce`, and every
 * other field is what the requirements dictate (`preApprovalExpiry` and the payer are the collect's own). Answers the
 * payment's id under each set it may be in (one when extra names the escrow).
 */
export function reopenLifecycle(input: {
  chainId: number
  requirements: Pick<RequirementsCore, 'amount' | 'asset' | 'payTo'>
  extra: AuthCaptureExtra
  deployments: readonly AuthCaptureDeployment[]
  payload: LifecyclePayload
}): Judged<{ candidates: { deployment: AuthCaptureDeployment; paymentInfoHash: Hex }[] }> {
  const { chainId, requirements, extra, deployments, payload } = input
  if (isAddressEqual(extra.receiverAuthorizer, zeroAddress))
    return refuse('lifecycle_not_relayed', `a ${payload.type} is relayed only for a payment with a receiverAuthorizer`)
  if (payload.type !== 'refund' && extra.paymentFlow === 'authorization')
    return refuse('payload_type', `a ${payload.type} needs the escrow flow: a charge holds nothing (refund it instead)`)
  const info = payload.paymentInfo
  if (!isAddressEqual(info.operator, extra.captureAuthorizer))
    return refuse('operator_mismatch', `paymentInfo.operator ${info.operator} is not extra.captureAuthorizer`)
  if (hexToBigInt(boundSalt(extra.receiverAuthorizer, extra.policy, payload.saltNonce)) !== hexToBigInt(info.salt))
    return refuse(
      'salt_binding_mismatch',
      'paymentInfo.salt is not the commitment to receiverAuthorizer, policy and saltNonce',
    )
  const expected = paymentInfoOf(requirements, extra, {
    payer: info.payer,
    salt: info.salt,
    preApprovalExpiry: info.preApprovalExpiry,
  })
  if (!isAddressEqual(info.token, expected.token))
    return refuse('token_mismatch', `paymentInfo.token is not the asset ${requirements.asset}`)
  if (info.maxAmount !== expected.maxAmount)
    return refuse('amount_mismatch', `paymentInfo.maxAmount is not the amount ${requirements.amount}`)
  for (const field of ['authorizationExpiry', 'refundExpiry', 'minFeeBps', 'maxFeeBps'] as const)
    if (info[field] !== expected[field])
      return refuse('payload_format', `paymentInfo.${field} is not what extra dictates (${expected[field]})`)
  for (const field of ['receiver', 'feeReceiver'] as const)
    if (!isAddressEqual(info[field], expected[field]))
      return refuse('payload_format', `paymentInfo.${field} is not what the requirements dictate (${expected[field]})`)
  return {
    ok: true,
    candidates: deployments.map((deployment) => ({
      deployment,
      paymentInfoHash: paymentInfoHash(chainId, deployment.escrow, info),
    })),
  }
}

/** `collectorData` of a collect: the client's signature as sent (an EIP-6492 wrapper intact), for both methods. */
export const collectorDataOf = (payload: CollectPayload): Hex => payload.signature

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
