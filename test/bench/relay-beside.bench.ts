/**
 * Issue 40's `--relay viem` figure: svc as `svc up` runs it (the tuned relay, chain/relay/) beside the same svc started
 * with `--relay viem` (viem's wallet client, nonce manager, `waitForTransactionReceipt` and Anvil's automine:
 * chain/relay/viem-signer.ts), in alternating rounds of one run: sequential paid latency (p50, p95) and paid req/s
 * with `buyers` buyers, every answer reconciled with each chain's Transfer and AuthorizationUsed logs (0 lost, 0 double).
 * Shows that the plain path still works, and what the tuned one buys over it.
 */
import type { Hex } from 'viem'
import { payOnce } from './paid.bench.js'
import { percentile, round, runPool } from './pool.js'
import { getBlockNumber, reconcile, startLogCollector } from './reconcile.js'
import { type Stack, startSvcStack, weatherPrice } from './stacks.js'

type Relay = 'tuned' | 'viem'

export async function benchRelayBeside(
  tuned: Stack,
  options: {
    rounds?: number
    sequentialPayments?: number
    paidPayments?: number
    buyers?: number
    progress?: (line: string) => void
  } = {},
) {
  const { rounds = 3, sequentialPayments = 40, paidPayments = 200, buyers = 16, progress = () => {} } = options
  progress('relay viem: starting svc up --relay viem beside svc')
  const viem = await startSvcStack({ args: ['--relay', 'viem'] })
  try {
    const stacks: Record<Relay, Stack> = { tuned, viem }
    const collect = async (stack: Stack) =>
      startLogCollector(
        stack.rpcUrl,
        stack.usdc.address,
        stack.payTo,
        BigInt(weatherPrice),
        (await getBlockNumber(stack.rpcUrl)) + 1n,
      )
    const logs = { tuned: await collect(tuned), viem: await collect(viem) }
    const delivered: Record<Relay, Hex[]> = { tuned: [], viem: [] }
    const failed: Record<Relay, number> = { tuned: 0, viem: 0 }
    const pay = async (relay: Relay, buyer: typeof fetch) => {
      const outcome = await payOnce(buyer, stacks[relay].url)
      if (outcome.ok) delivered[relay].push(outcome.transaction)
      else failed[relay]++
      return outcome.ok
    }
    const one = { tuned: await tuned.newBuyer(), viem: await viem.newBuyer() }
    const many = {
      tuned: await Promise.all(Array.from({ length: buyers }, () => tuned.newBuyer())),
      viem: await Promise.all(Array.from({ length: buyers }, () => viem.newBuyer())),
    }
    for (const relay of ['tuned', 'viem'] as const) for (let i = 0; i < 10; i++) await pay(relay, one[relay])
    const p50 = { tuned: [] as number[], viem: [] as number[] }
    const p95 = { tuned: [] as number[], viem: [] as number[] }
    const rps = { tuned: [] as number[], viem: [] as number[] }
    for (let r = 0; r < rounds; r++) {
      const order: Relay[] = r % 2 === 0 ? ['tuned', 'viem'] : ['viem', 'tuned']
      progress(`relay viem: round ${r + 1} of ${rounds}`)
      const latencies = { tuned: [] as number[], viem: [] as number[] }
      for (let i = 0; i < sequentialPayments; i++)
        for (const relay of i % 2 === 0 ? order : [...order].reverse()) {
          const t0 = performance.now()
          await pay(relay, one[relay])
          latencies[relay].push(performance.now() - t0)
        }
      for (const relay of order) {
        p50[relay].push(percentile(latencies[relay], 50))
        p95[relay].push(percentile(latencies[relay], 95))
        let next = 0
        const run = await runPool(Array.from({ length: paidPayments }), buyers, () =>
          pay(relay, many[relay][next++ % buyers]!),
        )
        rps[relay].push((run.results.filter(Boolean).length / run.wallMs) * 1000)
      }
    }
    const median = (values: number[]) => percentile(values, 50)
    const figure = (values: Record<Relay, number[]>, digits: number) => ({
      tuned: round(median(values.tuned), digits),
      viem: round(median(values.viem), digits),
      ratio: round(median(values.tuned) / median(values.viem), 2),
    })
    const settlements = {
      tuned: reconcile(await logs.tuned.finish(), delivered.tuned),
      viem: reconcile(await logs.viem.finish(), delivered.viem),
    }
    return {
      setup: { rounds, sequential_payments: sequentialPayments, paid_payments: paidPayments, buyers },
      paid_p50_ms: figure(p50, 2),
      paid_p95_ms: figure(p95, 2),
      paid_per_second: figure(rps, 1),
      failed_payments: failed,
      settlements,
    }
  } finally {
    await viem.stop()
  }
}
