/*
 * The 402's deadlines on a grid: an auth-capture 402 writes absolute capture and refund deadlines, each the end of the
 * 60 s step `now + window` falls in, so requirements rebuilt within one step name the same values, and a payment of a
 * 402 fetched just before the step changed still settles (server-scheme.ts, server/payments/offer.ts).
 */

/** The step of the 402's deadlines, in seconds: a deadline is the end of the step `now + window` falls in. */
export const deadlineGridSeconds = 60

/** `ceil((now + seconds) / 60) * 60`: the absolute deadline a 402 built at `nowSeconds` writes for a window. */
export const gridDeadline = (nowSeconds: number, seconds: number): number =>
  Math.ceil((nowSeconds + seconds) / deadlineGridSeconds) * deadlineGridSeconds

/**
 * Whether a payment's (accepted) deadline may settle against the one the requirements hold now: the same, or the
 * previous grid step's (a 402 fetched just before the step changed). Anything else is from an old 402.
 */
export const acceptedDeadlineFits = (accepted: unknown, current: unknown): boolean =>
  typeof accepted === 'number' &&
  typeof current === 'number' &&
  (accepted === current || accepted === current - deadlineGridSeconds)
