/**
 * Claims across processes (issue 26 item 3): two gateway servers on one PostgreSQL database and one Sandbox chain,
 * each with its own process owner (its own pool and liveness connection), as two `svc serve` processes are. A payment
 * is one request whichever process it reaches: one upstream call, one settlement; a one-time endpoint serves one
 * payment and is 410 through both after; a refused payment leaves no claim behind; a payment-identifier id runs on
 * one process at a time (the other answers 409 in flight), and one a dead process held is taken over.
 */
import {
  decodePaymentRequiredHeader,
  decodePaymentSignatureHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http'
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import { newAccount } from '../../helpers/payments.js'
import { postgresAvailable, startPostgres, type TestPostgres } from '../../helpers/postgres.js'
import {
  addEndpoint,
  buyerClient,
  createApi,
  errorOf,
  newSeller,
  sandboxAccept,
  signedPaymentFor,
  usdcBalance,
} from './helpers.js'
import type { LocalAccount } from 'viem'
import { postgresPaymentIdClaims } from '../../../server/db/payment-id-claims.js'
import { processOwnerOf } from '../../../server/db/process-owner.js'
import { startJournalReaper } from '../../../server/cluster/reaper.js'
import { resolveSettlementJournal } from '../../../server/journal/recovery.js'
import { releaseDroppedSettlement } from '../../../server/cluster/dropped-settlement.js'
import { buildJournalRow } from '../../../server/journal/journal.js'
import { orphanedPayment } from '../../../server/cluster/payment-claims.js'
import { paymentIdentity } from '../../../server/payments/identifier.js'
import { resolveChannelActions, resolveChannelJournalRow } from '../../../server/channels/index.js'
import { type GatedUpstream, startGatedUpstream } from './gated-upstream.js'

// Where PostgreSQL is missing outside CI the file is skipped, as test/helpers/postgres.ts's testDialects does.
const runs = postgresAvailable() || Boolean(process.env.CI)

let postgres: TestPostgres
let services: ChainServices
let a: TestServer
let b: TestServer
let upstream: GatedUpstream

beforeAll(async () => {
  if (!runs) return
  ;[postgres, services, upstream] = await Promise.all([startPostgres(), startChainServices(), startGatedUpstream()])
  const databaseUrl = await postgres.createDatabase()
  // The first migrates; the second opens the migrated database. Their reapers look once an hour: a test that needs
  // one drives it (a reaper looks four times a second, sooner than a test's next request).
  a = await startTestServer({ chain: services, databaseUrl, reapEveryMs: 3_600_000 })
  b = await startTestServer({ chain: services, databaseUrl, reapEveryMs: 3_600_000 })
}, 120_000)
afterAll(async () => {
  await b?.stop()
  await a?.stop()
  await upstream?.stop()
  await services?.stop()
  await postgres?.stop()
})

/** The gateway URL of an API on server `t` (both serve every API: one database). */
const on = (t: TestServer, slug: string) => t.gatewayUrl(slug, 'development')

async function sellerApi(endpoint: { path_pattern: string; ttl?: number; amount?: string }) {
  const seller = await newSeller(a)
  const api = await createApi(a, seller, upstream.url)
  await addEndpoint(a, seller, api.id, {
    method: 'GET',
    path_pattern: endpoint.path_pattern,
    accepts: [sandboxAccept(services, endpoint.amount)],
    ...(endpoint.ttl === undefined ? {} : { ttl: endpoint.ttl }),
  })
  const settlements = () =>
    a.server.database.db.selectFrom('settlements').selectAll().where('api_id', '=', api.id).execute()
  return { seller, api, settlements }
}

const journalRows = () => a.server.database.db.selectFrom('settlement_journal').selectAll().execute()

describe.skipIf(!runs)('claims on PostgreSQL, two gateway servers on one database', () => {
  test('one signed payment sent to both at once: one upstream call, one settlement, the other refused as in use', async () => {
    const { api, settlements } = await sellerApi({ path_pattern: '/gate/{id}' })
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '1')
    const signature = await signedPaymentFor(services, buyer, `${on(a, api.slug)}/gate/once`)
    const calls = upstream.calls
    const before = await usdcBalance(services, buyer.address)

    // The winner waits at the upstream's gate until the loser was answered: their claims overlap, whichever wins.
    upstream.hold()
    const answers = [a, b].map((t) =>
      localFetch(`${on(t, api.slug)}/gate/once`, { headers: { 'payment-signature': signature } }),
    )
    const refused = await Promise.race(answers)
    expect(refused.status).toBe(402)
    expect(await errorOf(refused)).toBe('this payment is already being used by another request')
    await vi.waitFor(() => expect(upstream.calls).toBe(calls + 1))
    upstream.open()
    const served = (await Promise.all(answers)).find((answer) => answer !== refused)!
    expect(served.status).toBe(200)
    await served.arrayBuffer()

    expect(upstream.calls).toBe(calls + 1)
    expect(await settlements()).toHaveLength(1)
    expect(await usdcBalance(services, buyer.address)).toBe(before - 10000n)
    // The claim was the journal row; it is gone once the answer is written.
    await vi.waitFor(async () => expect(await journalRows()).toEqual([]))
  })

  test('a one-time endpoint: two buyers through both at once, one served and charged; then 410 through both', async () => {
    const { seller, api, settlements } = await sellerApi({ path_pattern: '/gate/{id}', ttl: 300, amount: '50000' })
    const buyers = [newAccount(), newAccount()]
    for (const buyer of buyers) await services.manager.fund(buyer.address, 'usdc', '1')
    const signatures = await Promise.all(
      buyers.map((buyer) => signedPaymentFor(services, buyer, `${on(a, api.slug)}/gate/one-time`)),
    )

    upstream.hold()
    const answers = [a, b].map((t, i) =>
      localFetch(`${on(t, api.slug)}/gate/one-time`, { headers: { 'payment-signature': signatures[i]! } }),
    )
    const refused = await Promise.race(answers)
    expect(refused.status).toBe(402)
    expect(await errorOf(refused)).toBe(
      'this one-time endpoint is being paid for by another request; it is gone if that payment settles',
    )
    upstream.open()
    const served = (await Promise.all(answers)).find((answer) => answer !== refused)!
    expect(served.status).toBe(200)
    await served.arrayBuffer()

    expect(await settlements()).toHaveLength(1)
    expect(await usdcBalance(services, seller.payTo)).toBe(50000n)
    for (const t of [a, b]) {
      const after = await localFetch(`${on(t, api.slug)}/gate/one-time`)
      expect(after.status).toBe(410)
      expect(await after.json()).toEqual({ error: 'this one-time endpoint was used up by an earlier payment' })
    }
    // A payment signed before it was used up is refused 410 too, and charges nothing.
    const late = await localFetch(`${on(b, api.slug)}/gate/one-time`, {
      headers: { 'payment-signature': signatures[0]! },
    })
    expect(late.status).toBe(410)
    expect(await settlements()).toHaveLength(1)
  })

  test('a payment refused by the facilitator leaves no claim: corrected (the buyer funded), it is served through the other', async () => {
    const { settlements, api } = await sellerApi({ path_pattern: '/gate/{id}' })
    const buyer = newAccount()
    const signature = await signedPaymentFor(services, buyer, `${on(a, api.slug)}/gate/retry`)
    const calls = upstream.calls

    const refused = await localFetch(`${on(a, api.slug)}/gate/retry`, { headers: { 'payment-signature': signature } })
    expect(refused.status).toBe(402)
    expect(await errorOf(refused)).toMatch(/insufficient_balance/)
    expect(await journalRows()).toEqual([])

    await services.manager.fund(buyer.address, 'usdc', '1')
    const served = await localFetch(`${on(b, api.slug)}/gate/retry`, { headers: { 'payment-signature': signature } })
    expect(served.status).toBe(200)
    await served.arrayBuffer()
    expect(upstream.calls).toBe(calls + 1)
    expect(await settlements()).toHaveLength(1)
  })
})

describe.skipIf(!runs)('a settlement the facilitator refuses for good, on PostgreSQL', () => {
  test('its row is marked refused, and freed at once though its validBefore is minutes away', async () => {
    const { api, settlements } = await sellerApi({ path_pattern: '/gate/{id}' })
    const buyer = newAccount()
    // Enough for one payment: both verify, both reach the upstream, the second's settle finds the balance gone.
    await services.manager.fund(buyer.address, 'usdc', '0.01')
    const signatures = [
      await signedPaymentFor(services, buyer, `${on(a, api.slug)}/gate/one`),
      await signedPaymentFor(services, buyer, `${on(a, api.slug)}/gate/two`),
    ]
    const calls = upstream.calls
    upstream.hold()
    const answers = [a, b].map((t, i) =>
      localFetch(`${on(t, api.slug)}/gate/${i === 0 ? 'one' : 'two'}`, {
        headers: { 'payment-signature': signatures[i]! },
      }),
    )
    await vi.waitFor(() => expect(upstream.calls).toBe(calls + 2))
    upstream.open()
    const results = await Promise.all(answers)
    expect(results.map((answer) => answer.status).sort()).toEqual([200, 402])
    const refusedBy = results.findIndex((answer) => answer.status === 402)
    expect(await errorOf(results[refusedBy]!)).toMatch(/^the payment could not be settled: invalid_exact_evm_/)
    expect(await settlements()).toHaveLength(1)

    const refuser = [a, b][refusedBy]!.server.database.db
    const rows = await journalRows()
    expect(rows.map((row) => [row.state, row.owner])).toEqual([['refused', processOwnerOf(refuser).id]])
    expect(Number(rows[0]!.valid_before)).toBeGreaterThan(Date.now() / 1000 + 60)
    // The sweeper of its process (or the reaper, were it gone) finds it unused on the chain: freed now.
    const resolved = await resolveSettlementJournal({ db: refuser, chain: services, log: () => {} } as never)
    expect(resolved).toMatchObject({ notSettled: 1, kept: 0 })
    expect(await journalRows()).toEqual([])
  })
})

/** A payment of its own (a new authorization) for `url` carrying the payment-identifier `paymentId`. */
async function paymentWithId(buyer: LocalAccount, url: string, paymentId: string): Promise<string> {
  const probe = await localFetch(url)
  await probe.arrayBuffer()
  const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
  required.extensions ??= {}
  appendPaymentIdentifierToExtensions(required.extensions, paymentId)
  return encodePaymentSignatureHeader(await buyerClient(services, buyer).createPaymentPayload(required))
}

const idClaims = () => a.server.database.db.selectFrom('payment_id_claims').selectAll().execute()

describe.skipIf(!runs)('payment-identifier ids in flight on PostgreSQL, two gateway servers on one database', () => {
  test('two payments with one id sent to both at once: one runs, the other is told the id is in flight; its retry gets the kept answer', async () => {
    const { api, settlements } = await sellerApi({ path_pattern: '/gate/{id}' })
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '1')
    const paymentId = generatePaymentId()
    const url = (t: TestServer) => `${on(t, api.slug)}/gate/idem`
    // Two authorizations (a buyer retrying after a timeout signs anew): only the id says they are one request.
    const signatures = [await paymentWithId(buyer, url(a), paymentId), await paymentWithId(buyer, url(a), paymentId)]
    const calls = upstream.calls
    const before = await usdcBalance(services, buyer.address)

    upstream.hold()
    const answers = [a, b].map((t, i) => localFetch(url(t), { headers: { 'payment-signature': signatures[i]! } }))
    const refused = await Promise.race(answers)
    expect(refused.status).toBe(409)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(await errorOf(refused)).toBe(
      'a payment with this payment-identifier id is still in flight; retry when it is answered',
    )
    await vi.waitFor(() => expect(upstream.calls).toBe(calls + 1))
    expect(await idClaims()).toHaveLength(1)
    upstream.open()
    const results = await Promise.all(answers)
    const served = results.find((answer) => answer !== refused)!
    expect(served.status).toBe(200)
    const body = await served.text()
    await vi.waitFor(async () => expect(await idClaims()).toEqual([]))

    // The refused one retried through the same process: the answer the other kept, no second charge.
    const loser = results.indexOf(refused)
    const retried = await localFetch(url([a, b][loser]!), { headers: { 'payment-signature': signatures[loser]! } })
    expect(retried.status).toBe(200)
    expect(await retried.text()).toBe(body)
    expect(upstream.calls).toBe(calls + 1)
    expect(await settlements()).toHaveLength(1)
    expect(await usdcBalance(services, buyer.address)).toBe(before - 10000n)
  })

  test('an id claimed by a process that is gone is taken over at once; a live holder keeps it', async () => {
    const key = { apiId: 'api_x', payer: '0xabc', paymentId: generatePaymentId() }
    await a.server.database.db
      .insertInto('payment_id_claims')
      .values({
        api_id: key.apiId,
        payer: key.payer,
        payment_id: key.paymentId,
        request_key: 'asked',
        claimed_by: 'proc_gone_long_ago',
        claimed_until: new Date(Date.now() + 300_000),
      })
      .execute()
    const onA = postgresPaymentIdClaims(a.server.database.db, processOwnerOf(a.server.database.db))
    const onB = postgresPaymentIdClaims(b.server.database.db, processOwnerOf(b.server.database.db))
    expect(await onA.claim(key, 'asked')).toEqual({ claimed: true })
    // A is alive: B is refused, and told what A's request asks for.
    expect(await onB.claim(key, 'other')).toEqual({ claimed: false, requestKey: 'asked' })
    await onB.release(key)
    expect(await idClaims()).toHaveLength(1)
    await onA.release(key)
    expect(await onB.claim(key, 'other')).toEqual({ claimed: true })
    await onB.release(key)
    expect(await idClaims()).toEqual([])
  })
})

describe.skipIf(!runs)(
  'a payment sent again after the process that held it died (a load balancer replaying it)',
  () => {
    /** Writes the journal row a process leaves when it dies holding `signature`'s payment, in `state`. */
    async function leftByGoneProcess(signature: string, apiId: string, state: 'claimed' | 'settling') {
      const db = a.server.database.db
      const payload = decodePaymentSignatureHeader(signature)
      const api = await db.selectFrom('apis').selectAll().where('id', '=', apiId).executeTakeFirstOrThrow()
      const endpoint = await db
        .selectFrom('endpoints')
        .selectAll()
        .where('api_id', '=', apiId)
        .executeTakeFirstOrThrow()
      const entry = {
        api,
        endpoint,
        ephemeral: false,
        requirements: payload.accepted,
        payload,
        paymentId: paymentIdentity(payload, payload.accepted),
        payer: (payload.payload as { authorization: { from: string } }).authorization.from,
        method: 'GET',
        path: '/gate/replayed',
        chainEpoch: services.sandboxChain.epoch,
      }
      await db
        .insertInto('settlement_journal')
        .values(buildJournalRow(entry, 'proc_died_mid_payment', state))
        .execute()
    }

    test('503 with Retry-After, not "in use": unsent, the reaper frees it and the retry is served once; sent, given up once it cannot land and paid afresh', async () => {
      const { api, settlements } = await sellerApi({ path_pattern: '/gate/{id}' })
      const buyer = newAccount()
      await services.manager.fund(buyer.address, 'usdc', '1')
      const url = (t: TestServer) => `${on(t, api.slug)}/gate/replayed`
      const replay = (signature: string) => localFetch(url(b), { headers: { 'payment-signature': signature } })
      const calls = upstream.calls
      const before = await usdcBalance(services, buyer.address)

      const unsent = await signedPaymentFor(services, buyer, url(a))
      await leftByGoneProcess(unsent, api.id, 'claimed')
      const waiting = await replay(unsent)
      expect(waiting.status).toBe(503)
      expect(waiting.headers.get('retry-after')).toBe(String(orphanedPayment.claimed.retryAfter))
      expect(await errorOf(waiting)).toBe(orphanedPayment.claimed.message)
      // A live process's reaper finds the holder gone and frees the claim (nothing was sent): the retry is served.
      const reaper = startJournalReaper({ db: a.server.database.db, chain: services, log: () => {} } as never, {
        everyMs: 3_600_000,
        ownerGraceMs: 0,
        resolveChannelActions,
        channelRow: resolveChannelJournalRow,
      })!
      try {
        expect(await reaper.reapOnce()).toEqual(['proc_died_mid_payment'])
      } finally {
        await reaper.close()
      }
      expect(await journalRows()).toEqual([])
      const served = await replay(unsent)
      expect(served.status).toBe(200)
      await served.arrayBuffer()
      expect(upstream.calls).toBe(calls + 1)
      expect(await settlements()).toHaveLength(1)
      expect(await usdcBalance(services, buyer.address)).toBe(before - 10000n)

      // Its settlement was sent: the facilitator may still settle it, so the chain decides; meanwhile the same 503.
      const sent = await signedPaymentFor(services, buyer, url(a))
      await leftByGoneProcess(sent, api.id, 'settling')
      const checking = await replay(sent)
      expect(checking.status).toBe(503)
      expect(checking.headers.get('retry-after')).toBe(String(orphanedPayment.settling.retryAfter))
      expect(await errorOf(checking)).toBe(orphanedPayment.settling.message)
      expect(upstream.calls).toBe(calls + 1)
      // Nothing of it is on the chain, in its pool or at the facilitator: once a settle call sent before the process
      // died has surely reached the facilitator (2 s), a retry gives that settlement up and pays afresh, once; not
      // 503 until its validBefore (minutes).
      expect(Number((await journalRows())[0]!.valid_before)).toBeGreaterThan(Date.now() / 1000 + 60)
      const paid = await vi.waitFor(
        async () => {
          const retried = await replay(sent)
          expect(retried.status).toBe(200)
          return retried
        },
        { timeout: 15_000, interval: 500 },
      )
      await paid.arrayBuffer()
      expect(upstream.calls).toBe(calls + 2)
      expect(await settlements()).toHaveLength(2)
      expect(await usdcBalance(services, buyer.address)).toBe(before - 20000n)
      await vi.waitFor(async () => expect(await journalRows()).toEqual([]))
      // Sent again, it was paid: the replay is the payment used, not a new charge.
      const again = await replay(sent)
      expect(again.status).not.toBe(200)
      expect(await usdcBalance(services, buyer.address)).toBe(before - 20000n)
    })

    test('a settlement the facilitator is still settling is not given up; once its call ended without a transaction, it is', async () => {
      const { api } = await sellerApi({ path_pattern: '/gate/{id}' })
      const buyer = newAccount()
      await services.manager.fund(buyer.address, 'usdc', '1')
      const signature = await signedPaymentFor(services, buyer, `${on(a, api.slug)}/gate/replayed`)
      const payload = decodePaymentSignatureHeader(signature)
      await leftByGoneProcess(signature, api.id, 'settling')
      // Its settle call reached the facilitator before the process died (2 s ago), and is held there by a fault.
      await a.server.database.db
        .updateTable('settlement_journal')
        .set({ created_at: new Date(Date.now() - 3_000).toISOString() })
        .execute()
      await services.faults.add({
        kind: 'settle',
        delayMs: 1_500,
        reason: 'invalid_exact_evm_payload_signature',
        times: 1,
      })
      const settling = services.facilitator.judgeSettle(payload, payload.accepted)
      const deps = { db: b.server.database.db, chain: services, log: () => {} } as never
      const paymentId = paymentIdentity(payload, payload.accepted)
      expect(
        services.facilitator.isSettling(buyer.address, (payload.payload.authorization as { nonce: string }).nonce),
      ).toBe(true)
      expect(await releaseDroppedSettlement(deps, paymentId)).toBe(false)
      expect((await journalRows()).map((row) => row.state)).toEqual(['settling'])
      // Refused without a transaction: nothing it sent can land, and the chain says the authorization is unused.
      expect(await settling).toMatchObject({ success: false })
      expect(await releaseDroppedSettlement(deps, paymentId)).toBe(true)
      expect((await journalRows()).map((row) => row.state)).toEqual(['abandoned'])
      await a.server.database.db.deleteFrom('settlement_journal').execute()
    })
  },
)
