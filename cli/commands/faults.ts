import type { Command } from 'commander'
import { createSvcClient, type SvcClient } from '../../sdk/client.js'
import type { Fault, FaultInput } from '../../sdk/types.js'
import { UsageError } from '../../core/errors.js'
import { exactEvmReasons, isExactEvmReason } from '../../core/fault-reasons.js'
import { action, addCommand, type Call, type CliContext } from '../context.js'
import { parseInteger } from '../inputs.js'
import { adminFetch, adminTokenOf, asAdmin, withAdminToken, type AdminTokenFlags } from '../admin-token.js'
import { sandboxControlUrl } from './snapshots.js'

type AddFlags = AdminTokenFlags & {
  reason?: string
  times?: string
  api?: string
  delayMs?: string
  status?: string
  drop?: boolean
}

const kinds = ['verify', 'settle', 'upstream'] as const

/**
 * The Sandbox control plane of the svc the command talks to (faults and the chain's restart are local Sandbox
 * routes: no credential on this machine, the admin token on a server; `X-Svc-Environment: development`).
 */
function sandboxClient(call: Call<AdminTokenFlags>): SvcClient {
  return createSvcClient({
    baseUrl: sandboxControlUrl(call),
    environment: 'development',
    fetch: adminFetch(adminTokenOf(call)),
  })
}

/** The fault `svc fault add KIND` asks for; what does not fit the kind is a usage error (exit code 2). */
export function faultInput(kind: string, flags: AddFlags): FaultInput {
  if (!kinds.includes(kind as (typeof kinds)[number]))
    throw new UsageError(`the fault kind must be one of ${kinds.join(', ')}, got "${kind}"`)
  const { reason, api, drop } = flags
  if (reason !== undefined && !isExactEvmReason(reason))
    throw new UsageError(
      `--reason "${reason}" is not a reason of the exact scheme: \`svc fault reasons\` lists the ${exactEvmReasons.length} there are`,
    )
  const times = flags.times === undefined ? undefined : parseInteger(flags.times, '--times', 1, 1_000_000)
  const delayMs = flags.delayMs === undefined ? undefined : parseInteger(flags.delayMs, '--delay-ms', 1, 600_000)
  const status = flags.status === undefined ? undefined : parseInteger(flags.status, '--status', 400, 599)
  if (kind === 'verify' && (reason === undefined || delayMs !== undefined || status !== undefined || drop))
    throw new UsageError('svc fault add verify takes --reason CODE (and --times, --api)')
  if (kind === 'settle' && ((reason === undefined && delayMs === undefined) || status !== undefined || drop))
    throw new UsageError('svc fault add settle takes --reason CODE and/or --delay-ms N (and --times, --api)')
  if (
    kind === 'upstream' &&
    (reason !== undefined || [status !== undefined, delayMs !== undefined, drop === true].filter(Boolean).length !== 1)
  )
    throw new UsageError(
      'svc fault add upstream takes one of --status CODE, --delay-ms N and --drop (and --times, --api)',
    )
  return { kind: kind as FaultInput['kind'], reason, delay_ms: delayMs, status, drop: drop || undefined, api, times }
}

/** What the fault does, in a few words. */
export function faultEffect(fault: Fault): string {
  if (fault.kind === 'upstream')
    return fault.drop
      ? 'upstream drops the connection'
      : fault.status !== null
        ? `upstream answers ${fault.status}`
        : `upstream answers ${fault.delay_ms} ms later`
  const delay = fault.delay_ms !== null ? `settles ${fault.delay_ms} ms later` : ''
  if (fault.reason === null) return delay
  return `${fault.kind} answers ${fault.reason}${delay ? ` (after ${fault.delay_ms} ms)` : ''}`
}

const strikesLeft = (fault: Fault) =>
  fault.remaining === null ? 'until cleared' : `${fault.remaining} of ${fault.times}`

/** `svc fault add|list|clear|reasons` and `svc chain restart`: the Sandbox of this machine only. */
export function registerFaults(program: Command, ctx: CliContext) {
  const fault = program
    .command('fault')
    .description(
      'inject faults into the local Sandbox: the facilitator refuses or delays payments, the upstream fails (no credential needed)',
    )

  withAdminToken(
    addCommand(
      fault,
      'add',
      'inject a fault: verify|settle --reason CODE, settle --delay-ms N, upstream --status CODE|--delay-ms N|--drop',
    ),
  )
    .argument('<kind>', `where it strikes: ${kinds.join(', ')}`)
    .option('--reason <code>', 'verify, settle: the x402 reason the facilitator answers (`svc fault reasons`)')
    .option('--delay-ms <n>', 'settle: settle this much later; upstream: the upstream answers this much later')
    .option('--status <code>', 'upstream: the upstream answers this HTTP status (400-599)')
    .option('--drop', 'upstream: the upstream drops the connection')
    .option('--times <n>', 'strike the next N payments, then go (default: until cleared)')
    .option('--api <slug>', "only this Sandbox API (default: every API, and every seller of svc's facilitator URL)")
    .action(
      action<AddFlags>(ctx, async (call, kind) => {
        const input = faultInput(kind!, call.options)
        const added = await asAdmin(call, () => sandboxClient(call).faults.add(input))
        if (call.out.isJson) return call.out.json({ ...added, sandbox_url: sandboxControlUrl(call) })
        call.out.line(
          `${call.out.bold(added.id)} on ${sandboxControlUrl(call)}: ${faultEffect(added)}, ${added.api ? `API ${added.api}` : 'every API'}, ${strikesLeft(added)}`,
        )
      }),
    )

  withAdminToken(addCommand(fault, 'list', 'the faults in force')).action(
    action<AdminTokenFlags>(ctx, async (call) => {
      const { faults } = await asAdmin(call, () => sandboxClient(call).faults.list())
      if (call.out.isJson) return call.out.json({ faults })
      call.out.table(
        ['ID', 'EFFECT', 'API', 'LEFT', 'HITS'],
        faults.map((f) => [f.id, faultEffect(f), f.api ?? 'every API', strikesLeft(f), f.hits]),
        'no faults in force',
      )
    }),
  )

  withAdminToken(addCommand(fault, 'clear', 'clear one fault, or all of them'))
    .argument('[id]', 'the fault (default: every fault)')
    .action(
      action<AdminTokenFlags>(ctx, async (call, id) => {
        const cleared = await asAdmin(call, () => sandboxClient(call).faults.clear(id))
        if (call.out.isJson) return call.out.json({ cleared, sandbox_url: sandboxControlUrl(call) })
        call.out.line(`cleared ${cleared} fault${cleared === 1 ? '' : 's'} of ${sandboxControlUrl(call)}`)
      }),
    )

  addCommand(fault, 'reasons', 'the x402 reason codes a verify or settle fault may answer').action(
    action(ctx, async (call) => {
      if (call.out.isJson) return call.out.json({ reasons: exactEvmReasons })
      for (const reason of exactEvmReasons) call.out.line(reason)
    }),
  )

  const chain = program.command('chain').description('the local Sandbox chain')
  withAdminToken(
    addCommand(chain, 'restart', 'restart the chain (Anvil) and its twins on the same URLs, keeping their state'),
  ).action(
    action<AdminTokenFlags>(ctx, async (call) => {
      const restarted = await asAdmin(call, () => sandboxClient(call).chain.restart())
      if (call.out.isJson) return call.out.json({ ...restarted, sandbox_url: sandboxControlUrl(call) })
      call.out.line(
        `the chain of ${sandboxControlUrl(call)} restarted on ${restarted.rpc_url} with its state (block ${restarted.block_number}, away ${restarted.ms} ms)`,
      )
      for (const twin of restarted.twins)
        call.out.line(
          `the twin ${twin.name} restarted on ${twin.rpc_url} with its state (block ${twin.block_number}, away ${twin.ms} ms)`,
        )
    }),
  )
}
