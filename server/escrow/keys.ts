import type { Kysely } from 'kysely'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { decryptSecret, encryptSecret } from '../data-dir/index.js'
import { type Database, findReceiverAuthorizer, insertReceiverAuthorizerIfAbsent } from '../db/index.js'
import { nowIso } from '../ids.js'

/** What the keys read: the database and the install's wallet key (server/data-dir), which encrypts them at rest. */
export type EscrowKeyDeps = { db: Kysely<Database>; secrets: { walletKey: Buffer } }

/** Accounts already decrypted, per database and seller (a key never changes: it is never rotated). */
const decrypted = new WeakMap<Kysely<Database>, Map<string, PrivateKeyAccount>>()

/**
 * The seller's receiver authorizer: the key svc keeps for it to sign its escrow payments' captures, voids and refunds
 * (the 402's `extra.receiverAuthorizer`). Made on first use, kept encrypted like the Sandbox wallet's key
 * (AES-256-GCM under the install's wallet key, which `svc serve` shares across its processes), never rotated (each
 * payment's salt commits to its address), never logged. Two first uses racing keep one key.
 */
export async function receiverAuthorizerOf(deps: EscrowKeyDeps, userId: string): Promise<PrivateKeyAccount> {
  let accounts = decrypted.get(deps.db)
  if (!accounts) decrypted.set(deps.db, (accounts = new Map()))
  const known = accounts.get(userId)
  if (known) return known
  let row = await findReceiverAuthorizer(deps.db, userId)
  if (!row) {
    const privateKey = generatePrivateKey()
    row = await insertReceiverAuthorizerIfAbsent(deps.db, {
      user_id: userId,
      address: privateKeyToAccount(privateKey).address,
      encrypted_private_key: encryptSecret(deps.secrets.walletKey, privateKey),
      created_at: nowIso(),
    })
  }
  const account = privateKeyToAccount(decryptSecret(deps.secrets.walletKey, row.encrypted_private_key) as Hex)
  if (account.address !== row.address)
    throw new Error(`the receiver authorizer of ${userId} does not open with this install's wallet key`)
  accounts.set(userId, account)
  return account
}
