import { spawn, type ChildProcess } from 'node:child_process'
import { localFetch } from '../../sdk/local-fetch.js'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { Pool } from 'undici'
import { newAccount } from '../helpers/payments.js'
import { startSvcProcess } from '../helpers/svc-process.js'
import type { StackConfig } from './gateway-stack.js'
import { percentile, round, runPool } from './pool.js'

const stackScript = fileURLToPath(new URL('./gateway-stack.ts', import.meta.url))
const amount = '1000'
const responseSchema = { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'number' } } }

type Stack = { name: 'svc' | 'reference'; child: ChildProcess; url: string; host: string; payTo: `0x${string}`; pay: typeof fetch }

/** Starts a stack process and waits for its ready line. `GATEWAY_BENCH_PROF=dir` writes CPU profiles there. */
async function startStack(config: StackConfig): Promise<{ child: ChildProcess; port: number }> {
  const prof = process.env.GATEWAY_BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.GATEWAY_BENCH_PROF}`] : []
  const child = spawn(process.execPath, [...prof, '--import', 'tsx', stackScript, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`${config.kind} stack exited with ${code}: ${stderr.trim()}`)))
  })
  return { child, port: (JSON.parse(line) as { port: number }).port }
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

const stopStack = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })

/**
 * svc's gateway beside the reference stack (express + `paymentMiddleware` of `@x402/express`), each in a process of its
 * own, in front of the same upstream (in this process), paying through the same facilitator on the same chain
 * (`svc up`). Phases alternate the stacks (A B B A) so drift of the chain or the machine hits both alike.
 * - unpaid 402s per second: keep-alive undici Pool, `concurrency` in flight;
 * - paid latency: sequential payments with the official `@x402/fetch` client (probe 402, sign, pay), interleaved;
 * - paid throughput at `paidConcurrency`;
 * - settlement integrity: USDC received by each stack's pay-to against the paid answers it delivered.
 */
export async function benchGateway({
  unpaidRequests = 4000,
  concurrency = 32,
  sequentialPayments = 100,
  paidPayments = 200,
  paidConcurrency = 16,
  progress = (_line: string) => {},
} = {}) {
  const upstream = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ city: 'Paris', temp: 21.5 })))
  }).listen(0, '127.0.0.1')
  await new Promise((resolve) => upstream.once('listening', resolve))
  const svcUp = await startSvcProcess()
  const children: ChildProcess[] = []
  try {
    const { facilitator_url, rpc_url, chain_manager_url } = svcUp.ready
    const info = (await (await fetch(`${chain_manager_url}/chain`)).json()) as { network: `${string}:${string}`; usdc: { address: `0x${string}`; name: string; version: string; decimals: number } }
    const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await localFetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
      return { status: response.status, body: (await response.json()) as any }
    }
    const balanceOf = async (address: string) =>
      BigInt(((await (await fetch(`${chain_manager_url}/balances/${address}`)).json()) as { usdc_base: string }).usdc_base)
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`

    // svc: a seller, a development API and its endpoint, through svc's control plane.
    progress('gateway bench: starting the stacks')
    const svc = await startStack({ kind: 'svc', facilitatorUrl: facilitator_url, rpcUrl: rpc_url, chainManagerUrl: chain_manager_url, usdc: info.usdc })
    children.push(svc.child)
    const control = `http://api.localhost:${svc.port}`
    const signup = await post(`${control}/auth/signup`, { email: `gateway-bench-${Date.now()}@example.test`, password: 'benchmark password' })
    const seller = { authorization: `Bearer ${signup.body.token}`, 'x-svc-environment': 'development' }
    const slug = `bench-${Date.now()}`
    const svcPayTo = newAccount().address
    const api = await post(`${control}/apis`, { name: 'Bench', slug, upstream_base_url: upstreamUrl, pay_to_mode: 'user_wallet', pay_to_address: svcPayTo }, seller)
    if (api.status !== 201) throw new Error(`gateway bench: POST /apis answered ${api.status} ${JSON.stringify(api.body)}`)
    const accepts = [{ scheme: 'exact', network: info.network, asset: info.usdc.address, amount, max_timeout_seconds: 300 }]
    const endpoint = await post(`${control}/apis/${api.body.id}/endpoints`, { method: 'GET', path_pattern: '/weather/{city}', accepts, description: 'Weather now', response_schema: responseSchema }, seller)
    if (endpoint.status !== 201) throw new Error(`gateway bench: POST endpoints answered ${endpoint.status} ${JSON.stringify(endpoint.body)}`)

    const refPayTo = newAccount().address
    const ref = await startStack({
      kind: 'reference',
      facilitatorUrl: facilitator_url,
      upstreamUrl,
      network: info.network,
      route: 'GET /weather/*',
      payTo: refPayTo,
      price: { amount, asset: info.usdc.address, extra: { name: info.usdc.name, version: info.usdc.version, assetTransferMethod: 'eip3009' } },
      responseSchema,
    })
    children.push(ref.child)

    const buyer = async () => {
      const account = newAccount()
      await post(`${chain_manager_url}/faucet`, { address: account.address, asset: 'usdc', amount: '100' })
      const client = new x402Client().register(info.network, new ExactEvmScheme(account))
      client.setSpendControls({ allowedAssets: [{ network: info.network, asset: info.usdc.address, maxAmountPerPayment: amount }] })
      return wrapFetchWithPayment(localFetch, client)
    }
    const stacks: Stack[] = [
      { name: 'svc', child: svc.child, url: `http://${slug}.dev.localhost:${svc.port}`, host: `${slug}.dev.localhost:${svc.port}`, payTo: svcPayTo, pay: await buyer() },
      { name: 'reference', child: ref.child, url: `http://127.0.0.1:${ref.port}`, host: `127.0.0.1:${ref.port}`, payTo: refPayTo, pay: await buyer() },
    ]
    const [a, b] = stacks as [Stack, Stack]
    const abba = [a, b, b, a]
    const paidStart = { svc: await balanceOf(svcPayTo), reference: await balanceOf(refPayTo) }
    const answers = { svc: 0, reference: 0 }

    // Unpaid 402s.
    progress('gateway bench: unpaid 402s')
    const unpaidTotals = () => ({ requests: 0, ms: 0, cpuMs: 0, latencies: [] as number[], errors: 0 })
    const unpaid = { svc: unpaidTotals(), reference: unpaidTotals() }
    const pools = new Map(stacks.map((stack) => [stack.name, new Pool(stack.url.replace(/\/\/[^:]+:/, '//127.0.0.1:'), { connections: concurrency, pipelining: 1 })]))
    const probe = async (stack: Stack) => {
      const response = await pools.get(stack.name)!.request({ method: 'GET', path: '/weather/Paris', headers: { host: stack.host } })
      await response.body.dump()
      return response.statusCode === 402 && typeof response.headers['payment-required'] === 'string'
    }
    // The size of each stack's 402 (PAYMENT-REQUIRED header + body): what every probe costs to send and to read.
    const sizes = Object.fromEntries(
      await Promise.all(
        stacks.map(async (stack) => {
          const response = await pools.get(stack.name)!.request({ method: 'GET', path: '/weather/Paris', headers: { host: stack.host } })
          const body = await response.body.text()
          return [stack.name, { header: String(response.headers['payment-required']).length, body: body.length }] as const
        }),
      ),
    )
    for (const stack of stacks) await runPool(Array.from({ length: 300 }), concurrency, () => probe(stack))
    for (const stack of abba) {
      const cpu0 = cpuMs(stack.child.pid)
      const run = await runPool(Array.from({ length: unpaidRequests / 2 }), concurrency, () => probe(stack))
      const totals = unpaid[stack.name]
      totals.cpuMs += cpuMs(stack.child.pid) - cpu0
      totals.requests += run.results.length
      totals.ms += run.wallMs
      totals.latencies.push(...run.latencies)
      totals.errors += run.results.filter((ok) => !ok).length
    }
    await Promise.all([...pools.values()].map((pool) => pool.close()))

    // Paid requests: one payment through the official client; an answer counts when it carries a successful PAYMENT-RESPONSE.
    const failures = { svc: {} as Record<string, number>, reference: {} as Record<string, number> }
    const payOnce = async (stack: Stack) => {
      let outcome: string
      try {
        const response = await stack.pay(`${stack.url}/weather/Paris`)
        const text = await response.text()
        const header = response.headers.get('payment-response')
        if (response.status === 200 && header !== null && decodePaymentResponseHeader(header).success) outcome = 'ok'
        else outcome = `${response.status} ${text.slice(0, 160)}`
      } catch (error) {
        outcome = `threw ${(error as Error).message.slice(0, 160)}`
      }
      if (outcome !== 'ok') failures[stack.name][outcome] = (failures[stack.name][outcome] ?? 0) + 1
      else answers[stack.name]++
      return outcome === 'ok'
    }
    progress('gateway bench: sequential payments')
    for (const stack of stacks) for (let i = 0; i < 5; i++) await payOnce(stack)
    const sequential = { svc: [] as number[], reference: [] as number[] }
    const sequentialOk = { svc: 0, reference: 0 }
    for (let i = 0; i < sequentialPayments; i++) {
      for (const stack of i % 2 === 0 ? [a, b] : [b, a]) {
        const t0 = performance.now()
        if (await payOnce(stack)) sequentialOk[stack.name]++
        sequential[stack.name].push(performance.now() - t0)
      }
    }
    progress('gateway bench: concurrent payments')
    const concurrentTotals = () => ({ ok: 0, ms: 0, cpuMs: 0, latencies: [] as number[] })
    const concurrent = { svc: concurrentTotals(), reference: concurrentTotals() }
    for (const stack of abba) {
      const cpu0 = cpuMs(stack.child.pid)
      const run = await runPool(Array.from({ length: paidPayments / 2 }), paidConcurrency, () => payOnce(stack))
      concurrent[stack.name].cpuMs += cpuMs(stack.child.pid) - cpu0
      concurrent[stack.name].ok += run.results.filter(Boolean).length
      concurrent[stack.name].ms += run.wallMs
      concurrent[stack.name].latencies.push(...run.latencies)
    }

    const integrity = Object.fromEntries(
      await Promise.all(
        stacks.map(async (stack) => {
          const transfers = Number((await balanceOf(stack.payTo)) - paidStart[stack.name]) / Number(amount)
          const delivered = answers[stack.name]
          return [stack.name, { answers: delivered, transfers, lost: Math.max(0, delivered - transfers), double: Math.max(0, transfers - delivered) }] as const
        }),
      ),
    ) as Record<Stack['name'], { answers: number; transfers: number; lost: number; double: number }>

    const rps402 = (name: Stack['name']) => round((unpaid[name].requests / unpaid[name].ms) * 1000)
    const paidRps = (name: Stack['name']) => round((concurrent[name].ok / concurrent[name].ms) * 1000)
    const p = (values: number[], q: number) => round(percentile(values, q), 2)
    const unpaidSide = (name: Stack['name']) => ({
      per_second: rps402(name),
      p50_ms: p(unpaid[name].latencies, 50),
      p95_ms: p(unpaid[name].latencies, 95),
      // The gateway process's CPU per answer: its cost even when the load generator, not the gateway, sets the pace.
      cpu_us_per_request: round((unpaid[name].cpuMs * 1000) / unpaid[name].requests),
      errors: unpaid[name].errors,
    })
    const sequentialSide = (name: Stack['name']) => ({ ok: sequentialOk[name], p50_ms: p(sequential[name], 50), p95_ms: p(sequential[name], 95) })
    const concurrentSide = (name: Stack['name']) => ({
      ok: concurrent[name].ok,
      per_second: paidRps(name),
      p50_ms: p(concurrent[name].latencies, 50),
      p95_ms: p(concurrent[name].latencies, 95),
      // Per paid request: the probe 402 and the paid request (verify, upstream, settle, bookkeeping).
      cpu_us_per_payment: round((concurrent[name].cpuMs * 1000) / concurrent[name].ok),
    })
    const unpaidRatio = round(rps402('svc') / rps402('reference'), 2)
    const p50Ratio = round(percentile(sequential.svc, 50) / percentile(sequential.reference, 50), 2)
    const clean = Object.values(integrity).every((side) => side.lost === 0 && side.double === 0)
    return {
      unpaid_402: {
        requests: unpaidRequests,
        concurrency,
        svc: unpaidSide('svc'),
        reference: unpaidSide('reference'),
        ratio: unpaidRatio,
        target_ratio: 1.0,
        pass: unpaidRatio >= 1.0,
        bytes: sizes,
      },
      paid_sequential: { payments: sequentialPayments, svc: sequentialSide('svc'), reference: sequentialSide('reference'), p50_ratio: p50Ratio, target_ratio_max: 1.0, pass: p50Ratio <= 1.0 },
      paid_concurrent: { payments: paidPayments, concurrency: paidConcurrency, svc: concurrentSide('svc'), reference: concurrentSide('reference'), ratio: round(paidRps('svc') / paidRps('reference'), 2) },
      settlements: { ...integrity, pass: clean },
      failed_payments: failures,
      pass: unpaidRatio >= 1.0 && p50Ratio <= 1.0 && clean,
    }
  } finally {
    await Promise.all(children.map(stopStack))
    upstream.closeAllConnections()
    upstream.close()
    await svcUp.stop()
  }
}
