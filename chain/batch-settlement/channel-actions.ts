import { randomUUID } from 'node:crypto'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import { computeChannelId } from '@x402/evm/batch-settlement/client'
import { encodeAbiParameters, keccak256, type Hex } from 'viem'
import { type ActionStore, createActionJournal } from '../action-journal.js'
import type { SandboxChain } from '../sandbox-chain.js'
import { batchActionOf } from './scheme.js'

export type ChannelActionKind = 'deposit' | 'claim' | 'settle' | 'refund'

/** What tells, on the chain, whether an action landed (chain/batch-settlement/actions-on-chain.ts reads it). */
export type ChannelActionDetail =
  | { kind: 'deposit'; channelId: Hex; amount: string; transferMethod: 'eip3009' | 'permit2'; nonce: string }
  | { kind: 'claim'; claims: { channelId: Hex; totalClaimed: string }[] }
  | { kind: 'settle' }
  | {
      kind: 'refund'
      channelId: Hex
      nonce: string
      amount: string
      claims: { channelId: Hex; totalClaimed: string }[]
    }

/**
 * One batch-settlement action the facilitator sent to the chain (a deposit, a claim, a settle, a refund): written
 * `pending` before the transaction is sent and finished with its outcome, so an action under way when svc died is
 * resolved from the chain at the next start (server/channels/action-recovery.ts). `transaction` and `amount`
 * are the facilitator's answer: a deposit's and a refund's amount is what moved into or out of the channel, a settle's
 * what the receiver got, a claim's is empty (it moves nothing).
 */
export type ChannelAction = {
  id: string
  network: string
  chainEpoch: string
  kind: ChannelActionKind
  receiver: string
  token: string
  /** The channel's payer (a deposit or a refund), else null. */
  payer: string | null
  detail: ChannelActionDetail
  /** The chain's latest block when the action began: its logs are looked for from there. */
  fromBlock: string
  state: 'pending' | 'settled' | 'failed'
  transaction: string | null
  amount: string | null
  error: string | null
  createdAt: string
  resolvedAt: string | null
}

/** Where the journal keeps actions: memory until svc's server gives it its database (server/db/channel-actions.ts). */
export type ChannelActionStore = ActionStore<ChannelAction>

export type ChannelActionJournal = {
  /**
   * Runs `send` (the scheme's settle of a deposit, claim, settle or refund) between a pending row and its outcome.
   * A payment of another kind (a voucher, another scheme) runs as it is.
   */
  run(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    chain: SandboxChain,
    send: () => Promise<SettleResponse>,
  ): Promise<SettleResponse>
  /** Moves the journal to `store` (svc's database), or back to memory; actions journaled from now on go there. */
  keepIn(store?: ChannelActionStore): void
  /** The actions of this process, newest first (its memory keeps the latest 1,000). */
  recent(): ChannelAction[]
}

export function createChannelActionJournal(options: { log?: ((line: string) => void) | undefined } = {}) {
  const actions = createActionJournal<ChannelAction>({ what: 'channel action', log: options.log })
  const journal: ChannelActionJournal = {
    async run(payload, requirements, chain, send) {
      const action = batchActionOf(payload)
      if (action === undefined || action === 'voucher') return send()
      let pending: ChannelAction
      try {
        pending = {
          id: `cha_${randomUUID().replaceAll('-', '')}`,
          network: requirements.network,
          chainEpoch: chain.epoch,
          kind: action,
          ...partiesOf(payload, requirements),
          detail: channelActionDetailOf(payload, requirements),
          fromBlock: (await chain.client.getBlockNumber()).toString(),
          state: 'pending',
          transaction: null,
          amount: null,
          error: null,
          createdAt: new Date().toISOString(),
          resolvedAt: null,
        }
      } catch {
        // A payload too malformed to describe: the scheme refuses it without sending anything.
        return send()
      }
      return actions.run(pending, { network: requirements.network, pause: `channel-action-${action}` }, send)
    },
    keepIn: actions.keepIn,
    recent: actions.recent,
  }
  return journal
}

type Config = { payer: string; receiver: string; token: string; withdrawDelay: number } & Record<string, unknown>
type Claim = { voucher: { channel: Config; maxClaimableAmount: string }; totalClaimed: string }

function partiesOf(payload: PaymentPayload, requirements: PaymentRequirements) {
  const body = payload.payload as {
    type: string
    channelConfig?: Config
    claims?: Claim[]
    receiver?: string
    token?: string
  }
  if (body.type === 'settle') return { receiver: String(body.receiver), token: String(body.token), payer: null }
  if (body.type === 'claim') {
    const channel = body.claims?.[0]?.voucher.channel
    return {
      receiver: String(channel?.receiver ?? requirements.payTo),
      token: String(channel?.token ?? requirements.asset),
      payer: null,
    }
  }
  const config = body.channelConfig!
  return { receiver: String(config.receiver), token: String(config.token), payer: String(config.payer) }
}

/** What tells, on the chain, whether the action of a batch-settlement payload (not a voucher) landed. */
export function channelActionDetailOf(payload: PaymentPayload, requirements: PaymentRequirements): ChannelActionDetail {
  const body = payload.payload as Record<string, unknown>
  const claimsOf = (claims: unknown) =>
    ((claims as Claim[] | undefined) ?? []).map((claim) => ({
      channelId: computeChannelId(claim.voucher.channel as never, requirements.network) as Hex,
      totalClaimed: BigInt(claim.totalClaimed).toString(),
    }))
  switch (body.type) {
    case 'deposit': {
      const voucher = body.voucher as { channelId: Hex }
      const deposit = body.deposit as {
        amount: string
        authorization: { erc3009Authorization?: { salt: Hex }; permit2Authorization?: { nonce: string } }
      }
      const permit2 = deposit.authorization.permit2Authorization
      const nonce = permit2
        ? BigInt(permit2.nonce).toString()
        : keccak256(
            encodeAbiParameters(
              [{ type: 'bytes32' }, { type: 'uint256' }],
              [voucher.channelId, BigInt(deposit.authorization.erc3009Authorization!.salt)],
            ),
          )
      return {
        kind: 'deposit',
        channelId: voucher.channelId,
        amount: BigInt(deposit.amount).toString(),
        transferMethod: permit2 ? 'permit2' : 'eip3009',
        nonce,
      }
    }
    case 'claim':
      return { kind: 'claim', claims: claimsOf(body.claims) }
    case 'settle':
      return { kind: 'settle' }
    default:
      return {
        kind: 'refund',
        channelId: computeChannelId(body.channelConfig as never, requirements.network) as Hex,
        nonce: BigInt(body.refundNonce as string).toString(),
        amount: BigInt(body.amount as string).toString(),
        claims: claimsOf(body.claims),
      }
  }
}
