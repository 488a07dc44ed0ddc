/**
 * Issue 40's voucher figure (`npm run bench -- --only vouchers`): svc's own limit on voucher-paid requests, without
 * the buyers' signing cost. Buyers of the official client (`@x402/evm`'s batch-settlement scheme, channel-buyers.ts)
 * open a channel each (their deposit) and pay one voucher, whose request's headers are kept; before each timed
 * window the bench signs each buyer's next vouchers as the client would (`signVoucher`, each with its cumulative
 * amount: the last one's plus the price) and puts them in that request's PAYMENT-SIGNATURE. The window replays them
 * over raw keep-alive sockets, one per buyer (a channel's vouchers arrive in order, one in flight), each answer checked
 * to be a paid 200. In the same run, alternating rounds: svc's `exact` paid rate with as many official buyers, and the
 * official channel client's own voucher rate (its signing on the same cores).
 * Figures: svc's CPU per replayed voucher (its process, minus what it spends idle over as long; target ≤ 0.3 ms) and
 * the replayed voucher rate against the `exact` rate (target ≥ 10×).
 */
import type { ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { connect } from 'node:net'
import { loadavg } from 'node:os'
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { signVoucher } from '@x402/evm/batch-settlement/client'
import { type Hex, hashTypedData, type TypedDataDefinition } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ReplayBuyer } from './channel-buyers.js'
import { type Ask, channelApis, price, ratePayTo, startBuyers } from './channels.bench.js'
import { percentile, round } from './pool.js'
import { processCpuMs, stopChild, treeCpuMs } from './processes.js'
import { startSvcStack } from './stacks.js'

export type VouchersBenchOptions = {
  /** Rounds (each: exact, official vouchers, replayed vouchers; the order alternates). @defaultValue 3 */
  rounds?: number
  /** Buyers on each side (one connection per replayed channel). @defaultValue 16 */
  buyers?: number
  /** `exact` payments per round. @defaultValue 300 */
  exactPayments?: number
  /** The official client's vouchers per round. @defaultValue 1_000 */
  clientVouchers?: number
  /** Replayed vouchers per buyer and round. @defaultValue 300 */
  replayPerBuyer?: number
  /** Node options of svc's process (`--cpu-prof`, …). */
  svcNodeArgs?: string[]
  progress?: (line: string) => void
}

const median = (values: number[]) => percentile(values, 50)

/** libsecp256k1 (the `secp256k1` package svc's bundle recovers with), to sign thousands of vouchers in little time. */
const native = (() => {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings') as {
      ecdsaSign(hash: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number }
    }
  } catch {
    return undefined
  }
})()

/** The voucher signer of a buyer: viem's EIP-712 hash, signed natively where libsecp256k1 loads (else viem's). */
function voucherSigner(privateKey: Hex) {
  const account = privateKeyToAccount(privateKey)
  const key = Buffer.from(privateKey.slice(2), 'hex')
  return {
    address: account.address,
    signTypedData: async (typed: TypedDataDefinition): Promise<Hex> => {
      if (!native) return account.signTypedData(typed as never)
      const hash = Buffer.from(hashTypedData(typed).slice(2), 'hex')
      const { signature, recid } = native.ecdsaSign(hash, key)
      return `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`
    },
  }
}

/** A replay buyer's next vouchers, each a whole HTTP request: its kept request with a new PAYMENT-SIGNATURE. */
function voucherRequests(buyer: ReplayBuyer, url: URL) {
  const payment = decodePaymentSignatureHeader(buyer.headers['payment-signature']!)
  const body = payment.payload as { voucher: { channelId: Hex; maxClaimableAmount: string } }
  const signer = voucherSigner(buyer.privateKey)
  const kept = Object.entries(buyer.headers)
    .filter(([name]) => !['host', 'connection', 'content-length', 'payment-signature'].includes(name))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  const head = `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n${kept}`
  let cumulative = BigInt(body.voucher.maxClaimableAmount)
  return async (count: number): Promise<Buffer[]> => {
    const requests: Buffer[] = []
    for (let i = 0; i < count; i++) {
      cumulative += BigInt(price)
      const voucher = await signVoucher(
        signer as never,
        body.voucher.channelId,
        cumulative.toString(),
        payment.accepted.network,
      )
      const header = encodePaymentSignatureHeader({ ...payment, payload: { ...body, voucher } })
      requests.push(Buffer.from(`${head}payment-signature: ${header}\r\n\r\n`))
    }
    return requests
  }
}

const headEnd = Buffer.from('\r\n\r\n')
const lengthName = /\r\ncontent-length: *(\d+)/i

/**
 * Sends each connection's requests in order, one in flight (no pipelining: a channel's next voucher waits for the
 * answer to its last), over one keep-alive socket each. Resolves with the wall time, the paid 200s and the first
 * answer that was not one.
 */
async function replay(port: number, lists: Buffer[][]) {
  let paid = 0
  let other: string | undefined
  const started = performance.now()
  await Promise.all(
    lists.map(
      (requests) =>
        new Promise<void>((resolve, reject) => {
          const socket = connect({ port, host: '127.0.0.1', noDelay: true })
          let next = 0
          let pending: Buffer = Buffer.alloc(0)
          socket.on('error', reject)
          socket.on('connect', () => socket.write(requests[next++]!))
          socket.on('data', (chunk: Buffer) => {
            pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
            const end = pending.indexOf(headEnd)
            if (end < 0) return
            const head = pending.toString('latin1', 0, end)
            const length = lengthName.exec(head)
            if (!length) return reject(new Error(`vouchers bench: an answer without Content-Length: ${head}`))
            const total = end + headEnd.length + Number(length[1])
            if (pending.length < total) return
            if (head.startsWith('HTTP/1.1 200') && /\r\npayment-response:/i.test(head)) paid++
            else other ??= `${head.split('\r\n')[0]} ${pending.toString('utf8', end + 4, total)}`
            pending = pending.subarray(total)
            if (next === requests.length) {
              socket.destroy()
              resolve()
            } else socket.write(requests[next++]!)
          })
        }),
    ),
  )
  return { wallMs: performance.now() - started, paid, other }
}

type SvcStack = Awaited<ReturnType<typeof startSvcStack>>

/**
 * `buyers` replay buyers of the official client on `apiUrl` (channels opened, one voucher paid, untimed) and a way to
 * replay their next vouchers: each window's vouchers are signed first (untimed), svc's idle CPU is read over a second,
 * then the vouchers are sent; resolves with the rate and svc's CPU per voucher (minus its idle rate over the window).
 */
export async function replayRig(svcPid: number, ask: Ask, apiUrl: string, buyers: number) {
  const replayBuyers = await ask<ReplayBuyer[]>({ op: 'replayBuyers', url: apiUrl, count: buyers })
  const url = new URL(apiUrl)
  const signers = replayBuyers.map((buyer) => voucherRequests(buyer, url))
  /** svc's CPU (ms per ms) while nothing is asked of it: its timers, the chain's blocks. */
  const idle = async () => {
    const before = { svc: processCpuMs(svcPid), tree: treeCpuMs(svcPid), at: performance.now() }
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const ms = performance.now() - before.at
    return { svc: (processCpuMs(svcPid) - before.svc) / ms, tree: (treeCpuMs(svcPid) - before.tree) / ms }
  }
  return async (perBuyer: number) => {
    const lists = await Promise.all(signers.map((sign) => sign(perBuyer)))
    const quiet = await idle()
    const before = { svc: processCpuMs(svcPid), tree: treeCpuMs(svcPid) }
    const result = await replay(Number(url.port), lists)
    const count = perBuyer * buyers
    if (result.paid !== count)
      throw new Error(`vouchers bench: ${count - result.paid} replayed vouchers not paid; first: ${result.other}`)
    const per = (now: number, then: number, idleRate: number) => (now - then - idleRate * result.wallMs) / count
    return {
      rps: count / (result.wallMs / 1_000),
      svc: per(processCpuMs(svcPid), before.svc, quiet.svc),
      svcTree: per(treeCpuMs(svcPid), before.tree, quiet.tree),
    }
  }
}

/**
 * svc's CPU per replayed voucher of two builds side by side (a change's before and after): both started, each with
 * its own buyers, then rounds alternating which build goes first (`bins`: each build's bin/svc.js).
 */
export async function benchVoucherBuilds(options: {
  bins: [string, string]
  rounds?: number
  perBuyer?: number
  buyers?: number
}) {
  const { bins, rounds = 6, perBuyer = 200, buyers = 16 } = options
  const sides: { svc: SvcStack; child: ChildProcess; replayed: Awaited<ReturnType<typeof replayRig>> }[] = []
  try {
    for (const bin of bins) {
      const svc = await startSvcStack({ bin })
      const { child, ask } = await startBuyers()
      sides.push({ svc, child, replayed: undefined as never })
      const api = await (await channelApis(svc)).channelApi('vouchers', ratePayTo, 3_600)
      await ask({
        op: 'setup',
        rpcUrl: svc.rpcUrl,
        chainManagerUrl: svc.ready.chain_manager_url,
        network: svc.network,
        usdc: svc.usdc.address,
        buyers: 1,
        depositUrl: api.url,
      })
      sides.at(-1)!.replayed = await replayRig(svc.pids[0]!, ask, api.url, buyers)
    }
    for (const side of sides) await side.replayed(Math.max(100, Math.ceil(2_500 / buyers)))
    const cpu: number[][] = [[], []]
    for (let r = 0; r < rounds; r++)
      for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) cpu[i]!.push((await sides[i]!.replayed(perBuyer)).svc)
    const [a, b] = cpu.map((list) => median(list))
    return {
      load_average: loadavg().map((value) => round(value, 2)),
      svc_cpu_ms_per_voucher: bins.map((bin, i) => ({
        bin,
        median: round(cpu[i] === undefined ? Number.NaN : median(cpu[i]!), 3),
        rounds: cpu[i]!.map((ms) => round(ms, 3)),
      })),
      ratio: round(b! / a!, 3),
    }
  } finally {
    for (const side of sides) {
      await stopChild(side.child)
      await side.svc.stop()
    }
  }
}

export async function benchVouchers(options: VouchersBenchOptions = {}) {
  const {
    rounds = 3,
    buyers = 16,
    exactPayments = 300,
    clientVouchers = 1_000,
    replayPerBuyer = 300,
    progress = () => {},
  } = options
  const load = () => Number(loadavg()[0]!.toFixed(2))
  const loadBefore = load()
  progress('vouchers bench: starting svc (svc up --seed fixtures/demo-seed.yaml)')
  const svc = await startSvcStack({ nodeArgs: options.svcNodeArgs ?? [] })
  const buyersProcess = await startBuyers()
  try {
    const { channelApi } = await channelApis(svc)
    // Claims once an hour: the timing measures vouchers, not the channel manager's transactions.
    const api = await channelApi('vouchers', ratePayTo, 3_600)
    const { ask } = buyersProcess
    progress(`vouchers bench: ${buyers} exact buyers, ${2 * buyers} channel buyers (each deposits once, untimed)`)
    await ask({
      op: 'setup',
      rpcUrl: svc.rpcUrl,
      chainManagerUrl: svc.ready.chain_manager_url,
      network: svc.network,
      usdc: svc.usdc.address,
      buyers,
      depositUrl: api.url,
    })
    const svcPid = svc.pids[0]!
    const buyersPid = buyersProcess.child.pid!
    const replayed = await replayRig(svcPid, ask, api.url, buyers)
    /** `count` payments of the official buyers of a kind, with the CPU per request svc and the buyers spent. */
    const official = async (kind: 'exact' | 'voucher', count: number) => {
      const before = { svc: processCpuMs(svcPid), buyers: processCpuMs(buyersPid) }
      const result = await ask<{ seconds: number; withTransaction: number }>({
        op: 'rate',
        kind,
        url: kind === 'exact' ? svc.url : api.url,
        count,
      })
      return {
        rps: count / result.seconds,
        svc: (processCpuMs(svcPid) - before.svc) / count,
        buyers: (processCpuMs(buyersPid) - before.buyers) / count,
        withTransaction: result.withTransaction,
      }
    }
    progress('vouchers bench: warm-up (exact, the client, replayed), untimed')
    await official('exact', 4 * buyers)
    await official('voucher', 20 * buyers)
    await replayed(Math.max(100, Math.ceil(2_500 / buyers)))
    const rows = {
      exact: [] as Awaited<ReturnType<typeof official>>[],
      client: [] as Awaited<ReturnType<typeof official>>[],
      replay: [] as Awaited<ReturnType<typeof replayed>>[],
    }
    for (let r = 0; r < rounds; r++) {
      const kinds = ['exact', 'client', 'replay'] as const
      for (const kind of r % 2 === 0 ? kinds : [...kinds].reverse()) {
        progress(`vouchers bench: round ${r + 1}/${rounds}, ${kind}`)
        if (kind === 'replay') rows.replay.push(await replayed(replayPerBuyer))
        else
          rows[kind].push(
            await official(kind === 'exact' ? 'exact' : 'voucher', kind === 'exact' ? exactPayments : clientVouchers),
          )
      }
    }
    const med = <T>(list: T[], of: (row: T) => number, digits = 0) => round(median(list.map(of)), digits)
    const exactRps = median(rows.exact.map((row) => row.rps))
    const replayRps = median(rows.replay.map((row) => row.rps))
    const svcPerVoucher = median(rows.replay.map((row) => row.svc))
    const ratio = replayRps / exactRps
    return {
      load_average: { before: loadBefore, after: load() },
      buyers,
      rounds,
      signing: native ? 'libsecp256k1 (untimed)' : 'viem (untimed)',
      replayed: {
        vouchers_per_round: replayPerBuyer * buyers,
        rps: round(replayRps),
        rps_rounds: rows.replay.map((row) => round(row.rps)),
        svc_cpu_ms_per_voucher: round(svcPerVoucher, 3),
        svc_cpu_ms_rounds: rows.replay.map((row) => round(row.svc, 3)),
        svc_with_anvil_cpu_ms: med(rows.replay, (row) => row.svcTree, 3),
        target_svc_cpu_ms: 0.3,
      },
      exact: {
        payments_per_round: exactPayments,
        rps: round(exactRps),
        rps_rounds: rows.exact.map((row) => round(row.rps)),
        svc_cpu_ms: med(rows.exact, (row) => row.svc, 2),
      },
      official_client: {
        vouchers_per_round: clientVouchers,
        rps: med(rows.client, (row) => row.rps),
        rps_rounds: rows.client.map((row) => round(row.rps)),
        svc_cpu_ms: med(rows.client, (row) => row.svc, 2),
        buyers_cpu_ms: med(rows.client, (row) => row.buyers, 2),
        ratio_to_exact: round(median(rows.client.map((row) => row.rps)) / exactRps),
        requests_with_a_transaction: rows.client.reduce((sum, row) => sum + row.withTransaction, 0),
      },
      ratio: round(ratio),
      target_ratio: 10,
      pass: ratio >= 10 && svcPerVoucher <= 0.3,
    }
  } finally {
    await stopChild(buyersProcess.child)
    await svc.stop()
  }
}
