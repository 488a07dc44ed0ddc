import { createPublicClient, http, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createSvcClient, type SvcClient } from '../../sdk/client.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { x402E2eRoutes } from '../../fixtures/x402-e2e-upstream.js'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'
import { fundedBuyer, runClient, type ClientName } from './run-x402.js'

// x402's own e2e clients (their sources, test/x402-e2e/clients/) pointed at `svc up --seed x402-e2e` with their own
// environment variables, on every catalog route the seed serves.
let svc: SvcProcess
let control: SvcClient
const buyers = {} as Record<ClientName, { key: Hex; address: string }>
const gateway = () => `http://x402-e2e.dev.localhost:${svc.ready.gateway_port}`

beforeAll(async () => {
  svc = await startSvcProcess(['--seed', 'x402-e2e'])
  const { seed, sandbox_control_url, chain_manager_url } = svc.ready
  control = createSvcClient({ baseUrl: sandbox_control_url, jwt: seed.jwt, environment: 'development' })
  // Fresh buyers without a Permit2 approval: on Permit2 routes they sign the EIP-2612 permit svc's 402 sponsors.
  buyers.fetch = await fundedBuyer(chain_manager_url)
  buyers.axios = await fundedBuyer(chain_manager_url)
}, 60_000)
afterAll(async () => {
  await svc?.stop()
})

describe('svc up --seed x402-e2e', () => {
  test('finds the shipped seed by name and serves every catalog route the seed lists', () => {
    expect(svc.ready.seed.apis).toEqual([
      expect.objectContaining({ slug: 'x402-e2e', created: true, endpoints_created: x402E2eRoutes.length }),
    ])
  })

  test('each route takes the payment its catalog entry names (scheme, Permit2, the upfront flow)', async () => {
    const [api] = (await control.apis.list()).filter((a) => a.slug === 'x402-e2e')
    const accepts = new Map((await control.endpoints.list(api!.id)).map((e) => [e.path_pattern, e.accepts[0]]))
    expect(accepts.get('/exact/evm/eip3009')).toMatchObject({
      scheme: 'exact',
      amount: '1000',
      extra: { assetTransferMethod: 'eip3009' },
    })
    expect(accepts.get('/exact/evm/permit2/upfront')).toMatchObject({
      scheme: 'exact',
      extra: { assetTransferMethod: 'permit2', paymentFlow: 'upfront' },
    })
    expect(accepts.get('/upto/evm/permit2-eip2612GasSponsoring')).toMatchObject({ scheme: 'upto', amount: '2000' })
  })
})

const matrix = (['fetch', 'axios'] as const).flatMap((client) => x402E2eRoutes.map((route) => ({ client, ...route })))

describe("x402's e2e clients pay svc's gateway", () => {
  test.each(matrix)('$client × $path', { timeout: 60_000 }, async ({ client, path, settle }) => {
    const buyer = buyers[client]
    const result = await runClient(client, {
      RESOURCE_SERVER_URL: gateway(),
      ENDPOINT_PATH: path,
      privateKey: buyer.key,
      rpcUrl: svc.ready.rpc_url,
      network: svc.ready.network,
    })
    expect(result, result.error).toMatchObject({
      success: true,
      status_code: 200,
      data: { message: 'Protected endpoint accessed successfully' },
      payment_response: { success: true, network: 'eip155:845320402', payer: buyer.address },
    })
    expect(result.exitCode).toBe(0)
    const transaction = result.payment_response!.transaction as Hex
    // upto: the upstream's Settlement-Overrides (1,000 of the 2,000 signed for) is what the buyer is told and charged.
    if (settle) expect(result.payment_response!.amount).toBe(settle)

    const chain = createPublicClient({ transport: http(svc.ready.rpc_url) })
    expect((await chain.getTransactionReceipt({ hash: transaction })).status).toBe('success')

    const { settlements } = await control.settlements.list({ limit: 100 })
    expect(settlements.find((row) => row.transaction === transaction)).toMatchObject({
      path,
      payer: buyer.address,
      amount: settle ?? '1000',
      delivered: true,
    })
  })
})

describe('payment flows and sponsoring', () => {
  // An `upfront` accept settles before the upstream is called, so an upstream that fails after the settlement (a path
  // the upstream does not serve: 404) leaves a charge recorded as undelivered.
  test('upfront: an upstream failure after the settlement is charged and recorded undelivered', async () => {
    const [api] = (await control.apis.list()).filter((a) => a.slug === 'x402-e2e')
    const path = '/exact/evm/eip3009/upfront-not-served'
    const { usdc } = await control.config.localDev()
    await control.endpoints.create(api!.id, {
      method: 'GET',
      path_pattern: path,
      accepts: [
        {
          scheme: 'exact',
          network: usdc.network,
          asset: usdc.address,
          amount: '1000',
          extra: { paymentFlow: 'upfront' },
        },
      ],
    })
    const buyer = await fundedBuyer(svc.ready.chain_manager_url)
    await runClient('fetch', {
      RESOURCE_SERVER_URL: gateway(),
      ENDPOINT_PATH: path,
      privateKey: buyer.key,
      rpcUrl: svc.ready.rpc_url,
      network: svc.ready.network,
    })
    const { settlements } = await control.settlements.list({ limit: 100 })
    expect(settlements.find((row) => row.path === path)).toMatchObject({
      payer: buyer.address,
      amount: '1000',
      delivered: false,
    })
  })

  // The catalog's sponsoring routes declare the one extension they are named for, so x402's client (a fresh buyer:
  // no approval) takes that path: a signed approve() svc's facilitator sends, or an EIP-2612 permit.
  test("erc20ApprovalGasSponsoring: the gateway declares it alone on the catalog route, and a fresh buyer's approve() goes on chain", async () => {
    const response = await localFetch(`${gateway()}/exact/evm/permit2-erc20ApprovalGasSponsoring`)
    expect(response.status).toBe(402)
    const required = JSON.parse(Buffer.from(response.headers.get('payment-required')!, 'base64').toString())
    expect(Object.keys(required.extensions)).toContain('erc20ApprovalGasSponsoring')
    expect(Object.keys(required.extensions)).not.toContain('eip2612GasSponsoring')

    const fresh = await fundedBuyer(svc.ready.chain_manager_url)
    const result = await runClient('fetch', {
      RESOURCE_SERVER_URL: gateway(),
      ENDPOINT_PATH: '/exact/evm/permit2-erc20ApprovalGasSponsoring',
      privateKey: fresh.key,
      rpcUrl: svc.ready.rpc_url,
      network: svc.ready.network,
    })
    expect(result, result.error).toMatchObject({ success: true })
    // The buyer's own signed approve() is its first transaction on chain (the facilitator sent it, and its gas).
    const chain = createPublicClient({ transport: http(svc.ready.rpc_url) })
    expect(await chain.getTransactionCount({ address: fresh.address as Hex })).toBe(1)
  })
})
