import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Environment } from '../../../core/hosts.js'
import { startTestServer, type CallOptions, type TestServer } from '../../helpers/control.js'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer()
})
afterAll(() => t?.stop())

const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const base = 'eip155:8453'
const sandbox = 'eip155:845320402'
const otherToken = '0x00000000000000000000000000000000000000Aa'
const dev = { host: 'development' as const, environment: 'development' }

const day = (offset = 0) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
const at = (offset: number, time = '12:00:00.000') => `${day(offset)}T${offset === 0 ? '00:00:01.000' : time}Z`

let counter = 0
/** A verified seller with one API per environment, created through the routes. */
async function seller() {
  const { jwt, userId } = await t.signup()
  const api = async (options: Partial<CallOptions> = {}) => {
    const body = {
      name: 'Paid',
      slug: `paid-${process.pid}-${++counter}`,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    }
    const created = await t.call('/apis', { jwt, body, ...options })
    expect(created.status).toBe(201)
    return created.body.id as string
  }
  return { jwt, userId, api, prodApi: await api(), devApi: await api(dev) }
}

type SettlementInput = { userId: string; apiId: string; environment?: Environment } & Partial<
  Record<string, string | null>
>
async function settle(...rows: SettlementInput[]) {
  const values = rows.map(({ userId, apiId, environment = 'production', ...rest }) => ({
    id: `stl_${process.pid}_${String(++counter).padStart(6, '0')}`,
    api_id: apiId,
    endpoint_id: 'ep_1',
    user_id: userId,
    environment,
    network: base,
    asset: usdc,
    amount: '1000',
    payer: '0x1111111111111111111111111111111111111111',
    pay_to: '0x000000000000000000000000000000000000bEEF',
    transaction: `0x${counter.toString(16).padStart(64, '0')}`,
    method: 'GET',
    path: '/things/1',
    created_at: at(0),
    ...rest,
  }))
  for (let i = 0; i < values.length; i += 500)
    await t.server.database.db
      .insertInto('settlements')
      .values(values.slice(i, i + 500) as any)
      .execute()
  return values
}

async function traffic(
  userId: string,
  apiId: string,
  offset: number,
  requests: number,
  paymentRequired: number,
  paid: number,
  environment: Environment = 'production',
) {
  await t.server.database.db
    .insertInto('api_daily_stats')
    .values({
      api_id: apiId,
      user_id: userId,
      environment,
      day: day(offset),
      requests,
      payment_required: paymentRequired,
      paid_requests: paid,
    })
    .execute()
}

describe('GET /stats/overview', () => {
  test('totals, zero-filled days, exact revenue per asset, unique payers, api_id filter', async () => {
    const s = await seller()
    const second = await s.api()
    await traffic(s.userId, s.prodApi, 0, 10, 4, 3)
    await traffic(s.userId, second, 0, 5, 2, 2)
    await traffic(s.userId, s.prodApi, -2, 7, 1, 1)
    await traffic(s.userId, s.prodApi, -7, 100, 100, 100) // one day before a 7-day range
    const big = '123456789012345678901234567890'
    await settle(
      { userId: s.userId, apiId: s.prodApi, amount: '999999999', payer: '0xAbCdEf0000000000000000000000000000000001' },
      { userId: s.userId, apiId: s.prodApi, amount: '1', payer: '0xabcdef0000000000000000000000000000000001' },
      {
        userId: s.userId,
        apiId: second,
        amount: big,
        asset: otherToken,
        payer: '0x2222222222222222222222222222222222222222',
      },
      { userId: s.userId, apiId: s.prodApi, amount: big, asset: otherToken, created_at: at(-2) },
      { userId: s.userId, apiId: s.prodApi, amount: '5', created_at: at(-7) },
    )

    const { status, body } = await t.call('/stats/overview', { jwt: s.jwt })
    expect(status).toBe(200)
    expect(body).toMatchObject({ days: 7, from: day(-6), to: day(0), api_id: null })
    expect(body.totals).toEqual({
      requests: 22,
      payment_required: 7,
      paid_requests: 6,
      settlements: 4,
      unique_payers: 3,
    })
    expect(body.revenue).toEqual([
      { network: base, asset: otherToken, amount: '246913578024691357802469135780' },
      { network: base, asset: usdc, amount: '1000000000', decimals: 6, symbol: 'USDC' },
    ])
    expect(body.daily.map((d: { day: string }) => d.day)).toEqual([-6, -5, -4, -3, -2, -1, 0].map(day))
    expect(body.daily[0]).toEqual({
      day: day(-6),
      requests: 0,
      payment_required: 0,
      paid_requests: 0,
      settlements: 0,
      revenue: [],
    })
    expect(body.daily[4]).toEqual({
      day: day(-2),
      requests: 7,
      payment_required: 1,
      paid_requests: 1,
      settlements: 1,
      revenue: [{ network: base, asset: otherToken, amount: big }],
    })
    expect(body.daily[6]).toMatchObject({ requests: 15, payment_required: 6, paid_requests: 5, settlements: 3 })

    const eight = await t.call('/stats/overview?days=8', { jwt: s.jwt })
    expect(eight.body.totals).toMatchObject({ requests: 122, settlements: 5 })
    expect(eight.body.daily).toHaveLength(8)

    const one = await t.call(`/stats/overview?days=1&api_id=${second}`, { jwt: s.jwt })
    expect(one.body).toMatchObject({ days: 1, from: day(0), to: day(0), api_id: second })
    expect(one.body.totals).toEqual({
      requests: 5,
      payment_required: 2,
      paid_requests: 2,
      settlements: 1,
      unique_payers: 1,
    })
    expect(one.body.revenue).toEqual([{ network: base, asset: otherToken, amount: big }])
    expect((await t.call('/stats/overview?days=365', { jwt: s.jwt })).body.daily).toHaveLength(365)
  })

  test('sandbox USDC has decimals 6 and its symbol; an API of the other environment or another seller is 404', async () => {
    const s = await seller()
    const other = await seller()
    await settle({
      userId: s.userId,
      apiId: s.devApi,
      environment: 'development',
      network: sandbox,
      asset: usdc.toLowerCase(),
      amount: '20000',
    })
    const devStats = await t.call('/stats/overview', { ...dev, jwt: s.jwt })
    expect(devStats.body.revenue).toEqual([
      { network: sandbox, asset: usdc.toLowerCase(), amount: '20000', decimals: 6, symbol: 'USDC' },
    ])
    for (const apiId of [s.devApi, other.prodApi, 'api_nope'])
      expect(await t.call(`/stats/overview?api_id=${apiId}`, { jwt: s.jwt })).toMatchObject({
        status: 404,
        body: { error: expect.stringMatching(/^api not found: /) },
      })
  })

  test.each([
    ['days=0', 'days: must be an integer from 1 to 365'],
    ['days=366', 'days: must be an integer from 1 to 365'],
    ['days=abc', 'days: must be an integer from 1 to 365'],
    ['days=1.5', 'days: must be an integer from 1 to 365'],
    ['days=-1', 'days: must be an integer from 1 to 365'],
    ['days=', 'days: must be an integer from 1 to 365'],
    ['days=1&days=2', 'days: given more than once'],
    ['api_id=', 'api_id: must not be empty'],
    ['range=7', 'unknown query parameter "range"'],
  ])('?%s → 400', async (query, error) => {
    const { jwt } = await seller()
    expect(await t.call(`/stats/overview?${query}`, { jwt })).toMatchObject({ status: 400, body: { error } })
  })
})

describe('GET /settlements', () => {
  test('pages newest first without duplicates or gaps, ties broken by id', async () => {
    const s = await seller()
    const rows = await settle(
      ...Array.from({ length: 7 }, (_, i) => ({
        userId: s.userId,
        apiId: s.prodApi,
        created_at: at(-1, `10:00:0${i % 3}.000`),
      })),
    )
    const expected = [...rows]
      .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
      .map((r) => r.id)
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page: any = await t.call(`/settlements?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { jwt: s.jwt })
      expect(page.status).toBe(200)
      seen.push(...page.body.settlements.map((x: { id: string }) => x.id))
      cursor = page.body.next_cursor
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(seen).toEqual(expected)

    const first = (await t.call('/settlements', { jwt: s.jwt })).body
    expect(first.next_cursor).toBeNull()
    expect(first.settlements[0]).toEqual({
      id: expected[0],
      api_id: s.prodApi,
      endpoint_id: 'ep_1',
      environment: 'production',
      network: base,
      asset: usdc,
      amount: '1000',
      payer: '0x1111111111111111111111111111111111111111',
      pay_to: '0x000000000000000000000000000000000000bEEF',
      transaction: rows.find((r) => r.id === expected[0])!.transaction,
      method: 'GET',
      path: '/things/1',
      created_at: at(-1, '10:00:02.000'),
      chain_epoch: null,
      old_chain: false,
      delivered: true,
      builder_code: null,
    })
  })

  test('filters: api_id, endpoint_id, from and to (days and timestamps)', async () => {
    const s = await seller()
    const second = await s.api()
    await settle(
      { userId: s.userId, apiId: s.prodApi, endpoint_id: 'ep_a', created_at: at(-3) },
      { userId: s.userId, apiId: s.prodApi, endpoint_id: 'ep_b', created_at: at(-2) },
      { userId: s.userId, apiId: second, endpoint_id: null, created_at: at(-1) },
    )
    const list = async (query: string) =>
      ((await t.call(`/settlements?${query}`, { jwt: s.jwt })).body.settlements as { created_at: string }[]).map(
        (x) => x.created_at,
      )
    expect(await list(`api_id=${s.prodApi}`)).toEqual([at(-2), at(-3)])
    expect(await list(`api_id=${second}`)).toEqual([at(-1)])
    expect(await list('endpoint_id=ep_a')).toEqual([at(-3)])
    expect(await list(`from=${day(-2)}`)).toEqual([at(-1), at(-2)])
    expect(await list(`to=${day(-2)}`)).toEqual([at(-2), at(-3)])
    expect(await list(`from=${day(-2)}&to=${day(-2)}`)).toEqual([at(-2)])
    expect(await list(`from=${encodeURIComponent(at(-2))}&to=${encodeURIComponent(at(-2))}`)).toEqual([at(-2)])
    expect(await list(`to=${encodeURIComponent(`${day(-2)}T13:00:00+02:00`)}`)).toEqual([at(-3)])
    expect(await list(`to=${encodeURIComponent(`${day(-2)}T14:00:00+02:00`)}`)).toEqual([at(-2), at(-3)])
  })

  test.each([
    ['limit=0', 'limit: must be an integer from 1 to 200'],
    ['limit=201', 'limit: must be an integer from 1 to 200'],
    [
      'from=yesterday',
      'from: expected YYYY-MM-DD or an ISO 8601 timestamp with a time zone (e.g. 2026-01-31T12:00:00Z)',
    ],
    ['to=2026-02-30', 'to: expected YYYY-MM-DD or an ISO 8601 timestamp with a time zone (e.g. 2026-01-31T12:00:00Z)'],
    [
      'to=2026-01-31T12:00:00',
      'to: expected YYYY-MM-DD or an ISO 8601 timestamp with a time zone (e.g. 2026-01-31T12:00:00Z)',
    ],
    ['from=2026-02-02&to=2026-02-01', 'from: must not be after to'],
    ['cursor=!!!', 'cursor: invalid'],
    [`cursor=${Buffer.from('{"a":1}').toString('base64url')}`, 'cursor: invalid'],
    ['cursor=abc', 'cursor: invalid'],
    ['format=xml', 'format: must be "json" or "csv"'],
    ['format=csv&limit=5', 'limit: not used by the CSV export (it has every matching row)'],
    ['page=2', 'unknown query parameter "page"'],
  ])('?%s → 400', async (query, error) => {
    const { jwt } = await seller()
    expect(await t.call(`/settlements?${query}`, { jwt })).toMatchObject({ status: 400, body: { error } })
  })

  test('an API of another seller or environment is 404', async () => {
    const s = await seller()
    const other = await seller()
    for (const apiId of [s.devApi, other.prodApi])
      expect(await t.call(`/settlements?api_id=${apiId}`, { jwt: s.jwt })).toMatchObject({
        status: 404,
        body: { error: expect.stringMatching(/^api not found: /) },
      })
  })
})

describe('CSV export', () => {
  test('format=csv and Accept: text/csv: header, every row (more than a page and a batch), RFC 4180 quoting', async () => {
    const s = await seller()
    await settle(
      ...Array.from({ length: 1203 }, (_, i) => ({
        userId: s.userId,
        apiId: s.prodApi,
        created_at: at(
          -1,
          `10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000`,
        ),
      })),
    )
    const [tricky] = await settle({
      userId: s.userId,
      apiId: s.prodApi,
      path: '/search?q=a,b&say="hi"',
      endpoint_id: null,
    })
    for (const options of [
      { path: '/settlements?format=csv', headers: {} as Record<string, string> },
      { path: '/settlements', headers: { accept: 'text/csv' } },
    ]) {
      const res = await t.call(options.path, { jwt: s.jwt, headers: options.headers })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="settlements.csv"')
      const lines = (res.body as string).split('\r\n')
      expect(lines[0]).toBe(
        'id,api_id,endpoint_id,environment,network,asset,amount,payer,pay_to,transaction,method,path,created_at,chain_epoch,old_chain,delivered,escrow_state,authorized,captured,refunded',
      )
      expect(lines.at(-1)).toBe('')
      expect(lines).toHaveLength(1 + 1204 + 1)
      expect(new Set(lines.slice(1, -1).map((line) => line.split(',')[0])).size).toBe(1204)
      expect(lines[1]).toBe(
        `${tricky!.id},${s.prodApi},,production,${base},${usdc},1000,0x1111111111111111111111111111111111111111,0x000000000000000000000000000000000000bEEF,${tricky!.transaction},GET,"/search?q=a,b&say=""hi""",${tricky!.created_at},,false,true,,,,`,
      )
    }
    const filtered = await t.call(
      `/settlements?format=csv&to=${day(-1)}&from=${encodeURIComponent(at(-1, '10:00:00.000'))}&endpoint_id=ep_1`,
      { jwt: s.jwt },
    )
    expect((filtered.body as string).split('\r\n')).toHaveLength(1 + 1203 + 1)
    const empty = await t.call('/settlements?format=csv', { jwt: (await seller()).jwt })
    expect(empty.body).toBe(
      'id,api_id,endpoint_id,environment,network,asset,amount,payer,pay_to,transaction,method,path,created_at,chain_epoch,old_chain,delivered,escrow_state,authorized,captured,refunded\r\n',
    )
  })
})

describe('access', () => {
  test('scopes: stats:read and settlements:read; the analytics preset has both', async () => {
    const s = await seller()
    const apisOnly = await t.createKey(s.jwt, 'production', ['apis:read'])
    const statsOnly = await t.createKey(s.jwt, 'production', ['stats:read'])
    const analytics = await t.createKey(s.jwt, 'production', ['analytics'])
    for (const path of ['/stats/overview', '/settlements'])
      expect(await t.call(path, { key: apisOnly })).toMatchObject({
        status: 403,
        body: { error: 'insufficient scope' },
      })
    expect((await t.call('/stats/overview', { key: statsOnly })).status).toBe(200)
    expect(await t.call('/settlements', { key: statsOnly })).toMatchObject({
      status: 403,
      body: { error: 'insufficient scope' },
    })
    expect((await t.call('/stats/overview', { key: analytics })).status).toBe(200)
    expect((await t.call('/settlements?format=csv', { key: analytics })).status).toBe(200)
    for (const path of ['/stats/overview', '/settlements']) expect((await t.call(path)).status).toBe(401)
  })

  test('environment isolation: a production key sees no development rows, a Sandbox key no production rows', async () => {
    const s = await seller()
    await traffic(s.userId, s.prodApi, 0, 3, 1, 1)
    await traffic(s.userId, s.devApi, 0, 9, 9, 9, 'development')
    const [prodRow] = await settle({ userId: s.userId, apiId: s.prodApi })
    const [devRow] = await settle({ userId: s.userId, apiId: s.devApi, environment: 'development', network: sandbox })
    const live = await t.createKey(s.jwt, 'production', ['analytics'])
    const sandboxKey = await t.createKey(s.jwt, 'development', ['analytics'])

    expect((await t.call('/stats/overview', { key: live })).body.totals).toEqual({
      requests: 3,
      payment_required: 1,
      paid_requests: 1,
      settlements: 1,
      unique_payers: 1,
    })
    expect((await t.call('/settlements', { key: live })).body.settlements.map((x: { id: string }) => x.id)).toEqual([
      prodRow!.id,
    ])
    expect((await t.call('/stats/overview', { key: sandboxKey, host: 'development' })).body.totals).toMatchObject({
      requests: 9,
      settlements: 1,
    })
    expect(
      (await t.call('/settlements', { key: sandboxKey, host: 'development' })).body.settlements.map(
        (x: { id: string }) => x.id,
      ),
    ).toEqual([devRow!.id])
    expect((await t.call('/settlements?format=csv', { jwt: s.jwt, ...dev })).body).toContain(devRow!.id)
    expect((await t.call('/settlements?format=csv', { jwt: s.jwt })).body).not.toContain(devRow!.id)
  })

  test('tenant isolation: another seller sees none of these rows', async () => {
    const s = await seller()
    const other = await seller()
    await traffic(s.userId, s.prodApi, 0, 3, 1, 1)
    await settle({ userId: s.userId, apiId: s.prodApi })
    expect((await t.call('/stats/overview', { jwt: other.jwt })).body.totals).toEqual({
      requests: 0,
      payment_required: 0,
      paid_requests: 0,
      settlements: 0,
      unique_payers: 0,
    })
    expect((await t.call('/settlements', { jwt: other.jwt })).body).toEqual({ settlements: [], next_cursor: null })
    expect((await t.call('/settlements?endpoint_id=ep_1', { jwt: other.jwt })).body.settlements).toEqual([])
  })
})
