import { SvcError } from '../../core/errors.js'

/** Seconds a client waits before trying again while the database cannot be reached. */
export const databaseRetryAfterSeconds = 2

/** Node's codes of a connection that could not be made or broke. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
])

/**
 * PostgreSQL's SQLSTATEs of a server that went away or is not taking sessions: 57P01 admin_shutdown (`pg_ctl stop -m
 * fast`, pg_terminate_backend), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down), 53300
 * too_many_connections; and class 08, connection exceptions.
 */
const sqlStates = new Set(['57P01', '57P02', '57P03', '53300'])

/** pg's messages of a connection that broke or could not be made (they carry no code). */
const pgMessages = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
]

/** Set on the errors of svc's own PostgreSQL queries (server/db/local-writes.ts's driver). */
const fromDatabase = Symbol('svc.databaseError')

/** Marks `error` as thrown by a query of the database (or the pool's connecting for one): see {@link databaseUnavailable}. */
export function markDatabaseError<T>(error: T): T {
  if (error && typeof error === 'object' && !Object.isFrozen(error))
    Object.defineProperty(error, fromDatabase, { value: true, enumerable: false })
  return error
}

/**
 * Whether `error` (or a cause of it) says the database could not be reached: a connection refused or broken, a server
 * shutting down or starting up. Nothing is wrong with the request then; it may be tried again once the database is
 * back (issue 35 item C). For an error of a PostgreSQL client (the caller knows): Node's socket codes count too.
 */
export function databaseUnreachable(error: unknown, options: { sockets?: boolean } = {}): boolean {
  const { sockets = true } = options
  for (let cause = error, depth = 0; cause && typeof cause === 'object' && depth < 8; depth++) {
    const code = String((cause as { code?: unknown }).code ?? '')
    if ((sockets && socketCodes.has(code)) || sqlStates.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true
    const message = String((cause as { message?: unknown }).message ?? '')
    if (pgMessages.some((text) => message.startsWith(text))) return true
    // An AggregateError (a host with many addresses, each refused).
    const errors = (cause as { errors?: unknown }).errors
    if (Array.isArray(errors) && errors.some((each) => databaseUnreachable(each, options))) return true
    cause = (cause as { cause?: unknown }).cause
  }
  return false
}

/** The 503 of a request svc could not serve because the database could not be reached. */
export class DatabaseUnavailableError extends SvcError {
  override name = 'DatabaseUnavailableError'
  constructor(cause: unknown) {
    super('the database is unavailable (svc lost its connection, or the server is restarting): retry shortly', {
      cause,
      status: 503,
      code: 'unavailable',
      retryAfterSeconds: databaseRetryAfterSeconds,
    })
  }
}

/**
 * A {@link DatabaseUnavailableError} of `error` when the database could not be reached, else undefined (the server's
 * error handler). A refused or reset connection is the database's only when a query of the database threw it
 * ({@link markDatabaseError}): the chain's RPC or an upstream refusing is not.
 */
export function databaseUnavailable(error: unknown): DatabaseUnavailableError | undefined {
  const sockets = Boolean(error && typeof error === 'object' && fromDatabase in error)
  return databaseUnreachable(error, { sockets }) ? new DatabaseUnavailableError(error) : undefined
}

/**
 * A log that says a database out of reach once, not at every try while it stays so (a stopped PostgreSQL: background
 * work retries every second). `ok()` after a success: the next failure is said again.
 */
export function quietWhileUnreachable(log: (message: string) => void) {
  let said = false
  return {
    failed(error: unknown, message: string) {
      const unreachable = databaseUnreachable(error)
      if (unreachable && said) return
      said = unreachable
      log(unreachable ? `${message} (said once until the database is back)` : message)
    },
    ok() {
      said = false
    },
  }
}
