/**
 * Escrow payments (x402 auth-capture, issue 39) on a team Sandbox: two `svc serve --sandbox-chain shared` processes
 * on one PostgreSQL database, A not owning the chain, B owning it. A deferred payment authorized through A's gateway
 * (its owner's facilitator), captured in part through B's control plane, voided and refunded through A's (forwarded to
 * the owner): at each step every process's GET /payments and /settlements say the same, and so does the escrow's
 * `paymentState` on the chain. Two captures of all a payment holds sent at once through A and B move the money once:
 * one is 200, the other the control plane's 409, never a 500. Real processes, real Anvil, real PostgreSQL.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, createPublicClient, erc20Abi, type Hex, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buyerEscrowAbi } from '../../core/auth-capture/buyer.js'
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { fetchFrom, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'
import { signUpServeSeller, type ServeSeller } from '../helpers/serve-seller.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-serve-escrow-'))
const files = { jwt: join(dir, 'jwt.key'), wallet: join(dir, 'wallet.key'), admin: join(dir, 'admin.token') }
writeFileSync(files.jwt, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(files.wallet, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(files.admin, `${randomBytes(32).toString('hex')}\n`)
const fetchLocal = fetchFrom('127.0.0.1')
const buyer = privateKeyToAccount(generatePrivateKey())
const payTo = privateKeyToAccount(generatePrivateKey()).address
const price = 10_000n
const upstream: Server = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"booked":true}'),
)

// Where PostgreSQL is missing outside CI the file is skipped, as test/helpers/postgres.ts's testDialects does.
const runs = postgresAvailable() || Boolean(process.env.CI)
let postgres: TestPostgres
let a: ServeProcess
let b: ServeProcess
const started: ServeProcess[] = []
let seller: ServeSeller

const control = (svc: ServeProcess) => svc.ready.sandbox_control_url as string
const gateway = (svc: ServeProcess, path: string) =>
  `http://escrow.${svc.ready.sandbox_platform_domain}:${svc.ready.port}${path}`
const getJson = async (url: string) => (await (await fetchLocal(url, { headers: seller.headers })).json()) as any
const ownerChain = () => createPublicClient({ transport: http(b.ready.rpc_url) })
const usdcOf = (address: Address) =>
  ownerChain().readContract({ address: b.ready.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [address] })

beforeAll(async () => {
  if (!runs) return
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  postgres = await startPostgres()
  const databaseUrl = await postgres.createDatabase()
  const serve = async (name: string) => {
    const svc = await startServeProcess([
      ...['--data-dir', join(dir, name), '--database-url', databaseUrl, '--platform-domain', 'pay.test'],
      ...['--jwt-secret-file', files.jwt, '--wallet-key-file', files.wallet, '--sandbox-chain', 'shared'],
      ...['--allow-upstream', '127.0.0.3/32', '--auto-verify', '--admin-token-file', files.admin],
    ])
    started.push(svc)
    return svc
  }
  const [first, second] = await Promise.all([serve('a'), serve('b')])
  ;[b, a] = first!.ready.chain_owner ? [first!, second!] : [second!, first!]
  seller = await signUpServeSeller(fetchLocal, a, upstream)
  const api = await seller.post(`${control(a)}/apis`, {
    name: 'Escrow',
    slug: 'escrow',
    upstream_base_url: `http://127.0.0.3:${(upstream.address() as { port: number }).port}`,
    pay_to_mode: 'user_wallet',
    pay_to_address: payTo,
  })
  expect(api.status).toBe(201)
  const { id } = (await api.json()) as { id: string }
  const endpoint = await seller.post(`${control(a)}/apis/${id}/endpoints`, {
    method: 'GET',
    path_pattern: '/book',
    accepts: [
      {
        scheme: 'auth-capture',
        network: b.ready.network,
        asset: b.ready.usdc,
        amount: String(price),
        max_timeout_seconds: 300,
        extra: { captureMode: 'deferred' },
      },
    ],
  })
  expect(endpoint.status, await endpoint.clone().text()).toBe(201)
  expect((await seller.post(`${control(a)}/dev/faucet`, { address: buyer.address })).status).toBe(200)
}, 120_000)
afterAll(async () => {
  for (const svc of started) await svc.stop()
  await postgres?.stop()
  upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

/** What every process says of the seller's escrow payment `id` and its settlement: the same, or the test fails. */
async function agreed(id?: string) {
  const views = await Promise.all(
    [a, b].map(async (svc) => ({
      payments: (await getJson(`${control(svc)}/payments`)).payments,
      settlements: (await getJson(`${control(svc)}/settlements`)).settlements,
    })),
  )
  expect(views[1]).toEqual(views[0])
  const payment = id === undefined ? views[0]!.payments[0] : views[0]!.payments.find((row: any) => row.id === id)
  const settlement = views[0]!.settlements.find((row: any) => row.id === payment.settlement_id)
  return { payment, settlement }
}

/** The escrow's paymentState of the payment, on the owner's chain. */
async function onChain(payment: { escrow: Address; payment_info_hash: Hex }) {
  const [, capturable, refundable] = await ownerChain().readContract({
    address: payment.escrow,
    abi: buyerEscrowAbi,
    functionName: 'paymentState',
    args: [payment.payment_info_hash],
  })
  return { capturable: String(capturable), refundable: String(refundable) }
}

const move = (svc: ServeProcess, id: string, kind: string, body: object = {}) =>
  seller.post(`${control(svc)}/payments/${id}/${kind}`, body)

describe.skipIf(!runs)('escrow payments on svc serve ×2 (team Sandbox, PostgreSQL)', () => {
  test('authorized through A, captured through B, voided and refunded through A: every process and the chain agree; two captures at once move money once', {
    timeout: 120_000,
  }, async () => {
    const payer = new x402Client().register(b.ready.network as never, new AuthCaptureEvmScheme(buyer))
    payer.setSpendControls({
      allowedAssets: [{ network: b.ready.network as never, asset: b.ready.usdc, maxAmountPerPayment: '1000000' }],
    })
    const buyerBefore = await usdcOf(buyer.address)
    const paid = await wrapFetchWithPayment(fetchLocal, payer)(gateway(a, '/book'))
    expect(paid.status, await paid.clone().text()).toBe(200)
    expect(await paid.json()).toEqual({ booked: true })

    let { payment, settlement } = await agreed()
    expect(payment).toMatchObject({ state: 'authorized', authorized: '10000', captured: '0', capture_mode: 'deferred' })
    expect(settlement).toMatchObject({ amount: '0', escrow: { id: payment.id, state: 'authorized' } })
    expect(await onChain(payment)).toEqual({ capturable: '10000', refundable: '0' })

    // A part captured through B (the chain's owner).
    const captured = await move(b, payment.id, 'capture', { amount: '4000' })
    expect(captured.status, await captured.clone().text()).toBe(200)
    ;({ payment, settlement } = await agreed())
    expect(payment).toMatchObject({ captured: '4000', capturable: '6000', refundable: '4000' })
    expect(settlement.amount).toBe('4000')
    expect(await onChain(payment)).toEqual({ capturable: '6000', refundable: '4000' })

    // The rest voided through A, then a part refunded through A (the chain's routes go to the owner).
    const voided = await move(a, payment.id, 'void')
    expect(voided.status, await voided.clone().text()).toBe(200)
    expect((await move(b, payment.id, 'void')).status).toBe(409)
    const refunded = await move(a, payment.id, 'refund', { amount: '2000' })
    expect(refunded.status, await refunded.clone().text()).toBe(200)
    ;({ payment, settlement } = await agreed())
    // Captured, a part of it refunded (`refunded` is a payment's state once all it captured went back).
    expect(payment).toMatchObject({
      state: 'captured',
      captured: '4000',
      voided: '6000',
      refunded: '2000',
      capturable: '0',
      refundable: '2000',
    })
    expect(settlement).toMatchObject({ amount: '2000', escrow: { state: 'captured', refunded: '2000' } })
    expect(await onChain(payment)).toEqual({ capturable: '0', refundable: '2000' })
    const detail = await getJson(`${control(a)}/payments/${payment.id}`)
    expect(detail.transactions.map((row: { kind: string; amount: string }) => [row.kind, row.amount])).toEqual([
      ['authorize', '10000'],
      ['capture', '4000'],
      ['void', '6000'],
      ['refund', '2000'],
    ])
    expect(await getJson(`${control(b)}/payments/${payment.id}`)).toEqual(detail)
    // The buyer paid what was captured less the refund; the seller holds it.
    expect(buyerBefore - (await usdcOf(buyer.address))).toBe(2000n)
    expect(await usdcOf(payTo)).toBe(2000n)

    // Another payment, through B's gateway, captured in full twice at once through A and B: the money moves once,
    // the other capture is the control plane's 409 (in progress, or nothing left to capture), never a 500.
    const again = await wrapFetchWithPayment(fetchLocal, payer)(gateway(b, '/book'))
    expect(again.status, await again.clone().text()).toBe(200)
    const second = (await getJson(`${control(b)}/payments`)).payments.find((row: any) => row.id !== payment.id)
    const raced = await Promise.all([a, b].map((svc) => move(svc, second.id, 'capture')))
    const answers = await Promise.all(
      raced.map(async (answer) => ({ status: answer.status, body: (await answer.json()) as { error?: string } })),
    )
    expect(answers.map((answer) => answer.status).sort(), JSON.stringify(answers)).toEqual([200, 409])
    expect(answers.find((answer) => answer.status === 409)!.body.error).toMatch(
      /another capture, void or refund of this payment is in progress|invalid_auth_capture_evm_(zero_authorization|unexpected_payment_state)/,
    )
    const raced2 = await agreed(second.id)
    expect(raced2.payment).toMatchObject({ state: 'captured', captured: '10000', capturable: '0', refundable: '10000' })
    expect(raced2.settlement.amount).toBe('10000')
    expect(await onChain(raced2.payment)).toEqual({ capturable: '0', refundable: '10000' })
    const kinds = (await getJson(`${control(a)}/payments/${second.id}`)).transactions.map(
      (row: { kind: string; amount: string }) => [row.kind, row.amount],
    )
    expect(kinds).toEqual([
      ['authorize', '10000'],
      ['capture', '10000'],
    ])
    expect(await usdcOf(payTo)).toBe(12_000n)
  })
})
