/**
 * What the escrow says of one payment: its `paymentState` (what is held, what may be refunded, whether it was
 * collected) and the `Payment*` events of its hash (what landed, for the journal's recovery, WP3). Reads only.
 */
import { type Address, type Hex, type Log, parseEventLogs, type PublicClient } from 'viem'
import type { PaymentState } from '../../core/auth-capture/types.js'
import { authCaptureEscrowAbi } from '../contracts/index.js'

/** `paymentState(paymentInfoHash)` of the escrow at `escrow`. */
export async function readPaymentState(client: PublicClient, escrow: Address, hash: Hex): Promise<PaymentState> {
  const [hasCollectedPayment, capturableAmount, refundableAmount] = await client.readContract({
    address: escrow,
    abi: authCaptureEscrowAbi,
    functionName: 'paymentState',
    args: [hash],
  })
  return { hasCollectedPayment, capturableAmount, refundableAmount }
}

/** The escrow's events that move a payment, by name. */
export const paymentEventNames = [
  'PaymentAuthorized',
  'PaymentCharged',
  'PaymentCaptured',
  'PaymentVoided',
  'PaymentReclaimed',
  'PaymentRefunded',
] as const
export type PaymentEventName = (typeof paymentEventNames)[number]

/** One `Payment*` event of a payment: which, the amount it moved (and a capture's fee), where it is. */
export type PaymentEvent = {
  name: PaymentEventName
  amount: bigint
  feeAmount: bigint
  transaction: Hex
  blockNumber: bigint
  logIndex: number
}

/**
 * The `Payment*` events of the payment `hash` on the escrow(s) at `escrow` from block `range.fromBlock` (default 0; each event
 * indexes the hash first, so one `eth_getLogs` with that topic finds them all), in chain order (block, then log
 * index). With `range.maxBlocks`, a real network's RPC is asked that many blocks at a time.
 */
export async function readPaymentEvents(
  client: PublicClient,
  escrow: Address | readonly Address[],
  hash: Hex,
  range: { fromBlock?: bigint | undefined; maxBlocks?: number | undefined } = {},
): Promise<PaymentEvent[]> {
  const { fromBlock = 0n, maxBlocks } = range
  const hex = (block: bigint) => `0x${block.toString(16)}` as const
  const address = typeof escrow === 'string' ? escrow : [...escrow]
  const read = (from: bigint, to: bigint | 'latest') =>
    client.request({
      method: 'eth_getLogs',
      params: [{ address, fromBlock: hex(from), toBlock: to === 'latest' ? to : hex(to), topics: [null, hash] }],
    }) as Promise<Log[]>
  const logs: Log[] = []
  if (maxBlocks === undefined) logs.push(...(await read(fromBlock, 'latest')))
  else {
    const latest = await client.getBlockNumber()
    for (let start = fromBlock; start <= latest; start += BigInt(maxBlocks)) {
      const end = start + BigInt(maxBlocks) - 1n
      logs.push(...(await read(start, end < latest ? end : latest)))
    }
  }
  return parseEventLogs({ abi: authCaptureEscrowAbi, logs, strict: false })
    .filter((log) => log.transactionHash !== null && (paymentEventNames as readonly string[]).includes(log.eventName))
    .map((log) => {
      const args = log.args as { amount?: bigint; feeAmount?: bigint }
      return {
        name: log.eventName as PaymentEventName,
        amount: args.amount ?? 0n,
        feeAmount: args.feeAmount ?? 0n,
        transaction: log.transactionHash as Hex,
        blockNumber: BigInt(log.blockNumber ?? 0n),
        logIndex: Number(log.logIndex ?? 0),
      }
    })
    .sort((a, b) =>
      a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
    )
}
