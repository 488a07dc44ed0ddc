/**
 * The database errors svc handles, on SQLite and on PostgreSQL (whose SQLSTATE is pg's `code`): the file keeps its
 * name from the days of SQLite alone.
 */

/** True for a unique-constraint violation (a concurrent insert that lost the race). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505'
}

/**
 * True when the database could not take a lock at once (SQLITE_BUSY and its extended codes; PostgreSQL's
 * serialization failure, deadlock, or lock_timeout).
 */
export function isBusy(error: unknown): boolean {
  const code = String((error as { code?: string } | null)?.code)
  return code.startsWith('SQLITE_BUSY') || code === '40001' || code === '40P01' || code === '55P03'
}
