import { getAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { decryptSecret, loadInstallSecrets } from '../../../server/data-dir/secrets.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'

let chain: ChainServices
let t: TestServer
beforeAll(async () => {
  chain = await startChainServices()
  t = await startTestServer({ chain })
}, 60_000)
afterAll(async () => {
  await t?.stop()
  await chain?.stop()
})

const dev = 'development'
const addressOf = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`)

async function balances(jwt: string, address: string) {
  const { status, body } = await t.call('/dev/balances', { jwt, environment: dev, body: { address } })
  expect(status).toBe(200)
  return { eth: BigInt(body.eth_wei), usdc: BigInt(body.usdc_base), body }
}

/** Polls /dev/balances until the address holds ETH and USDC, at most `timeoutMs`. */
async function waitFunded(jwt: string, address: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const b = await balances(jwt, address)
    if (b.usdc > 0n && b.eth > 0n) return b
    if (Date.now() > deadline)
      throw new Error(`${address} was not funded within ${timeoutMs} ms: ${JSON.stringify(b.body)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function walletRow(userId: string) {
  return t.server.database.db.selectFrom('sandbox_wallets').selectAll().where('user_id', '=', userId).execute()
}

describe('GET /sandbox-wallet', () => {
  test('created once, stable across GETs, funded in the background; the key is stored encrypted', async () => {
    const { jwt, userId } = await t.signup()
    const first = await t.call('/sandbox-wallet', { jwt, environment: dev })
    expect(first.status).toBe(200)
    expect(first.body.funding).toBe('started')
    const { address, private_key, private_key_redacted } = first.body
    expect(privateKeyToAccount(private_key).address).toBe(address)
    expect(private_key_redacted).toBe(`${private_key.slice(0, 6)}…${private_key.slice(-4)}`)

    const second = await t.call('/sandbox-wallet', { jwt, environment: dev })
    expect(second.body).toEqual({ ...first.body, funding: 'existing' })

    const rows = await walletRow(userId)
    expect(rows).toHaveLength(1)
    const stored = JSON.stringify(rows[0]).toLowerCase()
    expect(stored).not.toContain(private_key.slice(2).toLowerCase())
    expect(decryptSecret(loadInstallSecrets(t.server.dataDir).walletKey, rows[0]!.encrypted_private_key)).toBe(
      private_key,
    )

    const funded = await waitFunded(jwt, address)
    expect(funded.body.address).toBe(address)
  })

  test('concurrent first GETs give one wallet, funded once', async () => {
    const { jwt, userId } = await t.signup()
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.call('/sandbox-wallet', { jwt, environment: dev })),
    )
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200))
    expect(new Set(answers.map((a) => a.body.address)).size).toBe(1)
    expect(new Set(answers.map((a) => a.body.private_key)).size).toBe(1)
    expect(answers.filter((a) => a.body.funding === 'started')).toHaveLength(1)
    expect(await walletRow(userId)).toHaveLength(1)
  })

  test('each seller has their own wallet', async () => {
    const a = await t.signup()
    const b = await t.signup()
    const wa = await t.call('/sandbox-wallet', { jwt: a.jwt, environment: dev })
    const wb = await t.call('/sandbox-wallet', { jwt: b.jwt, environment: dev })
    expect(wa.body.address).not.toBe(wb.body.address)
  })

  test('an unverified account may read a wallet it already has (not a write), but not create one', async () => {
    const { jwt, userId } = await t.signup()
    const created = await t.call('/sandbox-wallet', { jwt, environment: dev })
    expect(created.status).toBe(200)
    // A wallet made before the account lost (or, from an older svc, never had) its verification.
    await t.server.database.db.updateTable('users').set({ email_verified_at: null }).where('id', '=', userId).execute()
    expect(await t.call('/sandbox-wallet', { jwt, environment: dev })).toMatchObject({
      status: 200,
      body: { ...created.body, funding: 'existing' },
    })
  })
})

describe('POST /sandbox-wallet/reset', () => {
  test('rotates the keypair and funds the new address', async () => {
    const { jwt, userId } = await t.signup()
    const before = await t.call('/sandbox-wallet', { jwt, environment: dev })
    const reset = await t.call('/sandbox-wallet/reset', { jwt, environment: dev, method: 'POST' })
    expect(reset.status).toBe(200)
    expect(reset.body.funding).toBe('started')
    expect(reset.body.address).not.toBe(before.body.address)
    expect(reset.body.private_key).not.toBe(before.body.private_key)
    expect(privateKeyToAccount(reset.body.private_key).address).toBe(reset.body.address)

    const after = await t.call('/sandbox-wallet', { jwt, environment: dev })
    expect(after.body).toEqual({ ...reset.body, funding: 'existing' })
    const rows = await walletRow(userId)
    expect(rows).toHaveLength(1)
    expect(rows[0]!.address).toBe(reset.body.address)
    expect(JSON.stringify(rows[0]).toLowerCase()).not.toContain(reset.body.private_key.slice(2).toLowerCase())

    await waitFunded(jwt, reset.body.address)
  })

  test('without a wallet yet, reset creates one', async () => {
    const { jwt } = await t.signup()
    const reset = await t.call('/sandbox-wallet/reset', { jwt, environment: dev, method: 'POST' })
    expect(reset).toMatchObject({ status: 200, body: { funding: 'started' } })
    expect((await t.call('/sandbox-wallet', { jwt, environment: dev })).body.address).toBe(reset.body.address)
  })
})

describe('chain helpers', () => {
  test('/dev/faucet funds eth, usdc, all; /dev/balances reads it', async () => {
    const { jwt } = await t.signup()
    const address = addressOf(0xfa0001)
    expect((await balances(jwt, address)).body).toEqual({ address, eth_wei: '0x0', usdc_base: '0x0' })

    const eth = await t.call('/dev/faucet', { jwt, environment: dev, body: { address, asset: 'eth', amount: '2.5' } })
    expect(eth.status).toBe(200)
    expect(eth.body).toMatchObject({ address, asset: 'eth', funded: { eth_wei: '0x22b1c8c1227a0000' } })
    expect(eth.body.funded.usdc_base).toBeUndefined()
    expect(await balances(jwt, address)).toMatchObject({ eth: 2_500_000_000_000_000_000n, usdc: 0n })

    const usdc = await t.call('/dev/faucet', { jwt, environment: dev, body: { address, asset: 'usdc', amount: '3' } })
    expect(usdc.body).toMatchObject({
      asset: 'usdc',
      funded: { usdc_base: '0x2dc6c0' },
      balances: { usdc_base: '0x2dc6c0' },
    })
    expect(await balances(jwt, address)).toMatchObject({ eth: 2_500_000_000_000_000_000n, usdc: 3_000_000n })

    const all = await t.call('/dev/faucet', { jwt, environment: dev, body: { address } })
    expect(all.body.asset).toBe('all')
    expect(BigInt(all.body.funded.eth_wei)).toBeGreaterThan(0n)
    expect(BigInt(all.body.funded.usdc_base)).toBeGreaterThan(0n)
    const after = await balances(jwt, address)
    expect(after.eth).toBe(2_500_000_000_000_000_000n + BigInt(all.body.funded.eth_wei))
    expect(after.usdc).toBe(3_000_000n + BigInt(all.body.funded.usdc_base))
    expect(all.body.balances).toEqual({ eth_wei: after.body.eth_wei, usdc_base: after.body.usdc_base })
  })

  test('addresses are accepted in any case and answered checksummed', async () => {
    const { jwt } = await t.signup()
    const lower = `0x${'ab'.repeat(20)}`
    const { body } = await balances(jwt, lower)
    expect(body.address).toBe('0xABaBaBaBABabABabAbAbABAbABabababaBaBABaB')
  })

  test.each([
    ['/dev/balances', { address: 'nope' }, 'address: not an address'],
    ['/dev/balances', { address: 5 }, 'address: expected an address string'],
    ['/dev/balances', {}, 'address: expected an address string'],
    ['/dev/balances', { address: addressOf(1), extra: 1 }, 'unknown field "extra"'],
    ['/dev/faucet', { address: '0x1234' }, 'address: not an address'],
    ['/dev/faucet', { address: addressOf(1), asset: 'btc' }, 'asset: asset must be one of all, eth, usdc'],
    [
      '/dev/faucet',
      { address: addressOf(1), asset: 'eth', amount: '-1' },
      'amount: amount must be a decimal string in whole units, e.g. "2.5"',
    ],
    [
      '/dev/faucet',
      { address: addressOf(1), asset: 'eth', amount: 2 },
      'amount: amount must be a decimal string in whole units, e.g. "2.5"',
    ],
    ['/dev/faucet', { address: addressOf(1), amount: '1' }, 'amount needs asset "eth" or "usdc"'],
    ['/dev/faucet', { address: addressOf(1), asset: 'usdc', amount: '0' }, 'amount must be greater than 0'],
    [
      '/dev/faucet',
      { address: addressOf(1), asset: 'eth', amount: '1000001' },
      'amount too large: at most 1000000 ETH per call',
    ],
  ])('%s %j → 400 %s', async (path, body, error) => {
    const { jwt } = await t.signup()
    expect(await t.call(path, { jwt, environment: dev, body })).toMatchObject({ status: 400, body: { error } })
  })

  test('no body → 400', async () => {
    const { jwt } = await t.signup()
    expect(await t.call('/dev/balances', { jwt, environment: dev, method: 'POST' })).toMatchObject({
      status: 400,
      body: { error: 'expected a JSON body (Content-Type: application/json)' },
    })
  })
})

describe('access', () => {
  const routes = [
    { path: '/sandbox-wallet', method: 'GET', body: undefined },
    { path: '/sandbox-wallet/reset', method: 'POST', body: undefined },
    { path: '/dev/balances', method: 'POST', body: { address: addressOf(2) } },
    { path: '/dev/faucet', method: 'POST', body: { address: addressOf(2) } },
  ]

  test.each(routes)('$method $path: API key → 403 jwt required', async ({ path, method, body }) => {
    const { jwt } = await t.signup()
    const key = await t.createKey(jwt, 'development', ['apis:read', 'apis:write', 'endpoints:read', 'endpoints:write'])
    expect(await t.call(path, { method, body, key, host: 'development' })).toMatchObject({
      status: 403,
      body: { error: 'jwt required' },
    })
    const live = await t.createKey(jwt, 'production', ['apis:read'])
    expect(await t.call(path, { method, body, key: live })).toMatchObject({
      status: 403,
      body: { error: 'jwt required' },
    })
  })

  test.each(routes)(
    '$method $path: a JWT without the development environment → 403',
    async ({ path, method, body }) => {
      const { jwt } = await t.signup()
      const expected = {
        status: 403,
        body: { error: 'this route needs the development environment (X-Svc-Environment: development)' },
      }
      expect(await t.call(path, { method, body, jwt })).toMatchObject(expected)
      expect(await t.call(path, { method, body, jwt, environment: 'production' })).toMatchObject(expected)
      // The header decides on either host; without it, the host does (the Sandbox host is the development environment).
      expect(await t.call(path, { method, body, jwt, host: 'development', environment: 'production' })).toMatchObject(
        expected,
      )
      expect((await t.call(path, { method, body, jwt, host: 'development', environment: dev })).status).toBe(200)
      expect((await t.call(path, { method, body, jwt, host: 'development' })).status).toBe(200)
    },
  )

  test.each(routes)('$method $path: no credential → 401 unauthorized', async ({ path, method, body }) => {
    expect(await t.call(path, { method, body, environment: dev })).toMatchObject({
      status: 401,
      body: { error: 'unauthorized' },
    })
  })

  test.each(routes.filter((r) => r.method === 'POST' && r.path !== '/dev/balances'))(
    '$method $path: unverified → 403 email verification required',
    async ({ path, method, body }) => {
      const { jwt } = await t.signup({ verified: false })
      expect(await t.call(path, { method, body, jwt, environment: dev })).toMatchObject({
        status: 403,
        body: { error: 'email verification required' },
      })
    },
  )

  test('GET /sandbox-wallet by an unverified account: 403 email verification required, no wallet row, no funding', async () => {
    const { jwt, userId } = await t.signup({ verified: false })
    expect(await t.call('/sandbox-wallet', { jwt, environment: dev })).toMatchObject({
      status: 403,
      body: { error: 'email verification required' },
    })
    expect(await walletRow(userId)).toEqual([])
  })

  test('an unverified account may read balances', async () => {
    const { jwt } = await t.signup({ verified: false })
    expect((await t.call('/dev/balances', { jwt, environment: dev, body: { address: addressOf(3) } })).status).toBe(200)
  })
})

describe('without a chain', () => {
  test('every route answers 503 the Sandbox chain is not running (after the guard)', async () => {
    const bare = await startTestServer()
    try {
      const { jwt } = await bare.signup()
      for (const { path, body } of [
        { path: '/sandbox-wallet', body: undefined },
        { path: '/sandbox-wallet/reset', body: undefined },
        { path: '/dev/balances', body: { address: addressOf(4) } },
        { path: '/dev/faucet', body: { address: addressOf(4) } },
      ]) {
        const method = path === '/sandbox-wallet' ? 'GET' : 'POST'
        expect(await bare.call(path, { method, body, jwt, environment: dev })).toMatchObject({
          status: 503,
          body: { error: 'the Sandbox chain is not running (start svc with `svc up`)' },
        })
        expect((await bare.call(path, { method, body, jwt })).status).toBe(403)
      }
      expect(await bare.server.database.db.selectFrom('sandbox_wallets').selectAll().execute()).toEqual([])
    } finally {
      await bare.stop()
    }
  })
})
