/** The sellers' side of the control plane: accounts, their mails, keys, wallets and sign-in nonces. */
import type { Generated } from 'kysely'
import type { Environment } from '../../core/hosts.js'

export type UsersTable = {
  id: string
  email: string
  password_hash: string
  password_salt: string
  email_verified_at: string | null
  created_at: string
}

export type EmailVerificationsTable = {
  token: string
  user_id: string
  expires_at: string
  used_at: string | null
  created_at: string
}

/** Mails the control plane "sent": nothing leaves the machine; the CLI, dashboard and a loopback route read them. */
export type OutboxTable = {
  id: Generated<number>
  to_email: string
  subject: string
  body: string
  /** The verification token the mail carries, for tools that finish the flow. */
  token: string | null
  created_at: string
}

export type ApiKeysTable = {
  id: string
  user_id: string
  name: string
  environment: Environment
  /** The visible start of the secret (`svc_sandbox_ab12cd34`), to tell keys apart. */
  prefix: string
  /** sha256 of the whole secret; the secret itself is never stored. */
  key_hash: string
  /** JSON array of scope names. */
  scopes: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
}

export type SandboxWalletsTable = {
  user_id: string
  address: string
  /** AES-256-GCM of the private key under the install's wallet key: iv.tag.ciphertext, base64url. */
  encrypted_private_key: string
  created_at: string
}

/** The nonce of each sign-in-with-x message served: a signed message is good once (kept until it expires). */
export type SiwxNoncesTable = {
  nonce: string
  expires_at: string
}
