/** One code of {@link errorCodes}: what `SvcError.code` may be. */
export type ErrorCodeInfo = {
  code: string
  /** The HTTP status the server answers with; undefined when it is the status of another server's answer. */
  status: number | undefined
  /** The CLI's exit code. */
  exit: 1 | 2
  /** What went wrong, one line, and what to do about it where that is one thing. */
  meaning: string
}

/**
 * Every code an {@link SvcError} carries, for programs (the SDK's `error.code`, the MCP tools) and for
 * docs/reference/errors.md; test/core/errors.test.ts fails when an SvcError is made with a code this list lacks.
 */
export const errorCodes = [
  {
    code: 'bad_request',
    status: 400,
    exit: 1,
    meaning: 'the request is malformed or a value in it is not valid: the message names the field',
  },
  {
    code: 'unauthorized',
    status: 401,
    exit: 1,
    meaning:
      'no credentials, or the API key, session or admin token is not (or no longer) valid: log in again (`svc login`) or pass a valid key',
  },
  {
    code: 'forbidden',
    status: 403,
    exit: 1,
    meaning:
      'the credentials are valid but may not do this: the key lacks the scope, the route needs a JWT, a verified email or the development environment (the message says which)',
  },
  { code: 'not_found', status: 404, exit: 1, meaning: 'no such resource or route: check the id, name or path' },
  {
    code: 'conflict',
    status: 409,
    exit: 1,
    meaning:
      'it clashes with what exists: an endpoint, hostname or email already there, a snapshot the chain no longer has',
  },
  {
    code: 'rate_limited',
    status: 429,
    exit: 1,
    meaning: 'too many attempts (logins, the demo faucet, the public RPC): wait the `Retry-After` seconds, then retry',
  },
  {
    code: 'unavailable',
    status: 503,
    exit: 1,
    meaning:
      'a service svc needs is not there now: the Sandbox chain is restarting or not running, the database or the data dir cannot be written; retry after `Retry-After`, or start it (`svc up`)',
  },
  {
    code: 'chain_error',
    status: 502,
    exit: 1,
    meaning:
      "the chain refused what was asked (a node error, a reverted transaction): the message is the node's one line",
  },
  {
    code: 'unreachable',
    status: 502,
    exit: 1,
    meaning:
      "the chain's RPC or the svc server did not answer (the SDK's status is 0 then): check that svc runs and the URL (`--base-url`, `--rpc-url`)",
  },
  {
    code: 'usage_error',
    status: 400,
    exit: 2,
    meaning:
      'a command, option, argument, tool call or seed file is wrong: the message (and `svc <command> --help`) says how',
  },
  {
    code: 'internal_error',
    status: 500,
    exit: 1,
    meaning: 'an error svc did not expect: the server answers `internal error` and logs the stack; please report it',
  },
  {
    code: 'api_error',
    status: undefined,
    exit: 1,
    meaning: "the control plane answered a status that has no code of its own (413, 500 …): the SDK's `SvcApiError`",
  },
  {
    code: 'anvil_not_found',
    status: 500,
    exit: 1,
    meaning:
      'no Anvil binary was found to run the chain: reinstall svc (it ships one), or set `SVC_ANVIL_BIN` to its path',
  },
  {
    code: 'other_sandbox',
    status: 401,
    exit: 1,
    meaning:
      "the CLI's saved login is for another svc than the one asked: `svc login` there, or pass the login's `--base-url`",
  },
  {
    code: 'payment_refused',
    status: 500,
    exit: 1,
    meaning:
      '`svc pay` made no payment: no offer in Sandbox USDC, the price is above `--max-amount`, or the x402 client could not sign',
  },
  {
    code: 'refund_refused',
    status: 500,
    exit: 1,
    meaning: "`svc channels close` got no refund from the seller: the message is the scheme's reason",
  },
] as const satisfies readonly ErrorCodeInfo[]

export type ErrorCode = (typeof errorCodes)[number]['code']

/**
 * The one error family of svc. Every error carries three faces:
 * - `code`: a stable snake_case name for programs (`not_found`, `usage_error`, `unreachable` …);
 * - `status`: the HTTP status the server answers with, as `{"error": message}` (the wire carries no code);
 * - `exitCode`: the CLI's exit code, 1 for an API error, 2 for a usage error.
 */
export type SvcErrorOptions = {
  /** @defaultValue 500 */
  status?: number | undefined
  /** @defaultValue 1 */
  exitCode?: 1 | 2 | undefined
  /** @defaultValue the code of `status` ({@link codeForStatus}), `internal_error` for a status without one */
  code?: ErrorCode | undefined
  /** When the caller may try again, in seconds: the HTTP handler sends it as `Retry-After`. */
  retryAfterSeconds?: number | undefined
  cause?: unknown
}

/** The code an HTTP status stands for, when one does. */
const statusCodes: Readonly<Record<number, ErrorCode>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  429: 'rate_limited',
  503: 'unavailable',
}

/** `not_found` for 404 …; undefined for a status without a code of its own. */
export const codeForStatus = (status: number): ErrorCode | undefined => statusCodes[status]

export class SvcError extends Error {
  override name = 'SvcError'
  readonly code: ErrorCode
  readonly status: number
  readonly exitCode: 1 | 2
  readonly retryAfterSeconds: number | undefined

  constructor(message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.retryAfterSeconds = options.retryAfterSeconds
    this.status = options.status ?? 500
    this.exitCode = options.exitCode ?? 1
    this.code = options.code ?? codeForStatus(this.status) ?? 'internal_error'
  }
}

export class BadRequestError extends SvcError {
  override name = 'BadRequestError'
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, status: 400, code: 'bad_request' })
  }
}

export class UnauthorizedError extends SvcError {
  override name = 'UnauthorizedError'
  constructor(message = 'unauthorized') {
    super(message, { status: 401, code: 'unauthorized' })
  }
}

export class ForbiddenError extends SvcError {
  override name = 'ForbiddenError'
  constructor(message: string) {
    super(message, { status: 403, code: 'forbidden' })
  }
}

export class NotFoundError extends SvcError {
  override name = 'NotFoundError'
  constructor(message = 'not found') {
    super(message, { status: 404, code: 'not_found' })
  }
}

export class ConflictError extends SvcError {
  override name = 'ConflictError'
  constructor(message: string) {
    super(message, { status: 409, code: 'conflict' })
  }
}

/** Too many attempts: 429 with `Retry-After`. */
export class TooManyRequestsError extends SvcError {
  override name = 'TooManyRequestsError'
  constructor(message: string, retryAfterSeconds: number) {
    super(message, { status: 429, code: 'rate_limited', retryAfterSeconds })
  }
}

/**
 * The chain could not do what was asked (a node error, a reverted transaction): `chain_error`; `unreachable` when
 * the node did not answer at all.
 */
export class ChainError extends SvcError {
  override name = 'ChainError'
  constructor(message: string, options: { cause?: unknown; code?: 'chain_error' | 'unreachable' } = {}) {
    super(message, { cause: options.cause, status: 502, code: options.code ?? 'chain_error' })
  }
}

/** The 503 of a Sandbox feature (a route, the facilitator) when svc runs without its chain. */
export const sandboxChainNotRunning = 'the Sandbox chain is not running (start svc with `svc up`)'
/** The 503 of a Sandbox feature while its chain restarts (it is back in about half a second). */
export const sandboxChainRestarting = 'the Sandbox chain is restarting: retry in a moment'
/** The 503 of a Sandbox feature while no svc process owns the team Sandbox's chain (svc serve --sandbox-chain shared). */
export const sandboxChainMoving = 'the Sandbox chain is moving to another svc process: retry in a few seconds'

/** A service svc needs is not running here (the sandbox chain, a facilitator). */
export class ServiceUnavailableError extends SvcError {
  override name = 'ServiceUnavailableError'
  constructor(message: string, options: { cause?: unknown; retryAfterSeconds?: number | undefined } = {}) {
    super(message, { ...options, status: 503, code: 'unavailable' })
  }
}

/** A mistake in how a command (or a tool) was called. */
export class UsageError extends SvcError {
  override name = 'UsageError'
  /** Lines that follow the one-line message where a list says more (every problem of a seed file). */
  readonly details: readonly string[]
  constructor(message: string, details: readonly string[] = []) {
    super(message, { status: 400, exitCode: 2, code: 'usage_error' })
    this.details = details
  }
}

/**
 * The control plane answered with an error (the SDK throws it): `status` is the HTTP status, 0 when the server
 * could not be reached; `message` and `body` are what it answered. The wire carries no code, so `code` is the one
 * of the status (`forbidden` for 403 …), `unreachable` for 0, `api_error` for a status without a code of its own.
 */
export class SvcApiError extends SvcError {
  override name = 'SvcApiError'
  constructor(
    status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message, { status, exitCode: 1, code: status === 0 ? 'unreachable' : (codeForStatus(status) ?? 'api_error') })
  }
}

/** The first `code` (ECONNREFUSED, ENOTFOUND…) in an error's cause chain; else the message of the innermost cause. */
export function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, errors, cause, message } = current as {
      code?: unknown
      errors?: unknown[]
      cause?: unknown
      message?: unknown
    }
    if (typeof code === 'string') return code
    current = errors?.[0] ?? cause
    if (!current && depth > 0 && typeof message === 'string') return message
  }
  return undefined
}

/** The error and its causes, outermost first (at most `depth` of them). */
function* causeChain(error: unknown, depth = 8): Generator<unknown> {
  for (let current = error; current !== undefined && current !== null && depth > 0; depth--) {
    yield current
    current = (current as { cause?: unknown }).cause
  }
}

const firstLine = (text: string): string => text.split('\n')[0]!.trim()

/**
 * A viem error (its `BaseError` or a subclass), told by its shape: a `shortMessage` and viem's bare version ("2.57.1";
 * ox's errors say "ox@…"). Not `instanceof`: this module loads without viem (the SDK's client, `import 'svc/testing'`
 * load it at once, viem only when they need it), and an error of another copy of viem is one too.
 */
function isViemError(error: unknown): error is Error & { shortMessage: string } {
  if (!(error instanceof Error)) return false
  const { shortMessage, version } = error as { shortMessage?: unknown; version?: unknown }
  return typeof shortMessage === 'string' && typeof version === 'string' && /^\d+\.\d+/.test(version)
}

/**
 * Any thrown value as an SvcError, for a front end to present: an SvcError (an SvcApiError too) is returned as it is;
 * a viem error becomes a {@link ChainError} (`unreachable` when an HTTP request to the node failed) with viem's
 * one-line `shortMessage`; anything else an `internal_error` with the first line of its message. The original is
 * the `cause`.
 */
export function toSvcError(error: unknown): SvcError {
  if (error instanceof SvcError) return error
  const unreachable = [...causeChain(error)].some((e) => isViemError(e) && e.name === 'HttpRequestError')
  if (isViemError(error))
    return new ChainError(firstLine(error.shortMessage) || 'chain error', {
      cause: error,
      code: unreachable ? 'unreachable' : 'chain_error',
    })
  const { message } = (error ?? {}) as { message?: unknown }
  const text = firstLine(typeof message === 'string' ? message : String(error))
  if (unreachable) return new ChainError(text || 'the chain RPC did not answer', { cause: error, code: 'unreachable' })
  return new SvcError(text || 'unknown error', { cause: error, code: 'internal_error' })
}
