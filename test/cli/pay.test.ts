import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { paymentMiddleware } from '@x402/express'
import express from 'express'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { AuthCaptureServerScheme } from '../../core/auth-capture/server-scheme.js'
import { listen, type Listening } from '../../core/http.js'
import { getJson } from '../helpers/payments.js'
import { startDemoUpstream } from '../../fixtures/demo-upstream.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { docBlock } from '../docs/blocks.js'
import { createCli, docsShell, type Cli } from './harness.js'

let chain: ChainServices
let t: TestServer
let upstream: Server
/** The demo upstream: its POST /echo parses JSON bodies (express.json), so it sees a body only with a JSON content type. */
let demo: Listening
let demoGateway: string
let cli: Cli
let gateway: string
let apiId: string
const buyerKey = generatePrivateKey()
const buyer = privateKeyToAccount(buyerKey)
const payTo = '0x000000000000000000000000000000000000bEEF'

beforeAll(async () => {
  chain = await startChainServices()
  t = await startTestServer({ chain })
  // A real upstream: answers what it was asked.
  upstream = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      res.setHeader('content-type', 'application/json')
      // Metered routes say what a request used (x402's Settlement-Overrides), for upto payments.
      if (req.url?.startsWith('/metered')) res.setHeader('settlement-overrides', JSON.stringify({ amount: '1234' }))
      res.end(
        JSON.stringify({
          method: req.method,
          url: req.url,
          body,
          label: req.headers['x-label'] ?? null,
          content_type: req.headers['content-type'] ?? null,
        }),
      )
    })
  }).listen(0, '127.0.0.1')
  await once(upstream, 'listening')

  const seller = await t.signup()
  cli = createCli({ SVC_BASE_URL: t.server.sandboxControlUrl, SVC_JWT: seller.jwt })
  const api = await cli.json([
    'apis',
    'create',
    '--name',
    'Echo',
    '--slug',
    `echo-${Date.now()}`,
    '--upstream',
    `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    '--pay-to',
    payTo,
  ])
  apiId = api.id
  gateway = api.gateway_url
  await cli.json(['endpoints', 'add', apiId, '--path', '/echo/*', '--price', '0.01'])
  await cli.json(['endpoints', 'add', apiId, '--method', 'POST', '--path', '/echo/*', '--amount', '20000'])
  demo = await startDemoUpstream()
  const demoApi = await cli.json([
    'apis',
    'create',
    '--name',
    'Demo',
    '--slug',
    `demo-${Date.now()}`,
    '--upstream',
    demo.url,
    '--pay-to',
    payTo,
  ])
  demoGateway = demoApi.gateway_url
  await cli.json(['endpoints', 'add', demoApi.id, '--method', 'POST', '--path', '/echo', '--price', '0.005'])
  // The buyer gets USDC through the faucet command.
  await cli.json(['faucet', buyer.address, '--asset', 'usdc', '--amount', '5'])
})
afterAll(async () => {
  await t?.stop()
  upstream?.close()
  await demo?.close()
  await chain?.stop()
})

describe('svc pay', () => {
  test('pays a gateway URL with the official x402 client: status, the settlement transaction, the body (the real binary)', async () => {
    const result = await cli.spawn(['pay', `${gateway}/echo/hello?x=1`], { SVC_EVM_PRIVATE_KEY: buyerKey })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const [status, paid, body] = result.stdout.split('\n')
    expect(status).toBe('HTTP 200 OK')
    expect(paid).toMatch(
      new RegExp(`^paid: settled charged 0\\.01 USDC tx 0x[0-9a-f]{64} on eip155:845320402 by ${buyer.address}$`),
    )
    expect(JSON.parse(body!)).toEqual({
      method: 'GET',
      url: '/echo/hello?x=1',
      body: '',
      label: null,
      content_type: null,
    })
    const tx = paid!.split(' ')[6] as `0x${string}`
    expect((await chain.sandboxChain.client.getTransactionReceipt({ hash: tx })).status).toBe('success')
  })

  test('--data, --header and --json; the settlement shows up in svc settlements', async () => {
    const result = await cli.run(
      ['pay', `${gateway}/echo/post`, '--data', '{"a":1}', '--header', 'X-Label: seven', '--json'],
      { SVC_EVM_PRIVATE_KEY: buyerKey },
    )
    expect(result.code).toBe(0)
    const answer = JSON.parse(result.stdout)
    expect(answer).toMatchObject({
      status: 200,
      payment_response: {
        success: true,
        network: 'eip155:845320402',
        payer: buyer.address,
        transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
      body: { method: 'POST', url: '/echo/post', body: '{"a":1}', label: 'seven' },
    })
    const { settlements } = await cli.json(['settlements', '--api', apiId])
    expect(settlements[0]).toMatchObject({
      transaction: answer.payment_response.transaction,
      amount: '20000',
      method: 'POST',
      path: '/echo/post',
      delivered: true,
    })
    const table = await cli.ok(['settlements', '--api', apiId])
    expect(table).toMatch(/POST \/echo\/post +0\.02 USDC +0x/)
    expect(table).toMatch(/ANSWER\n/)
    expect(table).toMatch(/ 0x[0-9a-f]{6}…[0-9a-f]{4} +delivered\n/)
    const csv = (await cli.ok(['settlements', '--csv', '--api', apiId])).trim().split('\r\n')
    expect(csv).toHaveLength(3)
  })

  test("curl's short flags: -X, -d and -H (repeatable) beside --method, --data and --header", async () => {
    const result = await cli.run(
      [
        'pay',
        `${gateway}/echo/short`,
        '-X',
        'POST',
        '-d',
        '{"a":1}',
        '-H',
        'content-type: application/json',
        '-H',
        'X-Label: short',
        '--json',
      ],
      { SVC_EVM_PRIVATE_KEY: buyerKey },
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 200,
      payment_response: { success: true },
      body: {
        method: 'POST',
        url: '/echo/short',
        body: '{"a":1}',
        label: 'short',
        content_type: 'application/json',
      },
    })
    // The method attached, as curl takes it too (-XPUT): no endpoint has PUT, nothing is paid.
    const put = await cli.run(['pay', `${gateway}/echo/short`, '-XPUT', '--json'], { SVC_EVM_PRIVATE_KEY: buyerKey })
    expect(put.code).toBe(1)
    expect(JSON.parse(put.stdout)).toMatchObject({ status: 404, payment_response: null })
    expect(JSON.parse(put.stderr).error).toMatch(new RegExp(`^PUT ${gateway}/echo/short answered 404`))
  })

  test('--data with JSON is sent as application/json: a JSON upstream receives the body (the real binary)', async () => {
    const result = await cli.spawn(['pay', `${demoGateway}/echo`, '--data', '{"a":1}', '--json'], {
      SVC_EVM_PRIVATE_KEY: buyerKey,
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 200,
      payment_response: { success: true },
      body: { received: { a: 1 }, method: 'POST' },
    })
  })

  test('a content type given with --header is kept; --data that is not JSON gets none added', async () => {
    const typed = await cli.run(
      [
        'pay',
        `${gateway}/echo/typed`,
        '--data',
        '{"a":1}',
        '--header',
        'Content-Type: application/vnd.api+json',
        '--json',
      ],
      {
        SVC_EVM_PRIVATE_KEY: buyerKey,
      },
    )
    expect(typed.code).toBe(0)
    expect(JSON.parse(typed.stdout).body).toMatchObject({ body: '{"a":1}', content_type: 'application/vnd.api+json' })
    const text = await cli.run(['pay', `${gateway}/echo/text`, '--data', 'a=1', '--json'], {
      SVC_EVM_PRIVATE_KEY: buyerKey,
    })
    expect(text.code).toBe(0)
    expect(JSON.parse(text.stdout).body).toMatchObject({
      body: 'a=1',
      content_type: expect.not.stringContaining('json'),
    })
  })

  test('works from the URL and its 402 alone: a sandbox on a port other than 4020, no control-plane URL or login', async () => {
    expect(t.server.port).not.toBe(4020)
    const buyerOnly = createCli()
    expect(buyerOnly.env.SVC_BASE_URL).toBeUndefined()
    const result = await buyerOnly.run(['pay', `${gateway}/echo/anywhere`, '--json'], { SVC_EVM_PRIVATE_KEY: buyerKey })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 200,
      payment_response: { success: true, network: 'eip155:845320402', payer: buyer.address },
      body: { method: 'GET', url: '/echo/anywhere' },
    })
  })

  test('a price above --max-amount is not paid: exit code 1', async () => {
    const result = await cli.run(['pay', `${gateway}/echo/dear`, '--max-amount', '0.001'], {
      SVC_EVM_PRIVATE_KEY: buyerKey,
    })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe('svc: no payment made: the price 0.01 USDC is above --max-amount 0.001 USDC\n')
  })

  test('a final status of 400 or more is exit code 1 and one line saying why; --verbose prints the answer too', async () => {
    const result = await cli.run(['pay', `${gateway}/nothing-here`], { SVC_EVM_PRIVATE_KEY: buyerKey })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(new RegExp(`^svc: GET ${gateway}/nothing-here answered 404: .+\n$`))
    expect(result.stderr.split('\n')).toHaveLength(2)
    const verbose = await cli.run(['pay', `${gateway}/nothing-here`, '--verbose'], { SVC_EVM_PRIVATE_KEY: buyerKey })
    expect(verbose.code).toBe(1)
    expect(verbose.stdout).toMatch(/^HTTP 404 Not Found\n/)
    expect(verbose.stderr).toBe(result.stderr)
  })

  test('with --json, a final status of 400 or more is the answer on stdout and {"error": …} on stderr, exit code 1', async () => {
    const result = await cli.run(['pay', `${gateway}/nothing-here`, '--json'], { SVC_EVM_PRIVATE_KEY: buyerKey })
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 404, payment_response: null })
    expect(JSON.parse(result.stderr).error).toMatch(new RegExp(`^GET ${gateway}/nothing-here answered 404: `))
    const refused = await cli.run(['pay', `${gateway}/echo/dear`, '--max-amount', '0.001', '--json'], {
      SVC_EVM_PRIVATE_KEY: buyerKey,
    })
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: '{"error":"no payment made: the price 0.01 USDC is above --max-amount 0.001 USDC"}\n',
    })
  })

  test('without SVC_EVM_PRIVATE_KEY it is a usage error', async () => {
    expect(await cli.run(['pay', `${gateway}/echo/x`])).toMatchObject({
      code: 2,
      stderr: "svc: `svc pay` needs SVC_EVM_PRIVATE_KEY: the buyer's private key (0x and 64 hex digits)\n",
    })
  })
})

describe('svc pay an auth-capture (escrow) route', () => {
  // Needs svc's facilitator to serve auth-capture (issue 39 WP1): skipped, at run time, while its /supported does not.
  test('an @x402/express seller on svc facilitator: sync is charged, deferred is held in escrow; each payment is kept for a reclaim', async (ctx) => {
    const { body } = await getJson(`${chain.facilitatorUrl}/supported`)
    if (!body.kinds.some((kind: { scheme: string }) => kind.scheme === 'auth-capture')) return ctx.skip()
    const facilitator = new HTTPFacilitatorClient({ url: chain.facilitatorUrl })
    const scheme = new AuthCaptureServerScheme({
      receiverAuthorizer: privateKeyToAccount(generatePrivateKey()),
      facilitator,
      now: chain.clock.now,
    })
    const network = chain.sandboxChain.network
    const accept = (extra: Record<string, unknown>) => ({
      accepts: { scheme: 'auth-capture', network, payTo, price: '$0.01', extra },
    })
    const app = express()
    app.use(
      paymentMiddleware(
        { 'GET /book': accept({}), 'GET /hold': accept({ captureMode: 'deferred' }) },
        new x402ResourceServer(facilitator).register(network, scheme),
      ),
    )
    app.get('/:what', (req, res) => void res.json({ [req.params.what]: true }))
    const seller = await listen(app)
    try {
      const sync = await cli.run(['pay', `${seller.url}/book`], { SVC_EVM_PRIVATE_KEY: buyerKey })
      expect(sync).toMatchObject({ code: 0, stderr: '' })
      expect(sync.stdout.split('\n')[1]).toMatch(
        /^paid: settled charged 0\.01 USDC tx 0x[0-9a-f]{64} on eip155:845320402 by /,
      )
      const deferred = await cli.run(['pay', `${seller.url}/hold`], { SVC_EVM_PRIVATE_KEY: buyerKey })
      expect(deferred).toMatchObject({ code: 0, stderr: '' })
      expect(deferred.stdout.split('\n')[1]).toMatch(/^paid: settled held 0\.01 USDC in escrow tx 0x[0-9a-f]{64} /)
      const payments = await scheme.payments()
      expect(payments.map((payment) => [payment.captureMode, payment.capturable, payment.refundable])).toEqual([
        ['sync', '0', '10000'],
        ['deferred', '10000', '0'],
      ])
      // The buyer's copies, for `svc payments reclaim`: one file per payment, named by its id.
      const kept = join(cli.env.SVC_CONFIG_DIR!, 'buyer', 'escrow')
      expect(readdirSync(kept).sort()).toEqual(payments.map((payment) => `${payment.paymentInfoHash}.json`).sort())
      const held = JSON.parse(readFileSync(join(kept, `${payments[1]!.paymentInfoHash}.json`), 'utf8'))
      expect(held).toMatchObject({
        paymentInfoHash: payments[1]!.paymentInfoHash,
        network,
        escrow: payments[1]!.escrow,
        paymentInfo: payments[1]!.paymentInfo,
        url: `${seller.url}/hold`,
        method: 'GET',
      })
    } finally {
      await seller.close()
    }
  })
})

describe('svc pay through Permit2, and upto', () => {
  test('endpoints add --transfer-method permit2 / --scheme upto; a buyer pays both; svc settlements shows what was charged', async () => {
    const metered = await cli.json([
      'endpoints',
      'add',
      apiId,
      '--path',
      '/metered/*',
      '--price',
      '0.10',
      '--scheme',
      'upto',
    ])
    expect(metered.accepts[0]).toMatchObject({
      scheme: 'upto',
      amount: '100000',
      extra: { assetTransferMethod: 'permit2' },
    })
    expect(await cli.ok(['endpoints', 'list', apiId])).toMatch(/\/metered\/\* +up to 0\.1 USDC/)
    await cli.json([
      'endpoints',
      'add',
      apiId,
      '--path',
      '/permit2/*',
      '--price',
      '0.03',
      '--transfer-method',
      'permit2',
    ])
    const key = generatePrivateKey()
    const account = privateKeyToAccount(key)
    await cli.json(['faucet', account.address, '--asset', 'usdc', '--amount', '1'])

    // No approval and no --rpc-url: svc pay asks the svc serving the URL for its chain's RPC, and the client signs
    // an EIP-2612 permit the gateway sponsors: no approval, no gas.
    const sponsored = await cli.run(['pay', `${gateway}/permit2/b`, '--json'], { SVC_EVM_PRIVATE_KEY: key })
    expect(sponsored.code).toBe(0)
    expect(JSON.parse(sponsored.stdout)).toMatchObject({
      status: 200,
      payment_response: { success: true, payer: account.address },
    })

    // upto by a buyer that never approved Permit2, without --rpc-url: a sponsored permit too; it says what it charged.
    const fresh = generatePrivateKey()
    await cli.json(['faucet', privateKeyToAccount(fresh).address, '--asset', 'usdc', '--amount', '1'])
    const uptoFresh = await cli.run(['pay', `${gateway}/metered/fresh`], { SVC_EVM_PRIVATE_KEY: fresh })
    expect(uptoFresh.stderr).toBe('')
    expect(uptoFresh.code).toBe(0)
    expect(uptoFresh.stdout).toMatch(/^paid: settled charged 0\.001234 USDC tx 0x[0-9a-f]{64} /m)

    // upto, after the faucet approved Permit2 for the buyer: charged what the upstream said it used.
    const approved = await cli.json([
      'faucet',
      account.address,
      '--asset',
      'eth',
      '--amount',
      '0.01',
      '--approve-permit2',
    ])
    expect(approved.transactions.permit2_approval).toMatch(/^0x[0-9a-f]{64}$/)
    const upto = await cli.run(['pay', `${gateway}/metered/c`], { SVC_EVM_PRIVATE_KEY: key })
    expect(upto.code).toBe(0)
    expect(upto.stdout).toMatch(
      new RegExp(
        `^paid: settled charged 0\\.001234 USDC tx 0x[0-9a-f]{64} on eip155:845320402 by ${account.address}$`,
        'm',
      ),
    )

    const { settlements } = await cli.json(['settlements', '--api', apiId])
    expect(
      settlements.filter((row: any) => row.payer === account.address).map((row: any) => [row.path, row.amount]),
    ).toEqual([
      ['/metered/c', '1234'],
      ['/permit2/b', '30000'],
    ])
    expect(await cli.ok(['settlements', '--api', apiId])).toMatch(/GET \/metered\/c +0\.001234 USDC +0x/)
  })
})

describe("docs: buy.md's svc pay blocks, run by bash with svc on the PATH", () => {
  test('svc-pay.sh pays the weather API with the Sandbox wallet (GET, then POST with -X/-d/-H); direct-url.sh pays through 127.0.0.1 without DNS; the sample output is what svc pay prints', async () => {
    // The demo seed's API as the page names it (weather, in front of the demo upstream), on this file's svc.
    const weather = await cli.json([
      'apis',
      'create',
      '--name',
      'Weather',
      '--slug',
      'weather',
      '--upstream',
      demo.url,
      '--pay-to',
      payTo,
    ])
    await cli.json(['endpoints', 'add', 'weather', '--path', '/weather/{city}', '--price', '0.01'])
    await cli.json(['endpoints', 'add', 'weather', '--method', 'POST', '--path', '/echo', '--price', '0.005'])
    expect(weather.direct_url).toBe(`http://127.0.0.1:${t.server.port}/gateway/weather.dev.localhost`)
    const { bash } = docsShell(cli)
    // The page's svc is on port 4020; this file's is on another.
    const onThisSvc = (code: string) => code.replaceAll(':4020', `:${t.server.port}`)
    const paid = await bash(onThisSvc(docBlock('svc-pay.sh').code))
    expect(paid.stderr).toBe('')
    expect(paid.code).toBe(0)
    const lines = paid.stdout.trim().split('\n')
    const wallet = (await cli.json(['sandbox-wallet', 'get'])).address
    const settled = (usdc: string) =>
      new RegExp(`^paid: settled charged ${usdc} USDC tx 0x[0-9a-f]{64} on eip155:845320402 by ${wallet}$`)
    expect(lines).toHaveLength(6)
    expect(lines[0]).toBe('HTTP 200 OK')
    expect(lines[1]).toMatch(settled('0\\.01'))
    expect(JSON.parse(lines[2]!)).toMatchObject({ city: 'paris', source: 'svc demo upstream' })
    expect(lines[4]).toMatch(settled('0\\.005'))
    expect(JSON.parse(lines[5]!)).toEqual({ received: { city: 'paris' }, method: 'POST' })
    // The sample on the page: the same lines, but for the transaction and the payer.
    const hex = (text: string) => text.replace(/0x[0-9a-fA-F…]+/g, '0x…')
    expect(hex(docBlock('svc pay').code).trim().split('\n')).toEqual(lines.slice(0, 3).map(hex))

    const direct = await bash(onThisSvc(docBlock('direct-url.sh').code), {
      SVC_EVM_PRIVATE_KEY: (await cli.json(['sandbox-wallet', 'get'])).private_key,
    })
    expect(direct.stderr).toBe('')
    expect(direct.code).toBe(0)
    expect(direct.stdout).toMatch(/^HTTP 200 OK\npaid: settled charged 0\.01 USDC tx 0x[0-9a-f]{64} /)
    expect(direct.stdout).toContain('"city":"lisbon"')
    const { settlements } = await cli.json(['settlements', '--api', weather.id])
    expect(settlements.map((s: any) => `${s.method} ${s.path}`).sort()).toEqual([
      'GET /weather/lisbon',
      'GET /weather/paris',
      'POST /echo',
    ])
  }, 120_000)
})
