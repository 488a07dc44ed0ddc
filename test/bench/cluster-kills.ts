/**
 * The cluster bench's kill run: 16 buyers pay through a round robin over the cluster's processes while, every
 * `killEvery` answered payments, the oldest live process is killed with SIGKILL and a new one started (as a service
 * manager restarts a crashed unit). At the end, once the journal is empty, the ledger against the chain.
 */
import { type Cluster, type ExternalChain, isRunning } from '../helpers/cluster.js'
import { loadBalancer, newBuyers, readLedger, type ProductionApi } from '../helpers/cluster-load.js'
import { connectAdmin, journalRows, startLoad } from '../helpers/cluster-watch.js'
import { getBlockNumber, reconcileLedger, startLogCollector } from './reconcile.js'

export async function benchClusterKills(options: {
  cluster: Cluster
  chain: ExternalChain
  api: ProductionApi
  payments?: number | undefined
  killEvery?: number | undefined
  progress: (line: string) => void
}) {
  const { cluster, chain, api, payments = 10_000, killEvery = 2_000, progress } = options
  const balancer = loadBalancer(cluster.processes)
  const buyers = newBuyers(16, chain.network, chain.usdc, balancer.fetch)
  const perBuyer = Math.ceil(((payments * 1.2) / buyers.length) * Number(api.amount)) / 1e6
  await Promise.all(buyers.map((buyer) => chain.fund(buyer.account.address, Math.ceil(perBuyer))))
  const logs = startLogCollector(chain.rpcUrl, chain.usdc, api.payTo, api.amount, await getBlockNumber(chain.rpcUrl))
  const admin = await connectAdmin(cluster.adminUrl)
  const started = performance.now()
  const load = startLoad(buyers, api.url)
  let kills = 0
  try {
    for (let next = killEvery; next < payments; next += killEvery) {
      await load.until(next, 600_000)
      const victim = cluster.processes.find(isRunning)!
      victim.child.kill('SIGKILL')
      kills++
      await cluster.start()
      progress(`cluster bench: ${load.answered.size} payments, killed process ${kills} and started another`)
    }
    await load.until(payments, 600_000)
  } finally {
    await load.stop()
  }
  const wallMs = performance.now() - started
  // The authorizations a dead process never sent are known unused once their window (the API's 20 s) passed; the
  // journal is given that and a margin.
  const deadline = Date.now() + 60_000
  let journalLeft = await journalRows(admin)
  while (journalLeft > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    journalLeft = await journalRows(admin)
  }
  await admin.end()
  // The seller's settlements of this run: its buyers' (the API was paid before it, by the paid p50's buyer).
  const payers = new Set(buyers.map((buyer) => buyer.account.address.toLowerCase()))
  const ledger = (await readLedger(cluster.processes.find(isRunning)!, api.token)).filter((row) =>
    payers.has(row.payer.toLowerCase()),
  )
  const reconciliation = reconcileLedger(await logs.finish(), ledger, load.answered)
  return {
    payments_answered: load.answered.size,
    failed_requests: load.failures(),
    kills,
    payments_per_s: Math.round((load.answered.size / wallMs) * 1000),
    journal_rows_left: journalLeft,
    ...reconciliation,
    pass: reconciliation.lost === 0 && reconciliation.double === 0 && journalLeft === 0,
  }
}
