import type { Selectable } from 'kysely'
import type { Environment } from '../../core/hosts.js'

/** The life of a channel as its seller sees it. */
export type ChannelState = 'open' | 'withdrawing' | 'closed'

/**
 * A payment channel a buyer opened with a receiver (x402 batch-settlement), on one chain epoch: the package's channel
 * record (`data`, the server scheme's ChannelStorage) and svc's account of it. Amounts are atomic units, decimal.
 */
export type BatchChannelsTable = {
  /** The Sandbox chain epoch ('' in production): a fresh chain starts with no channels. */
  chain_epoch: string
  channel_id: string
  /** The seller and API the channel was opened on (its first request). */
  user_id: string
  api_id: string
  environment: Environment
  network: string
  token: string
  payer: string
  receiver: string
  withdraw_delay: number
  /** What the buyer deposited in all (deposits and top-ups). */
  deposited: string
  /** The channel's balance on chain as last seen. */
  balance: string
  /** What its vouchers charged (the package's chargedCumulativeAmount). */
  spent: string
  /** What the receiver claimed on chain from it (totalClaimed). */
  claimed: string
  /** What of the claimed was settled to the receiver. */
  settled: string
  /** What went back to the buyer by cooperative refunds. */
  refunded: string
  /** What went back to the buyer by its own withdrawal (initiateWithdraw, then finalizeWithdraw after the delay). */
  withdrawn: string
  /** Requests paid from it. */
  vouchers: number
  state: ChannelState
  /** The package's `Channel`, JSON; null once the scheme let go of it (refunded, closed). */
  data: string | null
  created_at: string
  updated_at: string
}

/** One request paid from a channel (by a voucher; the first by the deposit that opened it). */
export type BatchVouchersTable = {
  id: string
  chain_epoch: string
  channel_id: string
  user_id: string
  api_id: string
  endpoint_id: string | null
  method: string
  path: string
  /** What it charged. */
  amount: string
  /** The channel's charged total after it. */
  cumulative: string
  created_at: string
}

/**
 * What kind of channel transaction: a buyer's deposit, the receiver's claim or settle, a cooperative refund, the
 * buyer's withdraw request (initiateWithdraw) and withdrawal (finalizeWithdraw).
 */
export type BatchTransactionKind = 'deposit' | 'claim' | 'settle' | 'refund' | 'withdraw_request' | 'withdraw'

/** A channel transaction on chain. */
export type BatchTransactionsTable = {
  id: string
  chain_epoch: string
  kind: BatchTransactionKind
  environment: Environment
  network: string
  token: string
  receiver: string
  /** The channel of a deposit or refund; null for claims and settles (a receiver's, over many channels). */
  channel_id: string | null
  /** Deposited, claimed, settled or refunded (atomic units). */
  amount: string
  /** The vouchers a claim carried (0 for the other kinds). */
  vouchers: number
  transaction: string
  created_at: string
}

/** Where the reading of a chain's channel logs (withdrawals) goes on from. */
export type ChannelLogCursorsTable = {
  network: string
  /** The Sandbox chain's epoch; '' for a production network. */
  chain_epoch: string
  /** The first block not read yet (decimal). */
  next_block: string
  /** The hash of block `next_block - 1` as it was read; null: written before svc kept it. */
  block_hash: string | null
  updated_at: string
}

export type BatchChannelRow = Selectable<BatchChannelsTable>
export type BatchVoucherRow = Selectable<BatchVouchersTable>
export type BatchTransactionRow = Selectable<BatchTransactionsTable>
