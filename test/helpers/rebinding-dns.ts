import dns from 'node:dns'
import { syncBuiltinESMExports } from 'node:module'

/**
 * DNS rebinding for one name, in this process: a check that resolves it (`dns.promises.lookup`, as svc's
 * own-listener check does) gets `checked`, a connection (`dns.lookup`, as `net.connect` does) gets `connected`.
 * Returns the function that puts both lookups back.
 */
export function rebindName(name: string, addresses: { checked: string; connected: string }): () => void {
  const { lookup } = dns
  const lookupPromise = dns.promises.lookup
  dns.promises.lookup = (async (hostname: string, options?: unknown) =>
    hostname === name
      ? [{ address: addresses.checked, family: 4 }]
      : lookupPromise(hostname, options as dns.LookupAllOptions)) as typeof dns.promises.lookup
  dns.lookup = ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    if (hostname !== name) return (lookup as (...args: unknown[]) => void)(hostname, options, callback)
    const all = typeof options === 'object' && options !== null && (options as dns.LookupOptions).all
    process.nextTick(() =>
      all ? callback(null, [{ address: addresses.connected, family: 4 }]) : callback(null, addresses.connected, 4),
    )
  }) as typeof dns.lookup
  syncBuiltinESMExports()
  return () => {
    dns.lookup = lookup
    dns.promises.lookup = lookupPromise
    syncBuiltinESMExports()
  }
}
