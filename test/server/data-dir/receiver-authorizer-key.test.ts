import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, expect, test } from 'vitest'
import { loadReceiverAuthorizerKey } from '../../../server/data-dir/secrets.js'

// The batch-settlement receiver authorizer's key (issue 24): one per install, kept sealed with the wallet key, 0600.
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-authorizer-'))
  dirs.push(dir)
  return dir
}

test('is made once per data dir, kept across starts, sealed and private', () => {
  const dir = newDir()
  const key = loadReceiverAuthorizerKey(dir)
  expect(loadReceiverAuthorizerKey(dir)).toBe(key)
  expect(loadReceiverAuthorizerKey(newDir())).not.toBe(key)
  const file = join(dir, 'receiver-authorizer.key')
  expect(statSync(file).mode & 0o777).toBe(0o600)
  const stored = readFileSync(file, 'utf8')
  expect(stored).not.toContain(key.slice(2))
  expect(stored).not.toContain(privateKeyToAccount(key).address.slice(2).toLowerCase())
})
