import { randomBytes } from 'node:crypto'

/** A random id with a readable prefix: `api_3kq9…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, '').slice(0, 16).toLowerCase()}${randomBytes(2).toString('hex')}`
}

export const nowIso = () => new Date().toISOString()
