/**
 * Malformed batch-settlement bodies at svc's facilitator (issue 24, bad input): refused with a 400 naming the first
 * problem before `@x402/evm` turns a field into a BigInt or an address (which would throw, a 500); well-formed ones the
 * scheme refuses keep its own reason. And the scheme is there on a twin too.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { getJson, postJson } from '../../helpers/payments.js'

let services: ChainServices
beforeAll(async () => {
  services = await startChainServices({ twins: ['base-sepolia'] })
})
afterAll(async () => {
  await services?.stop()
})

const someone = '0x000000000000000000000000000000000000bEEF'
const requirements = () => ({
  scheme: 'batch-settlement',
  network: services.sandboxChain.network,
  asset: services.sandboxChain.usdc.address,
  amount: '1000',
  payTo: someone,
  maxTimeoutSeconds: 60,
  extra: {
    name: 'USDC',
    version: '2',
    receiverAuthorizer: services.facilitator.receiverAuthorizer,
    withdrawDelay: 900,
  },
})
const config = () => ({
  payer: someone,
  payerAuthorizer: someone,
  receiver: someone,
  receiverAuthorizer: services.facilitator.receiverAuthorizer,
  token: services.sandboxChain.usdc.address,
  withdrawDelay: 900,
  salt: `0x${'0'.repeat(64)}`,
})
const voucher = { channelId: `0x${'1'.repeat(64)}`, maxClaimableAmount: '1000', signature: '0x1234' }
const post = (path: string, payload: unknown) =>
  postJson(`${services.facilitatorUrl}/${path}`, {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirements(), payload },
    paymentRequirements: requirements(),
  })

test.each([
  ['a claim whose claims are not a list', () => ({ type: 'claim', claims: 'x' }), /claims: expected an array/],
  ['a claim row without its voucher', () => ({ type: 'claim', claims: [{ totalClaimed: '1' }] }), /claims\.0\.voucher/],
  [
    'a settle of a receiver that is not an address',
    () => ({ type: 'settle', receiver: 'nope', token: someone }),
    /receiver/,
  ],
  [
    'a voucher of a config with a bad address',
    () => ({ type: 'voucher', channelConfig: { ...config(), payer: 'zz' }, voucher }),
    /channelConfig\.payer/,
  ],
  [
    'a voucher for a non-number',
    () => ({ type: 'voucher', channelConfig: config(), voucher: { ...voucher, maxClaimableAmount: 'abc' } }),
    /maxClaimableAmount/,
  ],
  [
    'a deposit without an authorization',
    () => ({ type: 'deposit', channelConfig: config(), voucher, deposit: { amount: '10' } }),
    /deposit\.authorization/,
  ],
])('%s: 400 on /verify and /settle', async (_name, payload, problem) => {
  for (const path of ['verify', 'settle']) {
    const answer = await post(path, payload())
    expect(answer.status).toBe(400)
    expect((answer.body as { error: string }).error).toMatch(problem)
  }
})

test('a well-formed voucher for a channel that does not match its config: the scheme’s own reason', async () => {
  const answer = await post('verify', { type: 'voucher', channelConfig: config(), voucher })
  expect(answer.status).toBe(200)
  expect(answer.body).toMatchObject({
    isValid: false,
    invalidReason: 'invalid_batch_settlement_evm_channel_id_mismatch',
  })
})

test('a twin has the contracts at the official addresses and the scheme, with the same receiver authorizer', async () => {
  const twin = services.twins[0]!.chain
  for (const address of Object.values(batchSettlementAddresses))
    expect((await twin.client.getCode({ address }))?.length ?? 0).toBeGreaterThan(2)
  const { body } = await getJson(`${services.facilitatorUrl}/supported`)
  const kinds = (body as { kinds: { scheme: string; network: string; extra?: { receiverAuthorizer?: string } }[] })
    .kinds
  const batch = kinds.filter((kind) => kind.scheme === 'batch-settlement')
  expect(batch.map((kind) => kind.network).sort()).toEqual([services.sandboxChain.network, twin.network].sort())
  for (const kind of batch) expect(kind.extra?.receiverAuthorizer).toBe(services.facilitator.receiverAuthorizer)
})
