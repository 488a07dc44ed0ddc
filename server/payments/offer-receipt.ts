import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto'
import type { ResourceServerExtension, SettleResponse } from '@x402/core/types'
import {
  OFFER_RECEIPT,
  createJWSOfferReceiptIssuer,
  createOfferReceiptExtension,
  declareOfferReceiptExtension,
  type JWSSigner,
  type OfferReceiptDeclaration,
} from '@x402/extensions/offer-receipt'
import { encodeBase58 } from '@x402/extensions/sign-in-with-x'

/** The gateway's signer of x402's `offer-receipt` extension: signed offers in its 402s, signed receipts on success. */
export type OfferReceipts = {
  /** The `kid` of every signature: a `did:key` of the install's Ed25519 key, so a buyer verifies without a lookup. */
  kid: string
  /** The package's extension (`createOfferReceiptExtension`), registered on the gateway's resource servers. */
  extension: ResourceServerExtension
  /** `settled` with the signed receipt of `resourceUrl` in its `extensions` (as the package's extension adds it). */
  withReceipt(settled: SettleResponse, resourceUrl: string): Promise<SettleResponse>
}

/** The offer-receipt declaration of every paid route: its receipts name the settlement's transaction. */
export const offerReceiptDeclaration: Record<string, OfferReceiptDeclaration> = declareOfferReceiptExtension({
  includeTxHash: true,
})

// PKCS#8 DER of an Ed25519 private key, before its 32-byte seed (RFC 8410).
const ed25519Pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex')
// The multicodec of an Ed25519 public key (0xed, as a varint), before the key in a did:key.
const ed25519Multicodec = Uint8Array.of(0xed, 0x01)

/**
 * The offer-receipt signer of an install, from its 32-byte seed (data-dir/secrets.ts): JWS with EdDSA, `kid`
 * `did:key:z6Mk…#z6Mk…`. Offers and receipts are made by the package's issuer (`createJWSOfferReceiptIssuer`); only
 * the signature of bytes is ours (node:crypto), and the key never leaves this closure.
 */
export function createOfferReceipts(seed: Buffer): OfferReceipts {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ed25519Pkcs8Prefix, seed]),
    format: 'der',
    type: 'pkcs8',
  })
  const kid = didKeyOf(createPublicKey(privateKey))
  const signer: JWSSigner = {
    kid,
    format: 'jws',
    algorithm: 'EdDSA',
    sign: async (payload) => sign(null, payload, privateKey).toString('base64url'),
  }
  const extension = createOfferReceiptExtension(createJWSOfferReceiptIssuer(kid, signer))
  return {
    kid,
    extension,
    async withReceipt(settled, resourceUrl) {
      const enriched = await extension.enrichSettlementResponse?.(offerReceiptDeclaration[OFFER_RECEIPT], {
        result: settled,
        transportContext: { request: { adapter: { getUrl: () => resourceUrl } } },
      } as never)
      if (enriched === undefined) return settled
      return { ...settled, extensions: { ...settled.extensions, [OFFER_RECEIPT]: enriched } }
    },
  }
}

/** `did:key:z…#z…` of an Ed25519 public key (the multicodec-prefixed key in base58btc). */
function didKeyOf(publicKey: KeyObject): string {
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url')
  const id = `z${encodeBase58(Uint8Array.from([...ed25519Multicodec, ...raw]))}`
  return `did:key:${id}#${id}`
}
