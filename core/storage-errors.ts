/**
 * What a failed write says of the storage under it: full, read-only, or neither (undefined). Read along the cause
 * chain, for Node's codes (ENOSPC, EDQUOT, EROFS) and SQLite's (SQLITE_FULL, SQLITE_READONLY…) alike.
 */
export function storageProblem(error: unknown): 'full' | 'read-only' | undefined {
  for (let cause = error; cause; cause = (cause as { cause?: unknown }).cause) {
    const code = String((cause as { code?: unknown }).code ?? '')
    if (code === 'ENOSPC' || code === 'EDQUOT' || code.startsWith('SQLITE_FULL')) return 'full'
    if (code === 'EROFS' || code.startsWith('SQLITE_READONLY')) return 'read-only'
    if (typeof cause !== 'object') break
  }
  return undefined
}
