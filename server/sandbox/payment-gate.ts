import { ConflictError } from '../../core/errors.js'

/** Something that keeps sandbox state in memory, beside the database and the chain. */
export type SandboxStateParticipant = {
  /** Writes what it buffers (before a snapshot is taken or reverted to). */
  flush?(): Promise<void>
  /** Forgets what a revert made untrue: claims, remembered answers, counters. */
  reset?(): void
}

export type PausePaymentsOptions = {
  /** How long payments in flight are waited for before the pause is refused (409). @defaultValue 10_000 */
  waitMs?: number | undefined
}

/**
 * What a whole-sandbox change (a revert to a snapshot) needs from the parts of svc that hold state in memory: the
 * gateway's paid requests pass a gate the change can close, and every part registers how to flush and reset itself.
 */
export type SandboxState = {
  /** A paid request starts; it waits while a revert runs. Call the answer when the request is done. */
  enterPayment(): Promise<() => void>
  /** Paid requests under way now. */
  readonly paymentsInFlight: number
  /**
   * Holds new paid requests back and waits for those under way; resolves with the function that lets them in again.
   * Paid requests still under way after `waitMs` refuse the pause (409), and the gate opens again.
   */
  pausePayments(options?: PausePaymentsOptions): Promise<() => void>
  /** Adds a participant; answers the function that removes it. */
  register(participant: SandboxStateParticipant): () => void
  /** Every participant's {@link SandboxStateParticipant.flush}. */
  flush(): Promise<void>
  /** Every participant's {@link SandboxStateParticipant.reset}. */
  reset(): void
  /** Runs whole-sandbox changes (snapshot, revert, time travel) one at a time, in the order they were asked for. */
  exclusive<T>(change: () => Promise<T>): Promise<T>
}

export function createSandboxState(): SandboxState {
  const participants = new Set<SandboxStateParticipant>()
  let inFlight = 0
  /** Resolves when the gate opens again; undefined while it is open. */
  let closed: Promise<void> | undefined
  let drained: (() => void) | undefined
  let queue: Promise<unknown> = Promise.resolve()

  function leave() {
    inFlight -= 1
    if (inFlight === 0) drained?.()
  }

  return {
    async enterPayment() {
      while (closed) await closed
      inFlight += 1
      let left = false
      return () => {
        if (left) return
        left = true
        leave()
      }
    },
    get paymentsInFlight() {
      return inFlight
    },
    async pausePayments(options = {}) {
      const { waitMs = 10_000 } = options
      while (closed) await closed
      let open!: () => void
      closed = new Promise<void>((resolve) => (open = resolve))
      const reopen = () => {
        closed = undefined
        drained = undefined
        open()
      }
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined
        const finished = await new Promise<boolean>((resolve) => {
          drained = () => resolve(true)
          timer = setTimeout(() => resolve(false), waitMs)
        })
        clearTimeout(timer)
        if (!finished) {
          const count = inFlight
          reopen()
          throw new ConflictError(
            `${count} payment${count === 1 ? ' is' : 's are'} still in flight after ${waitMs / 1000} s: try again when ${count === 1 ? 'it is' : 'they are'} done`,
          )
        }
      }
      return reopen
    },
    register(participant) {
      participants.add(participant)
      return () => participants.delete(participant)
    },
    async flush() {
      for (const participant of participants) await participant.flush?.()
    },
    reset() {
      for (const participant of participants) participant.reset?.()
    },
    exclusive(change) {
      const run = queue.then(change, change)
      queue = run.catch(() => {})
      return run
    },
  }
}
