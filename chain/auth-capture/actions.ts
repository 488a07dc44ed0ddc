/**
 * The escrow action journal (escrow-plan §1.9): every auth-capture transaction svc's facilitator sends (an
 * authorize, a charge, a capture, a void, a refund with its funding transfer) is written `pending` before it is sent
 * and finished with its outcome, so an action under way when svc died is resolved from the chain at the next start
 * (WP3: server/escrow/action-recovery.ts reads `paymentState` and the escrow's `Payment*` events of the action's
 * `paymentInfoHash` from `fromBlock`, chain/auth-capture/on-chain.ts). Memory until svc's server gives the journal
 * its database (`keepIn`, as the batch-settlement channel actions: chain/action-journal.ts is what they share).
 */
import { randomUUID } from 'node:crypto'
import type { SettleResponse } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import type { PaymentInfo } from '../../core/auth-capture/types.js'
import { type ActionStore, createActionJournal } from '../action-journal.js'
import type { SandboxChain } from '../sandbox-chain.js'

/** What an action does on the escrow: its function's name (a refund's funding transfer is part of its refund). */
export type EscrowActionKind = 'authorize' | 'charge' | 'capture' | 'void' | 'refund'

/**
 * One escrow action, the row WP3 stores as `escrow_actions` (the columns of `channel_actions` plus
 * `payment_info_hash`, `escrow`, `payment_info`): `amount` is what the action moves (an authorize's hold, a capture's
 * capture, a refund's refund; a void's is what was held, known once it landed), `transaction` the escrow call's,
 * `fundingTransaction` a refund's `transferFrom(receiver → operator)` (sent before the refund, given back when the
 * refund fails: recovery returns a funding transfer without its refund).
 */
export type EscrowAction = {
  id: string
  network: string
  chainEpoch: string
  kind: EscrowActionKind
  /** `getHash(paymentInfo)` on the escrow: the payment's id, which every `Payment*` event indexes. */
  paymentInfoHash: Hex
  escrow: Address
  /** The operator that sends it (svc's relayer account 1). */
  operator: Address
  payer: Address
  receiver: Address
  token: Address
  /** The escrow's PaymentInfo as the wire spells it (what a recovery's `paymentState` and a reclaim need). */
  paymentInfo: PaymentInfo
  /** What the action asked to move (atomic units, decimal); a void's is what was held when it was judged. */
  requested: string
  /** The chain's latest block when the action began: its events are looked for from there. */
  fromBlock: string
  state: 'pending' | 'settled' | 'failed'
  transaction: string | null
  fundingTransaction: string | null
  /** What moved (the facilitator's answer's `amount`), once settled. */
  amount: string | null
  error: string | null
  createdAt: string
  resolvedAt: string | null
}

/** Where the journal keeps actions: memory until svc's server gives it its database (WP3). */
export type EscrowActionStore = ActionStore<EscrowAction>

/** What the scheme says of an action before sending it. */
export type EscrowActionStart = Pick<
  EscrowAction,
  'network' | 'kind' | 'paymentInfoHash' | 'escrow' | 'paymentInfo' | 'requested'
>

/** What a send answers: the facilitator's answer (a refund's funding transfer in `extra.fundingTransaction`). */
export type EscrowSendAnswer = SettleResponse

export type EscrowActionJournal = {
  /**
   * Runs `send` (one escrow transaction, sent and mined) between a pending row and its outcome. A journal that cannot
   * write refuses: nothing is sent.
   */
  run(start: EscrowActionStart, chain: SandboxChain, send: () => Promise<EscrowSendAnswer>): Promise<EscrowSendAnswer>
  /** Moves the journal to `store` (svc's database), or back to memory; actions journaled from now on go there. */
  keepIn(store?: EscrowActionStore): void
  /** The actions of this process, newest last (its memory keeps the latest 1,000). */
  recent(): EscrowAction[]
}

export function createEscrowActionJournal(
  options: { log?: ((line: string) => void) | undefined } = {},
): EscrowActionJournal {
  const journal = createActionJournal<EscrowAction>({ what: 'escrow action', log: options.log })
  return {
    async run(start, chain, send) {
      const info = start.paymentInfo
      const pending: EscrowAction = {
        id: `esa_${randomUUID().replaceAll('-', '')}`,
        chainEpoch: chain.epoch,
        ...start,
        operator: info.operator,
        payer: info.payer,
        receiver: info.receiver,
        token: info.token,
        fromBlock: (await chain.client.getBlockNumber()).toString(),
        state: 'pending',
        transaction: null,
        fundingTransaction: null,
        amount: null,
        error: null,
        createdAt: new Date().toISOString(),
        resolvedAt: null,
      }
      const how = { network: start.network, pause: `escrow-action-${start.kind}`, more: fundingOf }
      return journal.run(pending, how, send)
    },
    keepIn: journal.keepIn,
    recent: () => journal.recent().reverse(),
  }
}

/** A refund's funding transfer, as its answer's `extra` names it. */
const fundingOf = (answer: SettleResponse): Pick<EscrowAction, 'fundingTransaction'> => {
  const funding = answer.extra?.fundingTransaction
  return { fundingTransaction: typeof funding === 'string' ? funding : null }
}
