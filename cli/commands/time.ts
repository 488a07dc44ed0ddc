import type { Command } from 'commander'
import { UsageError } from '../../core/errors.js'
import type { SandboxTime } from '../../sdk/types.js'
import { action, addCommand, type Call, type CliContext } from '../context.js'
import { asAdmin, withAdminToken, type AdminTokenFlags } from '../admin-token.js'
import { sandboxControl, sandboxControlUrl } from './snapshots.js'

const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 }

/** `3600`, `90s`, `15m`, `2h`, `8d` → seconds; anything else is a usage error. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,12})([smhd]?)$/.exec(text.trim())
  const seconds = match ? Number(match[1]) * units[match[2] || 's']! : Number.NaN
  if (!Number.isSafeInteger(seconds) || seconds < 1)
    throw new UsageError(`SECONDS must be a whole number of seconds (or 15m, 2h, 8d), got "${text}"`)
  return seconds
}

function showTime(call: Call<object>, time: SandboxTime) {
  // The sandbox acted on is named: one started on another port is not mistaken for this one.
  if (call.out.isJson) return call.out.json({ ...time, sandbox_url: sandboxControlUrl(call) })
  call.out.fields([
    ['sandbox', sandboxControlUrl(call)],
    ['chain', `${new Date(time.chain_time * 1000).toISOString()}  ${call.out.dim(`(block ${time.chain_block})`)}`],
    ['svc', time.svc_time],
    ['offset', time.offset_seconds === 0 ? "0 s (the machine's time)" : `+${time.offset_seconds} s`],
  ])
}

/** `svc time [advance SECONDS | reset]`: the chain's time and svc's own clock, moved together. */
export function registerTime(program: Command, ctx: CliContext) {
  const time = program
    .command('time')
    .description("the Sandbox chain's time and svc's own clock; `advance` moves both (time travel)")

  withAdminToken(addCommand(time, 'show', 'both clocks (the default)', { isDefault: true })).action(
    action<AdminTokenFlags>(ctx, async (call) =>
      showTime(call, await asAdmin(call, () => sandboxControl(call).time.get())),
    ),
  )

  withAdminToken(
    addCommand(
      time,
      'advance',
      'move the chain and svc forward together: ttl endpoints expire, old authorizations and JWTs are refused',
    ),
  )
    .argument('<seconds>', 'how far: seconds, or with a unit (15m, 2h, 8d)')
    .action(
      action<AdminTokenFlags>(ctx, async (call, seconds) => {
        const advance = parseDuration(seconds!)
        showTime(call, await asAdmin(call, () => sandboxControl(call).time.advance(advance)))
      }),
    )

  withAdminToken(
    addCommand(
      time,
      'reset',
      "move svc's clock back to the machine's, as far as the chain allows (chain time never goes back)",
    ),
  ).action(
    action<AdminTokenFlags>(ctx, async (call) => {
      const reset = await asAdmin(call, () => sandboxControl(call).time.reset())
      showTime(call, reset)
      if (!call.out.isJson && reset.offset_seconds > 0)
        call.out.line(
          call.out.dim(
            `the chain's latest block is ${reset.offset_seconds} s ahead of the machine's time and chain time never goes back: svc's clock stays with it (svc's own buyers sign by it); \`svc revert\` to a snapshot taken before the advance goes back further`,
          ),
        )
    }),
  )
}
