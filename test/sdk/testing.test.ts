import { createServer } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { describe, expect, test } from 'vitest'
import { startSandbox } from '../../sdk/testing.js'

describe('startSandbox() for users test suites', () => {
  test('two sandboxes at once, each with a seller, a key and a funded buyer who pays a route', async () => {
    const upstream = createServer((req, res) =>
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ path: req.url })),
    )
    upstream.listen(0, '127.0.0.1')
    await once(upstream, 'listening')
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
    const [a, b] = await Promise.all([startSandbox(), startSandbox()])
    try {
      expect(a.port).not.toBe(b.port)
      expect(a.rpcUrl).not.toBe(b.rpcUrl)
      for (const sandbox of [a, b]) {
        const { client } = sandbox.seller
        const api = await client.apis.create({
          name: 'Test',
          slug: 'test-api',
          upstream_base_url: upstreamUrl,
          pay_to_mode: 'user_wallet',
          pay_to_address: '0x000000000000000000000000000000000000bEEF',
        })
        await client.endpoints.create(api.id, {
          method: 'GET',
          path_pattern: '/hello',
          accepts: [{ scheme: 'exact', network: sandbox.network, asset: sandbox.usdc.address, amount: '10000' }],
        })
        const response = await sandbox.buyer.fetch(`${sandbox.gatewayUrl('test-api')}/hello?x=1`)
        expect(response.status).toBe(200)
        expect(await response.json()).toEqual({ path: '/hello?x=1' })
        const { settlements } = await client.settlements.list({})
        expect(settlements).toHaveLength(1)
      }
    } finally {
      await Promise.all([a.stop(), b.stop()])
      upstream.close()
    }
  })

  test('the buyer pays all three ways: exact by EIP-3009, exact by Permit2 (no approval: a sponsored permit), upto', async () => {
    // The upstream meters: it says what a request used in x402's Settlement-Overrides header.
    const upstream = createServer((req, res) => {
      res.setHeader('content-type', 'application/json')
      if (req.url?.startsWith('/metered')) res.setHeader('settlement-overrides', JSON.stringify({ amount: '1234' }))
      res.end(JSON.stringify({ path: req.url }))
    })
    upstream.listen(0, '127.0.0.1')
    await once(upstream, 'listening')
    const sandbox = await startSandbox()
    try {
      const { client } = sandbox.seller
      const api = await client.apis.create({
        name: 'Three',
        slug: 'three',
        upstream_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        pay_to_mode: 'user_wallet',
        pay_to_address: '0x000000000000000000000000000000000000bEEF',
      })
      const accept = (amount: string) => ({
        scheme: 'exact' as const,
        network: sandbox.network,
        asset: sandbox.usdc.address,
        amount,
      })
      await client.endpoints.create(api.id, { method: 'GET', path_pattern: '/eip3009', accepts: [accept('10000')] })
      await client.endpoints.create(api.id, {
        method: 'GET',
        path_pattern: '/permit2',
        accepts: [{ ...accept('20000'), extra: { assetTransferMethod: 'permit2' } }],
      })
      await client.endpoints.create(api.id, {
        method: 'GET',
        path_pattern: '/metered',
        accepts: [{ ...accept('100000'), scheme: 'upto' }],
      })
      for (const path of ['/eip3009', '/permit2', '/metered']) {
        const response = await sandbox.buyer.fetch(`${sandbox.gatewayUrl('three')}${path}`)
        expect(response.status, path).toBe(200)
        expect(response.headers.get('settlement-overrides')).toBeNull()
      }
      const { settlements } = await client.settlements.list({})
      expect(settlements.map((s) => [s.path, s.amount]).sort()).toEqual([
        ['/eip3009', '10000'],
        ['/metered', '1234'],
        ['/permit2', '20000'],
      ])
    } finally {
      await sandbox.stop()
      upstream.close()
    }
  })
})
