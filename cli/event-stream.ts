import { EventSourceParserStream } from 'eventsource-parser/stream'
import { SvcApiError } from '../core/errors.js'
import type { PaymentEvent } from '../sdk/types.js'
import { localFetch } from '../sdk/local-fetch.js'

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
export async function openEventStream(options: OpenEventStreamOptions): Promise<AsyncIterable<PaymentEvent>> {
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
        if (message.event !== undefined) yield JSON.parse(message.data) as PaymentEvent
    } catch {
      // The connection went away (svc stopped, a slow reader was cut off, the signal): the stream ends here.
    }
  })()
}
