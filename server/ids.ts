import { randomFillSync } from 'node:crypto'

/** Random bytes drawn ahead, a few KB at a time: one call into OpenSSL per ~290 ids instead of two per id. */
const pool = Buffer.alloc(4_096)
let used = pool.length
function random(size: number): Buffer {
  if (used + size > pool.length) {
    randomFillSync(pool)
    used = 0
  }
  used += size
  return pool.subarray(used - size, used)
}

/** A random id with a readable prefix: `api_3kq9…`. */
export function newId(prefix: string): string {
  return `${prefix}_${random(12).toString('base64url').replace(/[-_]/g, '').slice(0, 16).toLowerCase()}${random(2).toString('hex')}`
}
export const nowIso = () => new Date().toISOString()
