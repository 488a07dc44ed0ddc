/**
 * The paywall's failures in Chromium (issue 25 item 4 and "Bad input"): too little money offers the faucet, a refused
 * payment says the scheme's reason in words, a double click pays once, an edited key or page state is a message (no
 * stack trace, nothing charged), and a production API offers neither the demo wallet nor the faucet.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Page } from 'playwright-core'
import { localFetch } from '../../sdk/local-fetch.js'
import { isSvcHost, openPage, screenshots } from '../helpers/browser.js'
import { addEndpoint, createApi, newSeller, sandboxAccept } from '../server/gateway/helpers.js'
import { lowContrastScript } from './contrast.js'
import { type PaywallStack, startPaywallStack } from './paywall-stack.js'

let stack: PaywallStack
let gateway: string
let slug: string
let apiId: string
let productionGateway: string

beforeAll(async () => {
  stack = await startPaywallStack()
  const seller = await newSeller(stack.t)
  const api = await createApi(stack.t, seller, stack.upstream.url)
  ;({ gateway, slug, id: apiId } = api)
  await addEndpoint(stack.t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(stack.services, '10000')],
  })
  const production = await createApi(stack.t, seller, stack.upstream.url, 'production')
  productionGateway = production.gateway
  await addEndpoint(
    stack.t,
    seller,
    production.id,
    { method: 'GET', path_pattern: '/weather/{city}', accepts: [sandboxAccept(stack.services, '10000')] },
    'production',
  )
}, 60_000)

afterAll(async () => {
  await stack?.stop()
})

const settlementCount = async () =>
  (await stack.t.server.database.db.selectFrom('settlements').select('id').where('api_id', '=', apiId).execute()).length

async function openPaywall(path = '/weather/paris') {
  const recorded = await openPage(stack.browser)
  expect((await recorded.page.goto(`${gateway}${path}`))?.status()).toBe(402)
  await expect.poll(() => recorded.page.getByTestId('pay-demo-wallet').isEnabled()).toBe(true)
  return recorded
}

const errorText = (page: Page) => page.getByTestId('error').textContent()
const noStackTrace = async (page: Page) => expect(await errorText(page)).not.toMatch(/\n\s+at |TypeError|\.ts:\d/)

describe('the paywall when things go wrong', () => {
  test('too little USDC: the page says so and offers the faucet, which fixes it', async () => {
    const { page, close } = await openPaywall()
    await page.getByTestId('pay-demo-wallet').click()
    await expect
      .poll(() => errorText(page))
      .toContain('The demo wallet holds less than 0.01 USDC: get test USDC from the faucet first.')
    await screenshots(page, 'paywall-insufficient')
    expect(await page.evaluate(lowContrastScript())).toEqual([])
    await page.getByTestId('error').getByRole('button', { name: 'Get test USDC from the faucet' }).click()
    await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^10 USDC/)
    await close()
  })

  test("a refused payment shows the scheme's reason in words, and nothing is charged", async () => {
    const { page, close } = await openPaywall()
    await page.getByTestId('demo-wallet-fund').click()
    await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^10 USDC/)
    await stack.services.faults.add({
      kind: 'verify',
      reason: 'invalid_exact_evm_nonce_already_used',
      api: slug,
      times: 1,
    })
    const before = await settlementCount()
    await page.getByTestId('pay-demo-wallet').click()
    await expect.poll(() => errorText(page)).toContain('The payment was refused (this signed payment was already used)')
    expect(await errorText(page)).toContain('Nothing was charged.')
    await noStackTrace(page)
    expect(await settlementCount()).toBe(before)
    // The fault is spent: paying again goes through.
    await page.getByTestId('pay-demo-wallet').click()
    await expect.poll(() => page.getByTestId('transaction').textContent()).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await page.getByTestId('error').isHidden()).toBe(true)
    await close()
  })

  test('a double click pays once', async () => {
    const { page, close } = await openPaywall()
    await page.getByTestId('demo-wallet-fund').click()
    await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^10 USDC/)
    const before = await settlementCount()
    await page.getByTestId('pay-demo-wallet').dblclick()
    await expect.poll(() => page.getByTestId('transaction').textContent()).toMatch(/^0x[0-9a-f]{64}$/)
    await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^9\.99 USDC/)
    expect(await settlementCount()).toBe(before + 1)
    await close()
  })

  test('an edited demo wallet key is a message offering a new wallet', async () => {
    const { page, close } = await openPaywall()
    await page.evaluate(`localStorage.setItem('svc-paywall-demo-key', '0xnot-a-key')`)
    await page.reload()
    await expect.poll(() => errorText(page)).toContain("The demo wallet's key kept in this browser is not a key")
    await noStackTrace(page)
    await page.getByTestId('error').getByRole('button', { name: 'Start a new demo wallet' }).click()
    await expect.poll(() => page.locator('#demo-address').textContent()).toMatch(/^0x[0-9a-fA-F]{40}$/)
    await close()
  })

  test('an edited page state: a lower price is never paid, broken state is a message', async () => {
    const recorded = await openPage(stack.browser)
    const { page } = recorded
    let edit = (html: string) => html.replace('"amount":"10000"', '"amount":"1"')
    await page.route(`${gateway}/weather/*`, async (route) => {
      if (route.request().resourceType() !== 'document') return route.fallback()
      // Playwright's own fetch cannot resolve *.localhost: the test process fetches the page with svc's localFetch.
      const response = await localFetch(route.request().url(), { headers: await route.request().allHeaders() })
      await route.fulfill({
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: edit(await response.text()),
      })
    })
    await page.goto(`${gateway}/weather/paris`)
    expect(await page.getByTestId('price').textContent()).toBe('0.01 USDC')
    await expect.poll(() => page.getByTestId('demo-wallet-fund').isEnabled()).toBe(true)
    await page.getByTestId('demo-wallet-fund').click()
    await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^10 USDC/)
    const before = await settlementCount()
    await page.getByTestId('pay-demo-wallet').click()
    await expect
      .poll(() => errorText(page))
      .toBe('The gateway asked for a payment other than the one this page shows: nothing was signed. Reload the page.')
    expect(await settlementCount()).toBe(before)

    edit = (html) =>
      html.replace(
        '<script type="application/json" id="svc-paywall-state">{',
        '<script type="application/json" id="svc-paywall-state">{{',
      )
    await page.reload()
    await expect.poll(() => errorText(page)).toContain("This page's payment details are damaged (not JSON)")
    expect(await page.getByTestId('pay-demo-wallet').isEnabled()).toBe(false)
    expect(await page.getByTestId('pay-injected').isEnabled()).toBe(false)
    expect(recorded.requestsOffHosts(isSvcHost)).toEqual([])
    await recorded.close()
  })

  test('a production API: no demo wallet, no faucet; an injected wallet only', async () => {
    const recorded = await openPage(stack.browser)
    const { page } = recorded
    expect((await page.goto(`${productionGateway}/weather/paris`))?.status()).toBe(402)
    await expect.poll(() => page.getByTestId('pay-injected').isEnabled()).toBe(true)
    expect(await page.getByTestId('demo-wallet-fund').count()).toBe(0)
    expect(await page.getByTestId('pay-demo-wallet').count()).toBe(0)
    expect(await page.getByTestId('network').textContent()).toBe('eip155:845320402')
    expect(await page.textContent('main')).not.toContain('faucet')
    const faucet = await page.evaluate(
      `fetch('/__svc/faucet', { method: 'POST', body: '{"address":"0x90F79bf6EB2c4f870365E785982E1f101E93b906"}' }).then((r) => r.status)`,
    )
    expect(faucet).toBe(404)
    await page.getByTestId('pay-injected').click()
    await expect.poll(() => errorText(page)).toContain('No browser wallet was found on this page')
    await screenshots(page, 'paywall-production')
    await recorded.close()
  })
})
