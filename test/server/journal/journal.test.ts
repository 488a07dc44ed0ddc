/**
 * The settlement journal (server/journal/journal.ts, server/journal/recovery.ts): no settlement on the
 * chain without a record, and a buyer charged without getting the answer is recorded as such. Real chain, real
 * facilitator, real SQLite file; the crash itself (kill -9 of `svc up` under load) is test/e2e/crash-ledger.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HTTPFacilitatorClient } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { openDatabase } from '../../../server/db/database.js'
import type { SettlementJournalRow } from '../../../server/db/tables.js'
import { type RunningServer, startSvc } from '../../../server/start/index.js'
import { testJournalRow } from '../../helpers/journal-rows.js'
import { newAccount, sandboxRequirements, signPayment } from '../../helpers/payments.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  payingFetch,
  sandboxAccept,
  signedPaymentFor,
  startUpstream,
  usdcBalance,
} from '../gateway/helpers.js'

let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>

beforeAll(async () => {
  // Large enough to hold an answer that cannot all sit in the socket buffers (10 MiB in svc).
  services = await startChainServices()
  t = await startTestServer({ chain: services, paidRoutes: { maxResponseBytes: 96 * 1024 * 1024 } })
  upstream = await startUpstream()
})
afterAll(async () => {
  await t?.stop()
  await upstream?.stop()
  await services?.stop()
})

const db = () => t.server.database.db
const journalRows = () => db().selectFrom('settlement_journal').selectAll().execute()
const settlementsOf = (apiId: string) =>
  db().selectFrom('settlements').selectAll().where('api_id', '=', apiId).execute()

describe('while svc runs', () => {
  test('a paid answer is recorded as delivered and leaves no journal row', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services)],
    })
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '1')

    const response = await payingFetch(services, buyer)(`${api.gateway}/weather/oslo`)
    expect(response.status).toBe(200)
    await response.text()
    await expect.poll(journalRows).toEqual([])
    expect(await settlementsOf(api.id)).toEqual([expect.objectContaining({ delivered: 1, payer: buyer.address })])
    const listed = await t.call('/settlements', { jwt: seller.jwt, environment: 'development' })
    expect(listed.body.settlements).toEqual([expect.objectContaining({ delivered: true })])
  })

  test('a buyer who hangs up after the payment settled is recorded as charged without the answer', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    // 64 MB: the gateway cannot hand it all to the connection before the buyer hangs up.
    const path = `/bytes/${64 * 1024 * 1024}`
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/bytes/{n}',
      accepts: [sandboxAccept(services)],
    })
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '1')
    const signature = await signedPaymentFor(services, buyer, `${api.gateway}${path}`)

    // A raw connection: the buyer reads the head of the paid answer (the payment is settled by then) and leaves.
    const { host, port } = new URL(api.gateway)
    const socket = connect(Number(port), '127.0.0.1')
    socket.write(`GET ${path} HTTP/1.1\r\nhost: ${host}\r\npayment-signature: ${signature}\r\n\r\n`)
    const head = await new Promise<string>((resolve, reject) => {
      socket.once('data', (chunk) => resolve(String(chunk).slice(0, 200)))
      socket.once('error', reject)
    })
    socket.destroy()
    expect(head).toMatch(/^HTTP\/1\.1 200/)
    expect(head.toLowerCase()).toContain('payment-response:')

    await expect.poll(journalRows).toEqual([])
    const [settlement] = await settlementsOf(api.id)
    expect(settlement).toMatchObject({ delivered: 0, payer: buyer.address })
    expect(await usdcBalance(services, seller.payTo)).toBe(10_000n)
    const listed = await t.call('/settlements', { jwt: seller.jwt, environment: 'development' })
    expect(listed.body.settlements).toEqual([
      expect.objectContaining({ transaction: settlement!.transaction, delivered: false }),
    ])
  })
})

describe('at start, the rows a process that died left behind', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-journal-'))
  let server: RunningServer | undefined
  afterAll(async () => {
    await server?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  /** A journal row as the gateway writes it before a settlement is sent. */
  function journalRow(
    id: string,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    owner: { userId: string; apiId: string; endpointId: string },
    overrides: Partial<SettlementJournalRow> = {},
  ): SettlementJournalRow {
    return testJournalRow(id, {
      signed: { payload, requirements },
      api_id: owner.apiId,
      endpoint_id: owner.endpointId,
      user_id: owner.userId,
      path: `/weather/${id}`,
      chain_epoch: services.sandboxChain.epoch,
      created_at: new Date(Date.now() - 1_000).toISOString(),
      ...overrides,
    })
  }

  test('settled on the chain → recorded as charged without an answer; never sent → removed once past validBefore, kept before (unless the facilitator refused it for good); recorded → marked; another chain → removed', async () => {
    server = (await startSvc({ mode: 'server', dataDir, chain: services, autoVerify: true, log: () => {} })).server
    // The seller, the API and its endpoints, made through the control plane of this data dir.
    const control = `${server.sandboxControlUrl}`
    const post = async (path: string, body: unknown, jwt?: string) => {
      const response = await localFetch(`${control}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(jwt ? { authorization: `Bearer ${jwt}` } : {}) },
        body: JSON.stringify(body),
      })
      return (await response.json()) as any
    }
    const signup = await post('/auth/signup', { email: 'journal@example.test', password: 'correct horse battery' })
    const payTo = newAccount().address
    const api = await post(
      '/apis',
      {
        name: 'Journal',
        slug: 'journal',
        upstream_base_url: upstream.url,
        pay_to_mode: 'user_wallet',
        pay_to_address: payTo,
      },
      signup.token,
    )
    const endpoint = await post(
      `/apis/${api.id}/endpoints`,
      {
        method: 'GET',
        path_pattern: '/weather/{city}',
        accepts: [sandboxAccept(services)],
        request_schema: { type: 'object' },
        response_schema: { type: 'object' },
      },
      signup.token,
    )
    const ephemeral = await post(
      `/apis/${api.id}/endpoints`,
      {
        method: 'GET',
        path_pattern: '/once',
        ttl: 600,
        accepts: [sandboxAccept(services)],
        request_schema: { type: 'object' },
        response_schema: { type: 'object' },
      },
      signup.token,
    )
    expect(ephemeral.id).toBeTruthy()
    const owner = { userId: signup.user.id as string, apiId: api.id as string, endpointId: endpoint.id as string }
    await server.stop()
    server = undefined

    // What a crash leaves: payments half done. Two were settled on the chain (one of the ephemeral endpoint), one was
    // never sent, one was recorded but its answer never written, one was paid on a chain that is gone.
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '1')
    const requirements = sandboxRequirements(services.sandboxChain, { payTo })
    const facilitator = new HTTPFacilitatorClient({ url: services.facilitatorUrl })
    const settledPayload = await signPayment(services.sandboxChain, buyer, requirements)
    const settled = await facilitator.settle(settledPayload, requirements)
    expect(settled.success).toBe(true)
    const ephemeralPayload = await signPayment(services.sandboxChain, buyer, requirements)
    const ephemeralSettled = await facilitator.settle(ephemeralPayload, requirements)
    expect(ephemeralSettled.success).toBe(true)
    const unsent = await signPayment(services.sandboxChain, buyer, requirements)
    const unsentInWindow = await signPayment(services.sandboxChain, buyer, requirements)
    const refusedInWindow = await signPayment(services.sandboxChain, buyer, requirements)
    const recorded = await signPayment(services.sandboxChain, buyer, requirements)
    const otherChain = await signPayment(services.sandboxChain, buyer, requirements)

    const database = await openDatabase(join(dataDir, 'svc.sqlite'))
    await database.db
      .insertInto('settlements')
      .values({
        id: 'stl_recorded',
        api_id: owner.apiId,
        endpoint_id: owner.endpointId,
        user_id: owner.userId,
        environment: 'development',
        network: requirements.network,
        asset: requirements.asset,
        amount: requirements.amount,
        payer: buyer.address,
        pay_to: payTo,
        transaction: `0x${'ab'.repeat(32)}`,
        method: 'GET',
        path: '/weather/recorded',
        // Older than the settlements on the chain: the start's check of the newest ones (server/journal/
        // missing-settlements.ts) stops at those, and leaves this made-up transaction alone.
        created_at: new Date(Date.now() - 60_000).toISOString(),
        chain_epoch: services.sandboxChain.epoch,
      })
      .execute()
    await database.db
      .insertInto('settlement_journal')
      .values([
        journalRow('jrn_settled', settledPayload, requirements, owner),
        journalRow(
          'jrn_ephemeral',
          ephemeralPayload,
          requirements,
          { ...owner, endpointId: ephemeral.id },
          { ephemeral: 1, path: '/once' },
        ),
        // Past its validBefore: unused for good. Within it: a facilitator may still send it, so it is kept.
        journalRow('jrn_unsent', unsent, requirements, owner, { valid_before: '1' }),
        journalRow('jrn_unsent_in_window', unsentInWindow, requirements, owner),
        // Within it, but the facilitator said the settlement failed for good: unused is final at once.
        journalRow('jrn_refused_in_window', refusedInWindow, requirements, owner, { state: 'refused' }),
        journalRow('jrn_recorded', recorded, requirements, owner, { settlement_id: 'stl_recorded' }),
        journalRow('jrn_other_chain', otherChain, requirements, owner, { chain_epoch: 'feedfacefeedface' }),
      ])
      .execute()
    await database.close()

    const logs: string[] = []
    server = (
      await startSvc({ mode: 'server', dataDir, chain: services, autoVerify: true, log: (line) => logs.push(line) })
    ).server
    const after = server.database.db
    expect(await after.selectFrom('settlement_journal').select('id').execute()).toEqual([
      { id: 'jrn_unsent_in_window' },
    ])
    const settlements = await after
      .selectFrom('settlements')
      .selectAll()
      .where('api_id', '=', owner.apiId)
      .orderBy('path')
      .execute()
    expect(settlements.map((s) => [s.path, s.transaction, s.delivered, s.endpoint_id])).toEqual([
      ['/once', ephemeralSettled.transaction as Hex, 0, null],
      ['/weather/jrn_settled', settled.transaction as Hex, 0, owner.endpointId],
      ['/weather/recorded', `0x${'ab'.repeat(32)}`, 0, owner.endpointId],
    ])
    expect(
      settlements.every(
        (s) => s.payer === buyer.address && s.amount === '10000' && s.chain_epoch === services.sandboxChain.epoch,
      ),
    ).toBe(true)
    // The ephemeral endpoint was paid for: it is gone, as after a settlement that completed.
    expect(
      await after.selectFrom('endpoints').select('id').where('id', '=', ephemeral.id).executeTakeFirst(),
    ).toBeUndefined()
    expect(logs.join('\n')).toMatch(/3 payment\(s\) were charged without the buyer getting the answer/)
    expect(logs.join('\n')).toMatch(/jrn_other_chain .*the Sandbox chain it was paid on is gone/)
  })
})
