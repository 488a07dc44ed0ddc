import type { Address, Hex, PublicClient } from 'viem'
import { x402BatchSettlementAbi as abi } from '../contracts/index.js'
import type { ChannelAction } from './channel-actions.js'
import { findAuthorizationUse } from '../logs/index.js'
import { isPermit2NonceSpent } from '../permit2/index.js'
import { batchSettlementAddresses } from './contracts.js'

/** Whether an action reached the chain and, when its log is found, its transaction and the amount it moved. */
export type ActionOnChain = { landed: false } | { landed: true; transaction: Hex | undefined; amount: string }

const settlement = batchSettlementAddresses.settlement

/**
 * Asks the chain whether a batch-settlement action landed, by the state it changes (a deposit's authorization or
 * Permit2 nonce is used, a claim's channels reached their claimed totals, a refund's nonce moved on) or, for a settle,
 * by its `Settled` log since the action began; the transaction is found from the contract's logs. A claim whose
 * totals were reached by a later claim counts as landed (what it claimed is claimed). On a fork whose contract logs
 * otherwise, the state still answers and the transaction stays unknown.
 */
export async function findChannelActionOnChain(client: PublicClient, action: ChannelAction): Promise<ActionOnChain> {
  const fromBlock = BigInt(action.fromBlock)
  const detail = action.detail
  switch (detail.kind) {
    case 'deposit': {
      const payer = action.payer as Address
      if (detail.transferMethod === 'eip3009') {
        const use = await findAuthorizationUse(client, {
          asset: action.token as Address,
          authorizer: payer,
          nonce: detail.nonce as Hex,
        })
        return use.used ? { landed: true, transaction: use.transaction, amount: detail.amount } : { landed: false }
      }
      if (!(await isPermit2NonceSpent(client, payer, BigInt(detail.nonce)))) return { landed: false }
      const logs = await client.getContractEvents({
        address: settlement,
        abi,
        eventName: 'Deposited',
        args: { channelId: detail.channelId },
        fromBlock,
      })
      const log = logs.find((entry) => entry.args.amount?.toString() === detail.amount)
      return { landed: true, transaction: log?.transactionHash ?? undefined, amount: detail.amount }
    }
    case 'claim': {
      if (detail.claims.length === 0) return { landed: false }
      for (const claim of detail.claims) {
        const [, totalClaimed] = await client.readContract({
          address: settlement,
          abi,
          functionName: 'channels',
          args: [claim.channelId],
        })
        if (totalClaimed < BigInt(claim.totalClaimed)) return { landed: false }
      }
      const first = detail.claims[0]!
      const logs = await client.getContractEvents({
        address: settlement,
        abi,
        eventName: 'Claimed',
        args: { channelId: first.channelId },
        fromBlock,
      })
      const log = logs.find((entry) => entry.args.totalClaimed?.toString() === first.totalClaimed)
      return { landed: true, transaction: log?.transactionHash ?? undefined, amount: '' }
    }
    case 'settle': {
      const logs = await client.getContractEvents({
        address: settlement,
        abi,
        eventName: 'Settled',
        args: { receiver: action.receiver as Address, token: action.token as Address },
        fromBlock,
      })
      const log = logs[0]
      return log
        ? { landed: true, transaction: log.transactionHash ?? undefined, amount: log.args.amount?.toString() ?? '0' }
        : { landed: false }
    }
    case 'refund': {
      const nonce = await client.readContract({
        address: settlement,
        abi,
        functionName: 'refundNonce',
        args: [detail.channelId],
      })
      if (nonce <= BigInt(detail.nonce)) return { landed: false }
      const logs = await client.getContractEvents({
        address: settlement,
        abi,
        eventName: 'Refunded',
        args: { channelId: detail.channelId },
        fromBlock,
      })
      const log = logs.find((entry) => entry.args.nonce?.toString() === detail.nonce)
      // A refund with nothing left to return uses its nonce and logs nothing.
      return {
        landed: true,
        transaction: log?.transactionHash ?? undefined,
        amount: log?.args.amount?.toString() ?? '0',
      }
    }
  }
}
