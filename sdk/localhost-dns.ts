/**
 * `*.localhost` for the whole process: Node's resolver does not answer `weather.dev.localhost` (curl and browsers
 * do, RFC 6761), and Node's fetch drops a hand-set `Host` header, so `http://{slug}.dev.localhost:PORT` is out of
 * reach from Node unless the name itself resolves. This teaches `dns.lookup` — which `fetch`, `node:http`,
 * `node:https`, axios and every `net.connect` ask — that every `*.localhost` name is the loopback address.
 */
import dns, { type LookupAddress, type LookupOptions } from 'node:dns'
import { syncBuiltinESMExports } from 'node:module'

/** The address every `*.localhost` name resolves to (svc listens there). */
export const loopbackAddress = '127.0.0.1'

/** `weather.dev.localhost` and `api.localhost.` → true; `localhost` itself (the system knows it) and other names → false. */
export function isLocalhostSubdomain(hostname: string): boolean {
  return /^[^.]+(\.[^.]+)*\.localhost\.?$/i.test(hostname)
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

let installed = false

/**
 * Makes `dns.lookup` (and `dns.promises.lookup`) answer {@link loopbackAddress} for every `*.localhost` name, in this
 * process; every other name goes to the original lookup unchanged. Idempotent.
 */
export function resolveLocalhostSubdomains(): void {
  if (installed) return
  installed = true
  const lookup = dns.lookup
  const patched = (hostname: string, options: unknown, callback?: unknown) => {
    if (typeof options === 'function') [callback, options] = [options, {}]
    const done = callback as LookupCallback
    if (!isLocalhostSubdomain(hostname)) return (lookup as (...args: unknown[]) => unknown)(hostname, options, done)
    const all = typeof options === 'object' && options !== null && (options as LookupOptions).all === true
    process.nextTick(() =>
      all ? done(null, [{ address: loopbackAddress, family: 4 }]) : done(null, loopbackAddress, 4),
    )
    return undefined
  }
  dns.lookup = patched as typeof dns.lookup

  const lookupPromise = dns.promises.lookup
  dns.promises.lookup = ((hostname: string, options?: unknown) => {
    if (!isLocalhostSubdomain(hostname)) return (lookupPromise as (...args: unknown[]) => unknown)(hostname, options)
    const all = typeof options === 'object' && options !== null && (options as LookupOptions).all === true
    return Promise.resolve(all ? [{ address: loopbackAddress, family: 4 }] : { address: loopbackAddress, family: 4 })
  }) as typeof dns.promises.lookup
  // `import { lookup } from 'node:dns'` sees the new function too.
  syncBuiltinESMExports()
}
