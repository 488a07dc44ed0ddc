import { createServer } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { expect, test } from 'vitest'
import { startSandbox } from '../../sdk/testing.js'

test("startSandbox()'s buyer pays a batch-settlement route: one deposit, then vouchers", async () => {
  const upstream = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"ok":true}'))
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  const sandbox = await startSandbox()
  try {
    const { client } = sandbox.seller
    const api = await client.apis.create({
      name: 'Channels',
      slug: 'channels',
      upstream_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    })
    await client.endpoints.create(api.id, {
      method: 'GET',
      path_pattern: '/metered',
      accepts: [{ scheme: 'batch-settlement', network: sandbox.network, asset: sandbox.usdc.address, amount: '1000' }],
    })
    const transactions: string[] = []
    for (let i = 0; i < 3; i++) {
      const response = await sandbox.buyer.fetch(`${sandbox.gatewayUrl('channels')}/metered`)
      expect(response.status).toBe(200)
      transactions.push(decodePaymentResponseHeader(response.headers.get('payment-response')!).transaction)
    }
    expect(transactions[0]).toMatch(/^0x[0-9a-f]{64}$/)
    expect(transactions.slice(1)).toEqual(['', ''])
  } finally {
    await sandbox.stop()
    upstream.close()
  }
})
