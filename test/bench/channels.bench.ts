/**
 * Issue 24's figures (payment channels, x402 `batch-settlement`), on one `svc up --seed fixtures/demo-seed.yaml`:
 * - voucher-paid requests per second with `buyers` buyers on channels they opened before the timing (the deposit is
 *   each buyer's first request; after it no request makes a transaction), beside svc's own `exact` paid rate with as
 *   many buyers, in rounds that alternate which goes first; the ratio of the medians (target ≥ 10×);
 * - the sequential voucher-paid latency of one buyer on an open channel (p50 target ≤ 5 ms);
 * - one claim of 1,000 vouchers: a channel's 1,000 requests made between two ticks of its receiver's channel manager,
 *   then the claim transactions recorded for them (target: one) and the gas the claim used.
 * Buyers pay with the official clients: `@x402/evm`'s batch-settlement and exact schemes through `@x402/fetch`.
 */
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, http, type Hex } from 'viem'
import { createSvcClient } from '../../sdk/client.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { newAccount } from '../helpers/payments.js'
import { percentile, round } from './pool.js'
import { startSvcStack } from './stacks.js'

export type ChannelsBenchOptions = {
  /** Rounds of the rate comparison. @defaultValue 3 */
  rounds?: number
  /** Concurrent buyers on each side. @defaultValue 16 */
  buyers?: number
  /** `exact` payments per round. @defaultValue 300 */
  exactPayments?: number
  /** Voucher payments per round. @defaultValue 3_000 */
  voucherPayments?: number
  /** Sequential voucher payments for the latency. @defaultValue 500 */
  sequentialPayments?: number
  /** Vouchers in the one claim. @defaultValue 1_000 */
  claimVouchers?: number
  progress?: (line: string) => void
}

/** One request's price (0.0001 USDC) and each channel's deposit (10 USDC: 100,000 requests). */
const price = '100'
const minDeposit = '10000000'
const median = (values: number[]) => percentile(values, 50)
/** Pay-to addresses of their own: each receiver has its own channel manager, on the schedule its accepts set. */
const ratePayTo = '0x00000000000000000000000000000000000c4a01'
const claimPayTo = '0x00000000000000000000000000000000000c4a02'
const claimEverySeconds = 20

async function paid(pay: typeof fetch, url: string): Promise<string> {
  const response = await pay(url, { signal: AbortSignal.timeout(30_000) })
  const text = await response.text()
  const header = response.headers.get('payment-response')
  if (response.status !== 200 || header === null) throw new Error(`${url} answered ${response.status}: ${text}`)
  return decodePaymentResponseHeader(header).transaction
}

export async function benchChannels(options: ChannelsBenchOptions = {}) {
  const {
    rounds = 3,
    buyers = 16,
    exactPayments = 300,
    voucherPayments = 3_000,
    sequentialPayments = 500,
    claimVouchers = 1_000,
    progress = () => {},
  } = options
  progress('channels bench: starting svc (svc up --seed fixtures/demo-seed.yaml)')
  const svc = await startSvcStack()
  try {
    const chain = createPublicClient({ transport: http(svc.rpcUrl) })
    const seller = createSvcClient({
      baseUrl: svc.ready.sandbox_control_url,
      jwt: svc.ready.seed.jwt,
      environment: 'development',
    })
    const weather = (await seller.apis.list()).find((api) => api.slug === 'weather')!
    /** A development API in front of the demo upstream, its GET /weather/{city} paid by batch-settlement only. */
    const channelApi = async (slug: string, payTo: string, claimIntervalSeconds: number) => {
      const api = await seller.apis.create({
        name: slug,
        slug,
        upstream_base_url: weather.upstream_base_url,
        pay_to_mode: 'user_wallet',
        pay_to_address: payTo,
      })
      await seller.endpoints.create(api.id, {
        method: 'GET',
        path_pattern: '/weather/{city}',
        accepts: [
          {
            scheme: 'batch-settlement',
            network: svc.network,
            asset: svc.usdc.address,
            amount: price,
            extra: { minDeposit, claimIntervalSeconds, settleIntervalSeconds: claimIntervalSeconds },
          },
        ],
      })
      return { id: api.id, url: `${new URL(api.gateway_url).origin}/weather/paris` }
    }
    // The rate's receiver claims once an hour: the timing measures vouchers, not the manager's transactions.
    const rateApi = await channelApi('channels', ratePayTo, 3_600)
    const claimApi = await channelApi('claims', claimPayTo, claimEverySeconds)
    const channelBuyer = async () => {
      const account = newAccount()
      await svc.fund(account.address)
      const scheme = new BatchClient(toClientEvmSigner(account, chain as never))
      const client = new x402Client().register(svc.network, scheme).setSpendControls({ allowedAssets: true })
      return wrapFetchWithPayment(localFetch, client)
    }

    progress(`channels bench: ${buyers} exact buyers, ${buyers} channel buyers (each deposits once, untimed)`)
    const exactBuyers = await Promise.all(Array.from({ length: buyers }, () => svc.newBuyer()))
    const voucherBuyers = await Promise.all(Array.from({ length: buyers }, () => channelBuyer()))
    const deposits = await Promise.all(voucherBuyers.map((pay) => paid(pay, rateApi.url)))
    if (!deposits.every((transaction) => /^0x[0-9a-f]{64}$/i.test(transaction)))
      throw new Error(`a first request did not deposit: ${deposits.join(', ')}`)
    /** `count` payments, each of the `buyers` buyers paying in turn: the buyer i pays the items i, i + buyers, …. */
    const rate = async (kind: 'exact' | 'voucher', count: number) => {
      const payers = kind === 'exact' ? exactBuyers : voucherBuyers
      const url = kind === 'exact' ? svc.url : rateApi.url
      const transactions: string[] = []
      const started = performance.now()
      await Promise.all(
        payers.map(async (pay, b) => {
          for (let i = b; i < count; i += buyers) transactions.push(await paid(pay, url))
        }),
      )
      const seconds = (performance.now() - started) / 1_000
      const withTransaction = transactions.filter((transaction) => transaction !== '').length
      return { rps: count / seconds, withTransaction }
    }
    // Warm-up on both sides (the JIT, the connections), untimed.
    await rate('exact', 2 * buyers)
    await rate('voucher', 20 * buyers)
    const perRound = { exact: [] as number[], voucher: [] as number[] }
    let voucherTransactions = 0
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['exact', 'voucher'] as const) : (['voucher', 'exact'] as const)
      for (const kind of order) {
        progress(`channels bench: round ${r + 1}/${rounds}, ${kind}`)
        const result = await rate(kind, kind === 'exact' ? exactPayments : voucherPayments)
        perRound[kind].push(result.rps)
        if (kind === 'voucher') voucherTransactions += result.withTransaction
      }
    }
    const ratio = median(perRound.voucher) / median(perRound.exact)

    progress(`channels bench: ${sequentialPayments} sequential vouchers, one buyer`)
    const latencies: number[] = []
    const one = voucherBuyers[0]!
    for (let i = 0; i < sequentialPayments; i++) {
      const t0 = performance.now()
      await paid(one, rateApi.url)
      latencies.push(performance.now() - t0)
    }
    const p50 = percentile(latencies, 50)

    progress(`channels bench: ${claimVouchers} vouchers between two claims (every ${claimEverySeconds} s)`)
    const claims = async () => {
      const id = (await seller.channels.list({ api_id: claimApi.id }))[0]?.channel_id
      if (!id) return []
      const shown = await seller.channels.get(id)
      return shown.transactions.filter((entry) => entry.kind === 'claim')
    }
    const waitFor = async (what: string, done: () => Promise<boolean>, timeoutMs = 3 * claimEverySeconds * 1_000) => {
      const until = Date.now() + timeoutMs
      while (!(await done())) {
        if (Date.now() > until) throw new Error(`channels bench: no ${what} within ${timeoutMs} ms`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const claimer = await channelBuyer()
    await paid(claimer, claimApi.url)
    // After the manager's first claim (of the deposit's voucher), the next tick is `claimEverySeconds` away.
    await waitFor('first claim', async () => (await claims()).length === 1)
    const before = await chain.getBlockNumber()
    const burst = performance.now()
    for (let i = 0; i < claimVouchers; i++) await paid(claimer, claimApi.url)
    const burstSeconds = (performance.now() - burst) / 1_000
    await waitFor('claim of the vouchers', async () => (await claims()).length > 1)
    const claimed = (await claims()).slice(1)
    const receipts = await Promise.all(
      claimed.map((entry) => chain.getTransactionReceipt({ hash: entry.transaction as Hex })),
    )
    const claimedAmount = claimed.reduce((sum, entry) => sum + BigInt(entry.amount), 0n)
    const after = await chain.getBlockNumber()

    return {
      rate: {
        buyers,
        rounds,
        exact_payments_per_round: exactPayments,
        voucher_payments_per_round: voucherPayments,
        exact_rps: round(median(perRound.exact)),
        voucher_rps: round(median(perRound.voucher)),
        exact_rps_rounds: perRound.exact.map((rps) => round(rps)),
        voucher_rps_rounds: perRound.voucher.map((rps) => round(rps)),
        voucher_requests_with_a_transaction: voucherTransactions,
        ratio: round(ratio),
        target_ratio: 10,
      },
      latency: {
        payments: sequentialPayments,
        p50_ms: round(p50, 2),
        p95_ms: round(percentile(latencies, 95), 2),
        target_p50_ms: 5,
      },
      claim: {
        vouchers: claimVouchers,
        vouchers_seconds: round(burstSeconds, 2),
        claim_transactions: claimed.length,
        claimed_units: claimedAmount.toString(),
        expected_units: (BigInt(price) * BigInt(claimVouchers)).toString(),
        gas_used: receipts.map((receipt) => Number(receipt.gasUsed)),
        blocks_during: Number(after - before),
        target_transactions: 1,
      },
      pass:
        ratio >= 10 &&
        p50 <= 5 &&
        claimed.length === 1 &&
        claimedAmount === BigInt(price) * BigInt(claimVouchers) &&
        voucherTransactions === 0,
    }
  } finally {
    await svc.stop()
  }
}
