/**
 * Where svc's CPU goes on the voucher path (`npm run bench -- --only channels_profile`, only when named): the vouchers
 * bench (vouchers.bench.ts: pre-signed vouchers replayed over raw sockets, so svc is the one busy process), shorter
 * (one round), with svc's Node process run under `--cpu-prof`; the profile summarised by module and function
 * (cpu-profile.ts) beside the CPU per voucher svc spent. Under `--cpu-prof` svc is slower; the rates are not the figures.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { summariseCpuProfile } from './cpu-profile.js'
import { benchVouchers } from './vouchers.bench.js'

export async function benchChannelsProfile(options: { perBuyer?: number; progress?: (line: string) => void } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-channels-prof-'))
  try {
    const run = await benchVouchers({
      rounds: 1,
      exactPayments: 32,
      clientVouchers: 64,
      replayPerBuyer: options.perBuyer ?? 400,
      svcNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
      ...(options.progress ? { progress: options.progress } : {}),
    })
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))
    if (!file) throw new Error('channels profile: svc wrote no profile')
    return { replayed: run.replayed, ...summariseCpuProfile(join(dir, file), { top: 60 }) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
