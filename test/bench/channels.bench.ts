/**
 * Issue 24's figures (payment channels, x402 `batch-settlement`), on one `svc up --seed fixtures/demo-seed.yaml`:
 * - voucher-paid requests per second with `buyers` buyers on channels they opened before the timing (the deposit is
 *   each buyer's first request; after it no request makes a transaction), beside svc's own `exact` paid rate with as
 *   many buyers, in rounds that alternate which goes first; the ratio of the medians (target ≥ 10×), and the CPU
 *   each side spent per request: svc's Node process, svc with its Anvil, and the buyers' process (and the rate the
 *   machine's cores would allow at that cost, were nothing else running);
 * - the sequential voucher-paid latency of one buyer on an open channel (p50 target ≤ 5 ms);
 * - one claim of 1,000 vouchers: a channel's 1,000 requests made between two ticks of its receiver's channel manager,
 *   then the claim transactions recorded for them (target: one) and the gas the claim used.
 * Buyers pay with the official clients (`@x402/evm`'s batch-settlement and exact schemes through `@x402/fetch`) in a
 * process of their own (channel-buyers.ts), apart from this one's bookkeeping; svc and the buyers share the machine.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { createPublicClient, http, type Hex } from 'viem'
import { createSvcClient } from '../../sdk/client.js'
import type { BuyersAsk, BuyersSetup } from './channel-buyers.js'
import { percentile, round } from './pool.js'
import { processCpuMs, stopChild, treeCpuMs } from './processes.js'
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
  /** Node options of svc's process (`--cpu-prof`, …). */
  svcNodeArgs?: string[]
  progress?: (line: string) => void
}

/** One request's price (0.0001 USDC) and each channel's deposit (10 USDC: 100,000 requests). */
export const price = '100'
const minDeposit = '10000000'
const median = (values: number[]) => percentile(values, 50)
/** Pay-to addresses of their own: each receiver has its own channel manager, on the schedule its accepts set. */
export const ratePayTo = '0x00000000000000000000000000000000000c4a01'
const claimPayTo = '0x00000000000000000000000000000000000c4a02'
// Long enough for 1,000 sequential vouchers on a busy machine (23 s at a load average of 18).
const claimEverySeconds = 45

export type Ask = <T>(request: BuyersAsk) => Promise<T>
type SvcStack = Awaited<ReturnType<typeof startSvcStack>>

/** The seed's seller and a way to add a development API in front of the demo weather upstream paid by channels only. */
export async function channelApis(svc: SvcStack) {
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
  return { seller, channelApi }
}

/** The buyers' process (channel-buyers.ts, through tsx) and a way to ask it. */
export async function startBuyers(): Promise<{ child: ChildProcess; ask: Ask }> {
  const script = fileURLToPath(new URL('./channel-buyers.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const waiting = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>()
  let next = 0
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve())
    child.once('exit', (code) => reject(new Error(`channel buyers exited with ${code} before they were ready`)))
  })
  child.on('message', (message: { id: number; result?: unknown; error?: string }) => {
    const entry = waiting.get(message.id)
    waiting.delete(message.id)
    if (message.error !== undefined) entry?.reject(new Error(`channel buyers: ${message.error}`))
    else entry?.resolve(message.result)
  })
  child.on('exit', (code) => {
    for (const entry of waiting.values()) entry.reject(new Error(`channel buyers exited with ${code}`))
  })
  const ask: Ask = (request) =>
    new Promise((resolve, reject) => {
      const id = next++
      waiting.set(id, { resolve, reject })
      child.send({ ...request, id })
    })
  return { child, ask }
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
  /** The machine's 1-minute load average (other work on the 2 cores counts against both sides). */
  const load = () => Number(loadavg()[0]!.toFixed(2))
  const loadBefore = load()
  progress('channels bench: starting svc (svc up --seed fixtures/demo-seed.yaml)')
  const svc = await startSvcStack({ nodeArgs: options.svcNodeArgs ?? [] })
  let buyersProcess: ChildProcess | undefined
  try {
    const chain = createPublicClient({ transport: http(svc.rpcUrl) })
    const { seller, channelApi } = await channelApis(svc)
    // The rate's receiver claims once an hour: the timing measures vouchers, not the manager's transactions.
    const rateApi = await channelApi('channels', ratePayTo, 3_600)
    const claimApi = await channelApi('claims', claimPayTo, claimEverySeconds)

    progress(`channels bench: ${buyers} exact buyers, ${buyers} channel buyers (each deposits once, untimed)`)
    const started = await startBuyers()
    buyersProcess = started.child
    const { ask } = started
    const setup: BuyersSetup = {
      rpcUrl: svc.rpcUrl,
      chainManagerUrl: svc.ready.chain_manager_url,
      network: svc.network,
      usdc: svc.usdc.address,
      buyers,
      depositUrl: rateApi.url,
    }
    await ask({ op: 'setup', ...setup })
    const svcPid = svc.pids[0]!
    const buyersPid = buyersProcess.pid!
    /** `count` payments from the kind's buyers, with the CPU (ms per request) svc and the buyers spent on them. */
    const rate = async (kind: 'exact' | 'voucher', count: number) => {
      const url = kind === 'exact' ? svc.url : rateApi.url
      const before = { svc: processCpuMs(svcPid), tree: treeCpuMs(svcPid), buyers: processCpuMs(buyersPid) }
      const result = await ask<{ seconds: number; withTransaction: number }>({ op: 'rate', kind, url, count })
      const per = (now: number, then: number) => (now - then) / count
      return {
        rps: count / result.seconds,
        withTransaction: result.withTransaction,
        cpu: {
          svc: per(processCpuMs(svcPid), before.svc),
          svcTree: per(treeCpuMs(svcPid), before.tree),
          buyers: per(processCpuMs(buyersPid), before.buyers),
        },
      }
    }
    // Warm-up on both sides (the JIT, the connections), untimed. A voucher's path is short and hot: V8 was still
    // optimizing it (a sixth of svc's CPU going to TurboFan) after 320 vouchers, about 3% after 2,500.
    await rate('exact', 4 * buyers)
    await rate('voucher', Math.max(1_500, 20 * buyers))
    const perRound = { exact: [] as number[], voucher: [] as number[] }
    const cpu = {
      exact: [] as Awaited<ReturnType<typeof rate>>['cpu'][],
      voucher: [] as Awaited<ReturnType<typeof rate>>['cpu'][],
    }
    let voucherTransactions = 0
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['exact', 'voucher'] as const) : (['voucher', 'exact'] as const)
      for (const kind of order) {
        progress(`channels bench: round ${r + 1}/${rounds}, ${kind}`)
        const result = await rate(kind, kind === 'exact' ? exactPayments : voucherPayments)
        perRound[kind].push(result.rps)
        cpu[kind].push(result.cpu)
        if (kind === 'voucher') voucherTransactions += result.withTransaction
      }
    }
    const ratio = median(perRound.voucher) / median(perRound.exact)
    /** The median CPU per request of each process over the rounds, in ms. */
    const cpuOf = (rows: (typeof cpu)['exact']) => {
      const svcTree = median(rows.map((row) => row.svcTree))
      const buyersMs = median(rows.map((row) => row.buyers))
      return {
        svc_ms: round(median(rows.map((row) => row.svc)), 2),
        svc_with_anvil_ms: round(svcTree, 2),
        buyers_ms: round(buyersMs, 2),
        // The most this machine's cores allow at that CPU per request, were nothing else running.
        cpu_bound_rps: round((cpus().length * 1_000) / (svcTree + buyersMs)),
      }
    }

    progress(`channels bench: ${sequentialPayments} sequential vouchers, one buyer`)
    const sequential = await ask<{ latencies: number[]; withTransaction: number }>({
      op: 'sequential',
      group: 'voucher',
      url: rateApi.url,
      count: sequentialPayments,
    })
    const latencies = sequential.latencies
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
    await ask({ op: 'sequential', group: 'claimer', url: claimApi.url, count: 1 })
    // After the manager's first claim (of the deposit's voucher), the next tick is `claimEverySeconds` away.
    await waitFor('first claim', async () => (await claims()).length === 1)
    const before = await chain.getBlockNumber()
    const burst = performance.now()
    const claimed1000 = await ask<{ withTransaction: number }>({
      op: 'sequential',
      group: 'claimer',
      url: claimApi.url,
      count: claimVouchers,
    })
    const burstSeconds = (performance.now() - burst) / 1_000
    await waitFor('claim of the vouchers', async () => (await claims()).length > 1)
    const claimed = (await claims()).slice(1)
    const receipts = await Promise.all(
      claimed.map((entry) => chain.getTransactionReceipt({ hash: entry.transaction as Hex })),
    )
    const claimedAmount = claimed.reduce((sum, entry) => sum + BigInt(entry.amount), 0n)
    const after = await chain.getBlockNumber()
    voucherTransactions += sequential.withTransaction + claimed1000.withTransaction

    return {
      load_average: { before: loadBefore, after: load() },
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
        cpu_per_request: { exact: cpuOf(cpu.exact), voucher: cpuOf(cpu.voucher) },
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
    if (buyersProcess) await stopChild(buyersProcess)
    await svc.stop()
  }
}
