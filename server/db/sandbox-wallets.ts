import type { Kysely } from 'kysely'
import type { Database, SandboxWalletRow } from './tables.js'

export function findSandboxWallet(db: Kysely<Database>, userId: string): Promise<SandboxWalletRow | undefined> {
  return db.selectFrom('sandbox_wallets').selectAll().where('user_id', '=', userId).executeTakeFirst()
}

/** Inserts the user's wallet unless the user has one (two first requests racing: the primary key keeps one row). */
export async function insertSandboxWalletIfAbsent(db: Kysely<Database>, row: SandboxWalletRow): Promise<void> {
  await db
    .insertInto('sandbox_wallets')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute()
}

/** Sets the user's wallet, replacing the one they had. */
export async function replaceSandboxWallet(db: Kysely<Database>, row: SandboxWalletRow): Promise<void> {
  await db
    .insertInto('sandbox_wallets')
    .values(row)
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        address: row.address,
        encrypted_private_key: row.encrypted_private_key,
        created_at: row.created_at,
      }),
    )
    .execute()
}

/** Every Sandbox wallet's address (a new chain refunds them all). */
export async function listSandboxWalletAddresses(db: Kysely<Database>): Promise<string[]> {
  return (await db.selectFrom('sandbox_wallets').select('address').execute()).map((row) => row.address)
}
