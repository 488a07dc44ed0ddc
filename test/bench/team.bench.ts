/**
 * Issue 27's figures for a team Sandbox (three `svc serve --sandbox-chain shared` on one PostgreSQL, the README's
 * "Team Sandbox", behind the test's load balancer):
 * - paid p50 of one buyer through a process that is not the chain owner (it verifies and settles through the owner)
 *   against the owner itself, payment by payment alternating;
 * - takeover times over `kills` kills: the owner killed with SIGKILL (and a process started in its place, as a service
 *   manager would), a buyer paying through the balancer all along: from the kill to the chain's routes answering
 *   again through every survivor, and to the first paid 200.
 * The load generator runs on the same 2 cores as the three processes.
 */
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connectSandbox } from '../../sdk/connect-sandbox.js'
import { localFetch } from '../../sdk/local-fetch.js'
import type { ServeProcess } from '../helpers/serve-process.js'
import { startTeam } from '../helpers/team.js'
import { percentile, round } from './pool.js'

export type TeamBenchOptions = {
  /** Owners killed, one after another. @defaultValue 3 */
  kills?: number
  /** Payments of each side of the p50. @defaultValue 40 */
  paidPayments?: number
  progress?: (line: string) => void
}

const isRunning = (svc: ServeProcess) => svc.child.exitCode === null && svc.child.signalCode === null

/** The live process whose /readyz says it runs the chain (`chain: "ok"`; the others say `"remote"`). */
async function findOwner(processes: ServeProcess[]): Promise<ServeProcess | undefined> {
  for (const svc of processes.filter(isRunning)) {
    const response = await fetch(`http://127.0.0.1:${svc.ready.port}/readyz`).catch(() => undefined)
    const body = response?.ok ? ((await response.json()) as { chain?: string }) : undefined
    if (body?.chain === 'ok') return svc
  }
  return undefined
}

/** Polls a chain route (GET /dev/time) on every live process but `dead` until each answers 200; when the last did. */
async function chainBack(processes: ServeProcess[], dead: ServeProcess, apiKey: string): Promise<number> {
  const pending = new Set(processes.filter((svc) => svc !== dead && isRunning(svc)))
  const deadline = Date.now() + 120_000
  while (pending.size > 0) {
    if (Date.now() > deadline) throw new Error('team bench: the chain did not come back within 120 s')
    for (const svc of [...pending]) {
      const response = await localFetch(`http://sandbox.localhost:${svc.ready.port}/dev/time`, {
        headers: { 'x-api-key': apiKey },
      }).catch(() => undefined)
      await response?.arrayBuffer()
      if (response?.status === 200) pending.delete(svc)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return Date.now()
}

export async function benchTeam(options: TeamBenchOptions = {}) {
  const { kills = 3, paidPayments = 40, progress = () => {} } = options
  progress('team bench: PostgreSQL, three svc serve --sandbox-chain shared and a load balancer')
  const upstream = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"ok":true}'))
  upstream.listen(0, '127.0.0.3')
  await once(upstream, 'listening')
  const team = await startTeam()
  try {
    await Promise.all([team.start(), team.start(), team.start()])
    const tenant = await connectSandbox(team.sandboxUrl)
    const slug = `bench-${randomBytes(3).toString('hex')}`
    const { client } = tenant.seller
    const api = await client.apis.create({
      name: slug,
      slug,
      upstream_base_url: `http://127.0.0.3:${(upstream.address() as AddressInfo).port}`,
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    })
    await client.endpoints.create(api.id, {
      method: 'GET',
      path_pattern: '/quote',
      accepts: [{ scheme: 'exact', network: tenant.network, asset: tenant.usdc.address, amount: '1000' }],
    })

    progress('team bench: paid p50 through a non-owner against the owner')
    const owner = await findOwner(team.processes)
    const other = team.processes.find((svc) => svc !== owner)
    if (!owner || !other) throw new Error('team bench: no chain owner among the processes')
    const urlOf = (svc: ServeProcess) => `http://${slug}.dev.localhost:${svc.ready.port}/quote`
    const latencies = { owner: [] as number[], non_owner: [] as number[] }
    let failed = 0
    const payOnce = async (svc: ServeProcess) => {
      const started = performance.now()
      const response = await tenant.buyer.fetch(urlOf(svc))
      await response.arrayBuffer()
      if (response.status !== 200) failed++
      return performance.now() - started
    }
    for (let i = 0; i < 5; i++) await Promise.all([payOnce(owner), payOnce(other)])
    for (let i = 0; i < paidPayments; i++)
      for (const side of i % 2 === 0 ? (['owner', 'non_owner'] as const) : (['non_owner', 'owner'] as const))
        latencies[side].push(await payOnce(side === 'owner' ? owner : other))

    progress(`team bench: ${kills} takeovers, a buyer paying through the balancer all along`)
    const paidAt: number[] = []
    let paying = true
    const payer = (async () => {
      const url = `${tenant.gatewayUrl(slug)}/quote`
      while (paying) {
        const response = await tenant.buyer.fetch(url).catch(() => undefined)
        await response?.arrayBuffer()
        if (response?.status === 200) paidAt.push(Date.now())
        else failed++
      }
    })()
    const takeovers: { chain_back_ms: number; first_paid_ms: number }[] = []
    for (let kill = 0; kill < kills; kill++) {
      const dying = await findOwner(team.processes)
      if (!dying) throw new Error('team bench: no chain owner to kill')
      dying.child.kill('SIGKILL')
      const killedAt = Date.now()
      const back = await chainBack(team.processes, dying, tenant.seller.apiKey)
      const deadline = Date.now() + 60_000
      while (!paidAt.some((at) => at > killedAt) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20))
      const firstPaid = paidAt.find((at) => at > killedAt)
      takeovers.push({ chain_back_ms: back - killedAt, first_paid_ms: firstPaid ? firstPaid - killedAt : Number.NaN })
      progress(`team bench: takeover ${kill + 1}: ${JSON.stringify(takeovers.at(-1))}`)
      // A service manager starts the killed unit again: three processes for the next kill.
      await team.start()
    }
    paying = false
    await payer
    await tenant.stop()
    const median = (values: number[]) => round(percentile(values, 50))
    return {
      paid_p50: {
        owner_ms: median(latencies.owner),
        non_owner_ms: median(latencies.non_owner),
        owner_p95_ms: round(percentile(latencies.owner, 95)),
        non_owner_p95_ms: round(percentile(latencies.non_owner, 95)),
        ratio: round(percentile(latencies.non_owner, 50) / percentile(latencies.owner, 50), 2),
      },
      takeover: {
        kills: takeovers,
        chain_back_median_ms: median(takeovers.map((t) => t.chain_back_ms)),
        first_paid_median_ms: median(takeovers.map((t) => t.first_paid_ms)),
      },
      failed_requests: failed,
    }
  } finally {
    await team.stop()
    upstream.close()
  }
}
