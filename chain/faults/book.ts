import { randomBytes } from 'node:crypto'

/** Where a fault strikes: the facilitator's verify or settle, or the upstream call of the gateway. */
export type FaultKind = 'verify' | 'settle' | 'upstream'

/** What `svc fault add` asks for. Exactly one effect per fault (a settle fault may have a reason, a delay, or both). */
export type FaultInput = {
  kind: FaultKind
  /** verify, settle: the x402 reason the facilitator answers (core/fault-reasons.ts). */
  reason?: string | undefined
  /** settle: wait this long, then settle (or refuse with `reason`); upstream: the upstream answers this much later. */
  delayMs?: number | undefined
  /** upstream: the upstream answers this status (400-599) and no body worth charging for. */
  status?: number | undefined
  /** upstream: the upstream drops the connection without an answer. */
  drop?: boolean | undefined
  /** The slug of the one Sandbox API it strikes. @defaultValue every API (and every seller of svc's facilitator) */
  api?: string | undefined
  /** How many payments it strikes, then it is gone. @defaultValue until cleared */
  times?: number | undefined
}

export type Fault = {
  id: string
  kind: FaultKind
  reason: string | null
  delayMs: number | null
  status: number | null
  drop: boolean
  /** The API's slug; null for every API. */
  api: string | null
  /** null: until cleared. */
  times: number | null
  /** Strikes left; null: until cleared. */
  remaining: number | null
  /** Payments it struck so far. */
  hits: number
  createdAt: string
}

export type FaultBook = {
  add(input: FaultInput): Fault
  /** The faults in force, oldest first (copies). */
  list(): Fault[]
  /** Removes one fault (true when it existed), or all of them; answers how many went. */
  clear(id?: string): number
  /**
   * The oldest fault of `kind` in force for a payment to the API `apiSlug` (its own faults and those of every API;
   * without a slug, only those of every API), counted as a strike: a fault whose strikes are used up is gone.
   * Undefined when none is in force (the common case costs one size check).
   */
  take(kind: FaultKind, apiSlug?: string): Fault | undefined
  /** Called after every change (add, clear, a fault used up). @returns the function that stops the calls */
  onChange(listener: () => void): () => void
}

/** The faults injected into a Sandbox, in memory: they last until cleared, used up, or svc stops. */
export function createFaultBook(): FaultBook {
  const faults: Fault[] = []
  const listeners = new Set<() => void>()
  const changed = () => {
    for (const listener of listeners) listener()
  }

  return {
    add(input) {
      const fault: Fault = {
        id: `flt_${randomBytes(6).toString('hex')}`,
        kind: input.kind,
        reason: input.reason ?? null,
        delayMs: input.delayMs ?? null,
        status: input.status ?? null,
        drop: input.drop ?? false,
        api: input.api ?? null,
        times: input.times ?? null,
        remaining: input.times ?? null,
        hits: 0,
        createdAt: new Date().toISOString(),
      }
      faults.push(fault)
      changed()
      return { ...fault }
    },
    list: () => faults.map((fault) => ({ ...fault })),
    clear(id) {
      const before = faults.length
      if (id === undefined) faults.length = 0
      else {
        const index = faults.findIndex((fault) => fault.id === id)
        if (index !== -1) faults.splice(index, 1)
      }
      const cleared = before - faults.length
      if (cleared > 0) changed()
      return cleared
    },
    take(kind, apiSlug) {
      if (faults.length === 0) return undefined
      const index = faults.findIndex((fault) => fault.kind === kind && (fault.api === null || fault.api === apiSlug))
      if (index === -1) return undefined
      const fault = faults[index]!
      fault.hits += 1
      if (fault.remaining !== null) {
        fault.remaining -= 1
        if (fault.remaining <= 0) faults.splice(index, 1)
      }
      changed()
      return { ...fault }
    },
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
