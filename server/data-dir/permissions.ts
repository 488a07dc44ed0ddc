import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'

/** The data dir and the chain's dir in it: the owner only. */
export const privateDirMode = 0o700
/** The database, its -wal and -shm, the install's keys, the chain's state: the owner may read and write them, nobody else. */
export const privateFileMode = 0o600

/** The SQLite file of a data dir, and the files SQLite keeps beside it in WAL mode. */
export const databaseFileName = 'svc.sqlite'
/**
 * The install's keys (data-dir/secrets.ts): the JWTs' HS256 key, the key of the Sandbox wallets' private keys, and
 * the seed of the gateway's offer-receipt signing key, and the batch-settlement receiver authorizer's private key
 * (sealed with the wallet key).
 */
export const installKeyFileNames = {
  jwtSecret: 'jwt.secret',
  walletKey: 'wallet.key',
  offerReceiptKey: 'offer-receipt.key',
  receiverAuthorizerKey: 'receiver-authorizer.key',
} as const
const privateFiles = [
  databaseFileName,
  `${databaseFileName}-wal`,
  `${databaseFileName}-shm`,
  ...Object.values(installKeyFileNames),
]

/**
 * Makes a data dir private before the database opens: the dir 0700 (created so when missing, tightened when an
 * older svc or a loose umask made it 0755), the database files and the install's keys 0600, and the chain's dir and state
 * (`chain/state.json`) likewise. A missing database file is created empty with 0600 first, since SQLite gives its
 * -wal and -shm the mode of the database file. The chain state is written by Anvil, which svc does not control:
 * it is tightened here when it exists, and the 0700 dirs keep it out of reach in between.
 */
export function tightenDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: privateDirMode })
  chmodSync(dataDir, privateDirMode)
  const database = join(dataDir, databaseFileName)
  if (!existsSync(database)) closeSync(openSync(database, 'a', privateFileMode))
  tightenFiles(dataDir)
  const chainDir = join(dataDir, 'chain')
  if (existsSync(chainDir)) chmodSync(chainDir, privateDirMode)
  const chainState = join(chainDir, 'state.json')
  if (existsSync(chainState)) chmodSync(chainState, privateFileMode)
}

/**
 * Sets the database files and the install's keys that exist to 0600 (the -wal and -shm appear once SQLite opens the
 * database; keys an older svc wrote under a loose umask are tightened here too).
 */
export function tightenFiles(dataDir: string): void {
  for (const file of privateFiles) {
    const path = join(dataDir, file)
    if (existsSync(path)) chmodSync(path, privateFileMode)
  }
}
