import { type Address, type Hex, type Log, parseEventLogs, type PublicClient } from 'viem'
import { authCaptureEscrowAbi } from '../../chain/contracts/index.js'
import { servedDeployments } from '../../core/auth-capture/deployments.js'
import type { EscrowTransactionKind } from '../db/index.js'

/** The escrows svc serves (the v1.1 sets): their Payment* logs are read for a hash. */
const escrows: Address[] = [...new Set(servedDeployments.map((deployment) => deployment.escrow))]

/** An escrow transaction found on chain: its kind, what it moved, its fee, its hash and where it is. */
export type EscrowLogStep = {
  kind: EscrowTransactionKind
  amount: string
  feeAmount: string
  transaction: Hex
  blockNumber: bigint
  logIndex: number
}

const kinds: Record<string, EscrowTransactionKind> = {
  PaymentAuthorized: 'authorize',
  PaymentCharged: 'charge',
  PaymentCaptured: 'capture',
  PaymentVoided: 'void',
  PaymentRefunded: 'refund',
  PaymentReclaimed: 'reclaim',
}

/**
 * The escrow's Payment{Authorized,Charged,Captured,Voided,Refunded,Reclaimed} logs of one payment (its hash is their
 * first indexed topic), from `range.fromBlock` (default the chain's start), in chain order: everything that happened to
 * it. Unlike chain/auth-capture's `readPaymentEvents` (one escrow, one call), it reads every escrow svc serves, keeps
 * a capture's fee and the order within a block, and reads a real network's RPC `range.maxBlocks` at a time.
 */
export async function findEscrowSteps(
  client: PublicClient,
  hash: Hex,
  range: { fromBlock?: bigint | undefined; maxBlocks?: number | undefined } = {},
): Promise<EscrowLogStep[]> {
  const hex = (block: bigint) => `0x${block.toString(16)}` as const
  const read = (fromBlock: bigint, toBlock: bigint | 'latest') =>
    client.request({
      method: 'eth_getLogs',
      params: [
        {
          address: escrows,
          fromBlock: hex(fromBlock),
          toBlock: toBlock === 'latest' ? toBlock : hex(toBlock),
          topics: [null, hash],
        },
      ],
    }) as Promise<Log[]>
  const from = range.fromBlock ?? 0n
  const logs: Log[] = []
  if (range.maxBlocks === undefined) logs.push(...(await read(from, 'latest')))
  else {
    const latest = await client.getBlockNumber()
    for (let start = from; start <= latest; start += BigInt(range.maxBlocks)) {
      const end = start + BigInt(range.maxBlocks) - 1n
      logs.push(...(await read(start, end < latest ? end : latest)))
    }
  }
  const parsed = parseEventLogs({ abi: authCaptureEscrowAbi, logs, strict: false })
  const steps: EscrowLogStep[] = []
  for (const log of parsed) {
    const kind = kinds[log.eventName]
    if (!kind || log.transactionHash === null) continue
    const args = log.args as { amount?: bigint; feeAmount?: bigint }
    steps.push({
      kind,
      amount: (args.amount ?? 0n).toString(),
      feeAmount: (args.feeAmount ?? 0n).toString(),
      transaction: log.transactionHash,
      blockNumber: BigInt(log.blockNumber ?? 0n),
      logIndex: Number(log.logIndex ?? 0),
    })
  }
  return steps.sort((a, b) =>
    a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
  )
}
