import { once } from 'node:events'
import { readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { createCli, type Cli } from './harness.js'

// Issue 20, "Also": `svc listen --forward-to` keeps its signing secret between runs; `--new-secret` replaces it.
let cli: Cli

beforeAll(async () => {
  // A port nothing listens on: svc listen prints its secret, then cannot connect and stops (exit 1).
  const closed = createServer().listen(0, '127.0.0.1')
  await once(closed, 'listening')
  const { port } = closed.address() as AddressInfo
  await new Promise((resolve) => closed.close(resolve))
  cli = createCli({ SVC_BASE_URL: `http://127.0.0.1:${port}`, SVC_API_KEY: 'svc_sandbox_test' })
})

/** Runs `svc listen --forward-to …` (the real binary); it stops at its first connection. */
async function secretOf(...flags: string[]) {
  const result = await cli.spawn(['listen', '--forward-to', 'http://127.0.0.1:9/hooks', ...flags])
  expect(result.code).toBe(1)
  return /the signing secret is (whsec_[0-9a-f]+)$/m.exec(result.stderr)?.[1]
}

test('two runs print the same signing secret, kept 0600 beside the login; --new-secret prints and keeps another', async () => {
  const first = await secretOf()
  expect(first).toMatch(/^whsec_[0-9a-f]{48}$/)
  const path = join(cli.configDir, 'listen-secret')
  expect(readFileSync(path, 'utf8').trim()).toBe(first)
  expect(statSync(path).mode & 0o777).toBe(0o600)
  expect(await secretOf()).toBe(first)

  const renewed = await secretOf('--new-secret')
  expect(renewed).toMatch(/^whsec_[0-9a-f]{48}$/)
  expect(renewed).not.toBe(first)
  expect(await secretOf()).toBe(renewed)
  // --secret is for one run: the kept one stays.
  expect(await secretOf('--secret', 'whsec_0123abcd')).toBe('whsec_0123abcd')
  expect(await secretOf()).toBe(renewed)
})
