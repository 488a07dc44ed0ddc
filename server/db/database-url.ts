import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SvcError, UsageError } from '../../core/errors.js'
import { type OpenDatabaseOptions, type OpenedDatabase, openDatabase } from './database.js'
import { isBusy } from './sqlite/errors.js'

/**
 * Where svc's data lives, from `svc serve --database-url`: a SQLite file (a path, `file:path` or `file:///abs/path`)
 * or PostgreSQL (`postgres://` / `postgresql://`, server/db/postgres/database.ts). This module is the
 * one seam between a URL and an opened database: the server opens what {@link openDatabaseUrl} gives it.
 */
export type DatabaseTarget =
  | { dialect: 'sqlite'; file: string }
  | { dialect: 'postgres'; url: string; host: string; port: number }

const postgresSchemes = ['postgres:', 'postgresql:']

/**
 * Whether processes can share the database `target` names (PostgreSQL), before it is opened: what server/db/dialect.ts
 * `sharedByProcesses` says of it once open. False when there is no target (svc's own SQLite file).
 */
export function sharedByProcessesAt(target: DatabaseTarget | undefined): boolean {
  return target?.dialect === 'postgres'
}

/** Parses a `--database-url`; a URL svc cannot open is a {@link UsageError} naming the flag. */
export function parseDatabaseUrl(url: string, flag = '--database-url'): DatabaseTarget {
  const text = url.trim()
  if (text === '') throw new UsageError(`${flag}: empty; give a SQLite file path or file: URL`)
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(text)?.[1]?.toLowerCase()
  if (scheme && postgresSchemes.includes(scheme)) {
    let parsed: URL
    try {
      parsed = new URL(text)
    } catch {
      throw new UsageError(`${flag}: not a valid postgres:// URL`)
    }
    return { dialect: 'postgres', url: text, host: parsed.hostname || 'localhost', port: Number(parsed.port || 5432) }
  }
  if (scheme === 'file:') {
    const file = text.startsWith('file://') ? fileURLToPath(text) : text.slice('file:'.length)
    if (file === '' || file.includes('?'))
      throw new UsageError(`${flag}: a file: URL names a SQLite file (file:/var/lib/svc/svc.sqlite), without a query`)
    return { dialect: 'sqlite', file: isAbsolute(file) ? file : resolve(file) }
  }
  // A Windows drive letter (C:\…) reads as a scheme too; anything else with a scheme is not a database svc knows.
  if (scheme && !/^[a-z]:$/i.test(scheme))
    throw new UsageError(
      `${flag}: "${scheme}" databases are not supported: give a SQLite file path, file: or postgres:`,
    )
  return { dialect: 'sqlite', file: isAbsolute(text) ? text : resolve(text) }
}

/** Opens (creating and migrating) the database at `target`. */
export async function openDatabaseUrl(
  target: DatabaseTarget,
  options: OpenDatabaseOptions = {},
): Promise<OpenedDatabase> {
  if (target.dialect === 'postgres') return await openDatabase(target.url, options)
  try {
    return await openDatabase(target.file, options)
  } catch (error) {
    // svc holds its SQLite file exclusively: another process has it (after the busy timeout, 5 s by default).
    const cause = (error as { cause?: unknown }).cause ?? error
    if (isBusy(cause) || isBusy(error))
      throw new SvcError(`${target.file} is in use by another svc: one process per SQLite file`, { cause: error })
    throw error
  }
}

/**
 * The database's network peer (host and port) for the upstream guard of `svc serve`: no upstream may reach it.
 * A SQLite file has none.
 */
export function databasePeer(target: DatabaseTarget): { host: string; port: number } | undefined {
  return target.dialect === 'postgres' ? { host: target.host, port: target.port } : undefined
}
