import type { Hex } from 'viem'
import { keptBlocks } from '../../chain/anvil/index.js'
import type { JournalDeps } from './deps.js'

/** How many of the newest settlements one check reads at most. */
const checkLimit = 1_000

/** The epoch a settlement missing from its chain is moved to: not the running chain's, so it reads `old_chain`. */
export const missingEpoch = (epoch: string) => `missing:${epoch}`

/**
 * The other direction of recovery (issue 21.2): settlements the ledger records on the running chain that the chain
 * does not have (the chain came back older than the ledger: its last dump was lost to a full disk, or older
 * software). A chain that lost anything lost its newest blocks, so the running chain's settlements are read newest
 * first until one is on the chain; those before it are missing. They are moved out of the running chain's epoch (the
 * control plane answers them `old_chain: true`: their transaction is gone with the chain that had it) and logged.
 * When none of them is found the chain may only have forgotten old receipts (Anvil keeps those of the last
 * {@link keptBlocks} blocks): they are marked only when the chain is younger than that.
 * @returns how many were marked
 */
export async function markMissingSettlements(deps: JournalDeps): Promise<number> {
  const chain = deps.chain?.sandboxChain
  if (!chain || chain.restarting || chain.mode === 'fork') return 0
  const log = deps.log ?? ((message: string) => console.error(message))
  const rows = await deps.db
    .selectFrom('settlements')
    .select(['id', 'transaction'])
    .where('environment', '=', 'development')
    .where('network', '=', chain.network)
    .where('chain_epoch', '=', chain.epoch)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(checkLimit)
    .execute()
  const missing: string[] = []
  let found = false
  for (const row of rows) {
    const receipt = await chain.client.getTransactionReceipt({ hash: row.transaction as Hex }).catch(() => undefined)
    if (receipt) {
      found = true
      break
    }
    missing.push(row.id)
  }
  if (missing.length === 0) return 0
  if (!found && (rows.length === checkLimit || (await chain.client.getBlockNumber()) >= BigInt(keptBlocks))) return 0
  await deps.db
    .updateTable('settlements')
    .set({ chain_epoch: missingEpoch(chain.epoch) })
    .where('id', 'in', missing)
    .execute()
  log(
    `svc: ${missing.length} settlement(s) in the ledger are not on the chain (it came back older than the ledger): marked old_chain, see svc settlements`,
  )
  return missing.length
}
