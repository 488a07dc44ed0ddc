import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { extractErc20ApprovalGasSponsoringInfo } from '@x402/extensions'
import {
  TransactionNotFoundError,
  decodeFunctionData,
  erc20Abi,
  keccak256,
  parseEther,
  parseTransaction,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem'

/**
 * The most gas a sponsored approval may ask for: an `approve` costs ~46k (x402's client signs 70k); more is either
 * another call or a way to make the facilitator fund more ETH than the approval needs.
 */
export const maxApprovalGas = 200_000n
/** The most ETH the facilitator sends a buyer for one approval's gas (its gas limit × max fee per gas). */
export const maxSponsoredWei = parseEther('0.01')

/** A refused sponsored approval: x402's reason code (svc's own where x402 has none) and why. */
export type ApprovalRefusal = { reason: string; message: string }

/**
 * svc's checks of an `erc20ApprovalGasSponsoring` approval beyond those `@x402/evm` makes (signer, target, selector,
 * spender, extension fields), as x402's extension spec lists them: the transaction is for this chain, carries no ETH,
 * asks for a bounded gas limit at a fee the chain takes now, approves at least the payment's amount (the amount the
 * extension names), and uses the payer's next nonce. Undefined when the payment carries no such approval (or passes).
 */
export async function checkSponsoredApproval(
  client: PublicClient,
  chainId: number,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
): Promise<ApprovalRefusal | undefined> {
  const info = extractErc20ApprovalGasSponsoringInfo(payload)
  if (!info || !(payload.payload as { permit2Authorization?: unknown }).permit2Authorization) return undefined
  let tx: ReturnType<typeof parseTransaction>
  let approved: bigint
  try {
    tx = parseTransaction(info.signedTransaction)
    const call = decodeFunctionData({ abi: erc20Abi, data: tx.data ?? '0x' })
    if (call.functionName !== 'approve') throw new Error('not an approve() call')
    approved = call.args[1]
  } catch {
    return { reason: 'erc20_approval_tx_parse_failed', message: 'the signed transaction is not an ERC-20 approve()' }
  }
  if (tx.chainId !== chainId)
    return {
      reason: 'erc20_approval_tx_wrong_chain',
      message: `the approval is signed for chain ${tx.chainId ?? 'none (pre-EIP-155)'}, not ${chainId}`,
    }
  if ((tx.value ?? 0n) !== 0n)
    return { reason: 'erc20_approval_tx_has_value', message: 'the approval transaction must not send ETH' }
  const gas = tx.gas ?? 0n
  if (gas > maxApprovalGas)
    return {
      reason: 'erc20_approval_tx_gas_too_high',
      message: `the approval asks for ${gas} gas; at most ${maxApprovalGas} is sponsored`,
    }
  const maxFee = tx.maxFeePerGas ?? tx.gasPrice ?? 0n
  if (gas * maxFee > maxSponsoredWei)
    return {
      reason: 'erc20_approval_tx_fee_too_high',
      message: `the approval's gas limit × max fee is ${gas * maxFee} wei; at most ${maxSponsoredWei} is sponsored`,
    }
  if (approved < BigInt(requirements.amount))
    return {
      reason: 'erc20_approval_amount_too_low',
      message: `the approval lets Permit2 spend ${approved}, less than the payment's ${requirements.amount}`,
    }
  if (BigInt(info.amount) !== approved)
    return {
      reason: 'erc20_approval_amount_mismatch',
      message: `the extension names amount ${info.amount}, the signed approval ${approved}`,
    }
  return checkApprovalOnChain(client, info.signedTransaction, tx, info.from as Address)
}

/**
 * What the chain says of an approval now: its fee is at least the base fee, and its nonce is the signer's next one
 * (or the approval is already on the chain, sent by another payment). Asked when a payment is judged and again just
 * before the approval's gas is sent (chain/facilitator/erc20-approval-sponsor.ts): the buyer may have used that nonce
 * in between.
 */
export async function checkApprovalOnChain(
  client: PublicClient,
  serialized: Hex,
  tx: ReturnType<typeof parseTransaction>,
  from: Address,
): Promise<ApprovalRefusal | undefined> {
  const maxFee = tx.maxFeePerGas ?? tx.gasPrice ?? 0n
  const [block, nonce] = await Promise.all([
    client.getBlock({ blockTag: 'latest' }),
    client.getTransactionCount({ address: from, blockTag: 'pending' }),
  ])
  if (maxFee < (block.baseFeePerGas ?? 0n))
    return {
      reason: 'erc20_approval_tx_fee_too_low',
      message: `the approval's max fee per gas ${maxFee} is below the chain's base fee ${block.baseFeePerGas}`,
    }
  // The very approval another payment of the payer's had sent (mined or waiting) is at an earlier nonce, and fine.
  if (tx.nonce !== nonce && !(await isKnownTransaction(client, keccak256(serialized))))
    return {
      reason: 'erc20_approval_tx_wrong_nonce',
      message: `the approval has nonce ${tx.nonce}; ${from}'s next nonce is ${nonce}`,
    }
  return undefined
}

/** Whether the chain has transaction `hash`, mined or waiting in its pool. */
export async function isKnownTransaction(client: PublicClient, hash: Hash): Promise<boolean> {
  try {
    await client.getTransaction({ hash })
    return true
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return false
    throw error
  }
}
