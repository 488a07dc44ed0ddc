import { randomBytes, createCipheriv, createDecipheriv } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { installKeyFileNames, privateFileMode } from './permissions.js'

/** Per-install secrets, generated on first start and kept in the data dir with 0600 permissions. */
export type InstallSecrets = {
  /** HS256 key of the control plane's JWTs. */
  jwtSecret: Uint8Array
  /** AES-256-GCM key that encrypts Sandbox wallet private keys at rest. */
  walletKey: Buffer
  /** Ed25519 seed of the gateway's offer-receipt signatures (x402's signed offers and receipts). */
  offerReceiptKey: Buffer
}

export function loadInstallSecrets(dataDir: string): InstallSecrets {
  mkdirSync(dataDir, { recursive: true })
  return {
    jwtSecret: new Uint8Array(loadOrCreate(join(dataDir, installKeyFileNames.jwtSecret))),
    walletKey: loadOrCreate(join(dataDir, installKeyFileNames.walletKey)),
    offerReceiptKey: loadOrCreate(join(dataDir, installKeyFileNames.offerReceiptKey)),
  }
}

/**
 * The install's batch-settlement receiver authorizer (the facilitator signs channel claims and refunds with it): a
 * secp256k1 private key made on first start, kept in the data dir sealed with the wallet key (as the Sandbox wallets'
 * keys are), 0600. It is never logged; only its address is shown (`/supported`'s `extra.receiverAuthorizer`).
 */
export function loadReceiverAuthorizerKey(dataDir: string): Hex {
  mkdirSync(dataDir, { recursive: true })
  const walletKey = loadOrCreate(join(dataDir, installKeyFileNames.walletKey))
  const file = join(dataDir, installKeyFileNames.receiverAuthorizerKey)
  if (existsSync(file)) {
    const key = decryptSecret(walletKey, readFileSync(file, 'utf8').trim())
    if (!/^0x[0-9a-f]{64}$/.test(key))
      throw new Error(`${file} does not hold a private key; delete it to make a new one`)
    return key as Hex
  }
  const key = generatePrivateKey()
  writeFileSync(file, `${encryptSecret(walletKey, key)}\n`, { mode: privateFileMode, flag: 'wx' })
  return key
}

function loadOrCreate(file: string): Buffer {
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url')
    if (key.length !== 32) throw new Error(`${file} is not a 32-byte key; delete it to make a new one`)
    return key
  }
  const key = randomBytes(32)
  writeFileSync(file, `${key.toString('base64url')}\n`, { mode: privateFileMode, flag: 'wx' })
  return key
}

/** Encrypts with AES-256-GCM; the result is `iv.tag.ciphertext` in base64url. */
export function encryptSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('.')
}

export function decryptSecret(key: Buffer, sealed: string): string {
  const [iv, tag, ciphertext] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'))
  if (!iv || !tag || !ciphertext) throw new Error('sealed secret is malformed')
  const decipher = createDecipheriv('aes-256-gcm', key, iv)
  decipher.setAuthTag(tag)
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8')
}
