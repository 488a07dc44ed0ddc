import { useEffect, useState } from 'react'
import type { SvcClient } from '../../sdk/client.js'
import { describeError } from '../errors.js'
import type { RefusalsView } from '../model.js'

/** Refused payments the dashboard keeps (newest first): the panel shows the first few, the title counts all seen. */
export const refusalsKept = 20

const none: RefusalsView = { newest: [], total: 0 }

/**
 * The seller's refused payments (`payment.failed` events: verify or settle said no) as they happen, read from the
 * live event stream (`client.events.stream()`, which reconnects by itself), not polled: only those refused while the
 * dashboard runs. They belong to the session: a login change starts again from none.
 */
export function useRefusals(client: SvcClient | undefined): RefusalsView {
  const [state, setState] = useState<{ client: SvcClient | undefined; view: RefusalsView }>({ client, view: none })
  useEffect(() => {
    if (!client) return
    const stop = new AbortController()
    const update = (next: (view: RefusalsView) => RefusalsView) =>
      setState((current) => ({ client, view: next(current.client === client ? current.view : none) }))
    void (async () => {
      try {
        for await (const event of client.events.stream({ signal: stop.signal })) {
          if (event.type !== 'payment.failed') continue
          update((view) => ({ newest: [event, ...view.newest].slice(0, refusalsKept), total: view.total + 1 }))
        }
      } catch (error) {
        if (!stop.signal.aborted) update((view) => ({ ...view, error: describeError(error) }))
      }
    })()
    return () => stop.abort()
  }, [client])
  return state.client === client ? state.view : none
}
