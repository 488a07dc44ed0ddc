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

/** A kind of strike, and the API it strikes (null: every API). */
export type FaultTarget = { kind: FaultKind; api: string | null }

/**
 * Where the faults are kept when not in this process's memory: a database every svc process shares (PostgreSQL,
 * server/db/faults.ts), so a fault added through one strikes payments through all, and `times: N` strikes N in all.
 */
export type FaultStore = {
  insert(fault: Fault): Promise<void>
  /** The faults in force, oldest first. */
  list(): Promise<Fault[]>
  /** Removes one fault, or all; answers how many went. */
  delete(id?: string): Promise<number>
  /** As {@link FaultBook.take}, atomically across processes. */
  take(kind: FaultKind, apiSlug?: string): Promise<Fault | undefined>
  /** What the faults in force strike: their kinds and APIs (null: every API), each pair once. */
  targets(): Promise<FaultTarget[]>
  /**
   * Calls `listener` after any process changed the faults, and once listening again after changes may have been
   * missed; with `deaf` while it cannot hear them (a lost connection).
   * @returns once listening, the function that stops the calls
   */
  watch(listener: (deaf?: boolean) => void): Promise<() => void>
}

export type FaultBook = {
  add(input: FaultInput): Promise<Fault>
  /** The faults in force, oldest first (copies). */
  list(): Promise<Fault[]>
  /** Removes one fault (true when it existed), or all of them; answers how many went. */
  clear(id?: string): Promise<number>
  /**
   * The oldest fault of `kind` in force for a payment to the API `apiSlug` (its own faults and those of every API;
   * without a slug, only those of every API), counted as a strike: a fault whose strikes are used up is gone.
   * Undefined when none is in force (the common case costs one check of a flag, whatever keeps the faults).
   */
  take(kind: FaultKind, apiSlug?: string): Promise<Fault | undefined>
  /** Called after every change (add, clear, a fault used up; another process's too with a store). @returns the stop */
  onChange(listener: () => void): () => void
  /**
   * Keeps the faults in `store` from now on (svc on PostgreSQL), or in this process's memory again without one. The
   * faults of the place left behind are not carried over.
   */
  keepIn(store?: FaultStore): Promise<void>
}

const newFault = (input: FaultInput): Fault => ({
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
})

/** The faults of one process, in memory: they last until cleared, used up, or svc stops. */
function memoryFaults(changed: () => void): FaultStore & { size(): number } {
  const faults: Fault[] = []
  return {
    size: () => faults.length,
    async insert(fault) {
      faults.push({ ...fault })
      changed()
    },
    list: async () => faults.map((fault) => ({ ...fault })),
    async delete(id) {
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
    async take(kind, apiSlug) {
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
    targets: async () => faults.map(({ kind, api }) => ({ kind, api })),
    watch: async () => () => {},
  }
}

/**
 * What the faults in force may strike, by kind: the APIs (null: every API); `everything` while that is not known.
 * A payment no fault targets costs a map lookup, not a question to the store.
 */
type Targets = Map<FaultKind, Set<string | null>> | 'everything'

/** Adds what `list` targets to `targets`; answers `targets`. */
const addTargets = (targets: Map<FaultKind, Set<string | null>>, list: FaultTarget[]) => {
  for (const { kind, api } of list) {
    const apis = targets.get(kind) ?? new Set<string | null>()
    apis.add(api)
    targets.set(kind, apis)
  }
  return targets
}

/**
 * The faults injected into a Sandbox: in memory (svc up), or in a {@link FaultStore} the server gives it (svc serve on
 * PostgreSQL). With a store, the book keeps what the faults in force target (kinds and APIs), so a payment no fault
 * targets costs one lookup and no query; the targets are read again whenever a process changes the faults (the
 * store's watch), widened at once by a fault added or read here.
 */
export function createFaultBook(): FaultBook {
  const listeners = new Set<() => void>()
  const changed = () => {
    for (const listener of listeners) listener()
  }
  const memory = memoryFaults(changed)
  let store: FaultStore | undefined
  let stopWatching = () => {}
  /** With a store: what a fault in force may strike (everything until the store says otherwise). */
  let targets: Targets = new Map()
  const widen = (list: FaultTarget[]) => {
    if (targets !== 'everything') addTargets(targets, list)
  }
  const targeted = (kind: FaultKind, apiSlug: string | undefined) => {
    if (targets === 'everything') return true
    const apis = targets.get(kind)
    return apis !== undefined && (apis.has(null) || (apiSlug !== undefined && apis.has(apiSlug)))
  }
  /** With a store: its notifications are not heard (a lost connection), so the flag stays raised. */
  let deaf = false
  let refreshing: Promise<void> | undefined
  let again = false
  /** Asks the store what its faults target; a change heard meanwhile asks once more after (never a stale answer). */
  const refresh = (from: FaultStore): Promise<void> => {
    if (refreshing) {
      again = true
      return refreshing
    }
    const ask = async () => {
      do {
        again = false
        const read: Targets = await from.targets().then(
          (list) => addTargets(new Map(), list),
          () => 'everything' as const,
        )
        if (store === from && !deaf) targets = read
      } while (again && store === from)
    }
    refreshing = ask().finally(() => (refreshing = undefined))
    return refreshing
  }

  return {
    async add(input) {
      const fault = newFault(input)
      if (!store) {
        await memory.insert(fault)
        return { ...fault }
      }
      widen([fault])
      await store.insert(fault)
      changed()
      return { ...fault }
    },
    async list() {
      if (!store) return memory.list()
      const from = store
      const faults = await from.list()
      // A fault read widens the targets at once; only a refresh narrows them (a read may be older than a notification).
      if (store === from) widen(faults)
      return faults
    },
    async clear(id) {
      if (!store) return memory.delete(id)
      const from = store
      const cleared = await from.delete(id)
      if (cleared > 0) changed()
      await refresh(from)
      return cleared
    },
    async take(kind, apiSlug) {
      if (!store) return memory.size() === 0 ? undefined : memory.take(kind, apiSlug)
      if (!targeted(kind, apiSlug)) return undefined
      const from = store
      const fault = await from.take(kind, apiSlug)
      if (!fault) return undefined
      changed()
      // A strike that used the fault up: the targets may narrow (the store tells every process too).
      if (fault.remaining === 0) void refresh(from)
      return fault
    },
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async keepIn(next) {
      stopWatching()
      stopWatching = () => {}
      store = next
      deaf = false
      targets = next === undefined ? new Map() : 'everything'
      if (!next) return
      stopWatching = await next.watch((lost) => {
        // Deaf, the targets cannot narrow safely: every payment asks the store until it hears again (and reads once more).
        deaf = lost === true
        if (deaf) targets = 'everything'
        else void refresh(next)
        changed()
      })
      // Read once listening: a change from now on is heard.
      await refresh(next)
    },
  }
}
