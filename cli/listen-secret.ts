import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { UsageError } from '../core/errors.js'
import { configPath } from './config.js'

/** Beside the saved login, and kept by `svc logout`: a webhook receiver configured with it keeps working. */
export const listenSecretPath = (env: NodeJS.ProcessEnv) => join(dirname(configPath(env)), 'listen-secret')

const secretPattern = /^whsec_[0-9a-f]{48}$/

/**
 * The signing secret of `svc listen --forward-to`: the saved one, else (or when `renew`) a new one, saved readable by
 * its owner only (0600, in a 0700 directory).
 */
export function listenSecret(
  env: NodeJS.ProcessEnv,
  renew: boolean,
): { secret: string; created: boolean; path: string } {
  const path = listenSecretPath(env)
  if (!renew) {
    let saved: string | undefined
    try {
      saved = readFileSync(path, 'utf8').trim()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new UsageError(
          `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        )
    }
    if (saved !== undefined) {
      if (!secretPattern.test(saved))
        throw new UsageError(`${path} is not a signing secret: remove it or run \`svc listen --new-secret\``)
      return { secret: saved, created: false, path }
    }
  }
  const secret = `whsec_${randomBytes(24).toString('hex')}`
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  writeFileSync(path, `${secret}\n`, { mode: 0o600 })
  chmodSync(path, 0o600)
  return { secret, created: true, path }
}
