import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../../helpers/control.js'

const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const batch = { scheme: 'batch-settlement', network: 'eip155:8453', asset: usdc, amount: '1000' }

let t: TestServer
beforeAll(async () => {
  t = await startTestServer()
})
afterAll(async () => {
  await t?.stop()
})

let slugs = 0
async function newApi() {
  const { jwt } = await t.signup()
  const body = {
    name: 'Channels',
    slug: `batch-${process.pid}-${++slugs}`,
    upstream_base_url: 'http://127.0.0.1:9',
    pay_to_mode: 'user_wallet',
    pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  }
  const { status, body: api } = await t.call('/apis', { jwt, body })
  expect(status).toBe(201)
  return { jwt, api }
}

describe('batch-settlement accepts', () => {
  test('a deposit policy, a withdraw delay and a schedule are kept as given', async () => {
    const { jwt, api } = await newApi()
    const extra = { minDeposit: '50000', withdrawDelay: 3600, claimIntervalSeconds: 5, settleIntervalSeconds: 30 }
    const created = await t.call(`/apis/${api.id}/endpoints`, {
      jwt,
      body: { method: 'GET', path_pattern: '/metered', accepts: [{ ...batch, extra }] },
    })
    expect(created.status).toBe(201)
    expect(created.body.accepts).toEqual([{ ...batch, max_timeout_seconds: 300, extra }])
  })

  test.each([
    [
      { minDeposit: 5000 },
      'accepts.0.extra.minDeposit: must be a positive integer of atomic units without leading zeros, as a string',
    ],
    [
      { minDeposit: '999' },
      'accepts.0.extra.minDeposit: must be at least the amount (1000): a deposit pays the first request',
    ],
    [
      { withdrawDelay: 60 },
      "accepts.0.extra.withdrawDelay: must be an integer number of seconds between 900 and 2592000 (the batch-settlement contract's bounds)",
    ],
    [
      { withdrawDelay: 2_592_001 },
      "accepts.0.extra.withdrawDelay: must be an integer number of seconds between 900 and 2592000 (the batch-settlement contract's bounds)",
    ],
    [
      { claimIntervalSeconds: 0 },
      'accepts.0.extra.claimIntervalSeconds: must be an integer number of seconds between 1 and 86400',
    ],
    [
      { settleIntervalSeconds: 1.5 },
      'accepts.0.extra.settleIntervalSeconds: must be an integer number of seconds between 1 and 86400',
    ],
    [
      { paymentFlow: 'upfront' },
      'accepts.0.extra.paymentFlow: batch-settlement charges a voucher after the upstream answered: only "authorization"',
    ],
    [
      { gasSponsoring: 'eip2612GasSponsoring' },
      'accepts.0.extra.gasSponsoring: batch-settlement deposits need no Permit2 approval sponsoring: leave it out',
    ],
    [
      { receiverAuthorizer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
      'accepts.0.extra.receiverAuthorizer: is written by the batch-settlement scheme: leave it out',
    ],
  ])('extra %j → 400', async (extra, error) => {
    const { jwt, api } = await newApi()
    expect(
      await t.call(`/apis/${api.id}/endpoints`, {
        jwt,
        body: { method: 'GET', path_pattern: '/m', accepts: [{ ...batch, extra }] },
      }),
    ).toMatchObject({ status: 400, body: { error } })
  })

  test('the batch-settlement accepts of an endpoint share one withdraw delay', async () => {
    const { jwt, api } = await newApi()
    const accepts = [
      { ...batch, extra: { withdrawDelay: 900 } },
      { ...batch, amount: '2000', extra: { withdrawDelay: 1800 } },
    ]
    expect(
      await t.call(`/apis/${api.id}/endpoints`, { jwt, body: { method: 'GET', path_pattern: '/m', accepts } }),
    ).toMatchObject({
      status: 400,
      body: { error: 'accepts: the batch-settlement accepts of an endpoint must name the same extra.withdrawDelay' },
    })
  })
})
