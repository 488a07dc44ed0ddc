/**
 * The paywall in Chromium, as a visitor without a wallet meets it (issue 25): a browser opening a paid URL gets svc's
 * 402 page; one click funds the demo wallet from the Sandbox faucet, one more pays; the page shows the forecast and
 * the settlement transaction. An exact route (EIP-3009) and an upto route ("up to"), every request on svc's hosts,
 * screenshots at desktop and phone widths, the page's weight and the time from click to answer measured.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { artifactsDir, isSvcHost, openPage, screenshots } from '../helpers/browser.js'
import { addEndpoint, createApi, newSeller, sandboxAccept } from '../server/gateway/helpers.js'
import { docBlock } from '../docs/blocks.js'
import { lowContrastScript } from './contrast.js'
import { type PaywallStack, startPaywallStack } from './paywall-stack.js'

let stack: PaywallStack
let gateway: string
let apiId: string

beforeAll(async () => {
  stack = await startPaywallStack()
  const seller = await newSeller(stack.t)
  const api = await createApi(stack.t, seller, stack.upstream.url)
  gateway = api.gateway
  apiId = api.id
  await addEndpoint(stack.t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(stack.services, '10000')],
    description: "Today's forecast for a city",
  })
  await addEndpoint(stack.t, seller, api.id, {
    method: 'GET',
    path_pattern: '/metered/{amount}',
    accepts: [{ ...sandboxAccept(stack.services, '50000'), scheme: 'upto' }],
    description: 'Charges what the upstream metered, up to 0.05 USDC',
  })
}, 60_000)

afterAll(async () => {
  await stack?.stop()
})

const settlements = () =>
  stack.t.server.database.db.selectFrom('settlements').selectAll().where('api_id', '=', apiId).execute()

/** Presses Tab until the control with `testId` has the focus, then Enter: the page works from the keyboard. */
async function pressWithKeyboard(page: Page, testId: string) {
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press('Tab')
    if ((await page.evaluate(`document.activeElement?.getAttribute('data-testid')`)) === testId) {
      await page.keyboard.press('Enter')
      return
    }
  }
  throw new Error(`Tab never reached ${testId}`)
}

describe('the demo wallet pays in Chromium', () => {
  test('an exact route: 402 page, fund with one click, pay with one more, forecast and transaction shown', async () => {
    const recorded = await openPage(stack.browser)
    const { page } = recorded
    const navigation = await page.goto(`${gateway}/weather/paris`)
    expect(navigation?.status()).toBe(402)
    expect(navigation?.headers()['payment-required']).toBeTruthy()
    await expect.poll(() => page.getByTestId('pay-demo-wallet').isEnabled()).toBe(true)
    expect(await page.getByTestId('price').textContent()).toBe('0.01 USDC')
    expect(await page.getByTestId('network').textContent()).toBe('svc Sandbox (eip155:845320402)')
    expect(await page.locator('h1').textContent()).toMatch(/^Gateway test/)
    expect(await page.textContent('main')).toContain('GET /weather/{city}')
    // In the page: the document and what it loaded, with their sizes on the wire.
    const loaded = (await page.evaluate(`(() => {
      const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
      return {
        requests: entries.length,
        bytes: entries.reduce((sum, e) => sum + e.transferSize, 0),
        each: entries.map((e) => ({ path: new URL(e.name).pathname, bytes: e.transferSize })),
      }
    })()`)) as { requests: number; bytes: number; each: unknown[] }
    await screenshots(page, 'paywall-sandbox')
    // Readable: every text on the page, buttons included, has WCAG AA contrast.
    expect(await page.evaluate(lowContrastScript())).toEqual([])
    // The check reads the page's text: at a bar no text meets, it finds plenty.
    expect(((await page.evaluate(lowContrastScript(21))) as unknown[]).length).toBeGreaterThan(10)

    await pressWithKeyboard(page, 'demo-wallet-fund')
    await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^10 USDC/)
    const clicked = Date.now()
    await pressWithKeyboard(page, 'pay-demo-wallet')
    await expect.poll(() => page.getByTestId('transaction').textContent()).toMatch(/^0x[0-9a-f]{64}$/)
    const answered = Date.now() - clicked
    const result = JSON.parse((await page.getByTestId('result').textContent()) ?? '')
    expect(result).toMatchObject({ city: 'paris' })
    expect(await page.getByTestId('error').isHidden()).toBe(true)
    await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^9\.99 USDC/)
    const rows = await settlements()
    const transaction = await page.getByTestId('transaction').textContent()
    expect(rows.filter((row) => row.transaction === transaction)).toHaveLength(1)
    await screenshots(page, 'paywall-paid')
    expect(await page.evaluate(lowContrastScript())).toEqual([])

    expect(recorded.requestsOffHosts(isSvcHost)).toEqual([])
    expect(recorded.errors).toEqual([])
    // Measured, never asserted: the closing note of issue 25 reports them.
    mkdirSync(artifactsDir, { recursive: true })
    writeFileSync(
      join(artifactsDir, 'paywall-metrics.json'),
      `${JSON.stringify({ ...loaded, kb: Math.round(loaded.bytes / 102.4) / 10, clickToAnswerMs: answered, pageMs: await page.getAttribute('#answer', 'data-paid-ms') }, null, 2)}\n`,
    )
    await recorded.close()
  })

  test('through the direct URL (no name to resolve): the page loads, funds and pays on 127.0.0.1, under /gateway/{host}', async () => {
    const recorded = await openPage(stack.browser)
    const { page } = recorded
    const host = new URL(gateway).hostname
    const direct = `http://127.0.0.1:${stack.t.server.port}/gateway/${host}`
    expect((await page.goto(`${direct}/weather/oslo`))?.status()).toBe(402)
    await expect.poll(() => page.getByTestId('demo-wallet-fund').isEnabled()).toBe(true)
    await page.getByTestId('demo-wallet-fund').click()
    await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^10 USDC/)
    await page.getByTestId('pay-demo-wallet').click()
    await expect.poll(() => page.getByTestId('transaction').textContent()).toMatch(/^0x[0-9a-f]{64}$/)
    expect(JSON.parse((await page.getByTestId('result').textContent()) ?? '')).toMatchObject({ city: 'oslo' })
    expect(recorded.errors).toEqual([])
    // Every request the page made went to the direct URL: its script, RPC, faucet and the paid route.
    const paths = recorded.requests.filter((r) => /^https?:/.test(r.url)).map((r) => new URL(r.url))
    expect(paths.every((url) => url.host === `127.0.0.1:${stack.t.server.port}`)).toBe(true)
    expect(paths.every((url) => url.pathname.startsWith(`/gateway/${host}/`))).toBe(true)
    await recorded.close()
  })

  test('an upto route: the page says "up to", pays what the upstream metered', async () => {
    const recorded = await openPage(stack.browser)
    const { page } = recorded
    expect((await page.goto(`${gateway}/metered/20000`))?.status()).toBe(402)
    expect(await page.getByTestId('price').textContent()).toBe('up to 0.05 USDC')
    await expect.poll(() => page.getByTestId('demo-wallet-fund').isEnabled()).toBe(true)
    await page.getByTestId('demo-wallet-fund').click()
    await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^10 USDC/)
    await page.getByTestId('pay-demo-wallet').click()
    await expect.poll(() => page.getByTestId('transaction').textContent()).toMatch(/^0x[0-9a-f]{64}$/)
    const transaction = await page.getByTestId('transaction').textContent()
    const row = (await settlements()).find((r) => r.transaction === transaction)
    expect(row?.amount).toBe('20000')
    await expect.poll(() => page.locator('#demo-balance').textContent()).toMatch(/^9\.98 USDC/)
    expect(recorded.requestsOffHosts(isSvcHost)).toEqual([])
    await screenshots(page, 'paywall-upto')
    await recorded.close()
  })

  test("docs: buy.md's payWithDemoWallet (a reader's own browser test) pays an exact route and answers its transaction", async () => {
    // The block as a module of the reader's project: it imports types only, so it runs from test-artifacts/.
    const file = join(artifactsDir, 'docs', 'pay-with-demo-wallet.ts')
    mkdirSync(join(artifactsDir, 'docs'), { recursive: true })
    writeFileSync(file, docBlock('pay-with-demo-wallet.ts').code)
    const { payWithDemoWallet } = (await import(file)) as {
      payWithDemoWallet: (page: Page, url: string) => Promise<string>
    }
    const recorded = await openPage(stack.browser)
    const transaction = await payWithDemoWallet(recorded.page, `${gateway}/weather/lima`)
    expect(transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect(JSON.parse((await recorded.page.getByTestId('result').textContent()) ?? '')).toMatchObject({ city: 'lima' })
    expect((await settlements()).filter((row) => row.transaction === transaction)).toHaveLength(1)
    expect(recorded.errors).toEqual([])
    await recorded.close()
  })
})
