/**
 * Recovery of Permit2 payments (exact via Permit2, upto) a process that died left in the settlement journal
 * (server/journal/recovery.ts, chain/permit2/nonces.ts): Permit2's nonce bitmap says whether the payment reached the
 * chain, the settling transaction says by which transaction and for how much. Real chain, real facilitator, real
 * SQLite file; the rows are the journal's own (`buildJournalRow`) for payloads the official client signed against the
 * gateway's 402s.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { HTTPFacilitatorClient } from '@x402/core/server'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import { createWalletClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { permit2Abi } from '../../../chain/contracts/permit2.generated.js'
import { approvePermit2For } from '../../../chain/permit2/approval.js'
import { permit2Addresses } from '../../../chain/permit2/contracts.js'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { openDatabase } from '../../../server/db/database.js'
import { paymentIdentity } from '../../../server/payments/identifier.js'
import { buildJournalRow } from '../../../server/journal/journal.js'
import { type RunningServer, startSvc } from '../../../server/start/index.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { newAccount } from '../../helpers/payments.js'
import { sandboxAccept, startUpstream } from '../gateway/helpers.js'

let services: ChainServices
let upstream: Awaited<ReturnType<typeof startUpstream>>
let server: RunningServer | undefined
const dataDir = mkdtempSync(join(tmpdir(), 'svc-journal-permit2-'))

beforeAll(async () => {
  services = await startChainServices()
  upstream = await startUpstream()
})
afterAll(async () => {
  await server?.stop()
  await upstream?.stop()
  await services?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

/** A seller with an exact-via-Permit2 and an upto endpoint, made through this data dir's control plane; their 402s. */
async function setUpSeller(running: RunningServer) {
  const post = async (path: string, body: unknown, jwt?: string) => {
    const response = await localFetch(`${running.sandboxControlUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(jwt ? { authorization: `Bearer ${jwt}` } : {}) },
      body: JSON.stringify(body),
    })
    return (await response.json()) as any
  }
  const signup = await post('/auth/signup', {
    email: 'permit2-journal@example.test',
    password: 'correct horse battery',
  })
  const payTo = newAccount().address
  const api = await post(
    '/apis',
    {
      name: 'Permit2 journal',
      slug: 'permit2-journal',
      upstream_base_url: upstream.url,
      pay_to_mode: 'user_wallet',
      pay_to_address: payTo,
    },
    signup.token,
  )
  const schemas = { request_schema: { type: 'object' }, response_schema: { type: 'object' } }
  const exactAccept = { ...sandboxAccept(services, '25000'), extra: { assetTransferMethod: 'permit2' } }
  await post(
    `/apis/${api.id}/endpoints`,
    { method: 'GET', path_pattern: '/weather/{city}', accepts: [exactAccept], ...schemas },
    signup.token,
  )
  await post(
    `/apis/${api.id}/endpoints`,
    {
      method: 'GET',
      path_pattern: '/metered/{amount}',
      accepts: [{ ...sandboxAccept(services, '100000'), scheme: 'upto' }],
      ...schemas,
    },
    signup.token,
  )
  const gateway = `http://permit2-journal.${running.hosts.sandboxPlatformDomain}:${running.port}`
  const required = async (path: string) =>
    decodePaymentRequiredHeader((await localFetch(`${gateway}${path}`)).headers.get('payment-required')!)
  return {
    userId: signup.user.id as string,
    apiId: api.id as string,
    payTo,
    exact: await required('/weather/oslo'),
    upto: await required('/metered/1'),
  }
}

test('Permit2 rows: a spent nonce is recorded with its transaction and the amount moved; an unspent one is removed; a nonce spent without a settlement is kept', async () => {
  server = (await startSvc({ mode: 'server', dataDir, chain: services, autoVerify: true, log: () => {} })).server
  const seller = await setUpSeller(server)
  await server.stop()
  server = undefined

  // The buyer approved Permit2 and pays with the official client (both schemes registered).
  const buyer = newAccount()
  await services.manager.fund(buyer.address, 'usdc', '10')
  await services.manager.fund(buyer.address, 'eth', '1')
  await approvePermit2For(services.sandboxChain, buyer.address)
  const client = new x402Client()
    .register(services.sandboxChain.network, new ExactEvmScheme(buyer, { rpcUrl: services.rpcUrl }))
    .register(services.sandboxChain.network, new UptoEvmScheme(buyer, { rpcUrl: services.rpcUrl }))
  client.setSpendControls({
    allowedAssets: [
      {
        network: services.sandboxChain.network,
        asset: services.sandboxChain.usdc.address,
        maxAmountPerPayment: '10000000',
      },
    ],
  })
  const sign = (required: PaymentRequired) => client.createPaymentPayload(required)
  const facilitator = new HTTPFacilitatorClient({ url: services.facilitatorUrl })
  const exactRequirements = seller.exact.accepts[0]!
  const uptoRequirements = seller.upto.accepts[0]!

  // What a crash leaves: settled on the chain (exact at its price, upto at 1,234 of the 100,000 signed for), never
  // sent, settled at zero (no transaction), and a nonce the buyer spent itself (invalidateUnorderedNonces).
  const exactSettled = await sign(seller.exact)
  const exactTx = await facilitator.settle(exactSettled, exactRequirements)
  expect(exactTx.success).toBe(true)
  const uptoSettled = await sign(seller.upto)
  const uptoTx = await facilitator.settle(uptoSettled, { ...uptoRequirements, amount: '1234' })
  expect(uptoTx.success).toBe(true)
  const uptoZero = await sign(seller.upto)
  expect(await facilitator.settle(uptoZero, { ...uptoRequirements, amount: '0' })).toMatchObject({
    success: true,
    transaction: '',
  })
  const exactUnsent = await sign(seller.exact)
  const uptoUnsent = await sign(seller.upto)
  const invalidated = await sign(seller.exact)
  const nonce = BigInt((invalidated.payload as { permit2Authorization: { nonce: string } }).permit2Authorization.nonce)
  const wallet = createWalletClient({
    account: buyer,
    chain: services.sandboxChain.chain,
    transport: http(services.rpcUrl),
  })
  const invalidation = await wallet.writeContract({
    address: permit2Addresses.permit2,
    abi: permit2Abi,
    functionName: 'invalidateUnorderedNonces',
    args: [nonce >> 8n, 1n << (nonce & 0xffn)],
  })
  await services.sandboxChain.client.waitForTransactionReceipt({ hash: invalidation })

  // The rows the journal writes for them, in this data dir.
  const database = await openDatabase(join(dataDir, 'svc.sqlite'))
  const api = await database.db.selectFrom('apis').selectAll().where('id', '=', seller.apiId).executeTakeFirstOrThrow()
  const endpoints = await database.db.selectFrom('endpoints').selectAll().where('api_id', '=', seller.apiId).execute()
  const row = (id: string, payload: PaymentPayload, path: string, amount?: string, pastDeadline = false) => {
    const upto = payload.accepted.scheme === 'upto'
    const endpoint = endpoints.find(
      (candidate) => candidate.path_pattern === (upto ? '/metered/{amount}' : '/weather/{city}'),
    )!
    const requirements = upto ? uptoRequirements : exactRequirements
    const entry = {
      api,
      endpoint,
      ephemeral: false,
      requirements,
      payload,
      amount,
      paymentId: paymentIdentity(payload, requirements),
      payer: buyer.address,
      method: 'GET',
      path,
      chainEpoch: services.sandboxChain.epoch,
    }
    // A deadline passed: an unused nonce is final (before it, a facilitator might still send it: the row is kept).
    return { ...buildJournalRow(entry), id, ...(pastDeadline ? { valid_before: '1' } : {}) }
  }
  const rows = [
    row('jrn_exact_settled', exactSettled, '/weather/settled'),
    // The upto row holds the maximum, as a row written before the charge was journaled would: the chain says 1,234.
    row('jrn_upto_settled', uptoSettled, '/metered/settled'),
    row('jrn_upto_zero', uptoZero, '/metered/zero', '0', true),
    row('jrn_exact_unsent', exactUnsent, '/weather/unsent', undefined, true),
    row('jrn_upto_unsent', uptoUnsent, '/metered/unsent', '500', true),
    row('jrn_invalidated', invalidated, '/weather/invalidated'),
  ]
  expect(rows.map((r) => [r.transfer_method, r.nonce === null, r.amount])).toEqual([
    ['permit2', false, '25000'],
    ['permit2', false, '100000'],
    ['permit2', false, '0'],
    ['permit2', false, '25000'],
    ['permit2', false, '500'],
    ['permit2', false, '25000'],
  ])
  await database.db.insertInto('settlement_journal').values(rows).execute()
  await database.close()

  const logs: string[] = []
  server = (
    await startSvc({ mode: 'server', dataDir, chain: services, autoVerify: true, log: (line) => logs.push(line) })
  ).server
  const after = server.database.db
  expect(await after.selectFrom('settlement_journal').select('id').execute()).toEqual([{ id: 'jrn_invalidated' }])
  const settlements = await after
    .selectFrom('settlements')
    .selectAll()
    .where('api_id', '=', seller.apiId)
    .orderBy('path')
    .execute()
  expect(settlements.map((s) => [s.path, s.transaction, s.amount, s.delivered])).toEqual([
    ['/metered/settled', uptoTx.transaction, '1234', 0],
    ['/weather/settled', exactTx.transaction, '25000', 0],
  ])
  expect(
    settlements.every(
      (s) => s.payer === buyer.address && s.pay_to === seller.payTo && s.chain_epoch === services.sandboxChain.epoch,
    ),
  ).toBe(true)
  expect(logs.join('\n')).toMatch(/2 payment\(s\) were charged without the buyer getting the answer/)
  expect(logs.join('\n')).not.toMatch(/cannot be checked/)
})

describe('a row written before Permit2 nonces were journaled', () => {
  test('has no nonce: removed and logged as one that cannot be checked', async () => {
    await server?.stop()
    const database = await openDatabase(join(dataDir, 'svc.sqlite'))
    const template = await database.db.selectFrom('settlement_journal').selectAll().executeTakeFirstOrThrow()
    await database.db
      .insertInto('settlement_journal')
      .values({
        ...template,
        id: 'jrn_old',
        payment_id: 'old|permit2',
        transfer_method: null,
        nonce: null,
        path: '/weather/old',
      })
      .execute()
    await database.close()
    const logs: string[] = []
    server = (
      await startSvc({ mode: 'server', dataDir, chain: services, autoVerify: true, log: (line) => logs.push(line) })
    ).server
    expect(await server.database.db.selectFrom('settlement_journal').select('id').execute()).toEqual([
      { id: 'jrn_invalidated' },
    ])
    expect(logs.join('\n')).toMatch(
      /jrn_old \(GET \/weather\/old, payer 0x[0-9a-fA-F]{40}\) cannot be checked: it was paid through Permit2 before svc journaled Permit2 nonces/,
    )
  })
})
