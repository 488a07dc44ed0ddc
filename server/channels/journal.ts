import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import type { Channel } from '@x402/evm/batch-settlement/server'
import type { Hex } from 'viem'
import {
  findChannelActionOnChain,
  batchSettlementAddresses,
  channelActionDetailOf,
  type ChannelAction,
  type ChannelActionDetail,
} from '../../chain/batch-settlement/index.js'
import { x402BatchSettlementAbi } from '../../chain/contracts/index.js'
import type { SandboxChain } from '../../chain/sandbox-chain.js'
import { deleteJournalRow, type SettlementJournalRow } from '../db/index.js'
import type { ChannelsDeps } from './deps.js'
import type { JournaledChannelAction } from '../journal/index.js'
import { createBatchRecords } from './records.js'
import { createChannelStorage } from './storage.js'

type ChannelConfig = { payer: string; receiver: string; token: string; withdrawDelay: number }

/**
 * What the journal row of a channel's deposit or refund about to be settled says beside the payment's usual fields:
 * the payment's identity (the channel and the deposit's or refund's nonce), the payer, what moves, and what tells on
 * the chain whether it landed (the facilitator's own description, chain/batch-settlement/channel-actions.ts).
 */
export async function channelJournalFields(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  chain: SandboxChain | undefined,
) {
  const body = payload.payload as {
    type: 'deposit' | 'refund'
    channelConfig: ChannelConfig
    voucher: { channelId: Hex }
    amount?: string
    deposit?: {
      authorization: { erc3009Authorization?: { validBefore: string }; permit2Authorization?: { deadline: string } }
    }
  }
  // A buyer's refund request names no refund nonce (the scheme adds it as it sends it): the chain's current one is it.
  const detail: ChannelActionDetail =
    body.type === 'deposit'
      ? channelActionDetailOf(payload, requirements)
      : {
          kind: 'refund',
          channelId: body.voucher.channelId,
          nonce: chain ? (await refundNonceOf(chain, body.voucher.channelId)).toString() : '0',
          amount: BigInt(body.amount ?? '0').toString(),
          claims: [],
        }
  if (detail.kind !== 'deposit' && detail.kind !== 'refund') throw new Error(`not a deposit or refund: ${detail.kind}`)
  const authorization = body.deposit?.authorization
  const validBefore =
    authorization?.erc3009Authorization?.validBefore ?? authorization?.permit2Authorization?.deadline ?? null
  const channelAction: JournaledChannelAction = {
    kind: detail.kind,
    channelId: detail.channelId.toLowerCase(),
    receiver: body.channelConfig.receiver.toLowerCase(),
    token: body.channelConfig.token,
    withdrawDelay: Number(body.channelConfig.withdrawDelay),
    price: requirements.amount,
    validBefore: validBefore === null ? null : BigInt(validBefore).toString(),
    fromBlock: chain ? (await chain.client.getBlockNumber()).toString() : '0',
    detail,
  }
  return {
    channelAction,
    paymentId: `batch|${requirements.network}|${detail.channelId}|${detail.kind}|${detail.nonce}`.toLowerCase(),
    payer: body.channelConfig.payer.toLowerCase(),
    amount: detail.amount,
  }
}

const refundNonceOf = (chain: SandboxChain, channelId: Hex) =>
  chain.client.readContract({
    address: batchSettlementAddresses.settlement,
    abi: x402BatchSettlementAbi,
    functionName: 'refundNonce',
    args: [channelId],
  })

/** Margin past a deposit's validBefore (seconds) before its not being on the chain is final. */
const validBeforeMarginSeconds = 10

/**
 * Resolves the journal row of a channel's deposit or refund that svc did not finish (it died between the
 * transaction and its record, or the facilitator broke off): the chain says whether it landed
 * (chain/batch-settlement/actions-on-chain.ts). Landed: the channel's transaction is recorded as the gateway would
 * have (deposited or refunded, the balance the chain has; a channel svc had not written yet is written without the
 * package's record), and a deposit's request, charged in the package's record without its voucher row, gets it. Not
 * landed, and no longer able to: the row goes.
 */
export async function resolveChannelJournalRow(
  deps: ChannelsDeps,
  row: SettlementJournalRow,
  log: (message: string) => void,
): Promise<'kept' | 'unverifiable' | 'notSettled' | 'alreadyRecorded' | 'recovered'> {
  const action = JSON.parse(row.channel_action!) as JournaledChannelAction
  const chain = deps.chain?.sandboxChain
  if (!chain && row.environment === 'development') return 'kept'
  if (!chain || row.environment !== 'development' || row.network !== chain.network || row.chain_epoch !== chain.epoch) {
    await deleteJournalRow(deps.db, row.id)
    log(
      `svc: the unfinished channel ${action.kind} ${row.id} (channel ${action.channelId}, payer ${row.payer}) cannot be checked: ${chain && row.environment === 'development' ? 'the Sandbox chain it was paid on is gone' : 'its network cannot be read from here'}`,
    )
    return 'unverifiable'
  }
  if (chain.restarting) return 'kept'
  const found = await findChannelActionOnChain(chain.client, {
    fromBlock: action.fromBlock,
    detail: action.detail,
    payer: row.payer,
    token: action.token,
    receiver: action.receiver,
  } as ChannelAction)
  if (!found.landed) {
    const nowSeconds = BigInt((deps.clock?.nowSeconds() ?? Math.floor(Date.now() / 1000)) - validBeforeMarginSeconds)
    if (action.validBefore !== null && BigInt(action.validBefore) >= nowSeconds) return 'kept'
    await deleteJournalRow(deps.db, row.id)
    return 'notSettled'
  }
  const transaction = found.transaction ?? ''
  const kind = action.kind
  const recorded = await deps.db
    .selectFrom('batch_transactions')
    .select('id')
    .where('chain_epoch', '=', row.chain_epoch)
    .where('kind', '=', kind)
    .where('channel_id', '=', action.channelId)
    .where('transaction', '=', transaction)
    .executeTakeFirst()
  if (recorded) {
    await deleteJournalRow(deps.db, row.id)
    return 'alreadyRecorded'
  }
  const [balance, totalClaimed] = await chain.client.readContract({
    address: batchSettlementAddresses.settlement,
    abi: x402BatchSettlementAbi,
    functionName: 'channels',
    args: [action.channelId as Hex],
  })
  await alignStorageWithChain(deps, row, action, {
    balance,
    totalClaimed,
    refundNonce: await refundNonceOf(chain, action.channelId as Hex),
  })
  const at = new Date(row.created_at)
  // The package's storage writes the channel as the deposit settles: svc may have died before it did.
  await deps.db
    .insertInto('batch_channels')
    .values({
      chain_epoch: row.chain_epoch,
      channel_id: action.channelId,
      user_id: row.user_id,
      api_id: row.api_id,
      environment: row.environment,
      network: row.network,
      token: action.token,
      payer: row.payer,
      receiver: action.receiver,
      withdraw_delay: action.withdrawDelay,
      deposited: '0',
      balance: balance.toString(),
      spent: '0',
      claimed: totalClaimed.toString(),
      settled: '0',
      refunded: '0',
      withdrawn: '0',
      vouchers: 0,
      state: kind === 'refund' ? 'closed' : 'open',
      data: null,
      created_at: row.created_at,
      updated_at: row.created_at,
    })
    .onConflict((oc) => oc.columns(['chain_epoch', 'channel_id']).doNothing())
    .execute()
  // Its seller, as its first request would have named it.
  await deps.db
    .updateTable('batch_channels')
    .set({ user_id: row.user_id, api_id: row.api_id })
    .where('chain_epoch', '=', row.chain_epoch)
    .where('channel_id', '=', action.channelId)
    .where('user_id', '=', '')
    .execute()
  const records = createBatchRecords(
    deps.db,
    (write) => write(),
    () => at,
  )
  await records.transaction({
    chainEpoch: row.chain_epoch,
    kind,
    environment: row.environment,
    network: row.network,
    token: action.token,
    receiver: action.receiver,
    channelId: action.channelId,
    amount: found.amount,
    balanceAfter: balance.toString(),
    transaction,
  })
  if (kind === 'deposit') await recordChargedDeposit(deps, row, action)
  await deleteJournalRow(deps.db, row.id)
  return 'recovered'
}

/**
 * A landed deposit or refund the package's record does not know yet (svc died before the scheme's after-settle hook):
 * the record as that hook leaves it, from the chain. A refund's channel is let go of (closed) when nothing but the
 * charged part is left, else it takes the chain's balance, claimed total and refund nonce; a deposit's takes the
 * chain's balance and claimed total (its request, never answered, is not charged). The reservation of the request
 * that died with svc is freed. A record the hook already wrote is left as it is.
 */
async function alignStorageWithChain(
  deps: ChannelsDeps,
  row: SettlementJournalRow,
  action: JournaledChannelAction,
  chain: { balance: bigint; totalClaimed: bigint; refundNonce: bigint },
) {
  const storage = createChannelStorage(deps.db, {
    chainEpoch: row.chain_epoch,
    environment: row.environment,
    network: row.network,
    receiver: action.receiver,
    withdrawDelay: action.withdrawDelay,
  })
  await storage.updateChannel(action.channelId, (current: Channel | undefined) => {
    if (!current) return current
    const known =
      action.kind === 'refund'
        ? BigInt(current.refundNonce) >= chain.refundNonce
        : BigInt(current.balance) === chain.balance
    if (known) return current
    if (action.kind === 'refund' && chain.balance <= BigInt(current.chargedCumulativeAmount)) return undefined
    return {
      ...current,
      balance: chain.balance.toString(),
      totalClaimed: chain.totalClaimed.toString(),
      refundNonce: Number(chain.refundNonce),
      onchainSyncedAt: Date.now(),
      pendingRequest: undefined,
    }
  })
}
/** A deposit's request the package's record charged (its spent) without svc's voucher row: the row, as charged. */
async function recordChargedDeposit(deps: ChannelsDeps, row: SettlementJournalRow, action: JournaledChannelAction) {
  const channel = await deps.db
    .selectFrom('batch_channels')
    .select(['spent'])
    .where('chain_epoch', '=', row.chain_epoch)
    .where('channel_id', '=', action.channelId)
    .executeTakeFirstOrThrow()
  const vouchers = await deps.db
    .selectFrom('batch_vouchers')
    .select('amount')
    .where('chain_epoch', '=', row.chain_epoch)
    .where('channel_id', '=', action.channelId)
    .execute()
  const written = vouchers.reduce((total, voucher) => total + BigInt(voucher.amount), 0n)
  if (BigInt(channel.spent) - written < BigInt(action.price)) return
  await createBatchRecords(
    deps.db,
    (write) => write(),
    () => new Date(row.created_at),
  ).voucherPaid({
    chainEpoch: row.chain_epoch,
    channelId: action.channelId,
    userId: row.user_id,
    apiId: row.api_id,
    endpointId: row.endpoint_id,
    method: row.method,
    path: row.path,
    amount: action.price,
    cumulative: channel.spent,
  })
}
