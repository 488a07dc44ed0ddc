import type { Address, Hex, PublicClient } from 'viem'
import { type PaymentEventName, readPaymentEvents } from '../../chain/auth-capture/index.js'
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

const kinds: Record<PaymentEventName, EscrowTransactionKind> = {
  PaymentAuthorized: 'authorize',
  PaymentCharged: 'charge',
  PaymentCaptured: 'capture',
  PaymentVoided: 'void',
  PaymentRefunded: 'refund',
  PaymentReclaimed: 'reclaim',
}

/**
 * The escrow's Payment* logs of one payment on every escrow svc serves (chain/auth-capture's `readPaymentEvents`),
 * from `range.fromBlock` (default the chain's start), in chain order: everything that happened to it, as the kinds
 * svc's records name. A real network's RPC is read `range.maxBlocks` at a time.
 */
export async function findEscrowSteps(
  client: PublicClient,
  hash: Hex,
  range: { fromBlock?: bigint | undefined; maxBlocks?: number | undefined } = {},
): Promise<EscrowLogStep[]> {
  const events = await readPaymentEvents(client, escrows, hash, range)
  return events.map((event) => ({
    kind: kinds[event.name],
    amount: event.amount.toString(),
    feeAmount: event.feeAmount.toString(),
    transaction: event.transaction,
    blockNumber: event.blockNumber,
    logIndex: event.logIndex,
  }))
}
