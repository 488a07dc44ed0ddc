/**
 * Where svc's CPU goes on the voucher path (`npm run bench -- --only channels_profile`, only when named): the
 * channels bench, shorter (one round, `vouchers` voucher-paid requests from 16 buyers, 64 exact ones), with svc's Node
 * process run under `--cpu-prof`; the profile summarised by module and function (cpu-profile.ts) beside the CPU per
 * request each process spent. Under `--cpu-prof` svc is slower; the rates are not the figures.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchChannels } from './channels.bench.js'
import { summariseCpuProfile } from './cpu-profile.js'

export async function benchChannelsProfile(options: { vouchers?: number; progress?: (line: string) => void } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-channels-prof-'))
  try {
    const run = await benchChannels({
      rounds: 1,
      exactPayments: 64,
      voucherPayments: options.vouchers ?? 3_000,
      sequentialPayments: 100,
      claimVouchers: 10,
      svcNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
      ...(options.progress ? { progress: options.progress } : {}),
    })
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))
    if (!file) throw new Error('channels profile: svc wrote no profile')
    return { cpu_per_request: run.rate.cpu_per_request, ...summariseCpuProfile(join(dir, file), { top: 40 }) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
