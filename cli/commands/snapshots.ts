import type { Command } from 'commander'
import { createSvcClient, type SvcClient } from '../../sdk/client.js'
import { action, addCommand, type Call, type CliContext } from '../context.js'
import { controlUrlFor } from '../settings.js'
import { adminFetch, adminTokenOf, asAdmin, withAdminToken, type AdminTokenFlags } from '../admin-token.js'

/**
 * The Sandbox control plane: snapshots and time travel are for local callers on {sandbox_base_url} (the production
 * base URL of the settings is turned into the Sandbox one), and on a server (`svc serve`) for its admin: the admin
 * token is presented when given.
 */
export function sandboxControl(call: Call<AdminTokenFlags>): SvcClient {
  return createSvcClient({ baseUrl: sandboxControlUrl(call), fetch: adminFetch(adminTokenOf(call)) })
}

/** The Sandbox control plane these commands act on; named in what a command that changes the sandbox prints. */
export function sandboxControlUrl(call: Call<object>): string {
  return controlUrlFor('development', call.settings().baseUrl)
}

/** `svc snapshot`, `svc revert ID`, `svc snapshots`: whole-sandbox snapshots (chain and control-plane state together). */
export function registerSnapshots(program: Command, ctx: CliContext) {
  withAdminToken(
    addCommand(
      program,
      'snapshot',
      "snapshot the whole Sandbox (chain, accounts, APIs, settlements, svc's clock); prints its id",
    ),
  ).action(
    action<AdminTokenFlags>(ctx, async (call) => {
      const snapshot = await asAdmin(call, () => sandboxControl(call).snapshots.take())
      if (call.out.isJson) return call.out.json({ ...snapshot, sandbox_url: sandboxControlUrl(call) })
      // stdout is the id alone (`ID=$(svc snapshot)`); the sandbox it was taken of is named on stderr.
      call.out.line(snapshot.id)
      call.io.stderr.write(`snapshot ${snapshot.id} of ${sandboxControlUrl(call)} (block ${snapshot.chain_block})\n`)
    }),
  )

  withAdminToken(
    addCommand(program, 'revert', 'put the whole Sandbox back as it was at a snapshot (the snapshot stays usable)'),
  )
    .argument('<id>', 'the id `svc snapshot` printed')
    .action(
      action<AdminTokenFlags>(ctx, async (call, id) => {
        const reverted = await asAdmin(call, () => sandboxControl(call).snapshots.revert(id!))
        if (call.out.isJson) return call.out.json({ ...reverted, sandbox_url: sandboxControlUrl(call) })
        call.out.line(
          `reverted ${sandboxControlUrl(call)} to ${reverted.id} (block ${reverted.chain_block}, taken ${reverted.created_at}) in ${reverted.took_ms} ms`,
        )
        if (reverted.discarded.length > 0)
          call.out.line(call.out.dim(`discarded the snapshots taken after it: ${reverted.discarded.join(', ')}`))
      }),
    )

  withAdminToken(
    addCommand(program, 'snapshots', 'the snapshots that can be reverted to (they last as long as the chain runs)'),
  ).action(
    action<AdminTokenFlags>(ctx, async (call) => {
      const snapshots = await asAdmin(call, () => sandboxControl(call).snapshots.list())
      if (call.out.isJson) return call.out.json({ snapshots })
      call.out.table(
        ['ID', 'BLOCK', 'TAKEN'],
        snapshots.map((s) => [s.id, s.chain_block, s.created_at]),
        'no snapshots',
      )
    }),
  )
}
