/**
 * The channels bench's buyers, in a process of their own (channels.bench.ts starts it with IPC): the official
 * clients as a user runs them, `@x402/evm`'s batch-settlement and exact schemes through `@x402/fetch`, each buyer a
 * new funded account. Apart from the bench's own process, so the buyers' CPU is counted on its own and the bench's
 * bookkeeping does not share their event loop; both kinds of buyers live here, so each side pays from the same place.
 *
 * Messages in: `{ id, op: 'setup', … }`, `{ id, op: 'rate', kind, url, count }`, `{ id, op: 'sequential', group,
 * url, count }`, `{ id, op: 'replayBuyers', url, count }`; each is answered `{ id, result }` or `{ id, error }`.
 */
import '../../core/polyfill.js'
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, type Hex, http, type Address, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
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
  | { op: 'replayBuyers'; url: string; count: number }
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

/** A funded channel buyer of `account` paying through `recorded` (set by setup). */
let channelBuyerOf: (account: LocalAccount, recorded?: Pay) => Promise<{ pay: Pay }>

/** What a replay buyer needs to sign its next vouchers as the official client would, and send them as it does. */
export type ReplayBuyer = {
  privateKey: Hex
  /** The headers the official client sent with its last voucher (its PAYMENT-SIGNATURE among them), names lower-case. */
  headers: Record<string, string>
}

/**
 * `count` new channel buyers of the official client: each deposits (its first request) and pays one voucher, whose
 * request's headers are kept: the bench signs the buyer's next vouchers and replays them (vouchers.bench.ts).
 */
async function replayBuyers(url: string, count: number): Promise<ReplayBuyer[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const privateKey = generatePrivateKey()
      let headers: Record<string, string> = {}
      const recording: Pay = (input, init) => {
        const sent = new Headers(input instanceof Request ? input.headers : init?.headers)
        if (init?.headers) for (const [name, value] of new Headers(init.headers)) sent.set(name, value)
        if (sent.has('payment-signature')) headers = Object.fromEntries(sent)
        return localFetch(input, init)
      }
      const { pay } = await channelBuyerOf(privateKeyToAccount(privateKey), recording)
      const deposit = await paid(pay, url)
      if (!/^0x[0-9a-f]{64}$/i.test(deposit))
        throw new Error(`a replay buyer's first request did not deposit: ${deposit}`)
      if ((await paid(pay, url)) !== '') throw new Error("a replay buyer's voucher made a transaction")
      return { privateKey, headers }
    }),
  )
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
  const channelBuyer = async () => (await channelBuyerOf(newAccount())).pay
  channelBuyerOf = async (account, recorded = localFetch) => {
    await fund(account.address)
    const scheme = new BatchClient(toClientEvmSigner(account, chain as never))
    const client = new x402Client().register(options.network, scheme).setSpendControls({ allowedAssets: true })
    return { pay: wrapFetchWithPayment(recorded, client) }
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
          : message.op === 'replayBuyers'
            ? await replayBuyers(message.url, message.count)
            : await sequential(message.group, message.url, message.count)
    process.send!({ id: message.id, result })
  } catch (error) {
    process.send!({ id: message.id, error: (error as Error).message })
  }
})
process.on('disconnect', () => process.exit(0))
process.send!({ ready: true })
