/**
 * `npm run bench`: measures svc's figures side by side in one run and prints one JSON document.
 * Targets come from the issues; `pass` says whether this run met them.
 * `npm run bench -- --only issue_11,control_plane` runs some of them (names as in the report); `channels` (issue 24's
 * payment channels, channels.bench.ts), `escrow` (issue 39's auth-capture figures, escrow.bench.ts), `ci_kit` (issue 37: `svc exec -- true`, `svc up --detach`) and `startup` (issue 40: `svc up` to its ready line, `startSandbox()`, idle RSS) run by default too; `vouchers` (issue 40: pre-signed vouchers replayed over raw sockets beside the exact rate and the official client's) runs by default too; `channels_profile` (where svc's CPU per voucher goes, under that replay) and `vouchers_builds` (`--bins a/bin/svc.js,b/bin/svc.js`: two builds' CPU per replayed voucher, side by side), `long_run`,
 * `chain_growth` and `profile` (where a paid request's time goes) take minutes and run only when named (`--payments 21000`, `--transfers 20000` size them).
 * `data_layer` (a payment's bookkeeping on SQLite and on PostgreSQL) needs the machine's PostgreSQL and runs only when named.
 * `cluster` (three `svc serve` on one PostgreSQL: 402 rate, paid p50 against SQLite, payments with kills; `--payments`
 * sizes the kill run, 10,000 unless told) needs it too, takes minutes, and runs only when named; `cluster_402` is its
 * unpaid 402 rounds alone. `unpaid_402` is issue 40's unpaid 402 figure alone (svc beside the reference, 5 pairs;
 * issue_11 measures it too, in 3), only when named.
 * `--save docs/benchmarks.json` also writes the report with when and on what it was measured (date, CPU model and
 * count, memory, Node, load): the README's and docs/benchmarks.md's figures are rendered from that file
 * (`npm run docs:gen`, test/docs/reference/benchmarks.ts).
 * `team` (a team Sandbox: three `svc serve --sandbox-chain shared`; takeover times over a few kills of the chain owner,
 * paid p50 through a non-owner against the owner) needs it too and runs only when named.
 */
import '../../core/polyfill.js'
import { parseArgs } from 'node:util'
import { benchChainReady, benchSettleThroughput } from './chain.bench.js'
import { benchChannels } from './channels.bench.js'
import { benchChannelsProfile } from './channels-profile.bench.js'
import { benchCiKit } from './ci-kit.bench.js'
import { benchCluster } from './cluster.bench.js'
import { benchChainGrowth } from './chain-growth.bench.js'
import { benchControlPlane } from './control.bench.js'
import { benchDataLayer } from './data-layer.bench.js'
import { benchEscrow } from './escrow.bench.js'
import { benchIssue11, benchSvcUpReady } from './issue-11.bench.js'
import { benchLongRun } from './long-run.bench.js'
import { benchStartup } from './startup.bench.js'
import { benchTeam } from './team.bench.js'
import { benchSvcUpWithTwin, benchTwinV1VsV2 } from './twin.bench.js'
import { benchCpuProfile, benchProfile } from './profile.bench.js'
import { benchUnpaidPair } from './unpaid-pair.js'
import { benchVoucherBuilds, benchVouchers } from './vouchers.bench.js'

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    payments: { type: 'string' },
    transfers: { type: 'string' },
    save: { type: 'string' },
    bins: { type: 'string' },
  },
})
const progress = (line: string) => void process.stderr.write(`${line}\n`)
const number = (value: string | undefined) => (value === undefined ? undefined : Number(value))

const benches = {
  issue_11: () => benchIssue11({ progress }),
  unpaid_402: () => benchUnpaidPair({ progress }),
  chain_ready: async () => {
    const chainReady = await benchChainReady()
    return { ...chainReady, pass: chainReady.median_ms <= chainReady.target_ms }
  },
  settle_throughput: async () => {
    const settle = await benchSettleThroughput()
    return { ...settle, pass: settle.ratio >= settle.target_ratio }
  },
  control_plane: () => benchControlPlane(),
  data_layer: () => benchDataLayer(),
  cluster: () => benchCluster({ payments: number(values.payments), progress }),
  cluster_402: () => benchCluster({ only402: true, rounds: 5, progress }),
  team: () => benchTeam({ progress }),
  twin: async () => ({ svc_up: await benchSvcUpWithTwin(), v1_vs_v2: await benchTwinV1VsV2() }),
  svc_up_ready: () => benchSvcUpReady(),
  ci_kit: () => benchCiKit(),
  startup: () => benchStartup({ progress }),
  long_run: () => benchLongRun({ payments: number(values.payments), progress }),
  profile: async () => ({ wall_time: await benchProfile(), cpu: await benchCpuProfile() }),
  escrow_profile: () => benchProfile({ scheme: 'auth-capture' }),
  channels: () => benchChannels({ progress }),
  escrow: () => benchEscrow({ progress }),
  channels_profile: () => benchChannelsProfile({ progress }),
  vouchers: () => benchVouchers({ progress }),
  vouchers_builds: () => {
    const bins = values.bins?.split(',')
    if (bins?.length !== 2) throw new Error('vouchers_builds: --bins BEFORE/bin/svc.js,AFTER/bin/svc.js')
    return benchVoucherBuilds({ bins: bins as [string, string] })
  },
  chain_growth: () => benchChainGrowth({ transfers: number(values.transfers), progress }),
}
type Name = keyof typeof benches
/** What `npm run bench` runs when no `--only` is given. */
const defaults: Name[] = [
  'issue_11',
  'chain_ready',
  'settle_throughput',
  'control_plane',
  'twin',
  'channels',
  'escrow',
  'vouchers',
  'ci_kit',
  'startup',
]

const names = (values.only?.split(',').map((name) => name.trim()) ?? defaults) as Name[]
const unknown = names.filter((name) => !(name in benches))
if (unknown.length) {
  process.stderr.write(`bench: unknown ${unknown.join(', ')}; one of ${Object.keys(benches).join(', ')}\n`)
  process.exit(2)
}

const os = await import('node:os')
const report: Record<string, unknown> = {
  machine: {
    node: process.version,
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model.trim(),
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
  },
}
const started = new Date()
for (const name of names) report[name] = await benches[name]()
const text = `${JSON.stringify(report, null, 2)}\n`
process.stdout.write(text)
if (values.save) {
  const saved = { measured_at: started.toISOString(), command: `npm run bench -- --only ${names.join(',')}`, ...report }
  ;(await import('node:fs')).writeFileSync(values.save, `${JSON.stringify(saved, null, 2)}\n`)
}
process.exit(0)
