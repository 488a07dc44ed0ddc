import type { FacilitatorClient } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { ChannelStorage } from '@x402/evm/batch-settlement/server'
import { sql } from 'kysely'
import { type Hex, parseEventLogs, type PublicClient } from 'viem'
import { batchSettlementAddresses } from '../../chain/batch-settlement/index.js'
import { x402BatchSettlementAbi } from '../../chain/contracts/index.js'
import type { ApiRow } from '../db/index.js'
import type { ChannelsDeps } from './deps.js'
import type { SandboxChain } from '../../chain/sandbox-chain.js'
import type { BatchRecords } from './records.js'
import type { ChannelMoved } from './events.js'
import type { ClaimReconciler } from './claim-reconcile.js'
import { createReceiverLock, receiverLockKey } from './receiver-lock.js'
import { cutText, logLineLimit } from '../../core/http.js'
import { pausePoint } from '../../core/pause-point.js'

/**
 * The wrapper of the facilitator client a receiver's channel managers call (servers.ts): each claim and settle
 * that succeeded is recorded (records.ts) and told to the channel seller's stream (events.ts). Before a
 * production claim, `reconciler` brings the claimed channels' totals up to the chain's (a claim svc did not record).
 * Each `svc serve` process of a cluster runs managers for the same receivers: a receiver's claims and settles take
 * turns (receiver-lock.ts), and each sends only what no other has claimed or settled meanwhile.
 */
export function createRecordedFacilitators(
  deps: ChannelsDeps,
  records: BatchRecords,
  publish: (moved: ChannelMoved) => Promise<void>,
  reconciler?: ClaimReconciler,
) {
  const lock = createReceiverLock(deps.db)
  /** The facilitator client the managers call, recording each claim and settle that succeeded. */
  function recorded(
    facilitator: FacilitatorClient,
    api: ApiRow,
    chainEpoch: string,
    storage: ChannelStorage,
  ): FacilitatorClient {
    return {
      verify: (payload, requirements) => facilitator.verify(payload, requirements),
      getSupported: () => facilitator.getSupported(),
      async settle(payload: PaymentPayload, requirements: PaymentRequirements) {
        const type = (payload.payload as { type?: string }).type
        if (type !== 'claim' && type !== 'settle') return facilitator.settle(payload, requirements)
        // One claim or settle of the receiver's token at a time, whichever process's manager sends it.
        return lock(receiverLockKey(chainEpoch, requirements.network, requirements.payTo, requirements.asset), () =>
          type === 'claim' ? claim(payload, requirements) : settle(payload, requirements),
        )
      },
    }

    async function claim(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
      let body = payload.payload as {
        claims?: { voucher: { channel: unknown }; totalClaimed: string }[]
        claimAuthorizerSignature?: unknown
      }
      // What a claim adds: each voucher's total less what its channel had claimed (read before it is claimed).
      let claimed = 0n
      let sent = payload
      const perChannel: { channelId: string; amount: string; total: string }[] = []
      // The receiver's channels read once (not once per claim: a claim of n channels would parse n² records), now
      // that no other claim of the receiver runs: what one that ran meanwhile claimed is in them.
      const channelsByConfig = async () =>
        new Map((await storage.list()).map((channel) => [JSON.stringify(channel.channelConfig), channel]))
      let byConfig = await channelsByConfig()
      // A production claim the external facilitator made and svc did not record (it died first) is read from the
      // chain first: svc's totals become the chain's, so this claim adds only what is left.
      if (chainEpoch === '' && reconciler) {
        const ids = (body.claims ?? []).flatMap((claim) => {
          const channel = byConfig.get(JSON.stringify(claim.voucher.channel))
          return channel ? [channel.channelId] : []
        })
        try {
          await reconciler.reconcile(ids)
          byConfig = await channelsByConfig()
        } catch (error) {
          deps.log?.(cutText(`gateway: a channel claim is sent unchecked: ${(error as Error).message}`, logLineLimit))
        }
      }
      // Vouchers claimed already (by the chain's totals, or another process's manager since this one read them) are
      // left out, unless the batch is signed as it is: a claim of nothing new is not sent at all (on the chain it
      // would be an empty transaction, or one refused as below what the channel has claimed).
      if (body.claimAuthorizerSignature === undefined) {
        const left = (body.claims ?? []).filter((claim) => {
          const before = byConfig.get(JSON.stringify(claim.voucher.channel))
          return !before || BigInt(claim.totalClaimed) > BigInt(before.totalClaimed)
        })
        if (left.length === 0) return { success: true, transaction: '', network: requirements.network }
        if (left.length < (body.claims ?? []).length) {
          body = { ...body, claims: left }
          sent = { ...payload, payload: body as Record<string, unknown> }
        }
      }
      for (const claim of body.claims ?? []) {
        const before = byConfig.get(JSON.stringify(claim.voucher.channel))
        const gain = BigInt(claim.totalClaimed) - BigInt(before?.totalClaimed ?? '0')
        claimed += gain
        if (before) perChannel.push({ channelId: before.channelId, amount: gain.toString(), total: claim.totalClaimed })
      }
      const response = await facilitator.settle(sent, requirements)
      if (!response.success) return response
      // Crash tests stop here: the claim is on the chain and journaled, the gateway's record of it not yet written.
      await pausePoint('channel-claim-record')
      const base = baseOf(requirements, response.transaction)
      try {
        // What the claim moved is the chain's (its Claimed logs): a channel's record may have been behind or ahead of
        // the chain when `before` was read (a voucher's write of the totals it verified against).
        const moved = await movedOnChain(requirements, response.transaction)
        if (moved) {
          claimed = 0n
          for (const entry of perChannel)
            entry.amount = (moved.claimed.get(entry.channelId.toLowerCase()) ?? 0n).toString()
          for (const amount of moved.claimed.values()) claimed += amount
        }
        const recordedNow = await records.transaction({
          ...base,
          kind: 'claim',
          amount: claimed.toString(),
          vouchers: body.claims?.length ?? 0,
        })
        // The channels' claimed totals, before the lock is given back (the manager writes them too, after): the
        // next claim of the receiver, in any process, starts from them.
        for (const { channelId, total } of perChannel)
          await storage.updateChannel(channelId, (current) =>
            !current || BigInt(total) <= BigInt(current.totalClaimed) ? current : { ...current, totalClaimed: total },
          )
        // Recorded already: from the chain, by a process that found this claim before this one recorded it.
        if (recordedNow)
          for (const { channelId, amount } of perChannel)
            await publish({ ...base, type: 'channel.claimed', channelId, amount })
      } catch (error) {
        deps.log?.(cutText(`gateway: could not record a channel claim: ${(error as Error).message}`, logLineLimit))
      }
      return response
    }

    async function settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
      // Nothing claimed and not settled (another process's manager settled it): nothing is sent.
      if (chainEpoch === '' && !(await settleDue(requirements))) {
        return { success: true, transaction: '', network: requirements.network }
      }
      // Crash tests stop here: the settle is about to be sent, what it settles recorded as claimed.
      await pausePoint('channel-settle')
      const response = await facilitator.settle(payload, requirements)
      if (!response.success) return response
      const base = baseOf(requirements, response.transaction)
      try {
        // The channels it covered are svc's records' (the chain's Settled log names the receiver only); the amount is
        // the log's, which no record written late by another process's claim can change.
        const settled = await records.settled(chainEpoch, requirements.payTo, requirements.asset)
        const moved = await movedOnChain(requirements, response.transaction)
        const amount = moved?.settled.toString() ?? settled.amount
        if (await records.transaction({ ...base, kind: 'settle', amount }))
          for (const { channelId, amount } of settled.channels)
            await publish({ ...base, type: 'channel.settled', channelId, amount })
      } catch (error) {
        deps.log?.(cutText(`gateway: could not record a channel settle: ${(error as Error).message}`, logLineLimit))
      }
      return response
    }

    /**
     * Whether the receiver's token has a claimed amount not settled yet: the chain's totals where svc has an RPC of
     * the network (`--rpc`), else svc's records.
     */
    async function settleDue(requirements: PaymentRequirements): Promise<boolean> {
      try {
        const client = await deps.productionChains?.clientOf(requirements.network)
        if (client) {
          const [totalClaimed, totalSettled] = await client.readContract({
            address: batchSettlementAddresses.settlement,
            abi: x402BatchSettlementAbi,
            functionName: 'receivers',
            args: [requirements.payTo as Hex, requirements.asset as Hex],
          })
          return totalClaimed > totalSettled
        }
      } catch {
        // The chain does not answer: svc's records say.
      }
      const rows = await deps.db
        .selectFrom('batch_channels')
        .select(['claimed', 'settled'])
        .where('chain_epoch', '=', chainEpoch)
        .where('receiver', '=', requirements.payTo.toLowerCase())
        .where(sql<string>`lower(token)`, '=', requirements.asset.toLowerCase())
        .execute()
      return rows.some((row) => BigInt(row.claimed) > BigInt(row.settled))
    }

    /** What the claim or settle `transaction` moved by the chain's logs; undefined without a client or a receipt. */
    async function movedOnChain(requirements: PaymentRequirements, transaction: string) {
      try {
        const client = await clientOf(requirements.network)
        if (!client || !transaction) return undefined
        return await movedBy(client, transaction, requirements.payTo, requirements.asset)
      } catch (error) {
        deps.log?.(
          cutText(`gateway: a channel transaction's logs could not be read: ${(error as Error).message}`, logLineLimit),
        )
        return undefined
      }
    }

    /** A client of the network the receiver's channels are on: the Sandbox chain's (or a twin's), or `--rpc`'s. */
    async function clientOf(network: string): Promise<PublicClient | undefined> {
      if (chainEpoch === '') return deps.productionChains?.clientOf(network)
      return sandboxChainOf(deps, network, chainEpoch)?.client as PublicClient | undefined
    }

    function baseOf(requirements: PaymentRequirements, transaction: string) {
      return {
        chainEpoch,
        environment: api.environment,
        network: requirements.network,
        token: requirements.asset,
        receiver: requirements.payTo,
        transaction,
      }
    }
  }

  return recorded
}

/**
 * What a claim or settle transaction moved, by the contract's logs in its receipt (none: nothing, the contract logs
 * every amount it moves): per channel claimed for `receiver`, and settled to `receiver` of `token`.
 */
export async function movedBy(
  client: PublicClient,
  transaction: string,
  receiver: string,
  token: string,
): Promise<{ claimed: Map<string, bigint>; settled: bigint }> {
  const receipt = await client.getTransactionReceipt({ hash: transaction as Hex })
  const settlement = batchSettlementAddresses.settlement.toLowerCase()
  const logs = parseEventLogs({
    abi: x402BatchSettlementAbi,
    logs: receipt.logs.filter((log) => log.address.toLowerCase() === settlement),
  })
  const moved = { claimed: new Map<string, bigint>(), settled: 0n }
  const to = receiver.toLowerCase()
  for (const log of logs) {
    if (log.eventName === 'Claimed' && log.args.receiver.toLowerCase() === to) {
      const id = log.args.channelId.toLowerCase()
      moved.claimed.set(id, (moved.claimed.get(id) ?? 0n) + log.args.amount)
    }
    if (
      log.eventName === 'Settled' &&
      log.args.receiver.toLowerCase() === to &&
      log.args.token.toLowerCase() === token.toLowerCase()
    )
      moved.settled += log.args.amount
  }
  return moved
}

/** The Sandbox chain or twin of `network` svc runs, while its epoch is `epoch`. */
export function sandboxChainOf(deps: ChannelsDeps, network: string, epoch: string): SandboxChain | undefined {
  const chains = deps.chain ? [deps.chain.sandboxChain, ...deps.chain.twins.map((twin) => twin.chain)] : []
  return chains.find((chain) => chain.network === network && chain.epoch === epoch)
}
