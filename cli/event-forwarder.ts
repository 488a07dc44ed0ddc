import { setTimeout as sleep } from 'node:timers/promises'
import { eventSignature, eventSignatureHeader } from '../core/event-signature.js'
import type { StreamEvent } from '../sdk/types.js'

export type EventForwarderOptions = {
  /** Where each event is POSTed. */
  url: string
  /** The HMAC secret of the `svc-signature` header. */
  secret: string
  /** Attempts per event (the first and the retries). @defaultValue 5 */
  attempts?: number | undefined
  /** The first retry's wait; each next one doubles it. @defaultValue 500 */
  backoffMs?: number | undefined
  /** Events waiting for delivery; past it, new ones are dropped (and `onResult` says so). @defaultValue 1000 */
  queueLimit?: number | undefined
  /** Deadline of one POST. @defaultValue 10_000 */
  timeoutMs?: number | undefined
  /** Told how each delivery ended: the status of the last attempt (0: no answer), or `dropped`. */
  onResult?:
    | ((
        event: StreamEvent,
        result: { status: number; attempts: number; ok: boolean; error?: string | undefined; dropped?: boolean },
      ) => void)
    | undefined
  /** @defaultValue globalThis.fetch */
  fetch?: typeof globalThis.fetch | undefined
}

export type EventForwarder = {
  /** Queues an event for delivery (in order, one at a time). */
  forward(event: StreamEvent): void
  /** Resolves when every queued event was delivered or given up on. */
  idle(): Promise<void>
  /** Stops retrying and delivering (what is queued is dropped). */
  stop(): void
}

/**
 * Delivers events to a local URL the way a payment processor's webhooks do: a JSON POST signed with
 * `svc-signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, plus `svc-event-id` and `svc-event-type`; an answer
 * other than 2xx (or none) is retried with exponential backoff. Events go out in order, one at a time.
 */
export function createEventForwarder(options: EventForwarderOptions): EventForwarder {
  const {
    url,
    secret,
    attempts = 5,
    backoffMs = 500,
    queueLimit = 1000,
    timeoutMs = 10_000,
    onResult,
    fetch = globalThis.fetch,
  } = options
  const queue: StreamEvent[] = []
  const stopped = new AbortController()
  let running: Promise<void> | undefined

  async function deliver(event: StreamEvent) {
    const body = JSON.stringify(event)
    let last = { status: 0, error: undefined as string | undefined }
    for (let attempt = 1; attempt <= attempts && !stopped.signal.aborted; attempt++) {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [eventSignatureHeader]: eventSignature(secret, body),
            'svc-event-id': event.id,
            'svc-event-type': event.type,
          },
          body,
          signal: AbortSignal.any([stopped.signal, AbortSignal.timeout(timeoutMs)]),
        })
        await response.arrayBuffer().catch(() => {})
        last = { status: response.status, error: undefined }
        if (response.ok) return onResult?.(event, { status: response.status, attempts: attempt, ok: true })
      } catch (error) {
        last = { status: 0, error: String((error as Error)?.message ?? error).split('\n')[0] }
      }
      if (attempt < attempts)
        await sleep(backoffMs * 2 ** (attempt - 1), undefined, { signal: stopped.signal }).catch(() => {})
    }
    if (!stopped.signal.aborted) onResult?.(event, { ...last, attempts, ok: false })
  }

  function drain(): Promise<void> {
    running ??= (async () => {
      while (queue.length > 0 && !stopped.signal.aborted) await deliver(queue.shift()!)
    })().finally(() => (running = undefined))
    return running
  }

  return {
    forward(event) {
      if (stopped.signal.aborted) return
      if (queue.length >= queueLimit) return onResult?.(event, { status: 0, attempts: 0, ok: false, dropped: true })
      queue.push(event)
      void drain()
    },
    idle: () => running ?? Promise.resolve(),
    stop() {
      stopped.abort()
      queue.length = 0
    },
  }
}
