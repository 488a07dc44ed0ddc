import { EventSourceParserStream } from 'eventsource-parser/stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { SvcApiError } from '../core/errors.js'
import { localFetch } from './local-fetch.js'
import type { StreamEvent } from './types.js'

export type OpenEventStreamOptions = {
  /** {base_url} or {sandbox_base_url}. */
  baseUrl: string
  /** The credential's headers (`X-API-Key`, or `Authorization` and `X-Svc-Environment`). */
  headers: Record<string, string>
  /** Only this API. */
  apiId?: string | undefined
  /** Sent as `Last-Event-ID`: the events after it that svc still keeps come first. */
  lastEventId?: string | undefined
  signal?: AbortSignal | undefined
  /** @defaultValue {@link localFetch} */
  fetch?: typeof globalThis.fetch | undefined
}

/**
 * Opens `GET /events` (Server-Sent Events, parsed by `eventsource-parser`) and resolves once the control plane
 * accepted it (from then on no event is missed); the iterator ends when the stream does. A refusal throws the
 * control plane's error as an {@link SvcApiError}.
 */
export async function openEventStream(options: OpenEventStreamOptions): Promise<AsyncIterable<StreamEvent>> {
  const { baseUrl, headers, apiId, lastEventId, signal, fetch = localFetch } = options
  const url = `${baseUrl.replace(/\/+$/, '')}/events${apiId ? `?api_id=${encodeURIComponent(apiId)}` : ''}`
  let response: Response
  try {
    response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...headers, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal,
    })
  } catch (error) {
    if (signal?.aborted) throw error
    throw new SvcApiError(0, `cannot reach ${baseUrl}: is svc up running?`, undefined)
  }
  if (!response.ok || !response.body) {
    const text = await response.text()
    let message = `HTTP ${response.status}`
    try {
      const parsed = JSON.parse(text) as { error?: unknown }
      if (typeof parsed.error === 'string') message = parsed.error
    } catch {}
    throw new SvcApiError(response.status, message, text)
  }
  const messages = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
  return (async function* () {
    try {
      for await (const message of messages)
        if (message.event !== undefined) yield JSON.parse(message.data) as StreamEvent
    } catch {
      // The connection went away (svc stopped, a slow reader was cut off, the signal): the stream ends here.
    }
  })()
}

export type StreamEventsOptions = Omit<OpenEventStreamOptions, 'signal'> & {
  /** Ends the iteration (and closes the connection). */
  signal?: AbortSignal | undefined
  /** The first wait before a reconnection; it doubles while svc cannot be reached or is busy, up to `maxRetryMs`. @defaultValue 500 */
  retryMs?: number | undefined
  /** @defaultValue 10_000 */
  maxRetryMs?: number | undefined
  /** Called each time svc accepted a connection: from then on no event is missed. */
  onOpen?: (() => void) | undefined
}

/**
 * The payment events of `GET /events` as one async iterator that outlives connections: when the stream ends (svc
 * restarted, a slow reader was cut off, the network dropped) it reconnects with `Last-Event-ID` set to the last event
 * it yielded, so svc first replays what was missed (of the 1,000 it keeps) and nothing comes twice. The first
 * connection is made at the first `next()`; a refusal then (credential, scope, API), or svc unreachable before any
 * connection, throws an {@link SvcApiError}. The signal, `break` or `return()` end it.
 */
export async function* streamEvents(options: StreamEventsOptions): AsyncGenerator<StreamEvent, void, undefined> {
  const { signal, retryMs = 500, maxRetryMs = 10_000, onOpen, ...open } = options
  // The generator's own controller: `break` closes the connection even without a signal.
  const stop = new AbortController()
  const abort = () => stop.abort()
  signal?.addEventListener('abort', abort, { once: true })
  if (signal?.aborted) stop.abort()
  let lastEventId = open.lastEventId
  let connected = false
  let wait = retryMs
  try {
    while (!stop.signal.aborted) {
      let events: AsyncIterable<StreamEvent>
      try {
        events = await openEventStream({ ...open, lastEventId, signal: stop.signal })
      } catch (error) {
        if (stop.signal.aborted) return
        // Refused: say so. After a first connection, unreachable, busy (429) or failing (5xx) means svc is
        // restarting or loaded: wait and try again.
        const passing =
          error instanceof SvcApiError && (error.status === 0 || error.status === 429 || error.status >= 500)
        if (!passing || !connected) throw error
        await sleep(wait, undefined, { signal: stop.signal }).catch(() => {})
        wait = Math.min(wait * 2, maxRetryMs)
        continue
      }
      connected = true
      wait = retryMs
      onOpen?.()
      for await (const event of events) {
        lastEventId = event.id
        yield event
      }
      await sleep(retryMs, undefined, { signal: stop.signal }).catch(() => {})
    }
  } finally {
    signal?.removeEventListener('abort', abort)
    stop.abort()
  }
}
