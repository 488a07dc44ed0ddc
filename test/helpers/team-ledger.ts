/**
 * A tenant's ledger against the chains it was paid on, per epoch. A team's Sandbox chain lives in its owner: when the
 * owner is killed its watchdog stops Anvil, which dumps the chain to the owner's data dir on exit
 * (chain/anvil/state-file.ts), and the new owner starts a new chain (a new epoch). The dead chain is read back from
 * that dump in an Anvil of the test's own; the running one from its RPC.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createPublicClient, http, numberToHex, parseAbiItem, type Address } from 'viem'
import { startAnvil } from '../../chain/anvil/anvil.js'
import { epochMarkerAddress } from '../../chain/epoch.js'
import { readSandboxPids } from './processes.js'

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/** What a chain holds for the tenants: its epoch and, per pay-to address, the transactions of its USDC transfers. */
export type ChainTransfers = { epoch: string; transfers: Map<string, string[]> }

/** Reads the epoch and the USDC transfers to each of `payTos` of the chain at `rpcUrl`, from its first block. */
export async function readChainTransfers(rpcUrl: string, usdc: Address, payTos: Address[]): Promise<ChainTransfers> {
  const client = createPublicClient({ transport: http(rpcUrl) })
  const slot = await client.getStorageAt({ address: epochMarkerAddress, slot: numberToHex(0, { size: 32 }) })
  const transfers = new Map<string, string[]>()
  for (const payTo of payTos) {
    const logs = await client.getLogs({ address: usdc, event: transferEvent, args: { to: payTo }, fromBlock: 0n })
    transfers.set(
      payTo.toLowerCase(),
      logs.map((log) => log.transactionHash),
    )
  }
  return { epoch: (slot ?? '0x').slice(-16), transfers }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * The chain a killed owner held, from the dump its Anvil wrote on exit into `dataDir`: waits until that Anvil is gone
 * (its watchdog stops it at once, or within 1.5 s), loads the newest dump into an Anvil of the test's, and reads it.
 */
export async function readDeadChain(dataDir: string, usdc: Address, payTos: Address[]): Promise<ChainTransfers> {
  const { anvil } = readSandboxPids(dataDir)
  const deadline = Date.now() + 15_000
  while (alive(anvil)) {
    if (Date.now() > deadline) throw new Error(`the dead owner's Anvil (pid ${anvil}) is still running`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const chainDir = join(dataDir, 'chain')
  const dumps = existsSync(chainDir) ? readdirSync(chainDir).filter((name) => /^exit-[0-9a-f]+\.json$/.test(name)) : []
  const newest = dumps.map((name) => join(chainDir, name)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]
  if (!newest) throw new Error(`the dead owner's Anvil left no exit dump in ${chainDir}`)
  JSON.parse(readFileSync(newest, 'utf8')) // a whole dump, not one cut short
  const chain = await startAnvil({ extraArgs: { loadState: newest }, mining: 'auto', poolGuard: false })
  try {
    return await readChainTransfers(chain.rpcUrl, usdc, payTos)
  } finally {
    await chain.stop()
  }
}

export type LedgerRow = { transaction: string; pay_to: string; chain_epoch: string | null; delivered: boolean }

/** One tenant's ledger against one chain: what is on each side only, and transactions recorded more than once. */
export type EpochMatch = {
  epoch: string
  ledger: number
  onChain: number
  /** On chain to the tenant's pay-to, not in its ledger (of this epoch). */
  missing: string[]
  /** In its ledger (of this epoch), not on that chain. */
  extra: string[]
  duplicates: string[]
}

/** Matches `ledger` (one tenant's settlements) with each chain, by epoch; rows of an epoch no chain has are `extra`. */
export function matchLedger(ledger: LedgerRow[], payTo: string, chains: ChainTransfers[]): EpochMatch[] {
  const epochs = new Set([...chains.map((chain) => chain.epoch), ...ledger.map((row) => row.chain_epoch ?? 'none')])
  return [...epochs].map((epoch) => {
    const rows = ledger.filter((row) => (row.chain_epoch ?? 'none') === epoch).map((row) => row.transaction)
    const onChain = chains.find((chain) => chain.epoch === epoch)?.transfers.get(payTo.toLowerCase()) ?? []
    const recorded = new Set(rows)
    const chained = new Set(onChain)
    return {
      epoch,
      ledger: rows.length,
      onChain: onChain.length,
      missing: onChain.filter((hash) => !recorded.has(hash)),
      extra: rows.filter((hash) => !chained.has(hash)),
      duplicates: rows.filter((hash, index) => rows.indexOf(hash) !== index),
    }
  })
}
