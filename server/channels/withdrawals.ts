import type { Channel } from '@x402/evm/batch-settlement/server'
import type { Hex } from 'viem'
import { batchSettlementAddresses, readWithdrawals, type Withdrawal } from '../../chain/batch-settlement/index.js'
import { x402BatchSettlementAbi } from '../../chain/contracts/index.js'
import { cutText, logLineLimit } from '../../core/http.js'
import { channelLogCursor, type OwnWrites, saveChannelLogCursor } from '../db/index.js'
import type { ChannelsDeps } from './deps.js'
import { newId, nowIso } from '../ids.js'
import { createChannelStorage } from './storage.js'
import type { ChannelMoved } from './events.js'
import { withdrawalSources, type WithdrawalSource } from './withdrawal-sources.js'
import { forgetMissingChannelRecords } from './missing-records.js'

/** How often the Sandbox chain is asked for new withdrawals (one call for its head block when nothing happened). */
export const withdrawalCheckEveryMs = 1_000

/** How often a production network (`--rpc`) is: a public RPC is not asked every second. */
export const productionWithdrawalCheckEveryMs = 15_000

export type WithdrawalWatch = {
  /** Starts watching (once; a server with neither the chain services nor `--rpc` has nothing to watch). */
  start(): void
  /** Reads every watched chain's blocks since the last check now. */
  check(): Promise<void>
  close(): Promise<void>
}

/**
 * A buyer leaves a channel without the seller's help: initiateWithdraw, then finalizeWithdraw once the channel's
 * withdraw delay passed (svc's clock: `svc time advance`). No request reaches the gateway, so it reads the
 * contract's WithdrawInitiated and Withdrawn logs of the chains its channels are on (the Sandbox chain; a production
 * network svc has an RPC for, `--rpc`), for the channels svc keeps: the channel turns `withdrawing`, then `open`
 * again (what is left is the receiver's claimed part, or a top-up) or `closed` (nothing left), its balance and
 * claimed as the chain has them; each is a transaction of the channel (`withdraw_request`, `withdraw`) and an event
 * (channel.withdrawing, channel.withdrawn). The package's channel record learns the request too (its
 * withdrawRequestedAt), as a request's on-chain read would tell it. Where the reading got to is kept in the database
 * (`channel_log_cursors`), so a withdrawal made while svc was stopped is read at its next start, in bounded log
 * ranges; with nothing read yet, from the block of the chain's oldest channel. The cursor keeps the hash of the last
 * block read: a chain that went back below it (a snapshot reverted, a chain reloaded from an older state, a deep reorg)
 * has another block there, or none yet, even when it was mined past it again before the next check, and is read again
 * from the start; a check does not run across a snapshot's revert. A log is applied once (by its transaction, the
 * channel's row locked), so reading a block twice, or two processes reading it, changes nothing; one transaction of
 * the buyer's that moves several channels (the contract's multicall) is each channel's.
 */
export function createWithdrawalWatch(
  deps: ChannelsDeps,
  publish: (moved: ChannelMoved) => Promise<void>,
  own: OwnWrites,
): WithdrawalWatch {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let productionCheckedAt = 0
  const log = (line: string) => deps.log?.(cutText(line, logLineLimit))

  async function checkSource(source: WithdrawalSource): Promise<void> {
    const oldest = await deps.db
      .selectFrom('batch_channels')
      .select('created_at')
      .where('chain_epoch', '=', source.chainEpoch)
      .where('network', '=', source.network)
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst()
    // No channel on this chain: nothing to watch (a channel opened later is in a block after this).
    if (!oldest) return
    // The Sandbox chain's head in one call, with its hash: an idle check costs no more than the block number.
    const top = source.reverts ? await source.client.getBlock() : undefined
    const latest = top ? top.number : (await source.client.getBlockNumber()) - source.confirmations
    const hashOf = async (block: bigint) =>
      top?.number === block ? top.hash : (await source.client.getBlock({ blockNumber: block })).hash
    let cursor = await channelLogCursor(deps.db, source.network, source.chainEpoch)
    const last = (cursor?.nextBlock ?? 0n) - 1n
    if (cursor && last >= 0n) {
      // A production RPC's head below where svc read is a node behind: it is waited for.
      if (latest < last && !source.reverts) return
      // A chain that went back below where svc read (and was perhaps mined past it again, before this check) has
      // another block there, or none yet: its blocks are read again from the start (a log is applied once).
      if (latest < last || (cursor.blockHash !== null && (await hashOf(last)) !== cursor.blockHash)) {
        log(`gateway: ${source.network} went back below block ${last}: its channel withdrawals are read again`)
        await forgetMissingChannelRecords(deps, source, own)
        cursor = undefined
      }
    }
    const range = await source.range(cursor?.nextBlock, oldest.created_at)
    const step = range.maxBlocks === undefined ? undefined : BigInt(Math.max(1, Math.floor(range.maxBlocks)))
    for (let from = range.fromBlock; from <= latest; ) {
      const to = step === undefined || from + step - 1n >= latest ? latest : from + step - 1n
      for (const withdrawal of await readWithdrawals(source.client, from, to)) await apply(source, withdrawal)
      from = to + 1n
      await saveChannelLogCursor(deps.db, source.network, source.chainEpoch, {
        nextBlock: from,
        blockHash: await hashOf(to),
      })
    }
  }

  async function check(force: boolean): Promise<void> {
    const withProduction = force || Date.now() - productionCheckedAt >= productionWithdrawalCheckEveryMs
    if (withProduction) productionCheckedAt = Date.now()
    for (const source of await withdrawalSources(deps, withProduction, log)) {
      try {
        // Not across a snapshot's revert: what a check read of the chain before it would be written after it.
        const run = () => checkSource(source)
        await (source.reverts && deps.sandboxState ? deps.sandboxState.exclusive(run) : run())
      } catch (error) {
        log(`gateway: could not read the channel withdrawals of ${source.network}: ${(error as Error).message}`)
      }
    }
  }

  async function apply(source: WithdrawalSource, withdrawal: Withdrawal): Promise<void> {
    const { chainEpoch, network } = source
    const channelId = withdrawal.channelId.toLowerCase()
    const kind = withdrawal.kind === 'initiated' ? 'withdraw_request' : 'withdraw'
    const channel = () =>
      deps.db
        .selectFrom('batch_channels')
        .selectAll()
        .where('chain_epoch', '=', chainEpoch)
        .where('network', '=', network)
        .where('channel_id', '=', channelId)
    const seen = () =>
      deps.db
        .selectFrom('batch_transactions')
        .select('id')
        .where('chain_epoch', '=', chainEpoch)
        .where('transaction', '=', withdrawal.transaction)
        .where('kind', '=', kind)
        // The channel too: one buyer transaction (the contract's multicall) may move several channels.
        .where('channel_id', '=', channelId)
    const found = await channel().executeTakeFirst()
    if (!found || (await seen().executeTakeFirst())) return
    const [balance, totalClaimed] = await source.client.readContract({
      address: batchSettlementAddresses.settlement,
      abi: x402BatchSettlementAbi,
      functionName: 'channels',
      args: [withdrawal.channelId as Hex],
    })
    // The package's record, as its next on-chain read would have it (its columns follow: balance, claimed, state).
    const storage = createChannelStorage(
      deps.db,
      {
        chainEpoch,
        environment: found.environment,
        network,
        receiver: found.receiver,
        withdrawDelay: found.withdraw_delay,
      },
      own,
    )
    await storage.updateChannel(channelId, (current: Channel | undefined) =>
      current
        ? {
            ...current,
            balance: balance.toString(),
            totalClaimed: totalClaimed.toString(),
            withdrawRequestedAt: withdrawal.kind === 'initiated' ? withdrawal.initiatedAt : 0,
          }
        : undefined,
    )
    const at = nowIso()
    // Withdrawn: closed when nothing is left for the buyer (the rest is the receiver's claimed part).
    const state = withdrawal.kind === 'initiated' ? 'withdrawing' : balance === totalClaimed ? 'closed' : 'open'
    const applied = await deps.db.transaction().execute(async (trx) => {
      // The channel's row is written first: on PostgreSQL that locks it, so of two processes reading the same log
      // the second waits and then finds the first's transaction (SQLite has one writer).
      await trx
        .updateTable('batch_channels')
        .set({ balance: balance.toString(), claimed: totalClaimed.toString(), state, updated_at: at })
        .where('chain_epoch', '=', chainEpoch)
        .where('network', '=', network)
        .where('channel_id', '=', channelId)
        .execute()
      const again = await trx
        .selectFrom('batch_transactions')
        .select('id')
        .where('chain_epoch', '=', chainEpoch)
        .where('transaction', '=', withdrawal.transaction)
        .where('kind', '=', kind)
        .where('channel_id', '=', channelId)
        .executeTakeFirst()
      if (again) return false
      const row = await trx
        .selectFrom('batch_channels')
        .select('withdrawn')
        .where('chain_epoch', '=', chainEpoch)
        .where('network', '=', network)
        .where('channel_id', '=', channelId)
        .executeTakeFirstOrThrow()
      const inserted = await trx
        .insertInto('batch_transactions')
        .values({
          id: newId('ctx'),
          chain_epoch: chainEpoch,
          kind,
          environment: found.environment,
          network,
          token: found.token,
          receiver: found.receiver,
          channel_id: channelId,
          amount: withdrawal.amount,
          vouchers: 0,
          transaction: withdrawal.transaction,
          created_at: at,
        })
        // The unique index batch_transactions_once: recorded already.
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst()
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return false
      if (withdrawal.kind === 'withdrawn')
        await trx
          .updateTable('batch_channels')
          .set({ withdrawn: (BigInt(row.withdrawn) + BigInt(withdrawal.amount)).toString() })
          .where('chain_epoch', '=', chainEpoch)
          .where('network', '=', network)
          .where('channel_id', '=', channelId)
          .execute()
      return true
    })
    if (!applied) return
    await publish({
      type: withdrawal.kind === 'initiated' ? 'channel.withdrawing' : 'channel.withdrawn',
      chainEpoch,
      channelId,
      amount: withdrawal.amount,
      network,
      token: found.token,
      receiver: found.receiver,
      transaction: withdrawal.transaction,
    })
  }

  const tick = (force = false) => {
    running ??= check(force)
      .catch((error: unknown) => log(`gateway: could not read channel withdrawals: ${(error as Error).message}`))
      .finally(() => (running = undefined))
  }

  return {
    start() {
      if (timer || (!deps.chain && (deps.productionChains?.networks.length ?? 0) === 0)) return
      tick()
      timer = setInterval(tick, withdrawalCheckEveryMs)
      timer.unref()
    },
    async check() {
      await running
      tick(true)
      await running
    },
    async close() {
      clearInterval(timer)
      timer = undefined
      await running
    },
  }
}
