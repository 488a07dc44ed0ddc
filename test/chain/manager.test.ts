import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { hexToBigInt, parseEther, parseUnits } from 'viem'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { getJson, newAccount, postJson } from '../helpers/payments.js'

let services: ChainServices
beforeAll(async () => {
  services = await startChainServices({ defaultEthWei: parseEther('3'), defaultUsdcBase: parseUnits('50', 6) })
})
afterAll(() => services?.stop())

const faucet = (body: unknown) => postJson(`${services.chainManagerUrl}/faucet`, body)

describe('chain info', () => {
  test('GET /chain names the chain, RPC and the USDC with its EIP-712 domain', async () => {
    const { status, body } = await getJson(`${services.chainManagerUrl}/chain`)
    expect(status).toBe(200)
    expect(body).toMatchObject({
      chain_id: 845320402,
      network: 'eip155:845320402',
      rpc_url: services.rpcUrl,
      mode: 'offline',
      native_currency: { symbol: 'ETH', decimals: 18 },
      usdc: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USDC', version: '2', decimals: 6 },
      multicall3: '0xcA11bde05977b3631167028862bE2a173976CA11',
      faucet: { enabled: true, default_eth: '3', default_usdc: '50' },
    })
    expect(await services.sandboxChain.client.getChainId()).toBe(845320402)
  })
})

describe('faucet', () => {
  test('asset "all" (the default) sends the configured default amounts', async () => {
    const { address } = newAccount()
    const { status, body } = await faucet({ address })
    expect(status).toBe(200)
    expect(body).toMatchObject({ address, asset: 'all' })
    expect(hexToBigInt(body.balances.eth_wei)).toBe(parseEther('3'))
    expect(hexToBigInt(body.balances.usdc_base)).toBe(parseUnits('50', 6))
    expect(body.transactions.usdc).toMatch(/^0x[0-9a-f]{64}$/)
  })

  test('asset "eth" and "usdc" with an amount in whole units add to the balance', async () => {
    const { address } = newAccount()
    await faucet({ address, asset: 'eth', amount: '1.5' })
    await faucet({ address, asset: 'eth', amount: '0.5' })
    const { body } = await faucet({ address: address.toLowerCase(), asset: 'usdc', amount: '2.25' })
    expect(body.address).toBe(address)
    expect(hexToBigInt(body.balances.eth_wei)).toBe(parseEther('2'))
    expect(hexToBigInt(body.balances.usdc_base)).toBe(2_250_000n)
  })

  test('concurrent faucet calls all land', async () => {
    const { address } = newAccount()
    await Promise.all(Array.from({ length: 8 }, () => faucet({ address, asset: 'usdc', amount: '1' })))
    const { body } = await getJson(`${services.chainManagerUrl}/balances/${address}`)
    expect(hexToBigInt(body.usdc_base)).toBe(8_000_000n)
  })

  test.each([
    [{ address: 'not-an-address' }, 'address: not an address'],
    [{}, 'address: expected an address string'],
    [{ address: newAccount().address, asset: 'btc' }, 'asset: asset must be one of all, eth, usdc'],
    [
      { address: newAccount().address, asset: 'eth', amount: '-1' },
      'amount: amount must be a decimal string in whole units, e.g. "2.5"',
    ],
    [
      { address: newAccount().address, asset: 'eth', amount: 5 },
      'amount: amount must be a decimal string in whole units, e.g. "2.5"',
    ],
    [
      { address: newAccount().address, asset: 'eth', amount: '1000000000' },
      'amount too large: at most 1000000 ETH per call',
    ],
    [
      { address: newAccount().address, asset: 'usdc', amount: '99999999999' },
      'amount too large: at most 1000000000 USDC per call',
    ],
    [{ address: newAccount().address, asset: 'usdc', amount: '0' }, 'amount must be greater than 0'],
    [{ address: newAccount().address, amount: '1' }, 'amount needs asset "eth" or "usdc"'],
    [{ address: newAccount().address, extra: true }, 'unknown field "extra"'],
  ])('bad input %j → 400', async (input, message) => {
    const { status, body } = await faucet(input)
    expect(status).toBe(400)
    expect(body).toEqual({ error: message })
  })

  test('malformed JSON → 400', async () => {
    expect(await faucet('{"address": ')).toEqual({ status: 400, body: { error: 'malformed JSON body' } })
  })

  test('a body over 1 MB → 413', async () => {
    const { status, body } = await faucet({ address: 'x'.repeat(1_100_000) })
    expect(status).toBe(413)
    expect(body.error).toMatch(/larger than/)
  })
})

describe('balances', () => {
  test('GET and POST answer hex quantities', async () => {
    const { address } = newAccount()
    await faucet({ address, asset: 'usdc', amount: '7' })
    const viaGet = await getJson(`${services.chainManagerUrl}/balances/${address}`)
    const viaPost = await postJson(`${services.chainManagerUrl}/balances`, { address })
    expect(viaGet).toEqual({ status: 200, body: { address, eth_wei: '0x0', usdc_base: '0x6acfc0' } })
    expect(viaPost).toEqual(viaGet)
  })

  test('a bad address → 400', async () => {
    expect(await getJson(`${services.chainManagerUrl}/balances/0x123`)).toEqual({
      status: 400,
      body: { error: 'address: not an address' },
    })
  })
})
