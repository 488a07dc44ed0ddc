import { createHash, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { UsageError } from '../../core/errors.js'
import type { InstallSecrets } from '../data-dir/index.js'

/**
 * Where one secret of `svc serve` comes from: a file (`--jwt-secret-file`, …) or the value of an environment variable
 * (`SVC_JWT_SECRET`, …); the file wins when both are given. `name` is how messages name it (never its value).
 */
export type SecretSource = { file?: string | undefined; value?: string | undefined; name: string }

/** The secrets `svc serve` may be given, each from a file or the environment. */
export type ServeSecretSources = {
  jwtSecret?: SecretSource | undefined
  walletKey?: SecretSource | undefined
  offerReceiptKey?: SecretSource | undefined
  adminToken?: SecretSource | undefined
}

/** The shortest admin token svc takes (a guessable one would open every whole-sandbox route). */
const adminTokenMinChars = 24

/** The text of a secret (trimmed), from its file or value; undefined when neither is given. */
function readSecret(source: SecretSource | undefined): string | undefined {
  if (!source) return undefined
  let text = source.value
  if (source.file !== undefined) {
    try {
      text = readFileSync(source.file, 'utf8')
    } catch (error) {
      throw new UsageError(
        `${source.name}: cannot read ${source.file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      )
    }
  }
  if (text === undefined) return undefined
  const trimmed = text.trim()
  if (trimmed === '') throw new UsageError(`${source.name}: empty`)
  return trimmed
}

/**
 * A 32-byte key: 64 hex digits (`openssl rand -hex 32`) or base64 / base64url (`openssl rand -base64 32`, and the
 * data dir's own key files). Anything else is a usage error naming the source, never echoing the value.
 */
function readKey(source: SecretSource | undefined): Buffer | undefined {
  const text = readSecret(source)
  if (text === undefined) return undefined
  const key = /^[0-9a-f]{64}$/i.test(text)
    ? Buffer.from(text, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(text)
      ? Buffer.from(text, 'base64')
      : undefined
  if (key?.length !== 32)
    throw new UsageError(
      `${source!.name}: not a 32-byte key (64 hex digits or base64; make one with openssl rand -hex 32)`,
    )
  return key
}

/** An admin credential, kept as its SHA-256 so a comparison takes the same time whatever is sent. */
export type AdminToken = { matches(presented: string): boolean }

function adminTokenOf(source: SecretSource | undefined): AdminToken | undefined {
  const text = readSecret(source)
  if (text === undefined) return undefined
  if (text.length < adminTokenMinChars)
    throw new UsageError(`${source!.name}: at least ${adminTokenMinChars} characters (openssl rand -hex 32)`)
  const digest = createHash('sha256').update(text).digest()
  return { matches: (presented) => timingSafeEqual(createHash('sha256').update(presented).digest(), digest) }
}

/** Reads the secrets given to `svc serve`; a missing file or a malformed key is a {@link UsageError}. */
export function readServeSecrets(sources: ServeSecretSources): {
  install: Partial<InstallSecrets>
  adminToken: AdminToken | undefined
} {
  const jwtSecret = readKey(sources.jwtSecret)
  const walletKey = readKey(sources.walletKey)
  const offerReceiptKey = readKey(sources.offerReceiptKey)
  return {
    install: {
      ...(jwtSecret && { jwtSecret: new Uint8Array(jwtSecret) }),
      ...(walletKey && { walletKey }),
      ...(offerReceiptKey && { offerReceiptKey }),
    },
    adminToken: adminTokenOf(sources.adminToken),
  }
}
