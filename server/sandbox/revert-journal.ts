import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { promoteState, unreadableState, writeFileAtomically } from '../../chain/anvil/index.js'
import { databaseFileName } from '../data-dir/index.js'

/**
 * A revert's way forward, kept in the data dir while it runs (issue 21), so a `kill -9` at any step leaves the chain
 * and the ledger agreeing at the next start. The revert (server/sandbox/snapshots.ts) goes:
 * 1. the chain's exit dump stops counting and the chain is saved to `chain/state.json` (the way back);
 * 2. `evm_revert`; the reverted chain is saved to `chain/reverted.json`;
 * 3. this record is written (from here the revert is finished at the next start, not undone);
 * 4. the database is put back; `chain/reverted.json` becomes `chain/state.json`; the record is removed.
 * A crash before 3 leaves the chain file and the database as they were before the revert; after it, the next start
 * puts back the database from the snapshot's copy and takes the reverted chain ({@link finishInterruptedRevert}).
 */
export type RevertRecord = {
  /** The snapshot's copy of the database. */
  database: string
  /** The reverted chain, written durably. */
  chain: string
}

export const revertRecordPath = (dataDir: string) => join(dataDir, 'revert.json')

/** Step 3: from now on a start after a crash finishes the revert. */
export function writeRevertRecord(dataDir: string, record: RevertRecord): void {
  writeFileAtomically(revertRecordPath(dataDir), JSON.stringify(record))
}

/** Step 4, done: the revert needs nothing more. */
export function removeRevertRecord(dataDir: string): void {
  rmSync(revertRecordPath(dataDir), { force: true })
}

/**
 * At start, before the database opens and the chain is chosen: finishes a revert a crash cut short after step 3 (the
 * database replaced by the snapshot's copy, the reverted chain made `state.json`).
 * @returns a line for the log when there was one, undefined otherwise
 */
export function finishInterruptedRevert(dataDir: string, statePath: string): string | undefined {
  const file = revertRecordPath(dataDir)
  if (!existsSync(file)) return undefined
  const record = JSON.parse(readFileSync(file, 'utf8')) as RevertRecord
  if (!existsSync(record.database)) {
    removeRevertRecord(dataDir)
    return `a revert was cut short and its database copy is gone (${record.database}): the ledger is checked against the chain`
  }
  if (existsSync(record.chain) && unreadableState(record.chain) === undefined) promoteState(statePath, record.chain)
  const database = join(dataDir, databaseFileName)
  // The old database's write-ahead log must not be applied to the copy.
  for (const suffix of ['-wal', '-shm']) rmSync(`${database}${suffix}`, { force: true })
  writeFileAtomically(database, readFileSync(record.database))
  removeRevertRecord(dataDir)
  return 'finished the revert that svc was killed in the middle of: the chain and the ledger are back at the snapshot'
}
