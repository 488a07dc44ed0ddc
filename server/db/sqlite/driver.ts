import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'
import { UsageError } from '../../../core/errors.js'

/** The version of better-sqlite3 svc is built and tested with (package.json's devDependency and optional peer). */
export const betterSqlite3Version = '12.11.1'

let loaded: typeof BetterSqlite3 | undefined

/**
 * better-sqlite3, loaded when svc first opens a database. It is an optional peer dependency of the package: a buyer or
 * a CI job that only pays a running svc, or uses the control-plane client and `svc/register`, installs no native
 * module (better-sqlite3 compiles from source where no prebuilt binary downloads: a minute or more). Starting svc
 * itself (`svc up`, `startSandbox()`) needs it, and says how to install it when it is missing.
 */
export function loadSqlite(): typeof BetterSqlite3 {
  if (loaded) return loaded
  try {
    loaded = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error
    throw new UsageError(
      `starting svc needs better-sqlite3, which is not installed: npm i -D better-sqlite3@${betterSqlite3Version}`,
    )
  }
  return loaded
}
