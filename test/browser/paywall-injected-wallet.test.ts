/**
 * The paywall with a person's own wallet, in Chromium: an EIP-1193 provider (the test double of injected-wallet.ts,
 * backed by a viem account) starts on chain 1; the page adds svc's chain with the gateway's own RPC URL, shows the
 * balance, and pays a Permit2 route: the wallet never approved Permit2, so the page signs the EIP-2612 permit the
 * facilitator sponsors beside the Permit2 transfer. Then what a wallet can refuse: a signature, a chain.
 */
import { numberToHex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { isSvcHost, openPage, screenshots } from '../helpers/browser.js'
import { newAccount } from '../helpers/payments.js'
import { addEndpoint, createApi, newSeller, sandboxAccept, usdcBalance } from '../server/gateway/helpers.js'
import { installWalletDouble } from './injected-wallet.js'
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
    accepts: [{ ...sandboxAccept(stack.services, '20000'), extra: { assetTransferMethod: 'permit2' } }],
  })
}, 60_000)

afterAll(async () => {
  await stack?.stop()
})

const settlements = () =>
  stack.t.server.database.db.selectFrom('settlements').selectAll().where('api_id', '=', apiId).execute()

/** A wallet account holding 5 USDC and no ETH, and no Permit2 approval. */
async function fundedAccount() {
  const account = newAccount()
  await stack.services.manager.fund(account.address, 'usdc', '5')
  return account
}

describe('an injected EIP-1193 wallet pays in Chromium', () => {
  test('a Permit2 route: svc chain added with the gateway RPC, balance shown, permit and transfer signed, settled', async () => {
    const account = await fundedAccount()
    const recorded = await openPage(stack.browser)
    const wallet = await installWalletDouble(recorded.context, account)
    const { page } = recorded
    expect((await page.goto(`${gateway}/weather/oslo`))?.status()).toBe(402)
    expect(await page.getByTestId('price').textContent()).toBe('0.02 USDC')
    expect(await page.textContent('main')).toContain('exact (Permit2)')
    await expect.poll(() => page.getByTestId('pay-injected').isEnabled()).toBe(true)
    await page.getByTestId('pay-injected').click()
    await expect.poll(() => page.getByTestId('transaction').textContent()).toMatch(/^0x[0-9a-f]{64}$/)
    expect(JSON.parse((await page.getByTestId('result').textContent()) ?? '')).toMatchObject({ city: 'oslo' })

    expect(wallet.added).toEqual([
      {
        chainId: numberToHex(845320402),
        chainName: 'svc Sandbox',
        rpcUrls: [`${gateway}/__svc/rpc`],
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      },
    ])
    expect(await page.locator('#injected-balance').textContent()).toBe('5 USDC · 0 ETH')
    // The permit for Permit2 (EIP-2612, sponsored) and the Permit2 transfer itself.
    expect(wallet.signed.map((s) => s.primaryType).sort()).toEqual(['Permit', 'PermitWitnessTransferFrom'])
    const transaction = await page.getByTestId('transaction').textContent()
    expect((await settlements()).filter((row) => row.transaction === transaction)).toHaveLength(1)
    expect(await usdcBalance(stack.services, account.address)).toBe(4_980_000n)
    expect(recorded.requestsOffHosts(isSvcHost)).toEqual([])
    expect(recorded.errors).toEqual([])
    await screenshots(page, 'paywall-injected')
    await recorded.close()
  })

  test('a rejected signature: the page says so, nothing is charged, the button works again', async () => {
    const account = await fundedAccount()
    const recorded = await openPage(stack.browser)
    await installWalletDouble(recorded.context, account, { rejectSignatures: true })
    const { page } = recorded
    await page.goto(`${gateway}/weather/rome`)
    await expect.poll(() => page.getByTestId('pay-injected').isEnabled()).toBe(true)
    const before = (await settlements()).length
    await page.getByTestId('pay-injected').click()
    await expect.poll(() => page.getByTestId('error').textContent()).toContain('You declined in your wallet')
    expect(await page.getByTestId('error').textContent()).not.toMatch(/\n\s+at |Error:/)
    expect(await page.getByTestId('pay-injected').isEnabled()).toBe(true)
    expect((await settlements()).length).toBe(before)
    expect(await usdcBalance(stack.services, account.address)).toBe(5_000_000n)
    await recorded.close()
  })

  test('a wallet that stays on another chain: the page names the chain to pick, signs nothing', async () => {
    const account = await fundedAccount()
    const recorded = await openPage(stack.browser)
    const wallet = await installWalletDouble(recorded.context, account, { stayOnWrongChain: true })
    const { page } = recorded
    await page.goto(`${gateway}/weather/rome`)
    await expect.poll(() => page.getByTestId('pay-injected').isEnabled()).toBe(true)
    await page.getByTestId('pay-injected').click()
    await expect
      .poll(() => page.getByTestId('error').textContent())
      .toBe(
        'Your wallet is on chain 1; this payment is on svc Sandbox (chain 845320402). Switch your wallet to it and try again.',
      )
    expect(wallet.signed).toEqual([])
    await recorded.close()
  })
})
