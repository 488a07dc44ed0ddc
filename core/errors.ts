/**
 * The error hierarchy every front end shares: HTTP answers `{"error": message}` with `status`; the CLI exits
 * with `exitCode` (1 for an API error, 2 for a usage error).
 */
export class SvcError extends Error {
  override name = 'SvcError'
  readonly status: number
  readonly exitCode: 1 | 2

  constructor(message: string, options: { status?: number; exitCode?: 1 | 2; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.status = options.status ?? 500
    this.exitCode = options.exitCode ?? 1
  }
}

export class BadRequestError extends SvcError {
  override name = 'BadRequestError'
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, status: 400 })
  }
}

export class UnauthorizedError extends SvcError {
  override name = 'UnauthorizedError'
  constructor(message = 'unauthorized') {
    super(message, { status: 401 })
  }
}

export class ForbiddenError extends SvcError {
  override name = 'ForbiddenError'
  constructor(message: string) {
    super(message, { status: 403 })
  }
}

export class NotFoundError extends SvcError {
  override name = 'NotFoundError'
  constructor(message = 'not found') {
    super(message, { status: 404 })
  }
}

export class ConflictError extends SvcError {
  override name = 'ConflictError'
  constructor(message: string) {
    super(message, { status: 409 })
  }
}

/** The chain could not do what was asked (a node error, a reverted transaction). */
export class ChainError extends SvcError {
  override name = 'ChainError'
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, status: 502 })
  }
}

/** A mistake in how a command was called. */
export class UsageError extends SvcError {
  override name = 'UsageError'
  constructor(message: string) {
    super(message, { status: 400, exitCode: 2 })
  }
}
