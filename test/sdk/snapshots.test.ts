import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { x402Client, x402HTTPClient } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createSvcClient } from '../../sdk/client.js'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { createSellerApi, serverUrl } from '../helpers/seller-api.js'

// One sandbox for the file; every test starts from the same snapshot (taken once, reverted to after each test).
let sandbox: TestSandbox
let upstream: Server
let initial: string
let apiId: string
const slug = 'snap-api'

beforeAll(async () => {
  upstream = createServer((req, res) =>
    res.setHeader('content-type', 'application/json').end(JSON.stringify({ path: req.url })),
  )
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  sandbox = await startSandbox()
  const { api } = await createSellerApi(sandbox, {
    slug,
    name: 'Snap',
    upstreamUrl: serverUrl(upstream),
    endpoints: [{ path_pattern: '/paid', accepts: [accept(10_000)] }],
  })
  apiId = api.id
  initial = await sandbox.snapshot()
})
afterEach(() => sandbox.revert(initial))
afterAll(async () => {
  await sandbox?.stop()
  upstream?.close()
})

const accept = (amount: number, maxTimeoutSeconds = 300) => ({
  scheme: 'exact' as const,
  network: sandbox.network,
  asset: sandbox.usdc.address,
  amount: String(amount),
  max_timeout_seconds: maxTimeoutSeconds,
})
const session = () =>
  createSvcClient({ baseUrl: sandbox.sandboxControlUrl, jwt: sandbox.seller.jwt, environment: 'development' })
const usdcOf = async (address: string) => BigInt((await session().sandbox.balances(address)).usdc_base)

describe('snapshots: startSandbox().snapshot() / revert(id)', () => {
  test('a payment and everything the seller made after the snapshot are gone after the revert; chain and ledger agree', async () => {
    const before = await usdcOf(sandbox.buyer.address)
    const paid = await sandbox.buyer.fetch(`${sandbox.gatewayUrl(slug)}/paid`)
    expect(paid.status).toBe(200)
    await sandbox.seller.client.apis.create({
      name: 'Later',
      slug: 'later-api',
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    })
    expect((await sandbox.seller.client.settlements.list({})).settlements).toHaveLength(1)
    expect(await usdcOf(sandbox.buyer.address)).toBe(before - 10_000n)

    await sandbox.revert(initial)
    expect((await sandbox.seller.client.settlements.list({})).settlements).toHaveLength(0)
    expect(await usdcOf(sandbox.buyer.address)).toBe(before)
    expect((await sandbox.seller.client.apis.list()).map((api) => api.slug)).toEqual([slug])
  })

  test('the same snapshot can be reverted to again and again, with payments in between (the relayer re-reads its nonce)', async () => {
    const before = await usdcOf(sandbox.buyer.address)
    for (let round = 0; round < 3; round++) {
      const paid = await sandbox.buyer.fetch(`${sandbox.gatewayUrl(slug)}/paid`)
      expect(paid.status).toBe(200)
      expect((await sandbox.seller.client.settlements.list({})).settlements).toHaveLength(1)
      await sandbox.revert(initial)
      expect(await usdcOf(sandbox.buyer.address)).toBe(before)
    }
  })

  test('a one-time endpoint used up after the snapshot is there again after the revert', async () => {
    const endpoint = await sandbox.seller.client.endpoints.create(apiId, {
      method: 'GET',
      path_pattern: '/once',
      accepts: [accept(5_000)],
      ttl: 3600,
    })
    const inner = await sandbox.snapshot()
    expect((await sandbox.buyer.fetch(`${sandbox.gatewayUrl(slug)}/once`)).status).toBe(200)
    expect((await sandbox.buyer.fetch(`${sandbox.gatewayUrl(slug)}/once`)).status).toBe(410)
    await sandbox.revert(inner)
    expect((await sandbox.seller.client.endpoints.get(apiId, endpoint.id)).id).toBe(endpoint.id)
    expect((await sandbox.buyer.fetch(`${sandbox.gatewayUrl(slug)}/once`)).status).toBe(200)
  })

  test('a revert discards the snapshots taken after it; an unknown id is 404', async () => {
    const client = createSvcClient({ baseUrl: sandbox.sandboxControlUrl })
    const later = await sandbox.snapshot()
    await sandbox.revert(initial)
    await expect(client.snapshots.revert(later)).rejects.toMatchObject({
      status: 409,
      message: `snapshot ${later} was discarded by the revert to the earlier snapshot ${initial}`,
    })
    await expect(client.snapshots.revert('snap_nope')).rejects.toMatchObject({
      status: 404,
      message: 'snapshot not found',
    })
    expect((await client.snapshots.list()).map((snapshot) => snapshot.id)).toContain(initial)
  })

  test('the routes are for direct local callers on the Sandbox control plane only', async () => {
    const production = createSvcClient({ baseUrl: sandbox.controlUrl })
    await expect(production.snapshots.take()).rejects.toMatchObject({
      status: 403,
      message: `snapshots: for the Sandbox only (call ${sandbox.sandboxControlUrl})`,
    })
    await expect(production.time.advance(10)).rejects.toMatchObject({
      status: 403,
      message: `time travel: for the Sandbox only (call ${sandbox.sandboxControlUrl})`,
    })
    // A request the gateway forwarded comes from loopback too, but bears the gateway's header.
    const forwarded = await sandbox.fetch(`${sandbox.sandboxControlUrl}/dev/snapshots`, {
      method: 'POST',
      headers: { 'x-svc-via-gateway': '1' },
    })
    expect({ status: forwarded.status, body: await forwarded.json() }).toEqual({
      status: 403,
      body: { error: 'snapshots: from this machine only' },
    })
  })
})

describe('time travel: startSandbox().advanceTime(seconds)', () => {
  test('moves the chain and svc together; the revert puts both back', async () => {
    const start = await sandbox.time()
    const moved = await sandbox.advanceTime(3600)
    expect(moved.offset_seconds).toBe(start.offset_seconds + 3600)
    expect(moved.chain_time).toBeGreaterThanOrEqual(start.chain_time + 3600)
    expect(Math.abs(moved.chain_time - Date.parse(moved.svc_time) / 1000)).toBeLessThan(5)
    await sandbox.revert(initial)
    const back = await sandbox.time()
    expect(back.offset_seconds).toBe(start.offset_seconds)
    expect(Math.abs(back.chain_time - Date.parse(back.svc_time) / 1000)).toBeLessThan(5)
  })

  test('a ttl endpoint has expired', async () => {
    const endpoint = await sandbox.seller.client.endpoints.create(apiId, {
      method: 'GET',
      path_pattern: '/brief',
      accepts: [accept(1_000)],
      ttl: 60,
    })
    expect((await sandbox.fetch(`${sandbox.gatewayUrl(slug)}/brief`)).status).toBe(402)
    await sandbox.advanceTime(61)
    expect((await sandbox.fetch(`${sandbox.gatewayUrl(slug)}/brief`)).status).toBe(404)
    await expect(sandbox.seller.client.endpoints.get(apiId, endpoint.id)).rejects.toMatchObject({
      status: 404,
      message: 'endpoint not found',
    })
  })

  test('a payment signed before the advance, whose validBefore has passed, is refused with the scheme reason', async () => {
    const url = `${sandbox.gatewayUrl(slug)}/paid`
    const network = sandbox.network as `${string}:${string}`
    const buyer = new x402Client().register(network, new ExactEvmScheme(privateKeyToAccount(sandbox.buyer.privateKey)))
    buyer.setSpendControls({
      allowedAssets: [{ network, asset: sandbox.usdc.address, maxAmountPerPayment: '10000000' }],
    })
    const http = new x402HTTPClient(buyer)
    const offered = await sandbox.fetch(url)
    expect(offered.status).toBe(402)
    const paymentRequired = http.getPaymentRequiredResponse(
      (name) => offered.headers.get(name),
      await offered.json().catch(() => undefined),
    )
    const payload = await buyer.createPaymentPayload(paymentRequired)
    const validBefore = Number(
      (payload.payload as { authorization: { validBefore: string } }).authorization.validBefore,
    )
    const time = await sandbox.time()
    await sandbox.advanceTime(validBefore - Math.floor(Date.parse(time.svc_time) / 1000) + 1)

    const before = await usdcOf(sandbox.buyer.address)
    const refused = await sandbox.fetch(url, { headers: http.encodePaymentSignatureHeader(payload) })
    expect(refused.status).toBe(402)
    const answer = http.getPaymentRequiredResponse(
      (name) => refused.headers.get(name),
      await refused.json().catch(() => undefined),
    )
    expect(answer.error).toContain('invalid_exact_evm_payload_authorization_valid_before')
    expect(await usdcOf(sandbox.buyer.address)).toBe(before)
    expect((await sandbox.seller.client.settlements.list({})).settlements).toHaveLength(0)
  })

  test('a session JWT past its lifetime is refused; the revert makes it good again', async () => {
    expect((await session().auth.me()).user.email).toBe(sandbox.seller.email)
    await sandbox.advanceTime(8 * 24 * 3600)
    await expect(session().auth.me()).rejects.toMatchObject({
      status: 401,
      message: 'session expired: log in again (`svc login`, with --sandbox for the Sandbox; or POST /auth/login)',
    })
    await sandbox.revert(initial)
    expect((await session().auth.me()).user.email).toBe(sandbox.seller.email)
  })
})
