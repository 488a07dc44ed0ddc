import type { PaymentPayload } from '@x402/core/types'
import type { FacilitatorEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/facilitator'
import type { Abi, LocalAccount, PublicClient } from 'viem'

/**
 * x402's `batch-settlement` scheme (payment channels) in svc's facilitator: `@x402/evm`'s own facilitator scheme on
 * svc's relayer signer, with the install's receiver authorizer (it signs the claims and refunds of channels whose
 * `receiverAuthorizer` is its address, which `/supported` offers as `extra.receiverAuthorizer`).
 *
 * Public surface (for the gateway and records): {@link batchSettlementSchemeName}, {@link batchActionOf} and
 * {@link BatchAction}; chain/batch-settlement/channel-actions.ts journals every action sent.
 */
export const batchSettlementSchemeName = 'batch-settlement'

/** What a batch-settlement payload asks the facilitator to do (`payload.type`). */
export type BatchAction = 'deposit' | 'voucher' | 'claim' | 'settle' | 'refund'
const actions: readonly string[] = ['deposit', 'voucher', 'claim', 'settle', 'refund']

/** The action of a batch-settlement payment, or undefined for a payment of another scheme. */
export function batchActionOf(payload: PaymentPayload): BatchAction | undefined {
  if (payload.accepted?.scheme !== batchSettlementSchemeName) return undefined
  const type = (payload.payload as { type?: unknown } | undefined)?.type
  return typeof type === 'string' && actions.includes(type) ? (type as BatchAction) : undefined
}

/**
 * The seller's actions on its channels: each `{type: "settle", receiver, token}` (and each claim or refund) is a new
 * action that moves what is there now, so the facilitator's memory of settled payloads must not answer it.
 */
export const isChannelAction = (payload: PaymentPayload) => {
  const action = batchActionOf(payload)
  return action === 'claim' || action === 'settle' || action === 'refund'
}

/**
 * The scheme on `signer`. A claim of many channels (or a claim and a refund in one multicall) costs more gas than the
 * relayer's default limit for a contract call, so its gas is estimated; other calls keep the relayer's limit.
 */
export function createBatchSettlementScheme(
  signer: FacilitatorEvmSigner,
  client: PublicClient,
  authorizer: LocalAccount,
): BatchSettlementEvmScheme {
  const estimated = new Set(['claimWithSignature', 'multicall'])
  const sized: FacilitatorEvmSigner = {
    ...signer,
    async writeContract(args) {
      if (args.gas !== undefined || !estimated.has(args.functionName)) return signer.writeContract(args)
      const gas = await client.estimateContractGas({
        address: args.address,
        abi: args.abi as Abi,
        functionName: args.functionName,
        args: args.args as unknown[],
        account: signer.getAddresses()[0]!,
      })
      return signer.writeContract({ ...args, gas: (gas * 5n) / 4n + 20_000n })
    },
  }
  return new BatchSettlementEvmScheme(sized, authorizer)
}

/**
 * Why a batch-settlement deposit's ERC-3009 authorization (or Permit2 deadline) is outside its window at `nowSeconds`,
 * by the scheme's own rule and reasons (`validBefore` at least 6 s ahead, `validAfter` not ahead): the scheme judges by
 * the machine's clock; svc asks this with its own once `svc time advance` has moved it. Undefined when inside (or not
 * a deposit).
 */
export function depositWindowReason(payload: PaymentPayload, nowSeconds: number): string | undefined {
  if (batchActionOf(payload) !== 'deposit') return undefined
  const authorization = (
    payload.payload as {
      deposit?: {
        authorization?: {
          erc3009Authorization?: Record<string, unknown>
          permit2Authorization?: Record<string, unknown>
        }
      }
    }
  ).deposit?.authorization
  const seconds = (value: unknown) =>
    typeof value === 'string' && /^\d{1,78}$/.test(value) ? BigInt(value) : undefined
  const margin = BigInt(nowSeconds + 6)
  const erc3009 = authorization?.erc3009Authorization
  if (erc3009) {
    const validBefore = seconds(erc3009.validBefore)
    const validAfter = seconds(erc3009.validAfter)
    if (validBefore !== undefined && validBefore < margin)
      return 'invalid_batch_settlement_evm_payload_authorization_valid_before'
    if (validAfter !== undefined && validAfter > BigInt(nowSeconds))
      return 'invalid_batch_settlement_evm_payload_authorization_valid_after'
  }
  const deadline = seconds(authorization?.permit2Authorization?.deadline)
  if (deadline !== undefined && deadline < margin) return 'invalid_batch_settlement_evm_permit2_deadline_expired'
  return undefined
}
