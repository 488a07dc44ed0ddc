/** server/ids.ts: ids from random bytes drawn ahead; each new, in the same shape as ever, across the pool's refills. */
import { expect, test } from 'vitest'
import { newId } from '../../server/ids.js'

test('newId: a prefix, up to 16 lower-case letters and digits and 4 hex digits, never the same twice across many refills of the pool', () => {
  const ids = Array.from({ length: 5_000 }, () => newId('vch'))
  for (const id of ids) expect(id).toMatch(/^vch_[a-z0-9]{8,16}[0-9a-f]{4}$/)
  expect(new Set(ids).size).toBe(ids.length)
})
