/**
 * Which of the repository's files a paid `exact` request runs through, measured, not read: svc starts in this
 * process (an ephemeral data dir, port 0, the demo seed), a buyer pays twice with the official `@x402/fetch` client
 * to warm up and signs a third payment (its 402 probe comes before the window), then ONE request carrying that
 * PAYMENT-SIGNATURE runs under V8's precise coverage (call counts). Every file of server/,
 * chain/, core/, sdk/ or fixtures/ with a function called during that request (its answer read, its settlement
 * recorded) is listed, ordered by when a CPU sample first saw it on the stack (files no sample caught follow, by
 * folder), and counted.
 *
 *   npx tsx test/architecture/paid-path.ts [--json] [--start <module exporting startSvc>]
 *
 * `--start` lets it measure an older commit: copy this file outside the repository and run it with the older
 * checkout as the working directory (at f727e27: `--start server/start-svc.ts`). The buyer's side uses only
 * node_modules (its own undici dispatcher, not sdk/local-fetch.ts), so what is listed is the server's. Background
 * work that happens to run in the window (timers of the chain manager, the relay's miner…) is listed too; idle
 * windows are measured after (two, each at least {@link idleWindowMs} long, so that every background timer of a second
 * or less fires in each) and their files are flagged "(also idle)".
 *
 * The headline figure is the request's own files: those listed, less the ones that also run when nobody pays (the
 * relay's miner sweep and pool guard, the chain's health check, Anvil's instance…) and less fixtures/ (the seller's
 * upstream, not svc). The full list and the files left out are printed after it.
 */
import { existsSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { Agent, fetch as undiciFetch } from 'undici'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const args = process.argv.slice(2)
const json = args.includes('--json')
const root = process.cwd()
const startIndex = args.indexOf('--start')
const startModule =
  startIndex >= 0
    ? args[startIndex + 1]!
    : ['server/start/index.ts', 'server/start/start-svc.ts', 'server/start-svc.ts'].find((path) =>
        existsSync(resolve(root, path)),
      )!
const folders = ['server/', 'chain/', 'core/', 'sdk/', 'fixtures/']
/** Files of these folders are listed but not the request's own: they are the seller's side (its upstream). */
const notSvc = ['fixtures/']
/** The shortest idle window: longer than the slowest background timer (the miner's sweep, the chain's health check: 1 s). */
const idleWindowMs = 1_500
/** Idle windows measured, their files joined: one may miss a timer that fires at its edge. */
const idleWindows = 2

type Coverage = { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[]
type Profile = {
  nodes: { id: number; callFrame: { url: string }; children?: number[] }[]
  samples: number[]
  timeDeltas: number[]
}

/** The repository path of a script URL, or undefined when it is not one of the counted folders. */
function repoFile(url: string): string | undefined {
  if (!url.startsWith('file://')) return undefined
  const path = relative(root, fileURLToPath(url.split('?')[0]!))
  if (path.startsWith('..') || path.includes('node_modules')) return undefined
  return folders.some((folder) => path.startsWith(folder)) ? path : undefined
}

/** Files with a function called at least once since the last take (takePreciseCoverage resets the counts). */
function calledFiles(coverage: Coverage): Set<string> {
  const files = new Set<string>()
  for (const script of coverage) {
    const file = repoFile(script.url)
    if (file && script.functions.some((fn) => (fn.ranges[0]?.count ?? 0) > 0)) files.add(file)
  }
  return files
}

/** The files in the order a CPU sample first saw one of their functions on the stack. */
function firstSeen(profile: Profile): string[] {
  const parent = new Map<number, number>()
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const order: string[] = []
  const seen = new Set<string>()
  for (const sample of profile.samples) {
    const stack: string[] = []
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const file = repoFile(byId.get(id)!.callFrame.url)
      if (file) stack.push(file)
    }
    // Outermost first: the caller was entered before its callee.
    for (const file of stack.reverse())
      if (!seen.has(file)) {
        seen.add(file)
        order.push(file)
      }
  }
  return order
}

const startSvc = (await import(pathToFileURL(resolve(root, startModule)).href)).startSvc as (
  options: Record<string, unknown>,
) => Promise<any>
const seed = await import(pathToFileURL(resolve(root, 'sdk/seed.ts')).href)

const running = await startSvc({ mode: 'up', port: 0, demoUpstream: true, log: () => {} })
const session = new Session()
session.connect()
try {
  const seedFile = seed.readSeedFile(resolve(root, 'fixtures/demo-seed.yaml'))
  const applied = await seed.applySeed(seed.parseSeed(seedFile, { demo_upstream: running.demoUpstreamUrl }), {
    controlUrl: running.server.controlUrl,
    sandboxControlUrl: running.server.sandboxControlUrl,
  })
  const gateway = applied.apis.find((api: { slug: string }) => api.slug === 'weather').gateway_url as string
  const url = `${gateway}/weather/paris`

  const buyer = privateKeyToAccount(generatePrivateKey())
  await running.chain.manager.fund(buyer.address, 'usdc', '1')
  const client = new x402Client().register('eip155:845320402', new ExactEvmScheme(buyer))
  client.setSpendControls({
    allowedAssets: [
      {
        network: 'eip155:845320402',
        asset: running.chain.sandboxChain.usdc.address,
        maxAmountPerPayment: '10000000',
      },
    ],
  })
  // The buyer's own dispatcher: `*.localhost` to 127.0.0.1, nothing from the repository on the buyer's side.
  const dispatcher = new Agent({
    connect: {
      lookup: ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
        options?.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)) as never,
    },
  })
  const buyerFetch = ((input: Request | string, init?: RequestInit) => {
    if (input instanceof Request) {
      const { method, headers, body, signal, url } = input
      return undiciFetch(url, {
        method,
        headers,
        body,
        signal,
        ...(body ? { duplex: 'half' } : {}),
        dispatcher,
      } as never)
    }
    return undiciFetch(input, { ...(init as object), dispatcher } as never)
  }) as unknown as typeof fetch
  const pay = wrapFetchWithPayment(buyerFetch, client)
  /** The answer to one paid request: with `signature`, only the request that carries it (no 402 probe first). */
  const payOnce = async (signature?: string) => {
    const response = await (signature === undefined
      ? pay(url)
      : buyerFetch(url, { headers: { 'payment-signature': signature } }))
    const text = await response.text()
    const header = response.headers.get('payment-response')
    const settled = header ? decodePaymentResponseHeader(header) : undefined
    if (response.status !== 200 || !settled?.success)
      throw new Error(`the paid request failed: ${response.status} ${text.slice(0, 200)}`)
    return settled.transaction
  }
  /** What runs after the answer (the journal's finish, the outcome's event) is given this long to end. */
  const settleMs = 200

  await payOnce()
  await payOnce()
  // The measured request's payment is signed before the window opens: its 402 probe is not part of it.
  const probe = await buyerFetch(url)
  await probe.arrayBuffer()
  const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
  const signature = encodePaymentSignatureHeader(await client.createPaymentPayload(required))
  await session.post('Profiler.enable')
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
  await session.post('Profiler.setSamplingInterval', { interval: 20 })
  await new Promise((done) => setTimeout(done, settleMs))

  // The measured request.
  await session.post('Profiler.takePreciseCoverage')
  await session.post('Profiler.start')
  const t0 = performance.now()
  const transaction = await payOnce(signature)
  const paidMs = performance.now() - t0
  await new Promise((done) => setTimeout(done, settleMs))
  const paid = calledFiles(((await session.post('Profiler.takePreciseCoverage')) as { result: Coverage }).result)
  const { profile } = (await session.post('Profiler.stop')) as { profile: Profile }

  // Idle windows, for what runs whether or not anyone pays.
  const idle = new Set<string>()
  await session.post('Profiler.takePreciseCoverage')
  for (let window = 0; window < idleWindows; window++) {
    await new Promise((done) => setTimeout(done, Math.max(paidMs + settleMs, idleWindowMs)))
    const coverage = ((await session.post('Profiler.takePreciseCoverage')) as { result: Coverage }).result
    for (const file of calledFiles(coverage)) idle.add(file)
  }
  await session.post('Profiler.stopPreciseCoverage')

  const sampled = firstSeen(profile).filter((file) => paid.has(file))
  const rest = [...paid].filter((file) => !sampled.includes(file)).sort()
  const files = [...sampled, ...rest]
  const folderOf = (file: string) => file.split('/').slice(0, -1).join('/')
  const byFolder: Record<string, number> = {}
  for (const file of files) byFolder[folderOf(file)] = (byFolder[folderOf(file)] ?? 0) + 1
  const idleOnly = [...idle].filter((file) => !paid.has(file)).sort()
  const alsoIdle = files.filter((file) => idle.has(file))
  const fixtures = files.filter((file) => notSvc.some((folder) => file.startsWith(folder)))
  const own = files.filter((file) => !idle.has(file) && !fixtures.includes(file))
  const ownFolders = new Set(own.map(folderOf))

  if (json)
    console.log(
      JSON.stringify(
        {
          start: startModule,
          transaction,
          count: own.length,
          own,
          all: files.length,
          files,
          sampled: sampled.length,
          alsoIdle,
          fixtures,
          byFolder,
          idleOnly,
        },
        null,
        2,
      ),
    )
  else {
    console.log(
      `A paid exact request (${transaction}) ran through ${own.length} files of its own in ${ownFolders.size} folders` +
        ` (${files.length} in all: ${alsoIdle.length} also run when idle, ${fixtures.length} in ${notSvc.join(', ')}):`,
    )
    // The full list; the request's own files are numbered, the ones left out of the count are marked `-`.
    for (const [i, file] of files.entries())
      console.log(
        `${own.includes(file) ? String(own.indexOf(file) + 1).padStart(3) : '  -'} ${file}${i >= sampled.length ? '   (no CPU sample)' : ''}${idle.has(file) ? '   (also idle)' : ''}${fixtures.includes(file) ? '   (not svc)' : ''}`,
      )
    console.log(
      `by folder: ${Object.entries(byFolder)
        .map(([folder, n]) => `${folder} ${n}`)
        .join(', ')}`,
    )
    console.log(`left out, also run when idle: ${alsoIdle.join(', ') || 'none'}`)
    console.log(`left out, not svc: ${fixtures.join(', ') || 'none'}`)
    if (idleOnly.length > 0)
      console.log(`called in an idle window as long, not in the request's: ${idleOnly.join(', ')}`)
  }
} finally {
  session.disconnect()
  await running.stop()
}
