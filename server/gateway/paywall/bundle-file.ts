import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

/**
 * The paywall's browser bundle, built by bin/build.js (`npm run build`, which `npm ci` and the test setup run) into
 * dist/paywall/paywall.js. Found from wherever this module runs: the sources (server/gateway/paywall/), their
 * per-file build (dist/server/gateway/paywall/), or the `svc` command's bundle (dist/cli/).
 */
const candidates = ['../../../dist/paywall/paywall.js', '../../../paywall/paywall.js', '../paywall/paywall.js']

export type PaywallBundle = { raw: Buffer; gzip: Buffer }

let cached: PaywallBundle | undefined

/** The bundle's bytes, and gzipped once (a third of the size on the wire); throws when it was never built. */
export function paywallBundle(): PaywallBundle {
  if (cached) return cached
  for (const candidate of candidates) {
    const path = fileURLToPath(new URL(candidate, import.meta.url))
    if (!existsSync(path)) continue
    const raw = readFileSync(path)
    cached = { raw, gzip: gzipSync(raw, { level: 9 }) }
    return cached
  }
  throw new Error('the paywall bundle dist/paywall/paywall.js is missing: run `npm run build`')
}
