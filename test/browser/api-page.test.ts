/**
 * The API's page in a real Chromium: a person opens `http://{slug}.dev.localhost:PORT/`, sees the endpoints, fills
 * a try-it form with the keyboard and lands on the paid route; seller text stays text; every request the page makes
 * stays on svc's hosts; screenshots at desktop and phone widths go to test-artifacts/.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { artifactsDir, type BrowserHandle, isSvcHost, openBrowser, openPage, screenshots } from '../helpers/browser.js'
import { lowContrastScript } from './contrast.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  sandboxAccept,
  startGatewayStack,
  type GatewayStack,
} from '../server/gateway/helpers.js'

/** What the tests read of the page's globals (this project compiles without the DOM library). */
type PageGlobals = { document: { activeElement: { id: string } | null } }

let stack: GatewayStack
let handle: BrowserHandle
let origin: string
let apiId: string

beforeAll(async () => {
  ;[stack, handle] = await Promise.all([startGatewayStack(), openBrowser()])
  const { t, services, upstream } = stack
  const seller = await newSeller(t)
  const api = await createApi(t, seller, upstream.url)
  origin = api.gateway
  apiId = api.id
  await addEndpoint(t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    description: 'Today’s forecast for a city',
    accepts: [sandboxAccept(services, '10000')],
    response_schema: { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'number' } } },
  })
  await addEndpoint(t, seller, api.id, {
    method: 'GET',
    path_pattern: '/metered/{amount}',
    accepts: [{ ...sandboxAccept(services, '50000'), scheme: 'upto' }],
  })
  await addEndpoint(t, seller, api.id, {
    method: 'POST',
    path_pattern: '/echo',
    accepts: [sandboxAccept(services, '20000')],
    request_schema: { type: 'object', properties: { text: { type: 'string' } } },
  })
}, 120_000)

afterAll(async () => {
  await handle?.close()
  await stack?.stop()
})

test('the page lists the endpoints; try-it by keyboard opens the paid route; requests stay on svc’s hosts', async () => {
  const recorded = await openPage(handle.browser)
  const { page } = recorded
  await page.goto(`${origin}/`)
  await expect.poll(() => page.getByTestId('api-name').textContent()).toMatch(/^Gateway test \d+$/)
  expect(await page.getByTestId('endpoint').count()).toBe(3)
  expect(await page.getByTestId('endpoint-path').allTextContents()).toEqual([
    '/weather/{city}',
    '/metered/{amount}',
    '/echo',
  ])
  expect(await page.getByTestId('endpoint-price').allTextContents()).toEqual([
    '$0.01 USDC · exact · EIP-3009 · svc Sandbox',
    'up to $0.05 USDC · upto · Permit2 · svc Sandbox',
    '$0.02 USDC · exact · EIP-3009 · svc Sandbox',
  ])
  const paths = await screenshots(page, 'api-page')
  expect(existsSync(paths.desktop) && existsSync(paths.phone)).toBe(true)

  // The discovery links answer JSON on the same host.
  for (const id of ['discovery-openapi', 'discovery-well-known']) {
    const href = await page.getByTestId(id).getAttribute('href')
    const status = await page.evaluate(
      async (url) => (await fetch(url!, { headers: { accept: 'application/json' } })).status,
      href,
    )
    expect(status).toBe(200)
  }

  const weather = page.getByTestId('endpoint').first()
  const form = weather.getByTestId('try-it')
  // Submitting without the city: the form says what is missing and puts the focus there.
  await form.getByTestId('try-it-submit').click()
  await expect.poll(() => form.getByTestId('try-it-error').textContent()).toBe('Fill in city first.')
  const focused = await page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id)
  expect(focused).toBe(await form.getByTestId('try-it-param').getAttribute('id'))
  // Keyboard only: type the city (percent-encoded in the URL), Enter sends it.
  await page.keyboard.type('São Paulo')
  expect(await form.getByTestId('try-it-request').textContent()).toBe(`GET ${origin}/weather/S%C3%A3o%20Paulo`)
  expect(recorded.errors).toEqual([])
  const target = `${origin}/weather/S%C3%A3o%20Paulo`
  const answered = page.waitForResponse((response) => response.url() === target)
  await page.keyboard.press('Enter')
  // The paid route, opened in the browser: the paywall's 402 page; the demo wallet pays in two clicks.
  expect((await answered).status()).toBe(402)
  await page.waitForURL(target)
  await expect.poll(() => page.getByTestId('demo-wallet-fund').isEnabled()).toBe(true)
  await page.getByTestId('demo-wallet-fund').click()
  await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^10 USDC/)
  await page.getByTestId('pay-demo-wallet').click()
  await expect.poll(() => page.getByTestId('transaction').textContent()).toMatch(/^0x[0-9a-f]{64}$/)
  expect(JSON.parse((await page.getByTestId('result').textContent()) ?? '')).toEqual({ city: 'São Paulo', temp: 21.5 })
  const settled = await stack.t.server.database.db
    .selectFrom('settlements')
    .select(['path', 'amount', 'transaction'])
    .where('api_id', '=', apiId)
    .execute()
  expect(settled).toEqual([
    {
      path: '/weather/S%C3%A3o%20Paulo',
      amount: '10000',
      transaction: await page.getByTestId('transaction').textContent(),
    },
  ])
  await screenshots(page, 'api-page-try-it-paid')

  // The 402 of the navigation is the only console error (Chromium logs every 4xx document).
  expect(recorded.errors.filter((error) => !error.includes('402 (Payment Required)'))).toEqual([])
  expect(recorded.requestsOffHosts(isSvcHost)).toEqual([])
  await recorded.close()
})

test('readable contrast in the light and the dark scheme; the page is one request, its weight recorded', async () => {
  const recorded = await openPage(handle.browser)
  const { page } = recorded
  await page.goto(`${origin}/`)
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    expect(await page.evaluate(lowContrastScript(4.5)), colorScheme).toEqual([])
  }
  await screenshots(page, 'api-page-dark')
  const loaded = (await page.evaluate(`(() => {
    const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
    return { requests: entries.length, bytes: entries.reduce((sum, e) => sum + e.transferSize, 0) }
  })()`)) as { requests: number; bytes: number }
  expect(loaded.requests).toBe(1)
  expect(recorded.requests.map((request) => new URL(request.url).pathname)).toEqual(['/'])
  mkdirSync(artifactsDir, { recursive: true })
  writeFileSync(
    join(artifactsDir, 'api-page-metrics.json'),
    `${JSON.stringify({ ...loaded, kb: Math.round(loaded.bytes / 102.4) / 10 }, null, 2)}\n`,
  )
  await recorded.close()
})

test('try-it of a POST route: the paywall page of that request sends the JSON body once paid', async () => {
  const recorded = await openPage(handle.browser)
  const { page } = recorded
  await page.goto(`${origin}/`)
  const form = page.locator('[data-testid="endpoint"][data-path="/echo"]').getByTestId('try-it')
  await form.getByTestId('try-it-query').fill('lang=fr')
  await form.getByTestId('try-it-body').fill('{"text": "<b>bonjour</b>"}')
  await form.getByTestId('try-it-submit').click()
  await page.waitForURL((url) => url.pathname === '/__svc/try-it')
  expect(await page.getByTestId('request-body').textContent()).toBe('{"text": "<b>bonjour</b>"}')
  expect(await page.getByTestId('price').textContent()).toBe('0.02 USDC')
  expect(await page.textContent('main')).toContain('POST /echo')
  await expect.poll(() => page.getByTestId('demo-wallet-fund').isEnabled()).toBe(true)
  await page.getByTestId('demo-wallet-fund').click()
  await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^10 USDC/)
  await page.getByTestId('pay-demo-wallet').click()
  await expect.poll(() => page.getByTestId('transaction').textContent()).toMatch(/^0x[0-9a-f]{64}$/)
  // The upstream echoes what it got: the POST, its query and its JSON body.
  const echoed = JSON.parse((await page.getByTestId('result').textContent()) ?? '')
  expect(echoed).toMatchObject({ method: 'POST', url: '/echo?lang=fr', body: '{"text": "<b>bonjour</b>"}' })
  expect(echoed.headers['content-type']).toBe('application/json')
  expect(recorded.requestsOffHosts(isSvcHost)).toEqual([])
  await recorded.close()
})

test('on the direct URL (no name to resolve) the links and try-it stay under /gateway/{host} on 127.0.0.1', async () => {
  const recorded = await openPage(handle.browser)
  const { page } = recorded
  const base = `/gateway/${new URL(origin).hostname}`
  const direct = `http://127.0.0.1:${new URL(origin).port}${base}`
  await page.goto(`${direct}/`)
  expect(await page.getByTestId('discovery-openapi').getAttribute('href')).toBe(`${base}/openapi.json`)
  const form = page.locator('[data-testid="endpoint"][data-path="/echo"]').getByTestId('try-it')
  await form.getByTestId('try-it-query').fill('lang=fr')
  expect(await form.getByTestId('try-it-request').textContent()).toBe(`POST ${direct}/echo?lang=fr`)
  await form.getByTestId('try-it-submit').click()
  await page.waitForURL((url) => url.pathname === `${base}/__svc/try-it`)
  expect(await page.textContent('main')).toContain('POST /echo')
  await expect.poll(() => page.getByTestId('demo-wallet-fund').isEnabled()).toBe(true)
  expect(recorded.errors).toEqual([])
  await recorded.close()
})

test('a seller’s <script> in names, descriptions and schemas stays text', async () => {
  const { t, services, upstream } = stack
  const seller = await newSeller(t)
  const api = await createApi(t, seller, upstream.url)
  const hostile = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
  const renamed = await t.call(`/apis/${api.id}`, {
    method: 'PUT',
    jwt: seller.jwt,
    environment: 'development',
    body: { name: hostile },
  })
  expect(renamed.status).toBe(200)
  await addEndpoint(t, seller, api.id, {
    method: 'GET',
    path_pattern: '/x',
    description: hostile,
    accepts: [sandboxAccept(services)],
    response_schema: { type: 'object', title: hostile },
  })
  const recorded = await openPage(handle.browser)
  const { page } = recorded
  await page.goto(`${api.gateway}/`)
  expect(await page.getByTestId('api-name').textContent()).toBe(hostile)
  expect(await page.title()).toBe(`${hostile} · svc`)
  expect(await page.getByTestId('endpoint-description').textContent()).toBe(hostile)
  expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined()
  expect(await page.locator('img').count()).toBe(0)
  expect(recorded.requestsOffHosts(isSvcHost)).toEqual([])
  expect(recorded.requests.map((request) => new URL(request.url).pathname)).toEqual(['/'])
  await recorded.close()
})
