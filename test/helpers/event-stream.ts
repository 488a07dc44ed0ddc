import { openEventStream, type OpenEventStreamOptions } from '../../sdk/event-stream.js'
import type { PaymentEvent, StreamEvent } from '../../sdk/types.js'

export type TestEventStream = {
  /** The next `count` events (a test that reads fewer than are sent leaves the rest for the next call). */
  next(count: number): Promise<PaymentEvent[]>
  /** Reads past events until one of `type` and answers it. */
  until(type: StreamEvent['type']): Promise<PaymentEvent>
  /** Closes the connection. */
  close(): void
}

/**
 * Opens `GET /events` with the SDK's reader (resolving once svc accepted it: no later event is missed) for a test that
 * reads it a few events at a time; `opened` collects its close, for an afterEach or afterAll to call.
 */
export async function openTestEventStream(
  options: Omit<OpenEventStreamOptions, 'signal'>,
  opened: (() => void)[] = [],
): Promise<TestEventStream> {
  const abort = new AbortController()
  const close = () => abort.abort()
  opened.push(close)
  const events = (await openEventStream({ ...options, signal: abort.signal }))[Symbol.asyncIterator]()
  const read = async (expected: string) => {
    const { value, done } = await events.next()
    if (done) throw new Error(`the stream ended before ${expected}`)
    return value as PaymentEvent
  }
  return {
    async next(count) {
      const got: PaymentEvent[] = []
      while (got.length < count) got.push(await read(`event ${got.length + 1} of ${count}`))
      return got
    },
    async until(type) {
      for (;;) {
        const event = await read(`a ${type} event`)
        if (event.type === type) return event
      }
    },
    close,
  }
}
