import type { Channel } from '@x402/evm/batch-settlement/server'
import { sql } from 'kysely'
import type { Hex } from 'viem'
import { keptBlocks } from '../../chain/anvil/index.js'
import { batchSettlementAddresses } from '../../chain/batch-settlement/index.js'
import { x402BatchSettlementAbi } from '../../chain/contracts/index.js'
import type { BatchTransactionKind, OwnWrites } from '../db/index.js'
import type { ChannelsDeps } from './deps.js'
import { nowIso } from '../ids.js'
import { missingEpoch } from '../journal/index.js'
import { createChannelStorage } from './storage.js'
import type { WithdrawalSource } from './withdrawal-sources.js'

/** How many of the newest channel transactions a chain that went back is checked for at most. */
const checkLimit = 1_000

/**
 * A chain that went back by other means than a snapshot's revert (which puts svc's database back with it): a chain
 * reloaded from an older state file (svc stopped and the file replaced, or a restart loading the last periodic save)
 * lacks its newest blocks, and with them channel transactions svc recorded: deposits, claims, settles, refunds, withdraw
 * requests and withdrawals. They are read newest first until one is on the chain; those before it are missing (as for
 * settlements, server/journal/missing-settlements.ts: none found on a chain older than Anvil keeps receipts for tells
 * nothing). They are moved out of the chain's epoch (no longer the channels' transactions), and each channel they
 * were of (a claim's or settle's: its receiver's, in that token) takes the chain's state again: its balance, claimed
 * total and pending withdraw request (the package's record too, so the channel manager claims again what the chain
 * lost), what was deposited, refunded and withdrawn less theirs, settled no more than claimed, and `withdrawing`,
 * `open` or `closed` as the chain has it (a channel the chain does not have is let go of, as a refund that emptied it).
 * @returns how many were missing
 */
export async function forgetMissingChannelRecords(
  deps: ChannelsDeps,
  source: WithdrawalSource,
  own: OwnWrites,
): Promise<number> {
  const { chainEpoch, network, client } = source
  const rows = await deps.db
    .selectFrom('batch_transactions')
    .select(['id', 'kind', 'channel_id', 'receiver', 'token', 'amount', 'transaction'])
    .where('chain_epoch', '=', chainEpoch)
    .where('network', '=', network)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(checkLimit)
    .execute()
  const missing: typeof rows = []
  let found = false
  for (const row of rows) {
    const receipt = await client.getTransactionReceipt({ hash: row.transaction as Hex }).catch(() => undefined)
    if (receipt) {
      found = true
      break
    }
    missing.push(row)
  }
  if (missing.length === 0) return 0
  if (!found && (rows.length === checkLimit || (await client.getBlockNumber()) >= BigInt(keptBlocks))) return 0

  const channels = deps.db
    .selectFrom('batch_channels')
    .selectAll()
    .where('chain_epoch', '=', chainEpoch)
    .where('network', '=', network)
  const affected = new Map<string, Awaited<ReturnType<typeof channels.executeTakeFirstOrThrow>>>()
  for (const row of missing) {
    const of = row.channel_id
      ? await channels.where('channel_id', '=', row.channel_id).execute()
      : await channels
          .where('receiver', '=', row.receiver)
          .where(sql<string>`lower(token)`, '=', row.token.toLowerCase())
          .execute()
    for (const channel of of) affected.set(channel.channel_id, channel)
  }
  const lostOf = (channelId: string, kind: BatchTransactionKind) =>
    missing
      .filter((row) => row.channel_id === channelId && row.kind === kind)
      .reduce((sum, row) => sum + BigInt(row.amount), 0n)
  const atLeastZero = (value: bigint) => (value > 0n ? value : 0n).toString()

  for (const [channelId, row] of affected) {
    const [[balance, totalClaimed], [, initiatedAt]] = await Promise.all([
      client.readContract({
        address: batchSettlementAddresses.settlement,
        abi: x402BatchSettlementAbi,
        functionName: 'channels',
        args: [channelId as Hex],
      }),
      client.readContract({
        address: batchSettlementAddresses.settlement,
        abi: x402BatchSettlementAbi,
        functionName: 'pendingWithdrawals',
        args: [channelId as Hex],
      }),
    ])
    // Nothing in it on the chain: a channel whose deposit is gone (or that was emptied) has nothing to claim.
    const gone = balance === 0n
    if (row.data) {
      const storage = createChannelStorage(
        deps.db,
        {
          chainEpoch,
          environment: row.environment,
          network,
          receiver: row.receiver,
          withdrawDelay: row.withdraw_delay,
        },
        own,
      )
      await storage.updateChannel(channelId, (current: Channel | undefined) =>
        current && !gone
          ? {
              ...current,
              balance: balance.toString(),
              totalClaimed: totalClaimed.toString(),
              withdrawRequestedAt: Number(initiatedAt),
            }
          : undefined,
      )
    }
    const withdrawn = BigInt(row.withdrawn) - lostOf(channelId, 'withdraw')
    const settled = BigInt(row.settled) < totalClaimed ? BigInt(row.settled) : totalClaimed
    const state =
      initiatedAt > 0
        ? 'withdrawing'
        : gone || !row.data || (withdrawn > 0n && balance === totalClaimed)
          ? 'closed'
          : 'open'
    // A channel's own transactions leave its epoch with what they added to it (both or neither: a crash between
    // would take them off twice); what follows the chain's state is written again on every run.
    const ofChannel = missing.filter((entry) => entry.channel_id === channelId).map((entry) => entry.id)
    await deps.db.transaction().execute(async (trx) => {
      if (ofChannel.length > 0)
        await trx
          .updateTable('batch_transactions')
          .set({ chain_epoch: missingEpoch(chainEpoch) })
          .where('id', 'in', ofChannel)
          .execute()
      await trx
        .updateTable('batch_channels')
        .set({
          balance: balance.toString(),
          claimed: totalClaimed.toString(),
          settled: settled.toString(),
          deposited: atLeastZero(BigInt(row.deposited) - lostOf(channelId, 'deposit')),
          refunded: atLeastZero(BigInt(row.refunded) - lostOf(channelId, 'refund')),
          withdrawn: atLeastZero(withdrawn),
          state,
          updated_at: nowIso(),
        })
        .where('chain_epoch', '=', chainEpoch)
        .where('network', '=', network)
        .where('channel_id', '=', channelId)
        .execute()
    })
  }
  // A receiver's claims and settles last: until they leave the epoch, the next run finds them and its channels again.
  const receivers = missing.filter((row) => row.channel_id === null).map((row) => row.id)
  if (receivers.length > 0)
    await deps.db
      .updateTable('batch_transactions')
      .set({ chain_epoch: missingEpoch(chainEpoch) })
      .where('id', 'in', receivers)
      .execute()
  deps.log?.(
    `gateway: ${missing.length} channel transaction(s) svc recorded are not on the chain (it came back older than svc's records): ${affected.size} channel(s) are the chain's again`,
  )
  return missing.length
}
