/**
 * svc's own clock: the machine's time plus an offset that `svc time advance` moves (time travel, Sandbox only). The
 * lifetimes svc judges read it: ttl endpoints, session JWTs, email verification tokens, and the Sandbox
 * facilitator's check of an authorization's validAfter/validBefore. Timers, timeouts and log times keep the
 * machine's time.
 */
export type Clock = {
  /** Milliseconds since the epoch, as svc sees them. */
  now(): number
  /** {@link now} as an ISO 8601 timestamp (the database's format). */
  nowIso(): string
  /** Whole seconds since the epoch (JWTs, EIP-3009 authorizations). */
  nowSeconds(): number
  /** How far svc's clock is ahead of the machine's, in milliseconds. */
  readonly offsetMs: number
  setOffset(offsetMs: number): void
}

export type CreateClockOptions = {
  /** @defaultValue 0 */
  offsetMs?: number | undefined
  /** The machine's time. @defaultValue Date.now */
  machineNow?: (() => number) | undefined
}

export function createClock(options: CreateClockOptions = {}): Clock {
  const { machineNow = Date.now } = options
  let offsetMs = options.offsetMs ?? 0
  const now = () => machineNow() + offsetMs
  return {
    now,
    nowIso: () => new Date(now()).toISOString(),
    nowSeconds: () => Math.floor(now() / 1000),
    get offsetMs() {
      return offsetMs
    },
    setOffset(value) {
      if (!Number.isFinite(value))
        throw new RangeError(`a clock offset must be a finite number of milliseconds, got ${value}`)
      offsetMs = value
    },
  }
}

/** The machine's clock, for code that runs without a sandbox (tests of single modules). */
export const machineClock: Clock = {
  now: () => Date.now(),
  nowIso: () => new Date().toISOString(),
  nowSeconds: () => Math.floor(Date.now() / 1000),
  offsetMs: 0,
  setOffset() {
    throw new Error('the machine clock cannot be moved: give the sandbox a clock of its own (createClock)')
  },
}
