/**
 * The journal of the transactions svc's facilitator sends for a scheme that holds money over time (batch-settlement's
 * channel actions, auth-capture's escrow actions): each is written `pending` before it is sent and finished with its
 * outcome, so one under way when svc died is resolved from the chain at the next start. The actions live in memory
 * until svc's server gives the journal its database (`keepIn`). Each scheme builds its own rows (what tells, on the
 * chain, whether its action landed); this is what they share.
 */
import type { SettleResponse } from '@x402/core/types'
import { LRUCache } from 'lru-cache'
import { cutText, errorMessageLimit } from '../core/http.js'
import { pausePoint } from '../core/pause-point.js'

/** What every journaled action has: its id and its outcome. */
export type JournaledAction = {
  id: string
  state: 'pending' | 'settled' | 'failed'
  transaction: string | null
  /** What moved (the facilitator's answer's `amount`), once settled. */
  amount: string | null
  error: string | null
  resolvedAt: string | null
}

/** Where a journal keeps actions: memory until svc's server gives it its database. */
export type ActionStore<A> = {
  /** Writes the action (a new one, or its outcome over its pending row). */
  save(action: A): Promise<void>
}

/** How one action is sent: the network a refusal names, the crash tests' pause point, what else its outcome says. */
export type ActionSend<A> = {
  network: string
  /** The pause point between the send and its outcome (core/pause-point.ts). */
  pause: string
  /** The fields of the finished row the answer gives beyond the outcome. */
  more?: ((answer: SettleResponse) => Partial<A>) | undefined
}

export type ActionJournal<A extends JournaledAction> = {
  /**
   * Runs `send` (one transaction, sent and mined) between the `pending` row and its outcome. A journal that cannot
   * write refuses: nothing is sent.
   */
  run(pending: A, how: ActionSend<A>, send: () => Promise<SettleResponse>): Promise<SettleResponse>
  /** Moves the journal to `store` (svc's database), or back to memory; actions journaled from now on go there. */
  keepIn(store?: ActionStore<A>): void
  /** The actions of this process, most recently written first (its memory keeps the latest 1,000). */
  recent(): A[]
}

/** A journal of `what` ("channel action", "escrow action": the words of its messages). */
export function createActionJournal<A extends JournaledAction>(options: {
  what: string
  log?: ((line: string) => void) | undefined
}): ActionJournal<A> {
  const { what } = options
  const log = options.log ?? ((line: string) => console.error(line))
  const memory = new LRUCache<string, A>({ max: 1_000 })
  const memoryStore: ActionStore<A> = { save: async (action) => void memory.set(action.id, action) }
  let store = memoryStore
  return {
    async run(pending, how, send) {
      const kept = store
      try {
        await kept.save(pending)
      } catch (error) {
        return {
          success: false,
          errorReason: 'unexpected_settle_error',
          errorMessage: `the ${what} could not be journaled, so it was not sent: ${(error as Error).message}`,
          transaction: '',
          network: how.network as SettleResponse['network'],
        }
      }
      memory.set(pending.id, pending)
      // A send that throws (the chain went away mid-way) leaves the row pending, for the chain to say at the next start.
      const answer = await send()
      // Crash tests stop here: the action is on the chain, its outcome not yet in the journal.
      await pausePoint(how.pause)
      const finished: A = {
        ...pending,
        ...(answer.success
          ? { state: 'settled' as const, transaction: answer.transaction || null, amount: answer.amount ?? null }
          : {
              state: 'failed' as const,
              transaction: answer.transaction || null,
              error: cutText(answer.errorMessage ?? answer.errorReason ?? 'failed', errorMessageLimit),
            }),
        ...how.more?.(answer),
        resolvedAt: new Date().toISOString(),
      }
      memory.set(finished.id, finished)
      kept
        .save(finished)
        .catch((error: unknown) =>
          log(`svc: the ${what} ${pending.id} could not be finished in the journal: ${(error as Error).message}`),
        )
      return answer
    },
    keepIn(next) {
      store = next ?? memoryStore
    },
    recent: () => [...memory.values()],
  }
}
