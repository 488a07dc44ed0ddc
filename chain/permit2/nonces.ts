import { decodeFunctionData, parseAbi, type Address, type Hex, type PublicClient } from 'viem'
import { firstLocalBlock, type LogRange, searchLogRanges } from '../logs/index.js'
import { permit2Abi, x402ExactPermit2ProxyAbi, x402UptoPermit2ProxyAbi } from '../contracts/index.js'
import { permit2Addresses } from './contracts.js'

const transferEvent = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)'])[0]

/** The proxies a Permit2 payment of x402 is settled through, with the ABI of their `settle` / `settleWithPermit`. */
const proxies = new Map<string, typeof x402ExactPermit2ProxyAbi | typeof x402UptoPermit2ProxyAbi>([
  [permit2Addresses.exactProxy.toLowerCase(), x402ExactPermit2ProxyAbi],
  [permit2Addresses.uptoProxy.toLowerCase(), x402UptoPermit2ProxyAbi],
])

/** Whether a Permit2 nonce was spent on the chain, and the settlement that spent it (its transaction, the amount moved). */
export type Permit2NonceUse = { used: false } | { used: true; transaction: Hex | undefined; amount: bigint | undefined }

export type Permit2Payment = {
  /** The token the permit moves. */
  asset: Address
  /** The payer who signed the permit. */
  owner: Address
  /** Where the payment goes (the witness's `to`). */
  payTo: Address
  /** The permit's nonce (decimal or 0x). */
  nonce: string
  /** The most the permit lets move (exact: the price; upto: the maximum signed). */
  maxAmount: bigint
}

/**
 * Asks Permit2 whether `owner`'s nonce is spent (`nonceBitmap(owner, nonce >> 8)`, bit `nonce & 255`) and, if so,
 * finds the settlement that spent it. Permit2 and x402's proxies log nothing that names the nonce, so the token's
 * `Transfer` logs from the payer to `payTo` (no more than `maxAmount`) are the candidates (read in `range`'s steps, oldest
 * step first, newest first within one), and the one
 * whose transaction called an x402 Permit2 proxy's `settle` or `settleWithPermit` with this owner and nonce is it; its
 * `Transfer` says the amount actually moved (upto's charge). A spent nonce whose transaction cannot be found (a pruned
 * log, a nonce spent some other way) has none.
 */
export async function findPermit2NonceUse(
  client: PublicClient,
  payment: Permit2Payment,
  range: LogRange = {},
): Promise<Permit2NonceUse> {
  const { asset, owner, payTo, maxAmount } = payment
  const nonce = BigInt(payment.nonce)
  if (!(await isPermit2NonceSpent(client, owner, nonce))) return { used: false }
  const seen = new Set<Hex>()
  const fromBlock = range.fromBlock ?? (await firstLocalBlock(client))
  const found = await searchLogRanges(client, { ...range, fromBlock }, async (from, to) => {
    const logs = await client.getLogs({
      address: asset,
      event: transferEvent,
      args: { from: owner, to: payTo },
      fromBlock: from,
      toBlock: to,
    })
    for (const log of logs.reverse()) {
      const value = log.args.value
      if (value === undefined || value > maxAmount || !log.transactionHash || seen.has(log.transactionHash)) continue
      seen.add(log.transactionHash)
      const transaction = await client.getTransaction({ hash: log.transactionHash })
      if (spendsNonce(transaction.to, transaction.input, owner, nonce))
        return { used: true, transaction: log.transactionHash, amount: value } as const
    }
    return undefined
  })
  return found ?? { used: true, transaction: undefined, amount: undefined }
}

/** Whether Permit2 has `owner`'s unordered nonce spent: bit `nonce & 255` of `nonceBitmap(owner, nonce >> 8)`. */
export async function isPermit2NonceSpent(client: PublicClient, owner: Address, nonce: bigint): Promise<boolean> {
  const bitmap = await client.readContract({
    address: permit2Addresses.permit2,
    abi: permit2Abi,
    functionName: 'nonceBitmap',
    args: [owner, nonce >> 8n],
  })
  return (bitmap & (1n << (nonce & 0xffn))) !== 0n
}

/** Whether a transaction's call is an x402 Permit2 proxy's settlement of `owner`'s permit with `nonce`. */
function spendsNonce(to: Address | null, input: Hex, owner: Address, nonce: bigint): boolean {
  const abi = to ? proxies.get(to.toLowerCase()) : undefined
  if (!abi) return false
  try {
    const call = decodeFunctionData({ abi, data: input })
    if (call.functionName !== 'settle' && call.functionName !== 'settleWithPermit') return false
    // settle(permit, [amount,] owner, witness, signature); settleWithPermit(permit2612, permit, [amount,] owner, …).
    const args = (call.functionName === 'settle' ? call.args : call.args.slice(1)) as readonly unknown[]
    const permit = args[0] as { nonce: bigint }
    const payer = args[abi === x402UptoPermit2ProxyAbi ? 2 : 1] as Address
    return permit.nonce === nonce && payer.toLowerCase() === owner.toLowerCase()
  } catch {
    return false
  }
}
