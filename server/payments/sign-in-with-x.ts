import { randomBytes } from 'node:crypto'
import {
  SIGN_IN_WITH_X,
  buildSIWxSchema,
  parseSIWxHeader,
  validateSIWxMessage,
  verifySIWxSignature,
  type EVMMessageVerifier,
  type SIWxExtension,
  type SIWxPayload,
} from '@x402/extensions/sign-in-with-x'
import { sql } from 'kysely'
import { cutText, echoedValueLimit } from '../../core/http.js'
import type { ApiRow, EndpointRow } from '../db/index.js'
import type { PaymentsDeps } from './deps.js'
import { clockOf, sandboxChainReader } from '../sandbox/index.js'
import { reasonText } from './facilitator-calls.js'

/** How long a sign-in challenge of a 402 may be signed and sent back (the package's default age limit). */
const challengeSeconds = 300

/** Whether a SIGN-IN-WITH-X header lets its wallet in without paying: `payer` when it does, `error` (a 402's) when not. */
export type SignInResult = { ok: true; payer: string } | { ok: false; error: string }

/**
 * What a sign-in is sent to: the API, its endpoint (`route.endpoint`), the endpoint's networks (`offer.networks`) and
 * the resource's URL (`resource.url`). The flow's `Attempt` (./attempt.ts) is one: it is passed as it is.
 */
export type SignInTarget = {
  api: ApiRow
  route: { endpoint: EndpointRow }
  offer: { networks: string[] }
  resource: { url: string }
}

export type SignIns = {
  /**
   * Judges a SIGN-IN-WITH-X header sent to the target's endpoint (which has sign-in-with-x on) for its resource URL,
   * with the package's own checks (parse, domain and URI against the resource's origin, issued/expiry times,
   * signature: EOA, then EIP-1271/6492 on the Sandbox chain), then svc's: the chain is one the endpoint accepts, its
   * wallet has a settled payment for the endpoint within the access window (by svc's clock: time travel ends it), and
   * the nonce was not used before.
   */
  check(header: string, target: SignInTarget): Promise<SignInResult>
}

/**
 * The `sign-in-with-x` extension of an endpoint's 402 (empty when it is off): a fresh challenge each time, bound to
 * the resource's origin (domain: the gateway host the buyer asked), on the endpoint's networks, signed as EIP-191.
 */
export function signInChallenge(
  endpoint: EndpointRow,
  networks: string[],
  resourceUrl: string,
): Record<string, SIWxExtension> {
  if (endpoint.siwx_access_seconds === null) return {}
  const now = Date.now()
  const info = {
    domain: new URL(resourceUrl).host,
    uri: resourceUrl,
    version: '1',
    nonce: randomBytes(16).toString('hex'),
    issuedAt: new Date(now).toISOString(),
    expirationTime: new Date(now + challengeSeconds * 1000).toISOString(),
    statement: `Sign in with the wallet that paid for this endpoint in the last ${endpoint.siwx_access_seconds} seconds`,
    resources: [resourceUrl],
  }
  const supportedChains = networks.map((chainId) => ({ chainId, type: 'eip191' as const }))
  return { [SIGN_IN_WITH_X]: { info, supportedChains, schema: buildSIWxSchema() } }
}

const refused = (reason: string, message: string): SignInResult => ({
  ok: false,
  error: reasonText('sign-in-with-x refused', reason, message),
})

export function createSignIns(deps: PaymentsDeps): SignIns {
  // Smart-contract wallets (EIP-1271, EIP-6492) are asked on the Sandbox chain; production APIs verify EOAs only.
  const sandboxVerifier = (): EVMMessageVerifier | undefined => {
    // On a team Sandbox process that does not own the chain: the owner's, through its listener.
    const client = sandboxChainReader(deps)?.client
    return client ? (args) => client.verifyMessage(args) : undefined
  }

  async function verified(payload: SIWxPayload, api: ApiRow) {
    const local = await verifySIWxSignature(payload)
    const verifier = api.environment === 'development' ? sandboxVerifier() : undefined
    if (local.isValid || local.invalidReason !== 'invalid_siwx_signature' || !verifier) return local
    return verifySIWxSignature(payload, { evmVerifier: verifier })
  }

  /**
   * Whether `payer` has a settled payment for `endpoint` in the last `seconds` of svc's clock. Time travel only
   * shortens a window, so the ledger's rows (recorded at the machine's time) of the last `seconds` of the machine's
   * time are the candidates; each is judged by when it was paid on svc's clock: its block's time on the Sandbox
   * chain (which moves with svc's clock), else its record's time plus svc's offset.
   */
  async function hasPaid(api: ApiRow, endpoint: EndpointRow, payer: string, seconds: number): Promise<boolean> {
    const clock = clockOf(deps)
    const rows = await deps.db
      .selectFrom('settlements')
      .select(['transaction', 'created_at', 'chain_epoch'])
      .where('endpoint_id', '=', endpoint.id)
      .where('created_at', '>=', new Date(Date.now() - seconds * 1000).toISOString())
      .where(sql<string>`lower(payer)`, '=', payer.toLowerCase())
      .orderBy('created_at', 'desc')
      .limit(5)
      .execute()
    for (const row of rows) if ((await paidAt(api, row)) >= clock.now() - seconds * 1000) return true
    return false
  }

  /** When a settlement was paid, in svc's clock's milliseconds. */
  async function paidAt(api: ApiRow, row: { transaction: string; created_at: string; chain_epoch: string }) {
    const recorded = Date.parse(row.created_at) + clockOf(deps).offsetMs
    const chain = sandboxChainReader(deps)
    if (api.environment !== 'development' || !chain || !row.transaction || row.chain_epoch !== chain.epoch)
      return recorded
    try {
      const receipt = await chain.client.getTransactionReceipt({ hash: row.transaction as `0x${string}` })
      const block = await chain.client.getBlock({ blockNumber: receipt.blockNumber })
      return Number(block.timestamp) * 1000
    } catch {
      return recorded
    }
  }

  /** Marks `nonce` used (until its message is too old to be taken anyway); false when it was used already. */
  async function spendNonce(payload: SIWxPayload): Promise<boolean> {
    const now = new Date().toISOString()
    await deps.db.deleteFrom('siwx_nonces').where('expires_at', '<', now).execute()
    const expiresAt = new Date(Date.parse(payload.issuedAt) + challengeSeconds * 1000).toISOString()
    const inserted = await deps.db
      .insertInto('siwx_nonces')
      .values({ nonce: payload.nonce, expires_at: expiresAt })
      .onConflict((c) => c.doNothing())
      .executeTakeFirst()
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1
  }

  return {
    async check(header, { api, route: { endpoint }, offer: { networks }, resource }) {
      let payload: SIWxPayload
      try {
        payload = parseSIWxHeader(header)
      } catch (error) {
        return refused('invalid_siwx_header', cutText((error as Error).message, echoedValueLimit))
      }
      const validation = await validateSIWxMessage(payload, new URL(new URL(resource.url).origin))
      if (!validation.isValid) return refused(validation.invalidReason, validation.invalidMessage)
      if (!networks.includes(payload.chainId))
        return refused(
          'invalid_siwx_unsupported_chain',
          `${cutText(payload.chainId, echoedValueLimit)} is not a chain of this endpoint (${networks.join(', ')})`,
        )
      // The package builds the SIWE message before it verifies: fields that message refuses (an address that is
      // not one, a nonce of symbols) throw there.
      const signature = await verified(payload, api).catch((error: unknown) => ({
        isValid: false as const,
        invalidReason: 'invalid_siwx_malformed_signature',
        invalidMessage: cutText((error as Error).message ?? String(error), echoedValueLimit),
      }))
      if (!signature.isValid) return refused(signature.invalidReason, signature.invalidMessage)
      const seconds = endpoint.siwx_access_seconds ?? 0
      if (!(await hasPaid(api, endpoint, signature.payer, seconds)))
        return {
          ok: false,
          error: `sign-in-with-x: ${signature.payer} has no payment for this endpoint in the last ${seconds} seconds; pay to be served`,
        }
      if (!(await spendNonce(payload)))
        return refused('invalid_siwx_nonce', 'this sign-in message was used already: sign the fresh challenge of a 402')
      return { ok: true, payer: signature.payer }
    },
  }
}
