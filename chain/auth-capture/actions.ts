/**
 * The escrow action journal (escrow-plan §1.9): every auth-capture transaction svc's facilitator sends (an
 * authorize, a charge, a capture, a void, a refund with its funding transfer) is written `pending` before it is sent
 * and finished with its outcome, so an action under way when svc died is resolved from the chain at the next start
 * (WP3: server/escrow/action-recovery.ts reads `paymentState` and the escrow's `Payment*` events of the action's
 * `paymentInfoHash` from `fromBlock`, chain/auth-capture/on-chain.ts). Memory until svc's server gives the journal
 * its database (`keepIn`, as the batch-settlement channel actions: chain/batch-settlement/channel-actions.ts).
 */
import { randomUUID } from 'node:crypto'
import type { SettleResponse } from '@x402/core/types'
import { LRUCache } from 'lru-cache'
import type { Address, Hex } from 'viem'
import type { PaymentInfo } from '../../core/auth-capture/types.js'
import { cutText, errorMessageLimit } from '../../core/http.js'
import { pausePoint } from '../../core/pause-point.js'
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
export type EscrowActionStore = {
  /** Writes the action (a new one, or its outcome over its pending row). */
  save(action: EscrowAction): Promise<void>
}

/** What the scheme says of an action before sending it. */
export type EscrowActionStart = Pick<
  EscrowAction,
  'network' | 'kind' | 'paymentInfoHash' | 'escrow' | 'paymentInfo' | 'requested'
>

/** What a send answers: the facilitator's answer (a refund's funding transfer in `extra.fundingTransaction`). */
export type EscrowSendAnswer = SettleResponse

/** What a send tells the journal before its outcome: a refund's funding transfer, landed, before its refund is sent. */
export type EscrowActionProgress = { funded(transaction: string): Promise<void> }

/** Gives a refund's funding back to its receiver from the operator, on the action's chain: the transfer's hash. */
export type EscrowFundingReturner = (action: EscrowAction) => Promise<string>

export type EscrowActionJournal = {
  /**
   * Runs `send` (one escrow transaction, sent and mined) between a pending row and its outcome. A journal that cannot
   * write refuses: nothing is sent.
   */
  run(
    start: EscrowActionStart,
    chain: SandboxChain,
    send: (progress: EscrowActionProgress) => Promise<EscrowSendAnswer>,
  ): Promise<EscrowSendAnswer>
  /**
   * Recovery's way to give back a refund's funding whose refund never reached the chain (server/escrow/
   * action-recovery.ts): the scheme of the action's network sends it in its operator's turn. Throws without one.
   */
  returnFunding(action: EscrowAction): Promise<string>
  /** The scheme of `network` says how it returns a refund's funding (chain/auth-capture/scheme.ts). */
  returnFundingOn(network: string, returner: EscrowFundingReturner): void
  /** Moves the journal to `store` (svc's database), or back to memory; actions journaled from now on go there. */
  keepIn(store?: EscrowActionStore): void
  /** The actions of this process, newest last (its memory keeps the latest 1,000). */
  recent(): EscrowAction[]
}

export function createEscrowActionJournal(
  options: { log?: ((line: string) => void) | undefined } = {},
): EscrowActionJournal {
  const log = options.log ?? ((line: string) => console.error(line))
  const memory = new LRUCache<string, EscrowAction>({ max: 1_000 })
  const memoryStore: EscrowActionStore = { save: async (action) => void memory.set(action.id, action) }
  let store = memoryStore
  const returners = new Map<string, EscrowFundingReturner>()
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
      const kept = store
      try {
        await kept.save(pending)
      } catch (error) {
        return {
          success: false,
          errorReason: 'unexpected_settle_error',
          errorMessage: `the escrow action could not be journaled, so it was not sent: ${(error as Error).message}`,
          transaction: '',
          network: start.network as SettleResponse['network'],
        }
      }
      memory.set(pending.id, pending)
      // A refund's funding, once on the chain, is written to its pending row: recovery gives it back when the
      // refund never followed (crash tests stop after it: `escrow-action-refund-funded`).
      const progress: EscrowActionProgress = {
        async funded(transaction) {
          const funded = { ...pending, fundingTransaction: transaction }
          memory.set(funded.id, funded)
          await kept
            .save(funded)
            .catch((error: unknown) =>
              log(`svc: the escrow action ${pending.id}'s funding could not be journaled: ${(error as Error).message}`),
            )
          await pausePoint(`escrow-action-${start.kind}-funded`)
        },
      }
      // A send that throws (the chain went away mid-way) leaves the row pending, for the chain to say at the next
      // start.
      const answer = await send(progress)
      // Crash tests stop here: the action is on the chain, its outcome not yet in the journal.
      await pausePoint(`escrow-action-${start.kind}`)
      // A failed refund whose funding could not be given back (the chain went away meanwhile) stays pending: the
      // recovery of the next start returns it (server/escrow/action-recovery.ts).
      if (!answer.success && fundingOf(answer) !== null && answer.extra?.returnTransaction === undefined) return answer
      const finished: EscrowAction = {
        ...pending,
        ...(answer.success
          ? { state: 'settled' as const, transaction: answer.transaction || null, amount: answer.amount ?? null }
          : {
              state: 'failed' as const,
              transaction: answer.transaction || null,
              error: cutText(answer.errorMessage ?? answer.errorReason ?? 'failed', errorMessageLimit),
            }),
        fundingTransaction: fundingOf(answer),
        resolvedAt: new Date().toISOString(),
      }
      memory.set(finished.id, finished)
      kept
        .save(finished)
        .catch((error: unknown) =>
          log(`svc: the escrow action ${pending.id} could not be finished in the journal: ${(error as Error).message}`),
        )
      return answer
    },
    returnFunding(action) {
      const returner = returners.get(action.network)
      if (!returner) return Promise.reject(new Error(`no auth-capture scheme settles on ${action.network} here`))
      return returner(action)
    },
    returnFundingOn: (network, returner) => void returners.set(network, returner),
    keepIn(next) {
      store = next ?? memoryStore
    },
    recent: () => [...memory.values()].reverse(),
  }
}

/** A refund's funding transfer, as its answer's `extra` names it. */
const fundingOf = (answer: SettleResponse): string | null => {
  const funding = answer.extra?.fundingTransaction
  return typeof funding === 'string' ? funding : null
}
