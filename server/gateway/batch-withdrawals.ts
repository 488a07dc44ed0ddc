import type { Channel } from '@x402/evm/batch-settlement/server'
import type { Hex, PublicClient } from 'viem'
import { batchSettlementAddresses } from '../../chain/batch-settlement/contracts.js'
import { readWithdrawals, type Withdrawal } from '../../chain/batch-settlement/withdrawals.js'
import { blockAtOrBefore, type LogRange } from '../../chain/log-ranges.js'
import { x402BatchSettlementAbi } from '../../chain/contracts/x402-batch-settlement.generated.js'
import { cutText, logLineLimit } from '../../core/http.js'
import { channelLogCursor, saveChannelLogCursor } from '../db/channel-log-cursors.js'
import type { ServerDeps } from '../deps.js'
import { newId, nowIso } from '../ids.js'
import { createChannelStorage } from './batch-channel-storage.js'
import type { ChannelMoved } from './batch-events.js'
import type { OwnWrites } from './own-write.js'

/** How often the Sandbox chain is asked for new withdrawals (one block-number call when nothing happened). */
export const withdrawalCheckEveryMs = 1_000

/** How often a production network (`--rpc`) is: a public RPC is not asked every second. */
export const productionWithdrawalCheckEveryMs = 15_000

/** Blocks a production network's head is read behind (a short reorg may replace them); the Sandbox chain's: none. */
const productionConfirmations = 12n

export type WithdrawalWatch = {
  /** Starts watching (once; a server with neither the chain services nor `--rpc` has nothing to watch). */
  start(): void
  /** Reads every watched chain's blocks since the last check now. */
  check(): Promise<void>
  close(): Promise<void>
}

/** A chain whose channels are watched: the Sandbox chain (its epoch), or a production network with an RPC. */
type Source = {
  network: string
  chainEpoch: string
  client: PublicClient
  confirmations: bigint
  /** Where to read from when nothing was read yet, and the widest log range: the RPC's limits. */
  range(nextBlock: bigint | undefined, oldestChannelAt: string): Promise<LogRange & { fromBlock: bigint }>
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
 * ranges; with nothing read yet, from the block of the chain's oldest channel. A log is applied once (by its
 * transaction, the channel's row locked), so reading a block twice, or two processes reading it, changes nothing.
 */
export function createWithdrawalWatch(
  deps: ServerDeps,
  publish: (moved: ChannelMoved) => Promise<void>,
  own: OwnWrites,
): WithdrawalWatch {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let productionCheckedAt = 0
  const log = (line: string) => deps.log?.(cutText(line, logLineLimit))

  async function sources(withProduction: boolean): Promise<Source[]> {
    const found: Source[] = []
    const chain = deps.chain?.sandboxChain
    if (chain && !chain.restarting)
      found.push({
        network: chain.network,
        chainEpoch: chain.epoch,
        client: chain.client,
        confirmations: 0n,
        async range(nextBlock, oldestChannelAt) {
          if (nextBlock !== undefined) return { fromBlock: nextBlock }
          // A block's time is never before the wall clock's (time travel only moves it on): an earlier block.
          const seconds = BigInt(Math.floor(Date.parse(oldestChannelAt) / 1000) - 60)
          return { fromBlock: await blockAtOrBefore(chain.client, seconds > 0n ? seconds : 0n) }
        },
      })
    const production = deps.productionChains
    if (!withProduction || !production || production.networks.length === 0) return found
    const networks = await deps.db
      .selectFrom('batch_channels')
      .select('network')
      .distinct()
      .where('chain_epoch', '=', '')
      .where('network', 'in', production.networks)
      .execute()
    for (const { network } of networks) {
      try {
        const client = await production.clientOf(network)
        if (client)
          found.push({
            network,
            chainEpoch: '',
            client,
            confirmations: productionConfirmations,
            range: async (nextBlock, oldestChannelAt) => {
              const range = await production.logRange(client, nextBlock?.toString() ?? null, oldestChannelAt)
              return { ...range, fromBlock: range.fromBlock ?? 0n }
            },
          })
      } catch (error) {
        log(`gateway: cannot read the channel withdrawals of ${network}: ${(error as Error).message}`)
      }
    }
    return found
  }

  async function checkSource(source: Source): Promise<void> {
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
    const head = await source.client.getBlockNumber()
    const latest = head - source.confirmations
    const cursor = await channelLogCursor(deps.db, source.network, source.chainEpoch)
    const range = await source.range(cursor, oldest.created_at)
    if (latest < range.fromBlock) {
      // A chain reverted below where svc had read: go on from its head.
      if (cursor !== undefined && latest + 1n < cursor)
        await saveChannelLogCursor(deps.db, source.network, source.chainEpoch, latest + 1n)
      return
    }
    const step = range.maxBlocks === undefined ? undefined : BigInt(Math.max(1, Math.floor(range.maxBlocks)))
    for (let from = range.fromBlock; from <= latest; ) {
      const to = step === undefined || from + step - 1n >= latest ? latest : from + step - 1n
      for (const withdrawal of await readWithdrawals(source.client, from, to)) await apply(source, withdrawal)
      from = to + 1n
      await saveChannelLogCursor(deps.db, source.network, source.chainEpoch, from)
    }
  }

  async function check(force: boolean): Promise<void> {
    const withProduction = force || Date.now() - productionCheckedAt >= productionWithdrawalCheckEveryMs
    if (withProduction) productionCheckedAt = Date.now()
    for (const source of await sources(withProduction)) {
      try {
        await checkSource(source)
      } catch (error) {
        log(`gateway: could not read the channel withdrawals of ${source.network}: ${(error as Error).message}`)
      }
    }
  }

  async function apply(source: Source, withdrawal: Withdrawal): Promise<void> {
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
        .executeTakeFirst()
      if (again) return false
      const row = await trx
        .selectFrom('batch_channels')
        .select('withdrawn')
        .where('chain_epoch', '=', chainEpoch)
        .where('network', '=', network)
        .where('channel_id', '=', channelId)
        .executeTakeFirstOrThrow()
      await trx
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
        .execute()
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
