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

/** One `Payment*` event of a payment: which, the amount it moved, where it is. */
export type PaymentEvent = { name: PaymentEventName; amount: bigint; transaction: Hex; blockNumber: bigint }

/**
 * The `Payment*` events of the payment `hash` on the escrow at `escrow` from block `fromBlock` (each event indexes the
 * hash first, so one `eth_getLogs` with that topic finds them all), oldest first.
 */
export async function readPaymentEvents(
  client: PublicClient,
  escrow: Address,
  hash: Hex,
  fromBlock: bigint,
): Promise<PaymentEvent[]> {
  const logs = (await client.request({
    method: 'eth_getLogs',
    params: [{ address: escrow, fromBlock: `0x${fromBlock.toString(16)}`, toBlock: 'latest', topics: [null, hash] }],
  })) as Log[]
  return parseEventLogs({ abi: authCaptureEscrowAbi, logs, strict: false })
    .filter((log) => (paymentEventNames as readonly string[]).includes(log.eventName))
    .map((log) => ({
      name: log.eventName as PaymentEventName,
      amount: BigInt((log.args as { amount?: bigint }).amount ?? 0n),
      transaction: log.transactionHash!,
      blockNumber: log.blockNumber!,
    }))
}
