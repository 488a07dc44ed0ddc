/**
 * An escrow payment (x402 auth-capture) made as svc's gateway makes one, without the gateway: the official client's
 * payload authorized by svc's facilitator, then recorded with server/escrow's recordEscrowCollect and its settlement
 * row (amount 0 for a hold), as the gateway's collect does. For the control plane's, the CLI's and the MCP tools'
 * tests of the seller's lifecycle calls.
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { type Address, type Hex, zeroAddress } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { readPaymentState } from '../../chain/auth-capture/index.js'
import { type ChainServices, startChainServices } from '../../chain/services.js'
import { offeredEscrow } from '../../core/auth-capture/deployments.js'
import { normalizeExtra } from '../../core/auth-capture/extra.js'
import { type ReadPayload, readPayload } from '../../core/auth-capture/read-payload.js'
import { reopenCollect } from '../../core/auth-capture/reopen.js'
import { loadInstallSecrets } from '../../server/data-dir/secrets.js'
import { findLatestChainEpoch } from '../../server/db/index.js'
import { receiverAuthorizerOf, recordEscrowCollect } from '../../server/escrow/index.js'
import { startTestServer, type TestServer } from './control.js'

export type EscrowSeller = { userId: string; apiId: string; payTo: Address }
export type AuthorizedEscrow = { id: string; settlementId: string; hash: Hex; escrow: Address }

/** One sandbox for a file of escrow tests: its chain services, svc's server on them, a seller and a funded buyer. */
export type EscrowSandbox = {
  chain: ChainServices
  t: TestServer
  /** The seller's session, and a Sandbox API of theirs that pays to `payTo`. */
  seller: EscrowSeller & { jwt: string }
  stop(): Promise<void>
}

/**
 * Starts the chain services and svc's server on them, funds `buyer` from the faucet (`usdc`: how much USDC, else the
 * faucet's default) and signs up a seller with a Sandbox API paying to `payTo`.
 */
export async function startEscrowSandbox(input: {
  buyer: Address
  payTo: Address
  usdc?: string | undefined
}): Promise<EscrowSandbox> {
  const chain = await startChainServices()
  const t = await startTestServer({ chain })
  const stop = async () => {
    await t.stop()
    await chain.stop()
  }
  try {
    await (input.usdc === undefined
      ? chain.manager.fund(input.buyer)
      : chain.manager.fund(input.buyer, 'usdc', input.usdc))
    const { jwt, userId } = await t.signup()
    const api = await t.call('/apis', {
      jwt,
      environment: 'development',
      body: {
        name: 'Escrow',
        slug: `escrow-${Date.now()}`,
        upstream_base_url: 'https://upstream.example.test/v1',
        pay_to_mode: 'user_wallet',
        pay_to_address: input.payTo,
      },
    })
    if (api.status !== 201) throw new Error(`creating the escrow API failed: ${api.status} ${JSON.stringify(api.body)}`)
    return { chain, t, seller: { jwt, userId, apiId: api.body.id, payTo: input.payTo }, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** The seller's receiver authorizer: the key svc keeps for it (made on first use). */
export async function receiverAuthorizerAddress(t: TestServer, userId: string): Promise<Address> {
  const db = t.server.database.db
  return (await receiverAuthorizerOf({ db, secrets: loadInstallSecrets(t.server.dataDir) }, userId)).address
}

/** A `price` hold of `buyer`'s to `seller`'s API, authorized on chain and recorded in svc's database. */
export async function authorizeEscrow(input: {
  t: TestServer
  chain: ChainServices
  seller: EscrowSeller
  buyer: PrivateKeyAccount
  price: bigint
  captureMode?: 'sync' | 'deferred'
  /** Seconds from svc's now. @defaultValue 3600 and 7200 */
  captureDeadlineIn?: number
  refundDeadlineIn?: number
}): Promise<AuthorizedEscrow> {
  const { t, chain, seller, buyer, price, captureMode = 'deferred' } = input
  const sandbox = chain.sandboxChain
  const now = chain.clock.nowSeconds()
  const receiverAuthorizer = await receiverAuthorizerAddress(t, seller.userId)
  const requirements = {
    scheme: 'auth-capture',
    network: sandbox.network,
    asset: sandbox.usdc.address,
    amount: price.toString(),
    payTo: seller.payTo,
    maxTimeoutSeconds: 60,
    extra: {
      name: sandbox.usdc.name,
      version: sandbox.usdc.version,
      authCaptureEscrow: offeredEscrow,
      captureAuthorizer: chain.facilitator.operator,
      receiverAuthorizer,
      operatorType: 'delegated',
      paymentFlow: 'escrow',
      captureMode,
      captureDeadline: now + (input.captureDeadlineIn ?? 3_600),
      refundDeadline: now + (input.refundDeadlineIn ?? 7_200),
      minFeeBps: 0,
      maxFeeBps: 0,
      feeRecipient: zeroAddress,
    },
  } as PaymentRequirements
  const { payload } = await new AuthCaptureEvmScheme(buyer).createPaymentPayload(2, requirements as never)
  const payment = { x402Version: 2, accepted: requirements, payload } as PaymentPayload
  const answer = await chain.facilitator.settleJudged(payment, requirements)
  if (answer === 'chain-down' || !answer.success) throw new Error(`authorize failed: ${JSON.stringify(answer)}`)
  const normal = normalizeExtra(requirements.extra)
  if (!normal.ok) throw new Error(normal.message)
  const read = readPayload(payload) as Extract<ReadPayload, { kind: 'eip3009' }>
  const reopened = reopenCollect({
    chainId: sandbox.chainId,
    requirements,
    extra: normal.extra,
    deployments: normal.deployments,
    read,
  })
  if (!reopened.ok) throw new Error(reopened.message)
  const info = reopened.paymentInfo
  const db = t.server.database.db
  const epoch = (await findLatestChainEpoch(db))!.epoch
  const settlementId = `stl_${reopened.paymentInfoHash.slice(2, 26)}`
  const common = {
    api_id: seller.apiId,
    endpoint_id: null,
    user_id: seller.userId,
    environment: 'development' as const,
    network: sandbox.network,
    asset: sandbox.usdc.address.toLowerCase(),
    payer: buyer.address.toLowerCase(),
    pay_to: seller.payTo.toLowerCase(),
    method: 'GET',
    path: '/escrow/book',
    chain_epoch: epoch,
    delivered: 1,
  }
  await db
    .insertInto('settlements')
    .values({
      ...common,
      id: settlementId,
      amount: '0',
      transaction: answer.transaction,
      created_at: new Date().toISOString(),
      builder_code: null,
    })
    .execute()
  const { payment: row } = await recordEscrowCollect(
    db,
    {
      ...common,
      payment_info_hash: reopened.paymentInfoHash,
      flow: 'escrow',
      capture_mode: captureMode,
      transfer_method: 'eip3009',
      escrow: reopened.deployment.escrow,
      operator: chain.facilitator.operator,
      receiver_authorizer: receiverAuthorizer,
      payment_info: JSON.stringify(info),
      salt_nonce: read.payload.saltNonce ?? null,
      pre_approval_expiry: info.preApprovalExpiry,
      capture_deadline: info.authorizationExpiry,
      refund_deadline: info.refundExpiry,
    },
    { kind: 'authorize', amount: price.toString(), transaction: answer.transaction, actor: 'gateway' },
    settlementId,
  )
  return { id: row.id, settlementId, hash: reopened.paymentInfoHash as Hex, escrow: reopened.deployment.escrow }
}

/** What the escrow holds of a payment and what it may refund (`paymentState`). */
export async function escrowOnChain(chain: ChainServices, payment: { hash: Hex; escrow: Address }) {
  const state = await readPaymentState(chain.sandboxChain.client, payment.escrow, payment.hash)
  return { capturable: state.capturableAmount, refundable: state.refundableAmount }
}
