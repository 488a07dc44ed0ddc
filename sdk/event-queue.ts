/** Options of {@link createEventQueue}. */
export type EventQueueOptions = {
  /** Events held for a reader that is behind; past it the oldest are dropped. @defaultValue 10_000 */
  limit?: number | undefined
  /** Ends the iteration (and calls `onEnd`). */
  signal?: AbortSignal | undefined
  /** Called once when the iteration ends (`return()`, `break`, the signal). */
  onEnd?: (() => void) | undefined
}

export type EventQueue<T> = {
  /** Hands an event to the reader (held until it reads, within the limit). */
  push(event: T): void
  /** The reader's side: `for await (const event of queue.iterator)`. */
  iterator: AsyncIterableIterator<T>
}

/** A bounded queue between a push source (an event bus) and one async iterator reader. */
export function createEventQueue<T>(options: EventQueueOptions = {}): EventQueue<T> {
  const { limit = 10_000, signal, onEnd } = options
  const held: T[] = []
  let waiting: ((result: IteratorResult<T>) => void) | undefined
  let ended = false

  const end = (): IteratorResult<T> => {
    if (!ended) {
      ended = true
      signal?.removeEventListener('abort', abort)
      onEnd?.()
    }
    const resolve = waiting
    waiting = undefined
    resolve?.({ value: undefined, done: true })
    return { value: undefined, done: true }
  }
  const abort = () => void end()
  if (signal?.aborted) end()
  else signal?.addEventListener('abort', abort, { once: true })

  const iterator: AsyncIterableIterator<T> = {
    next() {
      if (held.length > 0) return Promise.resolve({ value: held.shift()!, done: false })
      if (ended) return Promise.resolve({ value: undefined, done: true })
      return new Promise((resolve) => (waiting = resolve))
    },
    return: () => Promise.resolve(end()),
    [Symbol.asyncIterator]() {
      return this
    },
  }

  return {
    push(event) {
      if (ended) return
      if (waiting) {
        const resolve = waiting
        waiting = undefined
        return resolve({ value: event, done: false })
      }
      held.push(event)
      if (held.length > limit) held.shift()
    },
    iterator,
  }
}
