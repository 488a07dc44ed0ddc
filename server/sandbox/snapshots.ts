import { mkdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Kysely } from 'kysely'
import type { Hex } from 'viem'
import type { ChainServices } from '../../chain/services.js'
import type { Clock } from '../../core/clock.js'
import { ChainError, ConflictError, NotFoundError, ServiceUnavailableError } from '../../core/errors.js'
import { type Database, restoreDatabaseSnapshot, writeDatabaseSnapshot } from '../db/index.js'
import { newId } from '../ids.js'
import type { SandboxState } from './payment-gate.js'
import { alignChainTime } from './chain-time.js'
import { requireSandboxChain } from './require-chain.js'
import { pausePoint } from '../../core/pause-point.js'
import { promoteState } from '../../chain/anvil/index.js'
import type { SavedState } from '../../chain/sandbox-chain.js'
import { removeRevertRecord, writeRevertRecord } from './revert-journal.js'

/** A snapshot as the control plane shows it. */
export type SnapshotInfo = {
  id: string
  /** svc's time when it was taken (ISO 8601). */
  created_at: string
  /** The chain's latest block when it was taken. */
  chain_block: number
}

export type RevertInfo = SnapshotInfo & {
  /** How long the revert took, in milliseconds. */
  took_ms: number
  /** Snapshots taken after this one: the revert discarded them (Anvil forgets them too). */
  discarded: string[]
}

export type SnapshotStore = {
  /** Takes a snapshot of the chain and the database together (payments in flight are waited for). */
  take(): Promise<SnapshotInfo>
  /** Puts the chain, the database and svc's clock back as they were at `id`; the snapshot stays usable. */
  revert(id: string): Promise<RevertInfo>
  /** The snapshots that can be reverted to, oldest first. */
  list(): SnapshotInfo[]
  /** Deletes the snapshots' files (server stop). */
  close(): void
}

export type CreateSnapshotStoreOptions = {
  db: Kysely<Database>
  chain: ChainServices
  clock: Clock
  state: SandboxState
  /** Where the database copies go; emptied now and on close. */
  dir: string
  /** The data dir, where a revert keeps its way forward (server/sandbox/revert-journal.ts) when the chain is saved. */
  dataDir?: string | undefined
  /** How long a revert or a snapshot waits for payments in flight. @defaultValue 10_000 */
  waitMs?: number | undefined
}

/** `twinIds`: the `evm_snapshot` of each twin (chain/twin.ts), in the order of `chain.twins`. */
type Entry = SnapshotInfo & { anvilId: Hex; twinIds: Hex[]; file: string; offsetMs: number }

/**
 * Whole-sandbox snapshots: Anvil's `evm_snapshot` with a copy of the database (`VACUUM INTO`, server/db/
 * sqlite/snapshot.ts) and svc's clock offset, taken and reverted to together so the ledger always matches the chain.
 * - Anvil consumes a snapshot when it reverts to it: the revert takes it again at once, so the same id can be
 *   reverted to any number of times. Anvil also forgets the snapshots taken after it; so does svc.
 * - A revert waits for paid requests under way (at most `waitMs`, then 409) and holds new ones back until it is done;
 *   the in-memory state that the revert made untrue is reset: the relayer's and the minter's nonces, the
 *   facilitator's remembered settlements and simulations, the gateway's payment claims, the auth throttles.
 * - Snapshots live as long as the chain process: a chain restart (and svc's stop) discards them.
 * - Twins (`svc up --twin`) are snapshotted and reverted with the Sandbox chain: every chain svc runs moves together.
 */
export function createSnapshotStore(options: CreateSnapshotStoreOptions): SnapshotStore {
  const { db, chain, clock, state, dir, dataDir, waitMs = 10_000 } = options
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const entries = new Map<string, Entry>()
  /** Why an id cannot be reverted to any more. */
  const gone = new Map<string, string>()
  const { testClient, client } = chain.sandboxChain

  function discard(entry: Entry, why: string) {
    entries.delete(entry.id)
    gone.set(entry.id, why)
    rmSync(entry.file, { force: true })
  }
  const twinChains = chain.twins.map((twin) => twin.chain)
  for (const restarting of [chain.sandboxChain, ...twinChains])
    restarting.on('restart', () => {
      for (const entry of [...entries.values()])
        discard(entry, `snapshot ${entry.id} was lost when the chain restarted`)
    })
  /** `evm_revert` on one chain: false when it does not have the snapshot. */
  const evmRevert = (on: { testClient: typeof testClient }, anvilId: Hex) =>
    (on.testClient.request as (args: { method: string; params: unknown[] }) => Promise<unknown>)({
      method: 'evm_revert',
      params: [anvilId],
    }).then(
      (answer) => answer === true,
      () => false,
    )

  const usableChain = () => requireSandboxChain({ chain })

  /** Runs `change` with paid requests held back and buffered counters written. */
  async function quiet<T>(change: () => Promise<T>): Promise<T> {
    const resume = await state.pausePayments({ waitMs })
    try {
      await state.flush()
      return await change()
    } finally {
      resume()
    }
  }

  const info = ({ id, created_at, chain_block }: Entry): SnapshotInfo => ({ id, created_at, chain_block })

  return {
    take: () =>
      state.exclusive(() =>
        quiet(async () => {
          usableChain()
          const id = newId('snap')
          const file = join(dir, `${id}.sqlite`)
          const [anvilId, block, twinIds] = await Promise.all([
            testClient.snapshot(),
            client.getBlockNumber(),
            Promise.all(twinChains.map((twin) => twin.testClient.snapshot())),
          ]).catch((error: unknown) => {
            throw new ChainError('the chain did not take a snapshot', { cause: error })
          })
          await writeDatabaseSnapshot(db, file)
          const entry: Entry = {
            id,
            created_at: clock.nowIso(),
            chain_block: Number(block),
            anvilId,
            twinIds,
            file,
            offsetMs: clock.offsetMs,
          }
          entries.set(id, entry)
          return info(entry)
        }),
      ),

    revert: (id) =>
      state.exclusive(() =>
        quiet(async () => {
          const started = performance.now()
          const entry = entries.get(id)
          if (!entry) throw gone.has(id) ? new ConflictError(gone.get(id)!) : new NotFoundError('snapshot not found')
          usableChain()
          const saved = chain.sandboxChain.savedState
          const crashSafe = saved && dataDir !== undefined
          // The way back, should svc die before the revert is recorded (server/sandbox/revert-journal.ts): the chain as
          // it is now, in state.json, then no exit dump of Anvil's (it would be the reverted chain) taken for it.
          if (crashSafe)
            await saved.save().catch((error: unknown) => {
              throw new ServiceUnavailableError(
                `the chain could not be saved before the revert: ${(error as Error).message}`,
                { cause: error },
              )
            })
          const release = crashSafe ? saved.hold() : () => {}
          try {
            return await revertTo(entry, started, crashSafe ? { saved, dataDir } : undefined)
          } finally {
            release()
          }
        }),
      ),

    list: () => [...entries.values()].map(info),

    close() {
      entries.clear()
      rmSync(dir, { recursive: true, force: true })
    },
  }

  async function revertTo(
    entry: Entry,
    started: number,
    journal: { saved: SavedState; dataDir: string } | undefined,
  ): Promise<RevertInfo> {
    const { id } = entry
    // Anvil answers false (or an error) for a snapshot it does not have.
    const reverted = await evmRevert({ testClient }, entry.anvilId)
    // The twins go back with it (a twin that lost the snapshot restarted, which discarded the snapshot already).
    await Promise.all(twinChains.map((twin, index) => evmRevert(twin, entry.twinIds[index]!)))
    if (!reverted) {
      discard(entry, `the chain no longer has snapshot ${id}`)
      throw new ConflictError(`the chain no longer has snapshot ${id}`)
    }
    await pausePoint('revert')
    const target = journal ? join(dirname(journal.saved.path), 'reverted.json') : undefined
    if (journal && target) {
      await journal.saved.save(target)
      writeRevertRecord(journal.dataDir, { database: entry.file, chain: target })
    }
    await pausePoint('revert-recorded')
    // Anvil forgot the snapshots taken after this one.
    const discarded = [...entries.values()].filter((other) => BigInt(other.anvilId) > BigInt(entry.anvilId))
    for (const other of discarded)
      discard(other, `snapshot ${other.id} was discarded by the revert to the earlier snapshot ${id}`)
    await restoreDatabaseSnapshot(db, entry.file)
    if (journal && target) {
      promoteState(journal.saved.path, target)
      removeRevertRecord(journal.dataDir)
    }
    clock.setOffset(entry.offsetMs)
    chain.sandboxChain.minter.reset()
    for (const twin of twinChains) twin.minter.reset()
    chain.facilitator.reset()
    state.reset()
    // The chain is back at the snapshot's block time: a block at svc's time puts them together again.
    await alignChainTime(chain, clock)
    ;[entry.anvilId, entry.twinIds] = await Promise.all([
      testClient.snapshot(),
      Promise.all(twinChains.map((twin) => twin.testClient.snapshot())),
    ])
    return {
      ...info(entry),
      took_ms: Math.round((performance.now() - started) * 10) / 10,
      discarded: discarded.map((other) => other.id),
    }
  }
}
