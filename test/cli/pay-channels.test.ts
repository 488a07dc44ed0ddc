import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { createCli, type Cli } from './harness.js'

let chain: ChainServices
let t: TestServer
let upstream: Server
let cli: Cli
let gateway: string
const buyerKey = generatePrivateKey()
const buyer = privateKeyToAccount(buyerKey)

beforeAll(async () => {
  chain = await startChainServices()
  t = await startTestServer({ chain })
  upstream = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"ok":true}'))
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  const seller = await t.signup()
  cli = createCli({ SVC_BASE_URL: t.server.sandboxControlUrl, SVC_JWT: seller.jwt })
  const api = await cli.json([
    'apis',
    'create',
    '--name',
    'Metered',
    '--slug',
    `metered-${Date.now()}`,
    '--upstream',
    `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    '--pay-to',
    '0x000000000000000000000000000000000000bEEF',
  ])
  gateway = api.gateway_url
  await cli.json(['endpoints', 'add', api.id, '--path', '/m', '--amount', '1000', '--scheme', 'batch-settlement'])
  await cli.json(['faucet', buyer.address, '--asset', 'usdc', '--amount', '1'])
})
afterAll(async () => {
  await t?.stop()
  upstream?.close()
  await chain?.stop()
})

test('svc pay pays a batch-settlement route: a deposit first, then vouchers from the channel it keeps', async () => {
  const env = { SVC_EVM_PRIVATE_KEY: buyerKey }
  const first = await cli.run(['pay', `${gateway}/m`], env)
  expect(first.stderr).toBe('')
  expect(first.stdout.split('\n')[1]).toMatch(
    /^paid: settled charged 0\.001 USDC tx 0x[0-9a-f]{64} on eip155:845320402/,
  )
  for (let i = 0; i < 2; i++) {
    const next = await cli.run(['pay', `${gateway}/m`], env)
    expect(next.code).toBe(0)
    expect(next.stdout.split('\n')[1]).toMatch(/^paid: settled charged 0\.001 USDC tx - on eip155:845320402/)
  }
  // The channel is kept beside svc's settings, by the package's file storage.
  expect(readdirSync(join(cli.configDir, 'channels', 'client'))).toHaveLength(1)

  // The seller sees the channel; the buyer asks for the rest back; the seller sees it closed.
  const [channel] = (await cli.json(['channels'])).channels
  expect(channel).toMatchObject({ payer: buyer.address.toLowerCase(), spent: '3000', vouchers: 3, state: 'open' })
  expect(await cli.ok(['channels'])).toMatch(/0x[0-9a-f]{8}… +0x[0-9a-f]{40} +0\.01 +0\.003 +0 +0 +0 +3 +open/)
  const closed = await cli.run(['channels', 'close', `${gateway}/m`], env)
  expect(closed.stderr).toBe('')
  expect(closed.stdout).toMatch(/^refunded: tx 0x[0-9a-f]{64} on eip155:845320402\n$/)
  // The refund claimed what the channel had charged; the gateway then settles it to the receiver on its own (after the
  // refund's answer, so `channels show` right after it may or may not have the settle yet): its final state is waited for.
  const final = async () => {
    const shown = await cli.json(['channels', 'show', channel.channel_id])
    return { channel: shown.channel, kinds: shown.transactions.map((t: { kind: string }) => t.kind) }
  }
  await expect.poll(final, { timeout: 30_000, interval: 250 }).toMatchObject({
    channel: { state: 'closed', refunded: '7000', claimed: '3000', settled: '3000' },
    kinds: ['deposit', 'refund', 'settle'],
  })
})
