/**
 * extra.paymentFlow "upfront" (@x402/core's PAYMENT_FLOWS.upfront): the gateway settles, then calls the upstream. The
 * official @x402/fetch client pays; the upstream sees the request only once the settlement is on the chain; an
 * upstream failure after the settlement is answered with the PAYMENT-RESPONSE, told to the stream as charged, and
 * recorded as charged and not delivered.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { localFetch } from '../../../sdk/local-fetch.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  payingFetch,
  sandboxAccept,
  startGatewayStack,
  usdcBalance,
  type GatewayStack,
  type Seller,
} from './helpers.js'
import { openTestEventStream } from '../../helpers/event-stream.js'

let stack: GatewayStack
let seller: Seller
let api: Awaited<ReturnType<typeof createApi>>
/** What the upstream saw: the path and the seller's balance when the request arrived. */
const seen: { path: string; balance: bigint }[] = []
const held: ServerResponse[] = []
let upstream: { url: string; stop(): Promise<void> }

beforeAll(async () => {
  stack = await startGatewayStack()
  seller = await newSeller(stack.t)
  const server = createServer(async (req, res) => {
    const path = req.url!.split('?')[0]!
    seen.push({ path, balance: await usdcBalance(stack.services, seller.payTo) })
    if (path.startsWith('/hold/')) return void held.push(res)
    if (path.startsWith('/down/')) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{}')
    if (path.startsWith('/missing/'))
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such thing"}')
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: path }))
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  upstream = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  api = await createApi(stack.t, seller, upstream.url)
  for (const prefix of ['ok', 'down', 'missing', 'hold'])
    await addEndpoint(stack.t, seller, api.id, {
      method: 'GET',
      path_pattern: `/${prefix}/{id}`,
      accepts: [{ ...sandboxAccept(stack.services, '10000'), extra: { paymentFlow: 'upfront' } }],
    })
})
afterAll(async () => {
  for (const res of held) res.destroy()
  await upstream?.stop()
  await stack?.stop()
})

const db = () => stack.t.server.database.db
const settlementsOf = (apiId: string) =>
  db().selectFrom('settlements').selectAll().where('api_id', '=', apiId).orderBy('created_at').execute()

const openEvents = () =>
  openTestEventStream({
    baseUrl: stack.t.server.sandboxControlUrl,
    headers: { authorization: `Bearer ${seller.jwt}`, 'x-svc-environment': 'development' },
  })

describe('the control plane', () => {
  test('takes paymentFlow authorization and upfront; escrow, unknown flows and upto upfront are 400s that say why', async () => {
    const post = (accept: unknown) =>
      stack.t.call(`/apis/${api.id}/endpoints`, {
        jwt: seller.jwt,
        environment: 'development',
        body: { method: 'GET', path_pattern: `/x/${Math.random().toString(36).slice(2)}`, accepts: [accept] },
      })
    const accept = sandboxAccept(stack.services)
    const escrow = await post({ ...accept, extra: { paymentFlow: 'escrow' } })
    expect(escrow.status).toBe(400)
    expect(escrow.body.error).toContain("escrow is the auth-capture scheme's flow")
    const unknown = await post({ ...accept, extra: { paymentFlow: 'later' } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toContain('must be one of authorization, upfront')
    const upto = await post({ ...accept, scheme: 'upto', extra: { paymentFlow: 'upfront' } })
    expect(upto.status).toBe(400)
    expect(upto.body.error).toContain('cannot be paid upfront')
    const explicit = await post({ ...accept, extra: { paymentFlow: 'authorization' } })
    expect(explicit.status).toBe(201)
  })
})

describe('an upfront endpoint', () => {
  test('its 402 and its OpenAPI document say upfront', async () => {
    const probe = await localFetch(`${api.gateway}/ok/1`)
    expect(probe.status).toBe(402)
    const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
    expect(required.accepts[0]!.extra).toMatchObject({ paymentFlow: 'upfront', assetTransferMethod: 'eip3009' })
    const document = (await (await localFetch(`${api.gateway}/openapi.json`)).json()) as any
    expect(document.paths['/ok/{id}'].get['x-payment-flow']).toBe('upfront')
  })

  test('@x402/fetch pays it; the upstream sees the request only after the settlement is on the chain', async () => {
    const before = await usdcBalance(stack.services, seller.payTo)
    const response = await payingFetch(stack.services, stack.buyer)(`${api.gateway}/ok/first`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: '/ok/first' })
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(settled.success).toBe(true)
    expect(seen.find((call) => call.path === '/ok/first')?.balance).toBe(before + 10000n)
    const [row] = (await settlementsOf(api.id)).filter((s) => s.path === '/ok/first')
    expect(row).toMatchObject({ transaction: settled.transaction, delivered: 1 })
  })

  test('an upstream 5xx after the settlement: the buyer gets a 502 with the PAYMENT-RESPONSE; charged, not delivered, told', async () => {
    const events = await openEvents()
    try {
      const before = await usdcBalance(stack.services, stack.buyer.address)
      const response = await payingFetch(stack.services, stack.buyer)(`${api.gateway}/down/1`)
      expect(response.status).toBe(502)
      const body = (await response.json()) as { error: string }
      const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
      expect(settled).toMatchObject({ success: true, payer: stack.buyer.address })
      expect(body.error).toBe(
        `the upstream answered 503; the payment was settled upfront (transaction ${settled.transaction}) and the answer was not delivered`,
      )
      expect(await usdcBalance(stack.services, stack.buyer.address)).toBe(before - 10000n)
      const failed = await events.until('upstream.failed')
      expect(failed).toMatchObject({ charged: true, status: 502, transaction: settled.transaction, path: '/down/1' })
      await vi.waitFor(async () => {
        const [row] = (await settlementsOf(api.id)).filter((s) => s.path === '/down/1')
        expect(row).toMatchObject({ transaction: settled.transaction, delivered: 0 })
      })
    } finally {
      events.close()
    }
  })

  test('an upstream 4xx after the settlement reaches the buyer with the PAYMENT-RESPONSE; recorded as not delivered', async () => {
    const response = await payingFetch(stack.services, stack.buyer)(`${api.gateway}/missing/1`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such thing' })
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(settled.success).toBe(true)
    await vi.waitFor(async () => {
      const [row] = (await settlementsOf(api.id)).filter((s) => s.path === '/missing/1')
      expect(row).toMatchObject({ transaction: settled.transaction, delivered: 0 })
    })
  })

  test('while the upstream works, the settlement is recorded and its journal row names it: a crash now is booked undelivered at the next start', async () => {
    const pending = payingFetch(stack.services, stack.buyer)(`${api.gateway}/hold/1`)
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 10_000 })
    const [row] = (await settlementsOf(api.id)).filter((s) => s.path === '/hold/1')
    expect(row).toBeDefined()
    // The state a kill -9 leaves; recovery marks such a row's settlement undelivered (test/server/journal/journal.test.ts).
    const journal = await db().selectFrom('settlement_journal').selectAll().where('path', '=', '/hold/1').execute()
    expect(journal).toEqual([expect.objectContaining({ settlement_id: row!.id })])
    held[0]!.writeHead(200, { 'content-type': 'application/json' }).end('{"late":true}')
    const response = await pending
    expect(response.status).toBe(200)
    await vi.waitFor(async () => {
      expect(await db().selectFrom('settlement_journal').selectAll().where('path', '=', '/hold/1').execute()).toEqual(
        [],
      )
    })
    const [after] = (await settlementsOf(api.id)).filter((s) => s.path === '/hold/1')
    expect(after!.delivered).toBe(1)
  })
})
