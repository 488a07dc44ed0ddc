/** True for SQLite's unique-constraint violation (a concurrent insert that lost the race). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE'
}

/** True when SQLite could not take a lock at once (SQLITE_BUSY and its extended codes). */
export function isBusy(error: unknown): boolean {
  return String((error as { code?: string } | null)?.code).startsWith('SQLITE_BUSY')
}
