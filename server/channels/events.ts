import type { Kysely } from 'kysely'
import type { Database } from '../db/index.js'
import type { PaymentEvents } from '../payment-events.js'
import { nowIso } from '../ids.js'

/** A channel transaction of the channel manager or the buyer's withdrawal, as the live stream tells it: one per channel. */
export type ChannelMoved = {
  type: 'channel.claimed' | 'channel.settled' | 'channel.withdrawing' | 'channel.withdrawn'
  chainEpoch: string
  channelId: string
  /** What moved for this channel (atomic units of `token`). */
  amount: string
  network: string
  token: string
  receiver: string
  transaction: string
}

/**
 * Publishes the channel manager's claims and settles, and the buyer's withdrawals, to the live stream (`GET /events`)
 * of the channel's seller (the API its first voucher paid, as records.ts keeps it): they run on a schedule or on
 * the chain, with no request behind them.
 * Nothing is read when nobody listens.
 */
export function createChannelEvents(db: Kysely<Database>, bus: PaymentEvents | undefined) {
  return async function publish(moved: ChannelMoved): Promise<void> {
    if (!bus) return
    const row = await db
      .selectFrom('batch_channels')
      .innerJoin('apis', 'apis.id', 'batch_channels.api_id')
      .select(['batch_channels.user_id', 'batch_channels.payer', 'apis.id', 'apis.slug', 'apis.environment'])
      .where('batch_channels.chain_epoch', '=', moved.chainEpoch)
      .where('batch_channels.channel_id', '=', moved.channelId.toLowerCase())
      .executeTakeFirst()
    if (!row?.user_id || !bus.wanted(row.user_id)) return
    bus.publish(row.user_id, {
      type: moved.type,
      created_at: nowIso(),
      environment: row.environment,
      api_id: row.id,
      api_slug: row.slug,
      endpoint_id: null,
      method: '',
      path: '',
      amount: moved.amount,
      asset: moved.token,
      network: moved.network,
      pay_to: moved.receiver,
      payer: row.payer,
      transaction: moved.transaction,
      settlement_id: null,
      reason: null,
      error: null,
      status: 200,
      charged: false,
      builder_code: null,
      channel_id: moved.channelId.toLowerCase(),
    })
  }
}
