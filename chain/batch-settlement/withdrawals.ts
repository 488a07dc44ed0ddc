import type { Hex, PublicClient } from 'viem'
import { x402BatchSettlementAbi as abi } from '../contracts/index.js'
import { batchSettlementAddresses } from './contracts.js'

/**
 * A buyer's unilateral exit from a channel, as the contract logged it: `initiated` (WithdrawInitiated: `amount`
 * asked for, claimable by the receiver until the delay passes) or `withdrawn` (Withdrawn: `amount` went back).
 */
export type Withdrawal = {
  kind: 'initiated' | 'withdrawn'
  channelId: Hex
  amount: string
  /** WithdrawInitiated's initiatedAt (seconds); 0 for withdrawn. */
  initiatedAt: number
  transaction: Hex
  blockNumber: bigint
  logIndex: number
}

/** The withdrawals logged in blocks `fromBlock`..`toBlock`, in chain order. */
export async function readWithdrawals(client: PublicClient, fromBlock: bigint, toBlock: bigint): Promise<Withdrawal[]> {
  const address = batchSettlementAddresses.settlement
  const [initiated, withdrawn] = await Promise.all([
    client.getContractEvents({ address, abi, eventName: 'WithdrawInitiated', fromBlock, toBlock }),
    client.getContractEvents({ address, abi, eventName: 'Withdrawn', fromBlock, toBlock }),
  ])
  const found: Withdrawal[] = [
    ...initiated.map((log) => ({
      kind: 'initiated' as const,
      channelId: log.args.channelId!,
      amount: (log.args.amount ?? 0n).toString(),
      initiatedAt: Number(log.args.initiatedAt ?? 0),
      transaction: log.transactionHash,
      blockNumber: log.blockNumber,
      logIndex: log.logIndex,
    })),
    ...withdrawn.map((log) => ({
      kind: 'withdrawn' as const,
      channelId: log.args.channelId!,
      amount: (log.args.amount ?? 0n).toString(),
      initiatedAt: 0,
      transaction: log.transactionHash,
      blockNumber: log.blockNumber,
      logIndex: log.logIndex,
    })),
  ]
  return found.sort((a, b) =>
    a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
  )
}
