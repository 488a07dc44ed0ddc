import type { Address } from 'viem'
import { toSvcError } from '../../core/errors.js'
import { findLatestChainEpoch, insertChainEpoch, listSandboxWalletAddresses } from '../db/index.js'
import type { SandboxDeps } from './deps.js'
import { nowIso } from '../ids.js'

export type ChainEpochChange = {
  /** The epoch the data dir knew before, if any. */
  previous: string | undefined
  epoch: string
  /** The Sandbox wallets being refunded on the new chain. */
  refunding: number
  /** Resolves when every refund was tried (failures are logged, never thrown). */
  refunded: Promise<void>
}

/**
 * Compares the running chain's epoch with the newest one the data dir knows. A chain that is new to it (a fresh chain,
 * a reset, a restart that came back empty) is recorded, and every Sandbox wallet is funded again on it in the
 * background: its balances lived on the old chain. Settlements of older epochs stay in the ledger, marked as
 * settled on an earlier chain. Undefined when the chain is the known one (or there is no chain).
 */
export async function reconcileChainEpoch(deps: SandboxDeps, reason: string): Promise<ChainEpochChange | undefined> {
  const chain = deps.chain
  if (!chain) return undefined
  const epoch = chain.sandboxChain.epoch
  const latest = await findLatestChainEpoch(deps.db)
  if (latest?.epoch === epoch) return undefined
  await insertChainEpoch(deps.db, epoch, latest ? reason : 'new data dir', nowIso())
  const addresses = latest ? await listSandboxWalletAddresses(deps.db) : []
  const log = deps.log ?? ((message: string) => console.error(message))
  const refunded = (async () => {
    for (const address of addresses) {
      // The chain moved on again meanwhile: the next reconciliation refunds on that one.
      if (chain.sandboxChain.epoch !== epoch) return
      await chain.manager
        .fund(address as Address)
        .catch((error) => log(`svc: refunding the Sandbox wallet ${address} failed: ${toSvcError(error).message}`))
    }
  })()
  return { previous: latest?.epoch, epoch, refunding: addresses.length, refunded }
}
