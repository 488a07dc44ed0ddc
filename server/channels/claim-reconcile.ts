import type { Channel } from '@x402/evm/batch-settlement/server'
import type { Hex, PublicClient } from 'viem'
import { batchSettlementAddresses } from '../../chain/batch-settlement/index.js'
import { x402BatchSettlementAbi } from '../../chain/contracts/index.js'
import { cutText, logLineLimit } from '../../core/http.js'
import type { ChannelsDeps } from './deps.js'
import type { BatchRecords } from './records.js'
import { createChannelStorage } from './storage.js'
import type { ChannelMoved } from './events.js'
import type { OwnWrites } from '../db/index.js'

/** A production channel whose claimed total svc keeps below the chain's: a claim it did not record. */
type Behind = { channelId: string; stored: bigint; onChain: bigint; row: ChannelRow }

type ChannelRow = {
  channel_id: string
  environment: 'production' | 'development'
  network: string
  token: string
  receiver: string
  withdraw_delay: number
  created_at: string
}

export type ClaimReconciler = {
  /**
   * Reads the claimed totals of the production channels `channelIds` (all that have vouchers not yet claimed, when
   * undefined) on their network (`--rpc`; a network without one is left as it is), and brings svc's record up to
   * the chain's: the claims it did not record are recorded with their transactions (from the contract's logs), and
   * each channel's claimed total becomes the chain's, so the channel manager claims only what is left. Throws when a
   * network cannot be read.
   */
  reconcile(channelIds?: readonly string[]): Promise<void>
}

/**
 * A production channel claim goes through the external facilitator, whose journal is not svc's: one that succeeded
 * while svc died before recording it (pause point `channel-claim-record`, or its answer lost with the process) left
 * svc's claimed totals behind the chain's, and the next channel manager would claim those vouchers again (an empty
 * transaction, recorded as the claim of all of them). The batch-settlement contract keeps each channel's claimed total
 * on chain and logs each claim (`Claimed`): svc reads them at its start and before each claim (the Sandbox's own
 * facilitator journals its claims: server/channels/action-recovery.ts does the same from its journal).
 */
export function createClaimReconciler(
  deps: ChannelsDeps,
  records: BatchRecords,
  publish: (moved: ChannelMoved) => Promise<void>,
  own: OwnWrites,
): ClaimReconciler {
  const log = (line: string) => deps.log?.(cutText(line, logLineLimit))

  async function reconcile(channelIds?: readonly string[]): Promise<void> {
    const production = deps.productionChains
    if (!production || production.networks.length === 0) return
    if (channelIds !== undefined && channelIds.length === 0) return
    let query = deps.db
      .selectFrom('batch_channels')
      .select(['channel_id', 'environment', 'network', 'token', 'receiver', 'withdraw_delay', 'created_at', 'data'])
      .where('chain_epoch', '=', '')
      .where('data', 'is not', null)
      .where('network', 'in', production.networks)
    if (channelIds)
      query = query.where(
        'channel_id',
        'in',
        channelIds.map((id) => id.toLowerCase()),
      )
    const rows = (await query.execute()).flatMap(({ data, ...row }) => {
      const channel = JSON.parse(data!) as Channel
      // A channel whose vouchers are all claimed has nothing a claim could have taken behind svc's back.
      return BigInt(channel.chargedCumulativeAmount) > BigInt(channel.totalClaimed)
        ? [{ ...row, stored: BigInt(channel.totalClaimed) }]
        : []
    })
    const byNetwork = new Map<string, typeof rows>()
    for (const row of rows) byNetwork.set(row.network, [...(byNetwork.get(row.network) ?? []), row])
    const failures: string[] = []
    for (const [network, channels] of byNetwork) {
      try {
        const client = await production.clientOf(network)
        if (!client) continue
        const behind: Behind[] = []
        for (const row of channels) {
          const [, onChain] = await client.readContract({
            address: batchSettlementAddresses.settlement,
            abi: x402BatchSettlementAbi,
            functionName: 'channels',
            args: [row.channel_id as Hex],
          })
          if (onChain > row.stored) behind.push({ channelId: row.channel_id, stored: row.stored, onChain, row })
        }
        if (behind.length > 0) await catchUp(client, network, behind)
      } catch (error) {
        failures.push(`${network}: ${(error as Error).message}`)
      }
    }
    if (failures.length > 0) throw new Error(`the channels' claimed totals could not be read (${failures.join('; ')})`)
  }

  /** Records the claims that took `behind`'s channels past svc's totals, then gives the channels the chain's totals. */
  async function catchUp(client: PublicClient, network: string, behind: Behind[]): Promise<void> {
    const production = deps.productionChains!
    const oldest = behind.map((entry) => entry.row.created_at).sort()[0]!
    const { fromBlock = 0n, maxBlocks } = await production.logRange(client, null, oldest)
    // The claims svc missed are the newest: the logs are read from the head back, until each channel's is found.
    const missing = new Map(behind.map((entry) => [entry.channelId, entry.onChain - entry.stored]))
    const found: { channelId: string; amount: bigint; transaction: Hex; row: ChannelRow }[] = []
    const step = BigInt(Math.max(1, maxBlocks ?? Number.MAX_SAFE_INTEGER))
    const receivers = [...new Set(behind.map((entry) => entry.row.receiver as Hex))]
    for (let to = await client.getBlockNumber(); to >= fromBlock && [...missing.values()].some((left) => left > 0n); ) {
      const from = to - step + 1n > fromBlock ? to - step + 1n : fromBlock
      const logs = await client.getContractEvents({
        address: batchSettlementAddresses.settlement,
        abi: x402BatchSettlementAbi,
        eventName: 'Claimed',
        args: { receiver: receivers },
        fromBlock: from,
        toBlock: to,
      })
      for (const entry of logs.reverse()) {
        const channelId = entry.args.channelId?.toLowerCase()
        const amount = entry.args.amount ?? 0n
        const target = behind.find((candidate) => candidate.channelId === channelId)
        const left = channelId === undefined ? undefined : missing.get(channelId)
        if (!target || left === undefined || left <= 0n || entry.args.totalClaimed! <= target.stored) continue
        if (entry.args.totalClaimed! > target.onChain) continue
        missing.set(target.channelId, left - amount)
        found.push({ channelId: target.channelId, amount, transaction: entry.transactionHash!, row: target.row })
      }
      to = from - 1n
    }
    // Recorded first, then the totals: a crash between leaves the totals behind, and the next start finds the claim
    // recorded and only moves them.
    for (const transaction of new Set(found.map((entry) => entry.transaction))) {
      const known = await deps.db
        .selectFrom('batch_transactions')
        .select('id')
        .where('chain_epoch', '=', '')
        .where('transaction', '=', transaction)
        .executeTakeFirst()
      if (known) continue
      const parts = found.filter((entry) => entry.transaction === transaction)
      const first = parts[0]!.row
      const amount = parts.reduce((sum, entry) => sum + entry.amount, 0n)
      // Recorded meanwhile by the process that made the claim (its record and this one raced): nothing to tell.
      const recordedNow = await records.transaction({
        chainEpoch: '',
        kind: 'claim',
        environment: first.environment,
        network,
        token: first.token,
        receiver: first.receiver,
        amount: amount.toString(),
        vouchers: parts.length,
        transaction,
      })
      if (!recordedNow) continue
      for (const part of parts)
        await publish({
          type: 'channel.claimed',
          chainEpoch: '',
          channelId: part.channelId,
          amount: part.amount.toString(),
          network,
          token: first.token,
          receiver: first.receiver,
          transaction,
        }).catch(() => {})
      log(
        `gateway: a claim of ${first.receiver} on ${network} svc had not recorded (it stopped first) is recorded from the chain: ${transaction}`,
      )
    }
    for (const { channelId, onChain, row } of behind) {
      const storage = createChannelStorage(
        deps.db,
        {
          chainEpoch: '',
          environment: row.environment,
          network,
          receiver: row.receiver,
          withdrawDelay: row.withdraw_delay,
        },
        own,
      )
      await storage.updateChannel(channelId, (current) =>
        !current || BigInt(current.totalClaimed) >= onChain
          ? current
          : { ...current, totalClaimed: onChain.toString() },
      )
    }
    const unfound = [...missing.entries()].filter(([, left]) => left > 0n).map(([id]) => id)
    if (unfound.length > 0)
      log(
        `gateway: the claims of ${unfound.length} channel(s) on ${network} svc had not recorded were not found in the chain's logs: their claimed totals are the chain's`,
      )
  }

  return { reconcile }
}
