import type { FacilitatorClient } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import type { ChannelStorage } from '@x402/evm/batch-settlement/server'
import type { ApiRow } from '../db/tables.js'
import type { ServerDeps } from '../deps.js'
import type { BatchRecords } from './batch-records.js'
import type { ChannelMoved } from './batch-events.js'
import type { ClaimReconciler } from './batch-claim-reconcile.js'
import { cutText, logLineLimit } from '../../core/http.js'
import { pausePoint } from '../../core/pause-point.js'

/**
 * The wrapper of the facilitator client a receiver's channel managers call (batch-servers.ts): each claim and settle
 * that succeeded is recorded (batch-records.ts) and told to the channel seller's stream (batch-events.ts). Before a
 * production claim, `reconciler` brings the claimed channels' totals up to the chain's (a claim svc did not record).
 */
export function createRecordedFacilitators(
  deps: ServerDeps,
  records: BatchRecords,
  publish: (moved: ChannelMoved) => Promise<void>,
  reconciler?: ClaimReconciler,
) {
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
        let body = payload.payload as {
          type?: string
          claims?: { voucher: { channel: unknown }; totalClaimed: string }[]
          claimAuthorizerSignature?: unknown
        }
        // What a claim adds: each voucher's total less what its channel had claimed (read before it is claimed).
        let claimed = 0n
        let sent = payload
        const perChannel: { channelId: string; amount: string }[] = []
        if (body.type === 'claim') {
          // The receiver's channels read once (not once per claim: a claim of n channels would parse n² records).
          const channelsByConfig = async () =>
            new Map((await storage.list()).map((channel) => [JSON.stringify(channel.channelConfig), channel]))
          let byConfig = await channelsByConfig()
          // A production claim the external facilitator made and svc did not record (it died first) is read from
          // the chain first: svc's totals become the chain's, so this claim adds only what is left.
          if (chainEpoch === '' && reconciler) {
            const ids = (body.claims ?? []).flatMap((claim) => {
              const channel = byConfig.get(JSON.stringify(claim.voucher.channel))
              return channel ? [channel.channelId] : []
            })
            try {
              await reconciler.reconcile(ids)
              byConfig = await channelsByConfig()
            } catch (error) {
              deps.log?.(
                cutText(`gateway: a channel claim is sent unchecked: ${(error as Error).message}`, logLineLimit),
              )
            }
            // Vouchers the chain has claimed already are left out (unless the batch is signed as it is): a claim of
            // nothing new is not sent at all.
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
          }
          for (const claim of body.claims ?? []) {
            const before = byConfig.get(JSON.stringify(claim.voucher.channel))
            const gain = BigInt(claim.totalClaimed) - BigInt(before?.totalClaimed ?? '0')
            claimed += gain
            if (before) perChannel.push({ channelId: before.channelId, amount: gain.toString() })
          }
        }
        // Crash tests stop here: the settle is about to be sent, what it settles recorded as claimed.
        if (body.type === 'settle') await pausePoint('channel-settle')
        const response = await facilitator.settle(sent, requirements)
        if (!response.success || (body.type !== 'claim' && body.type !== 'settle')) return response
        // Crash tests stop here: the claim is on the chain and journaled, the gateway's record of it not yet written.
        if (body.type === 'claim') await pausePoint('channel-claim-record')
        const base = {
          chainEpoch,
          environment: api.environment,
          network: requirements.network,
          token: requirements.asset,
          receiver: requirements.payTo,
          transaction: response.transaction,
        }
        try {
          if (body.type === 'claim') {
            await records.transaction({
              ...base,
              kind: 'claim',
              amount: claimed.toString(),
              vouchers: body.claims?.length ?? 0,
            })
          } else {
            const settled = await records.settled(chainEpoch, requirements.payTo, requirements.asset)
            await records.transaction({ ...base, kind: 'settle', amount: settled.amount })
            perChannel.push(...settled.channels)
          }
          const type = body.type === 'claim' ? 'channel.claimed' : 'channel.settled'
          for (const { channelId, amount } of perChannel) await publish({ ...base, type, channelId, amount })
        } catch (error) {
          deps.log?.(
            cutText(`gateway: could not record a channel ${body.type}: ${(error as Error).message}`, logLineLimit),
          )
        }
        return response
      },
    }
  }

  return recorded
}
