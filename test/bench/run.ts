/**
 * `npm run bench`: measures svc's figures side by side in one run and prints one JSON document.
 * Targets come from the issues; `pass` says whether this run met them.
 */
import '../../core/polyfill.js'
import { benchChainReady, benchSettleThroughput, benchSvcUpReady } from './chain.bench.js'
import { benchControlPlane } from './control.bench.js'
import { benchGateway } from './gateway.bench.js'

const chainReady = await benchChainReady()
const svcUp = await benchSvcUpReady()
const settle = await benchSettleThroughput()
const control = await benchControlPlane()
const gateway = await benchGateway()

const report = {
  machine: { node: process.version, cpus: (await import('node:os')).cpus().length },
  chain_ready: { ...chainReady, pass: chainReady.median_ms <= chainReady.target_ms },
  svc_up_ready: svcUp,
  settle_throughput: { ...settle, pass: settle.ratio >= settle.target_ratio },
  control_plane: control,
  gateway,
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
process.exit(0)
