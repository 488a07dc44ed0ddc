/**
 * A tenant's ledger against the chains it was paid on, per epoch. A team's Sandbox chain lives in its owner: when the
 * owner is killed, its Anvil goes too and the new owner starts a new chain (a new epoch). The test keeps the dead
 * owner's Anvil ({@link keepChainAfterKill}) to read that chain after the kill; the running one from its RPC.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createPublicClient, http, numberToHex, parseAbiItem, type Address } from 'viem'
import { epochMarkerAddress } from '../../chain/epoch.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { readSandboxPids } from './processes.js'

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/** What a chain holds for the tenants: its epoch and, per pay-to address, the transactions of its USDC transfers. */
export type ChainTransfers = { epoch: string; transfers: Map<string, string[]> }

/**
 * Reads the epoch and the USDC transfers to each of `payTos` of the chain at `rpcUrl` (an Anvil, or svc's public
 * Sandbox RPC at a `*.localhost` URL), from its first block.
 */
export async function readChainTransfers(rpcUrl: string, usdc: Address, payTos: Address[]): Promise<ChainTransfers> {
  const client = createPublicClient({ transport: http(rpcUrl, { fetchFn: localFetch }) })
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

/** The pid of the watchdog guarding `anvil` (chain/anvil/watchdog.ts: `sh -c … svc-anvil-watchdog <pid>`). */
function watchdogOf(anvil: number): number | undefined {
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean)
      if (args.includes('svc-anvil-watchdog') && args.at(-1) === String(anvil)) return Number(entry)
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined
}

/**
 * Keeps the Anvil of the owner whose data dir is `dataDir` running after the owner is killed: its watchdog, which
 * would stop it, is stopped first. The shared chain is not saved (a takeover starts a new one), so this is how the
 * test reads the dead owner's chain as it was at the kill: its own miner died with it, so nothing changes it after.
 * Nothing of svc's reaches it after the kill (the other processes reached it through the owner). `stop` ends it.
 */
export function keepChainAfterKill(dataDir: string): { stop(): void } {
  const { anvil } = readSandboxPids(dataDir)
  const watchdog = watchdogOf(anvil)
  if (watchdog === undefined) throw new Error(`no watchdog guards the owner's Anvil (pid ${anvil})`)
  process.kill(watchdog, 'SIGKILL')
  return {
    stop() {
      try {
        process.kill(anvil, 'SIGKILL')
      } catch {
        // Already gone.
      }
    },
  }
}

export type LedgerRow = {
  transaction: string
  pay_to: string
  chain_epoch: string | null
  old_chain: boolean
  delivered: boolean
  created_at: string
}

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
