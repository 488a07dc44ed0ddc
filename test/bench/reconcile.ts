/**
 * What the chain says happened, against what the buyers were told: the USDC `Transfer` logs to the pay-to address and
 * the `AuthorizationUsed` logs of the token since a block, matched by transaction to the PAYMENT-RESPONSE
 * transactions of the delivered answers; and what is left in Anvil's pool.
 */
import { createPublicClient, http, parseAbiItem, type Address, type Hex } from 'viem'

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
const authorizationUsedEvent = parseAbiItem(
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
)

export type Reconciliation = {
  /** Answers delivered with a successful PAYMENT-RESPONSE. */
  answers: number
  /** Transfers to the pay-to address of the price, on chain. */
  transfers: number
  authorizations_used: number
  /** Delivered answers whose transaction holds no such transfer and authorization: paid for nothing on chain. */
  lost: number
  /** Transfers to the pay-to address no answer names (charged, not served), and transactions two answers name. */
  double: number
}

type ChainPayments = { transfers: Hex[]; authorized: Set<Hex>; authorizationsUsed: number }

/**
 * Reads the Transfer logs to `payTo` of `amount` and the AuthorizationUsed logs of the token from `fromBlock` on, as
 * the chain grows (every `everyMs`), so none is missed once Anvil forgets old blocks' transactions
 * (chain/anvil/anvil.ts keeps the last 5,000 blocks'). `finish` reads up to the last block and stops.
 */
export function startLogCollector(
  rpcUrl: string,
  usdc: Address,
  payTo: Address,
  amount: bigint,
  fromBlock: bigint,
  everyMs = 1_000,
) {
  const client = createPublicClient({ transport: http(rpcUrl) })
  const collected: ChainPayments = { transfers: [], authorized: new Set(), authorizationsUsed: 0 }
  let next = fromBlock
  let reading: Promise<void> = Promise.resolve()
  const read = () =>
    (reading = reading
      .catch(() => {})
      .then(async () => {
        const to = await client.getBlockNumber({ cacheTime: 0 })
        if (to < next) return
        const [transfers, authorizations] = await Promise.all([
          client.getLogs({ address: usdc, event: transferEvent, args: { to: payTo }, fromBlock: next, toBlock: to }),
          client.getLogs({ address: usdc, event: authorizationUsedEvent, fromBlock: next, toBlock: to }),
        ])
        for (const log of transfers) if (log.args.value === amount) collected.transfers.push(log.transactionHash)
        for (const log of authorizations) collected.authorized.add(log.transactionHash)
        collected.authorizationsUsed += authorizations.length
        next = to + 1n
      }))
  const timer = setInterval(() => void read().catch(() => {}), everyMs)
  return {
    async finish(): Promise<ChainPayments> {
      clearInterval(timer)
      await read()
      return collected
    },
  }
}

/** Matches delivered answers (their transactions) with the chain's payments. */
export function reconcile(chain: ChainPayments, answered: Hex[]): Reconciliation {
  const onChain = new Map<string, number>()
  for (const hash of chain.transfers) if (chain.authorized.has(hash)) onChain.set(hash, (onChain.get(hash) ?? 0) + 1)
  const named = new Map<string, number>()
  for (const hash of answered) named.set(hash, (named.get(hash) ?? 0) + 1)
  let lost = 0
  let double = 0
  for (const [hash, count] of named) {
    if (!onChain.has(hash)) lost += count
    else if (count > 1) double += count - 1
  }
  for (const [hash, count] of onChain) if (!named.has(hash)) double += count
  return {
    answers: answered.length,
    transfers: chain.transfers.length,
    authorizations_used: chain.authorizationsUsed,
    lost,
    double,
  }
}

/** `txpool_status` and, when anything is left, `txpool_inspect` (cut), of an Anvil. */
export async function readPool(rpcUrl: string) {
  const call = async (method: string) => {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    })
    return ((await response.json()) as { result: any }).result
  }
  const status = (await call('txpool_status')) as { pending: Hex; queued: Hex }
  const pending = Number(status.pending)
  const queued = Number(status.queued)
  const left = pending + queued
  return {
    pending,
    queued,
    empty: left === 0,
    ...(left ? { inspect: JSON.stringify(await call('txpool_inspect')).slice(0, 600) } : {}),
  }
}

export async function getBlockNumber(rpcUrl: string): Promise<bigint> {
  return createPublicClient({ transport: http(rpcUrl) }).getBlockNumber({ cacheTime: 0 })
}

export type LedgerReconciliation = {
  transfers: number
  ledger_rows: number
  answered: number
  /** Charged without an answer: in the ledger as `delivered: false`. */
  charged_unanswered: number
  /** On chain but not in the ledger, or answered but not on chain. */
  lost: number
  /** A transaction twice in the ledger, or in the ledger but not on chain. */
  double: number
  /** Rows whose `delivered` says the opposite of what the buyer got. */
  delivered_wrong: number
}

/** The ledger (the seller's settlements) against the chain's payments and the answers buyers got. */
export function reconcileLedger(
  chain: ChainPayments,
  ledger: { transaction: string; delivered: boolean }[],
  answered: Set<string>,
): LedgerReconciliation {
  const onChain = new Set(chain.transfers.filter((hash) => chain.authorized.has(hash)))
  const rows = new Map<string, number>()
  for (const row of ledger) rows.set(row.transaction, (rows.get(row.transaction) ?? 0) + 1)
  let lost = 0
  let double = 0
  for (const hash of onChain) if (!rows.has(hash)) lost++
  for (const hash of answered) if (!onChain.has(hash as Hex)) lost++
  for (const [hash, count] of rows) double += count - 1 + (onChain.has(hash as Hex) ? 0 : 1)
  return {
    transfers: onChain.size,
    ledger_rows: ledger.length,
    answered: answered.size,
    charged_unanswered: ledger.filter((row) => !row.delivered).length,
    lost,
    double,
    delivered_wrong: ledger.filter((row) => row.delivered !== answered.has(row.transaction)).length,
  }
}
