/**
 * An auth-capture payload reopened (x402 scheme_auth_capture_evm.md @3659f12, "Verification", steps 6–10, 12–13 for a
 * collect; 2–3 for a lifecycle payload): the PaymentInfo it commits to rebuilt from the requirements, its nonce and
 * salt checked, its times judged against the `now` given. Pure: no chain. The chain's part (signatures, balances,
 * `paymentState`, simulation) is the facilitator's (chain/auth-capture/).
 */
import { type Address, getAddress, type Hex, hexToBigInt, isAddressEqual, toHex, zeroAddress } from 'viem'
import type { AuthCaptureDeployment } from './deployments.js'
import { boundSalt, paymentInfoHash, signatureNonce } from './hashes.js'
import type { AuthCaptureExtra, CollectPayload, Judged, LifecyclePayload, PaymentInfo } from './types.js'
import { refuse } from './extra.js'
import { checkSaltShape, type ReadPayload } from './read-payload.js'

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
