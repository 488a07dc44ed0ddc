/**
 * Issue 23's figures: `svc up --twin base-sepolia` to its ready line beside the plain `svc up` (alternating runs),
 * the twin's Anvil idle RSS, and a v1 payment's p50 on the twin (x402-fetch 1.2.0 → x402-express 1.2.0) beside a v2
 * payment's (@x402/fetch → @x402/express), both sellers using svc's facilitator, sequential, alternating.
 */
import { readFileSync } from 'node:fs'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { paymentMiddleware as paymentMiddlewareV1 } from 'x402-express'
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch'
import { startChainServices } from '../../chain/services.js'
import { listen } from '../../core/http.js'
import { percentile, round } from './pool.js'
import { listProcessTree, rssKb } from './process-tree.js'
import { spawnSvcUp } from './stacks.js'

/** The Anvil of a process tree started with this chain id (its command line says `--chain-id N`). */
function anvilOfChain(root: number, chainId: number): number | undefined {
  return listProcessTree(root).find((process) => {
    if (process.name !== 'anvil') return false
    const args = readFileSync(`/proc/${process.pid}/cmdline`, 'utf8').split('\0')
    return args[args.indexOf('--chain-id') + 1] === String(chainId)
  })?.pid
}

export async function benchSvcUpWithTwin(runs = 5) {
  const plain: number[] = []
  const twin: number[] = []
  const twinRssMb: number[] = []
  for (let i = 0; i < runs; i++) {
    const without = await spawnSvcUp(['--ephemeral'])
    plain.push(without.readyMs)
    await without.stop()
    const withTwin = await spawnSvcUp(['--ephemeral', '--twin', 'base-sepolia'])
    twin.push(withTwin.readyMs)
    // Idle: ready, nothing asked of it since.
    twinRssMb.push(rssKb(anvilOfChain(withTwin.child.pid!, 84532)) / 1024)
    await withTwin.stop()
  }
  const delta = percentile(twin, 50) - percentile(plain, 50)
  const rss = percentile(twinRssMb, 50)
  return {
    runs,
    plain_median_ms: round(percentile(plain, 50)),
    twin_median_ms: round(percentile(twin, 50)),
    plain_samples_ms: plain.map((ms) => round(ms)),
    twin_samples_ms: twin.map((ms) => round(ms)),
    delta_ms: round(delta),
    delta_target_ms: 150,
    twin_anvil_idle_rss_mb: round(rss),
    twin_anvil_idle_rss_samples_mb: twinRssMb.map((mb) => round(mb)),
    rss_target_mb: 40,
    pass: delta <= 150 && rss <= 40,
  }
}

export async function benchTwinV1VsV2(payments = 60) {
  const services = await startChainServices({ twins: ['base-sepolia'] })
  const payTo = privateKeyToAccount(generatePrivateKey()).address
  const facilitator = { url: services.facilitatorUrl as `http://${string}` }
  const v2 = express()
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient(facilitator)).register(
    'eip155:84532',
    new ExactEvmServerScheme(),
  )
  v2.use(
    paymentMiddleware(
      { 'GET /weather': { accepts: { scheme: 'exact', price: '$0.001', network: 'eip155:84532', payTo } } },
      resourceServer,
    ),
  )
  v2.get('/weather', (_req, res) => void res.json({ weather: 'sunny' }))
  const v1 = express()
  v1.use(paymentMiddlewareV1(payTo, { '/weather': { price: '$0.001', network: 'base-sepolia' } }, facilitator))
  v1.get('/weather', (_req, res) => void res.json({ weather: 'sunny' }))
  const [sellerV2, sellerV1] = await Promise.all([listen(v2), listen(v1)])
  try {
    const key = generatePrivateKey()
    const account = privateKeyToAccount(key)
    await services.twins[0]!.manager.fund(account.address, 'usdc', '100')
    const payV2 = wrapFetchWithPayment(fetch, new x402Client().register('eip155:84532', new ExactEvmScheme(account)))
    const payV1 = wrapFetchV1(fetch, await createSigner('base-sepolia', key))
    const timed = async (pay: (url: string) => Promise<Response>, url: string) => {
      const started = performance.now()
      const response = await pay(url)
      if (response.status !== 200) throw new Error(`a twin payment answered ${response.status}`)
      await response.arrayBuffer()
      return performance.now() - started
    }
    // Warm-up: first imports, connections and caches on both paths.
    for (let i = 0; i < 5; i++) {
      await timed(payV2, `${sellerV2.url}/weather`)
      await timed(payV1, `${sellerV1.url}/weather`)
    }
    const v2Ms: number[] = []
    const v1Ms: number[] = []
    for (let i = 0; i < payments; i++) {
      v2Ms.push(await timed(payV2, `${sellerV2.url}/weather`))
      v1Ms.push(await timed(payV1, `${sellerV1.url}/weather`))
    }
    const ratio = percentile(v1Ms, 50) / percentile(v2Ms, 50)
    return {
      payments,
      v2_p50_ms: round(percentile(v2Ms, 50)),
      v1_p50_ms: round(percentile(v1Ms, 50)),
      v2_p95_ms: round(percentile(v2Ms, 95)),
      v1_p95_ms: round(percentile(v1Ms, 95)),
      v1_over_v2: round(ratio, 3),
      target_ratio: 1.1,
      pass: ratio <= 1.1,
    }
  } finally {
    await Promise.all([sellerV2.close(), sellerV1.close()])
    await services.stop()
  }
}
