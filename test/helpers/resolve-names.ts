import dns, { type LookupAddress, type LookupOptions } from 'node:dns'
import { syncBuiltinESMExports } from 'node:module'

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * Makes every name under `domain` (`sandbox.pay.test`, `weather.sandbox.pay.test`) resolve to 127.0.0.1 in this
 * process, as sdk/localhost-dns.ts does for `*.localhost`: code that uses the global fetch (the CLI run in process,
 * the dashboard) reaches `svc serve --platform-domain pay.test` children. @returns the undo
 */
export function resolveNamesUnder(domain: string): () => void {
  const under = (hostname: string) => hostname.replace(/\.$/, '').toLowerCase().endsWith(`.${domain}`)
  const { lookup } = dns
  const lookupPromise = dns.promises.lookup
  dns.lookup = ((hostname: string, options: unknown, callback?: unknown) => {
    if (typeof options === 'function') [callback, options] = [options, {}]
    if (!under(hostname)) return (lookup as (...args: unknown[]) => unknown)(hostname, options, callback)
    const all = typeof options === 'object' && options !== null && (options as LookupOptions).all === true
    const done = callback as LookupCallback
    process.nextTick(() => (all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)))
    return undefined
  }) as typeof dns.lookup
  dns.promises.lookup = ((hostname: string, options?: unknown) => {
    if (!under(hostname)) return (lookupPromise as (...args: unknown[]) => unknown)(hostname, options)
    const all = typeof options === 'object' && options !== null && (options as LookupOptions).all === true
    return Promise.resolve(all ? [{ address: '127.0.0.1', family: 4 }] : { address: '127.0.0.1', family: 4 })
  }) as typeof dns.promises.lookup
  syncBuiltinESMExports()
  return () => {
    dns.lookup = lookup
    dns.promises.lookup = lookupPromise
    syncBuiltinESMExports()
  }
}
