import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { SvcApiError, UnauthorizedError, UsageError } from '../core/errors.js'
import { localFetch } from '../sdk/local-fetch.js'
import type { Call } from './context.js'

export type AdminTokenFlags = { adminTokenFile?: string }

/** Adds `--admin-token-file` to a command of the whole-Sandbox routes or the outbox (admin-only on `svc serve`). */
export function withAdminToken(command: Command): Command {
  return command.option(
    '--admin-token-file <file>',
    'the admin token of a server (`svc serve --admin-token-file`); or SVC_ADMIN_TOKEN',
  )
}

/**
 * The admin token to present, as `svc serve` takes it: the file of `--admin-token-file` (trimmed), else
 * SVC_ADMIN_TOKEN; undefined without either (`svc up` needs none: it trusts its own machine).
 */
export function adminTokenOf(call: Call<AdminTokenFlags>): string | undefined {
  const file = call.options.adminTokenFile
  if (file !== undefined) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      throw new UsageError(`--admin-token-file: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`)
    }
    if (text.trim() === '') throw new UsageError(`--admin-token-file: ${file} is empty`)
    return text.trim()
  }
  const value = call.env.SVC_ADMIN_TOKEN?.trim()
  return value === '' ? undefined : value
}

/** A fetch that presents `token` as the server checks it (`Authorization: Bearer`), or the plain local fetch. */
export function adminFetch(token: string | undefined): typeof globalThis.fetch {
  if (token === undefined) return localFetch
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    localFetch(input, {
      ...init,
      headers: { ...(init?.headers as Record<string, string> | undefined), authorization: `Bearer ${token}` },
    })) as typeof globalThis.fetch
}

/**
 * Runs an admin request: a server that asks for the admin token (401) and was given none is told in one line how to
 * give it; a token it refuses is named as the admin token's fault.
 */
export async function asAdmin<T>(call: Call<AdminTokenFlags>, run: () => Promise<T>): Promise<T> {
  const given = adminTokenOf(call) !== undefined
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof SvcApiError) || error.status !== 401) throw error
    throw new UnauthorizedError(
      given
        ? `\`${call.name}\`: the server refused the admin token (${error.message})`
        : `\`${call.name}\`: this svc asks for its admin token: set SVC_ADMIN_TOKEN or pass --admin-token-file FILE`,
    )
  }
}
