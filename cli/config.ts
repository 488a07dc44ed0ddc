import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { z } from 'zod'
import { UsageError } from '../core/errors.js'
import { configPath } from './config-path.js'

/** The login session the CLI keeps between runs. */
const sessionSchema = z.object({
  jwt: z.string().min(1),
  email: z.string(),
  base_url: z.url(),
  environment: z.enum(['production', 'development']).optional(),
  /** Which svc the login was made on (its /config/platform `instance_id`): the session is sent to no other. */
  instance_id: z.string().optional(),
})
export type SavedSession = z.infer<typeof sessionSchema>

export { configPath }

/** Where `svc pay` keeps the buyer's payment channels (x402 batch-settlement): `channels/` beside the session. */
export const buyerChannelsDir = (env: NodeJS.ProcessEnv): string => join(dirname(configPath(env)), 'channels')

/** Where `svc pay` keeps the buyer's auth-capture (escrow) payments, one `<paymentInfoHash>.json` each, to reclaim them. */
export const buyerEscrowDir = (env: NodeJS.ProcessEnv): string => join(dirname(configPath(env)), 'buyer', 'escrow')

/** The saved session, or undefined when there is none. A file that is not a session is a usage error. */
export function readSession(env: NodeJS.ProcessEnv): SavedSession | undefined {
  const path = configPath(env)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new UsageError(`${path} is not JSON: fix it or run \`svc logout\``)
  }
  const result = sessionSchema.safeParse(parsed)
  if (!result.success) throw new UsageError(`${path} is not an svc session: fix it or run \`svc logout\``)
  return result.data
}

/** Writes the session, readable by its owner only (0600, in a 0700 directory). */
export function writeSession(env: NodeJS.ProcessEnv, session: SavedSession): string {
  const path = configPath(env)
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  writeFileSync(path, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 })
  // `mode` only applies when the file is created: an older file keeps its mode otherwise.
  chmodSync(path, 0o600)
  return path
}

/** Removes the session; true when there was one. */
export function removeSession(env: NodeJS.ProcessEnv): boolean {
  const path = configPath(env)
  if (!existsSync(path)) return false
  rmSync(path, { force: true })
  return true
}
