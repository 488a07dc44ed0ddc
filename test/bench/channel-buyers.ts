/**
 * The channels bench's buyers, in a process of their own (channels.bench.ts starts it with IPC): the official
 * clients as a user runs them, `@x402/evm`'s batch-settlement and exact schemes through `@x402/fetch`, each buyer a
 * new funded account. Apart from the bench's own process, so the buyers' CPU is counted on its own and the bench's
 * bookkeeping does not share their event loop; both kinds of buyers live here, so each side pays from the same place.
 *
 * Messages in: `{ id, op: 'setup', … }`, `{ id, op: 'rate', kind, url, count }`, `{ id, op: 'sequential', group,
 * url, count }`; each is answered `{ id, result }` or `{ id, error }`.
 */
import '../../core/polyfill.js'
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, http, type Address } from 'viem'
import { localFetch } from '../../sdk/local-fetch.js'
import { newAccount } from '../helpers/payments.js'
import { buyerOf } from './stacks.js'

export type BuyersSetup = {
  rpcUrl: string
  /** svc's chain manager (its faucet). */
  chainManagerUrl: string
  network: `${string}:${string}`
  usdc: Address
  /** Buyers of each kind. */
  buyers: number
  /** Each channel buyer's first request (its deposit) goes here. */
  depositUrl: string
}

/** What the bench asks (each message also carries an `id`, which its answer repeats). */
export type BuyersAsk =
  | ({ op: 'setup' } & BuyersSetup)
  | { op: 'rate'; kind: 'exact' | 'voucher'; url: string; count: number }
  | { op: 'sequential'; group: 'voucher' | 'claimer'; url: string; count: number }
type BuyersRequest = BuyersAsk & { id: number }

type Pay = typeof fetch

/** One paid request: its `payment-response` transaction ('' for a voucher). */
async function paid(pay: Pay, url: string): Promise<string> {
  const response = await pay(url, { signal: AbortSignal.timeout(30_000) })
  const text = await response.text()
  const header = response.headers.get('payment-response')
  if (response.status !== 200 || header === null) throw new Error(`${url} answered ${response.status}: ${text}`)
  return decodePaymentResponseHeader(header).transaction
}

const groups = { exact: [] as Pay[], voucher: [] as Pay[], claimer: [] as Pay[] }

async function setup(options: BuyersSetup) {
  const chain = createPublicClient({ transport: http(options.rpcUrl) })
  const fund = async (address: Address) => {
    const response = await fetch(`${options.chainManagerUrl}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address, asset: 'usdc', amount: '100' }),
    })
    if (!response.ok) throw new Error(`faucet answered ${response.status}: ${await response.text()}`)
  }
  const channelBuyer = async () => {
    const account = newAccount()
    await fund(account.address)
    const scheme = new BatchClient(toClientEvmSigner(account, chain as never))
    const client = new x402Client().register(options.network, scheme).setSpendControls({ allowedAssets: true })
    return wrapFetchWithPayment(localFetch, client)
  }
  const exactBuyer = buyerOf(options.network, options.usdc, fund)
  groups.exact = await Promise.all(Array.from({ length: options.buyers }, () => exactBuyer()))
  groups.voucher = await Promise.all(Array.from({ length: options.buyers }, () => channelBuyer()))
  groups.claimer = [await channelBuyer()]
  const deposits = await Promise.all(groups.voucher.map((pay) => paid(pay, options.depositUrl)))
  if (!deposits.every((transaction) => /^0x[0-9a-f]{64}$/i.test(transaction)))
    throw new Error(`a first request did not deposit: ${deposits.join(', ')}`)
  return { deposits: deposits.length }
}

/** `count` payments, the group's buyers paying in turn (buyer i pays the items i, i + buyers, …). */
async function rate(kind: 'exact' | 'voucher', url: string, count: number) {
  const payers = groups[kind]
  let withTransaction = 0
  const started = performance.now()
  await Promise.all(
    payers.map(async (pay, b) => {
      for (let i = b; i < count; i += payers.length) if ((await paid(pay, url)) !== '') withTransaction++
    }),
  )
  return { seconds: (performance.now() - started) / 1_000, withTransaction }
}

/** `count` payments in a row by the group's first buyer: each one's latency (ms) and transaction. */
async function sequential(group: 'voucher' | 'claimer', url: string, count: number) {
  const pay = groups[group][0]!
  const latencies: number[] = []
  let withTransaction = 0
  for (let i = 0; i < count; i++) {
    const t0 = performance.now()
    if ((await paid(pay, url)) !== '') withTransaction++
    latencies.push(performance.now() - t0)
  }
  return { latencies, withTransaction }
}

process.on('message', async (message: BuyersRequest) => {
  try {
    const result =
      message.op === 'setup'
        ? await setup(message)
        : message.op === 'rate'
          ? await rate(message.kind, message.url, message.count)
          : await sequential(message.group, message.url, message.count)
    process.send!({ id: message.id, result })
  } catch (error) {
    process.send!({ id: message.id, error: (error as Error).message })
  }
})
process.on('disconnect', () => process.exit(0))
process.send!({ ready: true })
