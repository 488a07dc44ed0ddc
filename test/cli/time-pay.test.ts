import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { createCli, type Cli } from './harness.js'
import { createSellerApi, serverUrl } from '../helpers/seller-api.js'

// Issue 20, item 2: after `svc time advance`, svc's own buyers sign by svc's clock and keep paying; a buyer that signs
// by the machine's clock is told why it was refused; `svc time reset` says what it could move.
let sandbox: TestSandbox
let upstream: Server
let cli: Cli
let url: string

beforeAll(async () => {
  upstream = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"ok":true}'))
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  sandbox = await startSandbox()
  const { gatewayUrl } = await createSellerApi(sandbox, {
    slug: 'clock',
    name: 'Clock',
    upstreamUrl: serverUrl(upstream),
    endpoints: [{ path_pattern: '/tick' }],
  })
  url = `${gatewayUrl}/tick`
  cli = createCli({ SVC_BASE_URL: sandbox.sandboxControlUrl, SVC_EVM_PRIVATE_KEY: sandbox.buyer.privateKey })
})

afterAll(async () => {
  await sandbox?.stop()
  upstream?.close()
})

test('svc time reset on a clock that was never moved: offset 0', async () => {
  const reset = await cli.json(['time', 'reset'])
  expect(reset.offset_seconds).toBe(0)
})

test('after svc time advance 2h, svc pay and startSandbox()s buyer still pay; a machine-clock buyer is told why not', async () => {
  expect((await cli.json(['time', 'advance', '2h'])).offset_seconds).toBe(7200)

  const paid = await cli.spawn(['pay', url])
  expect(paid.stderr).toBe('')
  expect(paid.code).toBe(0)
  expect(paid.stdout).toMatch(/^paid: settled/m)

  expect((await sandbox.buyer.fetch(url)).status).toBe(200)

  // The official client as it comes: it signs by the machine's clock.
  const account = privateKeyToAccount(sandbox.buyer.privateKey)
  const machineBuyer = wrapFetchWithPayment(
    sandbox.fetch,
    new x402Client()
      .register(sandbox.network as `${string}:${string}`, new ExactEvmScheme(account))
      .setSpendControls({ allowedAssets: true }),
  )
  const refused = await machineBuyer(url)
  expect(refused.status).toBe(402)
  const required = decodePaymentRequiredHeader(refused.headers.get('payment-required')!)
  expect(required.error).toMatch(/invalid_exact_evm_payload_authorization_valid_before/)
  expect(required.error).toMatch(/svc's clock is 7200 s ahead of the machine's/)

  // Chain time never goes back: reset keeps svc's clock with the chain's latest block, and says so.
  const reset = await cli.run(['time', 'reset'])
  expect(reset.code).toBe(0)
  expect(reset.stdout).toMatch(/chain time never goes back/)
  const after = await cli.json(['time'])
  expect(after.offset_seconds).toBeGreaterThanOrEqual(7199)
  expect(Date.parse(after.svc_time) / 1000).toBeGreaterThanOrEqual(after.chain_time)
  expect((await cli.spawn(['pay', url])).code).toBe(0)
})
