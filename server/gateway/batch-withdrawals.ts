import type { Channel } from '@x402/evm/batch-settlement/server'
import type { Hex } from 'viem'
import { batchSettlementAddresses } from '../../chain/batch-settlement/contracts.js'
import { readWithdrawals, type Withdrawal } from '../../chain/batch-settlement/withdrawals.js'
import { x402BatchSettlementAbi } from '../../chain/contracts/x402-batch-settlement.generated.js'
import { cutText, logLineLimit } from '../../core/http.js'
import type { ServerDeps } from '../deps.js'
import { newId, nowIso } from '../ids.js'
import { createChannelStorage } from './batch-channel-storage.js'
import type { ChannelMoved } from './batch-events.js'
import type { OwnWrites } from './own-write.js'

/** How often the Sandbox chain is asked for new withdrawals (one block-number call when nothing happened). */
export const withdrawalCheckEveryMs = 1_000

export type WithdrawalWatch = {
  /** Starts watching the Sandbox chain (once; a server without the chain services has nothing to watch). */
  start(): void
  /** Reads the blocks since the last check now. */
  check(): Promise<void>
  close(): Promise<void>
}

/**
 * A buyer leaves a channel without the seller's help: initiateWithdraw, then finalizeWithdraw once the channel's
 * withdraw delay passed (svc's clock: `svc time advance`). No request reaches the gateway, so it reads the
 * contract's WithdrawInitiated and Withdrawn logs on the Sandbox chain, from the block it started at, for the
 * channels svc keeps: the channel turns `withdrawing`, then `open` again (what is left is the receiver's claimed
 * part, or a top-up) or `closed` (nothing left), its balance and claimed as the chain has them; each is a
 * transaction of the channel (`withdraw_request`, `withdraw`) and an event (channel.withdrawing, channel.withdrawn).
 * The package's channel record learns the request too (its withdrawRequestedAt), as a request's on-chain read would
 * tell it. A log is applied once (by its transaction), so reading a block twice changes nothing.
 */
export function createWithdrawalWatch(
  deps: ServerDeps,
  publish: (moved: ChannelMoved) => Promise<void>,
  own: OwnWrites,
): WithdrawalWatch {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let epoch: string | undefined
  let next: bigint | undefined
  const log = (line: string) => deps.log?.(cutText(line, logLineLimit))

  async function check(): Promise<void> {
    const chain = deps.chain?.sandboxChain
    if (!chain || chain.restarting) return
    if (epoch !== chain.epoch) {
      epoch = chain.epoch
      next = undefined
    }
    const latest = await chain.client.getBlockNumber()
    next ??= latest
    if (latest < next) return
    for (const withdrawal of await readWithdrawals(chain.client, next, latest)) await apply(chain.epoch, withdrawal)
    next = latest + 1n
  }

  async function apply(chainEpoch: string, withdrawal: Withdrawal): Promise<void> {
    const channelId = withdrawal.channelId.toLowerCase()
    const row = await deps.db
      .selectFrom('batch_channels')
      .selectAll()
      .where('chain_epoch', '=', chainEpoch)
      .where('channel_id', '=', channelId)
      .executeTakeFirst()
    if (!row) return
    const kind = withdrawal.kind === 'initiated' ? 'withdraw_request' : 'withdraw'
    const seen = await deps.db
      .selectFrom('batch_transactions')
      .select('id')
      .where('chain_epoch', '=', chainEpoch)
      .where('transaction', '=', withdrawal.transaction)
      .where('kind', '=', kind)
      .executeTakeFirst()
    if (seen) return
    const [balance, totalClaimed] = await deps.chain!.sandboxChain.client.readContract({
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
        environment: row.environment,
        network: row.network,
        receiver: row.receiver,
        withdrawDelay: row.withdraw_delay,
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
    await deps.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('batch_transactions')
        .values({
          id: newId('ctx'),
          chain_epoch: chainEpoch,
          kind,
          environment: row.environment,
          network: row.network,
          token: row.token,
          receiver: row.receiver,
          channel_id: channelId,
          amount: withdrawal.amount,
          vouchers: 0,
          transaction: withdrawal.transaction,
          created_at: at,
        })
        .execute()
      await trx
        .updateTable('batch_channels')
        .set({
          balance: balance.toString(),
          claimed: totalClaimed.toString(),
          state,
          ...(withdrawal.kind === 'withdrawn'
            ? { withdrawn: (BigInt(row.withdrawn) + BigInt(withdrawal.amount)).toString() }
            : {}),
          updated_at: at,
        })
        .where('chain_epoch', '=', chainEpoch)
        .where('channel_id', '=', channelId)
        .execute()
    })
    await publish({
      type: withdrawal.kind === 'initiated' ? 'channel.withdrawing' : 'channel.withdrawn',
      chainEpoch,
      channelId,
      amount: withdrawal.amount,
      network: row.network,
      token: row.token,
      receiver: row.receiver,
      transaction: withdrawal.transaction,
    })
  }

  const tick = () => {
    running ??= check()
      .catch((error: unknown) => log(`gateway: could not read channel withdrawals: ${(error as Error).message}`))
      .finally(() => (running = undefined))
  }

  return {
    start() {
      if (timer || !deps.chain) return
      tick()
      timer = setInterval(tick, withdrawalCheckEveryMs)
      timer.unref()
    },
    async check() {
      await running
      tick()
      await running
    },
    async close() {
      clearInterval(timer)
      timer = undefined
      await running
    },
  }
}
