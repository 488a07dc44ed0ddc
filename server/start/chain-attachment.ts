import { join } from 'node:path'
import type { ChainServices } from '../../chain/services.js'
import { createMemoryCatalogStore } from '../../chain/facilitator/bazaar-catalog.js'
import { toSvcError } from '../../core/errors.js'
import { createSqliteCatalogStore } from '../db/bazaar-resources.js'
import { createSqliteChannelActionStore } from '../db/channel-actions.js'
import { createEscrowActionStore } from '../db/escrow-actions.js'
import type { OpenedDatabase } from '../db/index.js'
import { findLatestChainEpoch } from '../db/sandbox-chain-epochs.js'
import type { ServerDeps } from '../deps.js'
import { resolveChannelActions, resolveChannelJournalRow } from '../channels/index.js'
import {
  escrowJournalResolver,
  facilitatorHoldVoider,
  resolveEscrowActions,
  startReclaimSweep,
  tellReclaim,
} from '../escrow/index.js'
import { markMissingSettlements, resolveSettlementJournal } from '../journal/index.js'
import { alignChainTime, createSnapshotStore, reconcileChainEpoch } from '../sandbox/index.js'

export type ChainAttachment = {
  /** Undoes the attachment: the chain's stores go back to memory, `deps.chain` is unset; waits for the refunds. */
  detach(): Promise<void>
}

/**
 * Attaches the Sandbox chain's services to a server (`deps.chain`), at start (svc up) or later (the team Sandbox's
 * process that takes the chain over: server/cluster/shared-chain.ts), and does what a server does with a chain it
 * has not seen: its facilitator's bazaar catalog, batch-settlement actions and (PostgreSQL) fault book move into the
 * database; a chain the database does not know is recorded as a new epoch (Sandbox wallets refunded; svc's clock
 * offset is the epoch's); snapshots (SQLite); payments and channel actions a dead process left half done are resolved
 * from the chain, and settlements the chain does not have are marked; and every later restart of the chain is
 * reconciled the same way. Without a chain (`--sandbox-chain none`, a standby), only the recovery runs.
 */
export async function attachChain(
  deps: ServerDeps,
  chain: ChainServices | undefined,
  context: { database: OpenedDatabase; dataDir: string },
): Promise<ChainAttachment> {
  const { database, dataDir } = context
  const log = deps.log
  const clock = deps.clock!
  deps.chain = chain
  // The facilitator's bazaar catalog moves into the database, so a restart lists what was listed before.
  await chain?.facilitator.catalog.keepIn(createSqliteCatalogStore(database.db))
  // On PostgreSQL every process shares the Sandbox's faults (LISTEN/NOTIFY tells each of a change).
  if (database.dialect.sharedByProcesses) {
    const { createPostgresFaultStore } = await import('../db/faults.js')
    await chain?.faults.keepIn(createPostgresFaultStore(database.db))
  }
  // A chain this database has not seen (a fresh one, or one that came back empty) refunds the Sandbox wallets.
  const refunds: Promise<unknown>[] = []
  const reconcile = async (reason: string) => {
    const change = await reconcileChainEpoch(deps, reason)
    if (change) refunds.push(change.refunded)
    // svc's clock offset belongs to the chain's epoch: kept on a chain reloaded from its state, 0 on a new one.
    if (!chain) return
    clock.setOffset((await findLatestChainEpoch(database.db))?.clock_offset_ms ?? 0)
    if (clock.offsetMs !== 0) await alignChainTime(chain, clock)
  }
  await reconcile('the chain started empty')
  if (chain && !database.dialect.sharedByProcesses)
    deps.snapshots = createSnapshotStore({
      db: database.db,
      chain,
      clock,
      state: deps.sandboxState!,
      dir: join(dataDir, 'snapshots'),
      dataDir,
    })
  // Escrow transactions (x402 auth-capture) the facilitator journals from now on go to the database; those a process
  // that died left pending are resolved from the chain first, so the journal below sees every step that landed.
  chain?.facilitator.escrowActions.keepIn(createEscrowActionStore(database.db))
  await resolveEscrowActions(deps)
  // Payments a process that died left half done: settled on the chain → recorded (charged without an answer); an
  // escrow hold of a sync capture whose answer was never given is voided.
  const escrowRow = escrowJournalResolver(chain && facilitatorHoldVoider(deps))
  await resolveSettlementJournal(deps, { channelRow: resolveChannelJournalRow, escrowRow })
  // Batch-settlement actions (deposits, claims, settles, refunds) the facilitator journals from now on go to the
  // database; those a process that died left pending are resolved from the chain.
  chain?.facilitator.channelActions.keepIn(createSqliteChannelActionStore(database.db))
  await resolveChannelActions(deps)
  // And the other way: settlements the ledger names that the chain does not have are marked, not left silent.
  await markMissingSettlements(deps).catch((error) =>
    log?.(`svc: the ledger could not be checked against the chain: ${toSvcError(error).message}`),
  )
  // Holds past their capture deadline that buyers reclaimed are recorded (the chain's owner reads its chain).
  const reclaims =
    chain &&
    startReclaimSweep(deps, {
      onReclaimed: (reclaim) =>
        void tellReclaim(deps, reclaim).catch((error) =>
          log?.(`svc: the reclaim of ${reclaim.payment.id} could not be told: ${toSvcError(error).message}`),
        ),
    })
  const onRestart = ({ reason }: { reason: string }) =>
    void reconcile(reason).catch((error) => log?.(`svc: recording the new chain failed: ${toSvcError(error).message}`))
  chain?.sandboxChain.on('restart', onRestart)
  return {
    async detach() {
      chain?.sandboxChain.off('restart', onRestart)
      await reclaims?.stop()
      await Promise.all(refunds)
      deps.snapshots?.close()
      deps.snapshots = undefined
      if (deps.chain === chain) deps.chain = undefined
      // The chain's facilitator may outlive this server (and answer listings): its stores go back to memory.
      await chain?.facilitator.catalog.keepIn(createMemoryCatalogStore())
      chain?.facilitator.channelActions.keepIn()
      chain?.facilitator.escrowActions.keepIn()
      if (database.dialect.sharedByProcesses) await chain?.faults.keepIn()
    },
  }
}
