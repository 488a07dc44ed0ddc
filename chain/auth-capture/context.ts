/**
 * What the auth-capture facilitator works with on one chain: the chain, its relay, the operator account, svc's
 * clock, the escrow action journal, and the operator's turn (one auth-capture transaction of svc's at a time, its
 * checks and its sends together). Shared by collect.ts and lifecycle.ts; the checks every payload meets first.
 */
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  isAddressEqual,
  recoverTypedDataAddress,
  type TypedDataDefinition,
} from 'viem'
import type { AuthCaptureDeployment } from '../../core/auth-capture/deployments.js'
import { type NormalizedExtra, normalizeExtra, reasonPrefix } from '../../core/auth-capture/extra.js'
import { chainIdOf } from '../../core/auth-capture/reopen.js'
import { type ReadPayload, readPayload } from '../../core/auth-capture/read-payload.js'
import { authCaptureScheme, type AuthCaptureExtra, type Judged, type Refusal } from '../../core/auth-capture/types.js'
import type { Clock } from '../../core/clock.js'
import { authCaptureEscrowAbi } from '../contracts/index.js'
import { contractCallGas, type RelaySigner } from '../relay/index.js'
import type { SandboxChain } from '../sandbox-chain.js'
import type { EscrowActionJournal } from './actions.js'
import { revertRefusal } from './reverts.js'

export type AuthCaptureContext = {
  chain: SandboxChain
  signer: RelaySigner
  /** svc's relayer account 1: `captureAuthorizer`, `paymentInfo.operator`, the sender of every escrow call. */
  operator: Address
  clock: Clock
  actions: EscrowActionJournal
  /** Runs `work` in the operator's turn: no other auth-capture check-and-send of this chain runs meanwhile. */
  turn<T>(work: () => Promise<T>): Promise<T>
}

/** A turn-taker: each `work` starts once the one before it ended. */
export function createTurns(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve()
  return (work) => {
    const next = last.then(work, work)
    last = next.catch(() => undefined)
    return next
  }
}

export const refuse = (reason: string, message: string): Refusal & { ok: false } => ({
  ok: false,
  reason: reason === 'invalid_network' ? reason : `${reasonPrefix}${reason}`,
  message,
})

/** The escrow's amounts are uint120. */
const maxUint120 = 2n ** 120n - 1n

/** A payload past the checks every auth-capture payload meets first (the binding's steps 1–5). */
export type Judging = {
  read: ReadPayload
  extra: AuthCaptureExtra
  deployments: NormalizedExtra['deployments']
  chainId: number
}

/**
 * Steps 1–5: the payload's shape, the scheme, the network (the accepted's, and this chain's), extra normalised
 * (flow, fee system, operator type, policy, escrow set, transfer method) and the operator svc's.
 */
export function judgeCommon(
  context: AuthCaptureContext,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
): Judged<Judging> {
  const read = readPayload(payload.payload)
  if (!read.ok) return read
  if (requirements.scheme !== authCaptureScheme || (payload.accepted && payload.accepted.scheme !== authCaptureScheme))
    return refuse('scheme', `the scheme must be "${authCaptureScheme}"`)
  if (payload.accepted && payload.accepted.network !== requirements.network)
    return refuse(
      'network_mismatch',
      `the payment is for ${payload.accepted.network}, the requirements ${requirements.network}`,
    )
  if (!/^[0-9]{1,78}$/.test(requirements.amount) || BigInt(requirements.amount) > maxUint120)
    return refuse(
      /^[0-9]{1,78}$/.test(requirements.amount) ? 'amount_overflow' : 'amount_mismatch',
      'the amount must be atomic units below 2^120 (the escrow holds uint120)',
    )
  const chainId = chainIdOf(requirements.network)
  if (chainId !== context.chain.chainId)
    return refuse('invalid_network', `${requirements.network} is not the chain this scheme settles on`)
  const normal = normalizeExtra(requirements.extra)
  if (!normal.ok) return normal
  if (!isAddressEqual(normal.extra.captureAuthorizer, context.operator))
    return refuse(
      'operator_not_admitted',
      `extra.captureAuthorizer ${normal.extra.captureAuthorizer} is not this facilitator's operator ${context.operator} (GET /supported)`,
    )
  return { ok: true, read: read as ReadPayload, extra: normal.extra, deployments: normal.deployments, chainId }
}

/** The EIP-6492 magic suffix of a counterfactual signature. */
const erc6492Suffix = '6492649264926492649264926492649264926492649264926492649264926492'

/**
 * Whether `signature` over `typedData` is `signer`'s: recovered locally (ECDSA), the chain asked only when `signer` has
 * code (ERC-1271). An EIP-6492 wrapper is refused: svc's factory allowlist is empty.
 */
export async function checkSignature(
  context: AuthCaptureContext,
  check: {
    signer: Address
    typedData: TypedDataDefinition
    signature: Hex
    /** The reason a signature by another key is refused with (its suffix), and what the message calls it. */
    refusedAs: string
    what: string
  },
): Promise<Judged<object>> {
  const { signer, typedData, signature, refusedAs, what } = check
  if (signature.toLowerCase().endsWith(erc6492Suffix))
    return refuse(
      'erc6492_factory_not_allowed',
      `${what} is an EIP-6492 (counterfactual) signature: no factory is allowed`,
    )
  try {
    const recovered = await recoverTypedDataAddress({ ...typedData, signature } as never)
    if (isAddressEqual(recovered, signer)) return { ok: true }
  } catch {}
  const code = await context.signer.getCode({ address: signer })
  if (code && code !== '0x') {
    const valid = await context.chain.client
      .verifyTypedData({ ...typedData, address: signer, signature } as never)
      .catch(() => false)
    if (valid) return { ok: true }
  }
  return refuse(refusedAs, `${what} is not ${signer}'s signature over the operation`)
}

/** An ERC-20 read of the payment's token. */
export const tokenBalance = (context: AuthCaptureContext, token: Address, owner: Address) =>
  context.chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
export const tokenAllowance = (context: AuthCaptureContext, token: Address, owner: Address, spender: Address) =>
  context.chain.client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [owner, spender],
  })

/** An escrow call (`authorize`, `charge`, `capture`, `void`, `refund`) as the operator makes it. */
export type EscrowCall = { escrow: Address; functionName: string; args: readonly unknown[] }

/** The call simulated from the operator: undefined when it would pass, else its typed revert's reason. */
export async function simulateEscrowCall(context: AuthCaptureContext, call: EscrowCall): Promise<Refusal | undefined> {
  try {
    await context.chain.client.simulateContract({
      account: context.operator,
      address: call.escrow,
      abi: authCaptureEscrowAbi,
      functionName: call.functionName as never,
      args: call.args as never,
    })
    return undefined
  } catch (error) {
    return revertRefusal(error)
  }
}

/** Sends `data` to `to` from the operator and waits for it: its hash, or the refusal a revert is. */
export async function sendFromOperator(
  context: AuthCaptureContext,
  to: Address,
  data: Hex,
): Promise<{ ok: true; transaction: Hex } | ({ ok: false; transaction?: Hex } & Refusal)> {
  let transaction: Hex
  try {
    transaction = await context.signer.sendFrom(context.operator, to, data, contractCallGas)
  } catch (error) {
    // The tuned relay explains a mined revert by its revert reason (chain/relay/relayer.ts).
    return { ok: false, ...revertRefusal(error, 'transaction_reverted') }
  }
  const receipt = await context.signer.waitForTransactionReceipt({ hash: transaction })
  if (receipt.status !== 'success')
    return {
      ok: false,
      transaction,
      reason: `${reasonPrefix}transaction_reverted`,
      message: `the escrow transaction ${transaction} reverted`,
    }
  return { ok: true, transaction }
}

/** The escrow call sent from the operator. */
export const sendEscrowCall = (context: AuthCaptureContext, call: EscrowCall) =>
  sendFromOperator(
    context,
    call.escrow,
    encodeFunctionData({
      abi: authCaptureEscrowAbi,
      functionName: call.functionName as never,
      args: call.args as never,
    }),
  )

/** A refusal as /settle answers it. */
export const settleRefusal = (
  refusal: Refusal,
  requirements: PaymentRequirements,
  payer: string | undefined,
  transaction = '',
): SettleResponse => ({
  success: false,
  errorReason: refusal.reason,
  errorMessage: refusal.message,
  transaction,
  network: requirements.network,
  ...(payer ? { payer } : {}),
})

/** The deployment's collector for the payload's method. */
export const collectorOf = (deployment: AuthCaptureDeployment, method: 'eip3009' | 'permit2'): Address =>
  method === 'eip3009' ? deployment.eip3009Collector : deployment.permit2Collector
