/** What a promise this module was shown resolved to; `pending` until then (and forever for one that rejects). */
const values = new WeakMap<Promise<unknown>, unknown>()
const pending = Symbol('pending')

/**
 * The value `promise` resolved to, or undefined while it has not (the first call starts watching it). For the caches
 * whose entries are promises kept as long as they are good (the resource servers, the offers): the gateway's unpaid
 * 402 answers without waiting when every step it takes is already known, and takes the awaiting way otherwise.
 */
export function settledValue<T extends object>(promise: Promise<T>): T | undefined {
  const value = values.get(promise)
  if (value === undefined) {
    values.set(promise, pending)
    promise.then(
      (resolved) => values.set(promise, resolved),
      () => {},
    )
    return undefined
  }
  return value === pending ? undefined : (value as T)
}

/** Notes what `promise` resolved to (its awaiter knows): {@link settledValue} answers it from now on. */
export function noteSettled<T extends object>(promise: Promise<T>, value: T): void {
  values.set(promise, value)
}
