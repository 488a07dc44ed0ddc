import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { createCli, type Cli } from './harness.js'
import { createSellerApi, serverUrl } from '../helpers/seller-api.js'

// Issue 20, "Also": `svc settlements` fits 120 columns and names APIs by slug; `svc stats` names the token.
let sandbox: TestSandbox
let upstream: Server
let cli: Cli
const slug = 'weather-forecasts-for-every-city-of-the-world'

beforeAll(async () => {
  upstream = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"ok":true}'))
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  sandbox = await startSandbox()
  await createSellerApi(sandbox, {
    slug,
    name: 'Weather',
    upstreamUrl: serverUrl(upstream),
    endpoints: [{ path_pattern: '/forecast/{city}' }],
  })
  const long = 'llanfairpwllgwyngyll'.repeat(4)
  for (const city of ['paris', 'lisbon', long])
    expect((await sandbox.buyer.fetch(`${sandbox.gatewayUrl(slug)}/forecast/${city}`)).status).toBe(200)
  cli = createCli({ SVC_BASE_URL: sandbox.sandboxControlUrl, SVC_API_KEY: sandbox.seller.apiKey })
})

afterAll(async () => {
  await sandbox?.stop()
  upstream?.close()
})

test('svc settlements: every line within 120 columns, the API by its slug, the request shortened with …', async () => {
  const result = await cli.spawn(['settlements'])
  expect(result).toMatchObject({ code: 0, stderr: '' })
  const lines = result.stdout.trimEnd().split('\n')
  expect(lines).toHaveLength(4)
  expect(lines[0]).toMatch(/^CREATED\s+API\s+REQUEST\s+AMOUNT\s+PAYER\s+TRANSACTION\s+ANSWER$/)
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(120)
  // Before: 190 columns, the API's id and the full addresses and hash.
  expect(lines[1]).toMatch(
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}weather-forecasts-f… {2}GET \/forecast\/\S*…? +0\.01 USDC {2}0x[0-9a-fA-F]{6}…[0-9a-fA-F]{4} {2}0x[0-9a-f]{6}…[0-9a-f]{4} {2}delivered$/,
  )
  expect(result.stdout).toContain('GET /forecast/paris ')
  expect(result.stdout).toMatch(/GET \/forecast\/llanf\S*… /)
  // The full values stay in --json.
  const { settlements } = await cli.json(['settlements'])
  expect(settlements[0].transaction).toMatch(/^0x[0-9a-f]{64}$/)
})

test('svc stats names the token: "0.03 USDC", not its address', async () => {
  const result = await cli.spawn(['stats'])
  expect(result).toMatchObject({ code: 0, stderr: '' })
  expect(result.stdout).toMatch(/^revenue\s+0\.03 USDC$/m)
  expect(result.stdout).toMatch(/\s0\.03 USDC$/m)
  expect(result.stdout).not.toMatch(/0x[0-9a-fA-F]{4}/)
})
