/**
 * `npm run bench`: measures svc's figures side by side in one run and prints one JSON document.
 * Targets come from the issues; `pass` says whether this run met them.
 * `npm run bench -- --only svc_up_ready,gateway` runs some of them (names as in the report).
 */
import '../../core/polyfill.js'
import { parseArgs } from 'node:util'
import { benchChainReady, benchSettleThroughput, benchSvcUpReady } from './chain.bench.js'
import { benchControlPlane } from './control.bench.js'
import { benchGateway } from './gateway.bench.js'

const benches = {
  chain_ready: async () => {
    const chainReady = await benchChainReady()
    return { ...chainReady, pass: chainReady.median_ms <= chainReady.target_ms }
  },
  svc_up_ready: () => benchSvcUpReady(),
  settle_throughput: async () => {
    const settle = await benchSettleThroughput()
    return { ...settle, pass: settle.ratio >= settle.target_ratio }
  },
  control_plane: () => benchControlPlane(),
  gateway: () => benchGateway(),
}
type Name = keyof typeof benches

const { values } = parseArgs({ options: { only: { type: 'string' } } })
const names = (values.only?.split(',').map((name) => name.trim()) ?? Object.keys(benches)) as Name[]
const unknown = names.filter((name) => !(name in benches))
if (unknown.length) {
  process.stderr.write(`bench: unknown ${unknown.join(', ')}; one of ${Object.keys(benches).join(', ')}\n`)
  process.exit(2)
}

const report: Record<string, unknown> = { machine: { node: process.version, cpus: (await import('node:os')).cpus().length } }
for (const name of names) report[name] = await benches[name]()
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
process.exit(0)
