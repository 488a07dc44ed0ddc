import { lookup as dnsLookup, type LookupOneOptions } from 'node:dns'
import { Agent, fetch as undiciFetch } from 'undici'
import { isLocalhostName } from '../core/hosts.js'

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void

/**
 * Resolves `localhost` and `*.localhost` to the loopback address (RFC 6761), as curl and browsers do, and
 * everything else through the system resolver. Node's resolver does not do this for subdomains.
 */
export function localhostLookup(
  hostname: string,
  options: LookupOneOptions & { all?: boolean },
  callback: LookupCallback,
): void {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (isLocalhostName(name)) {
    if (options?.all) callback(null, [{ address: '127.0.0.1', family: 4 }])
    else callback(null, '127.0.0.1', 4)
    return
  }
  dnsLookup(hostname, options as never, callback as never)
}

let agent: Agent | undefined

/** The dispatcher behind {@link localFetch}: keep-alive connections, `*.localhost` resolved to 127.0.0.1. */
export function localDispatcher(): Agent {
  agent ??= new Agent({ connect: { lookup: localhostLookup as never }, keepAliveTimeout: 30_000 })
  return agent
}

/**
 * `fetch` that reaches `http://{slug}.dev.localhost:PORT` and the other kit hosts from Node. It takes Node's global
 * `Request` objects too (as `wrapFetchWithPayment` passes them), which undici's own fetch does not.
 */
export const localFetch: typeof globalThis.fetch = ((
  input: Parameters<typeof globalThis.fetch>[0],
  init?: RequestInit,
) => {
  if (input instanceof Request) {
    const { method, headers, body, signal, url } = input
    return undiciFetch(url, {
      method,
      headers,
      body,
      signal,
      ...(body ? { duplex: 'half' } : {}),
      ...(init as object),
      dispatcher: localDispatcher(),
    } as never)
  }
  return undiciFetch(input as never, { ...(init as object), dispatcher: localDispatcher() } as never)
}) as unknown as typeof globalThis.fetch
