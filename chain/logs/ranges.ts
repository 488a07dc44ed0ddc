import type { PublicClient } from 'viem'

/** Where to look for a settlement's logs on a chain. */
export type LogRange = {
  /** The first block to read. @defaultValue the first block this node mined itself (a local chain's start) */
  fromBlock?: bigint | undefined
  /**
   * The most blocks one `eth_getLogs` call spans: a real network's RPC refuses wide ranges (often beyond 2,000 or
   * 10,000 blocks), so its history is read in steps. @defaultValue unbounded: one call (a local chain)
   */
  maxBlocks?: number | undefined
}

/**
 * Reads `[fromBlock, latest]` in steps of at most `maxBlocks`, oldest first, calling `read` for each step until it
 * finds something (a settlement is near the block journaled before it was sent, so the first steps are the likely
 * ones). @returns what `read` found, or undefined
 */
export async function searchLogRanges<T>(
  client: PublicClient,
  range: LogRange & { fromBlock: bigint },
  read: (fromBlock: bigint, toBlock: bigint) => Promise<T | undefined>,
): Promise<T | undefined> {
  const latest = await client.getBlockNumber()
  const step = range.maxBlocks === undefined ? undefined : BigInt(Math.max(1, Math.floor(range.maxBlocks)))
  for (let from = range.fromBlock; from <= latest; ) {
    const to = step === undefined || from + step - 1n >= latest ? latest : from + step - 1n
    const found = await read(from, to)
    if (found !== undefined) return found
    from = to + 1n
  }
  return undefined
}

/**
 * The newest block at or before `seconds` (a unix time), by a binary search of block times (~log2(height) calls): a
 * lower bound to read a settlement's logs from when only its time is known.
 */
export async function blockAtOrBefore(client: PublicClient, seconds: bigint): Promise<bigint> {
  let low = 0n
  let high = await client.getBlockNumber()
  while (low < high) {
    const middle = (low + high + 1n) / 2n
    const block = await client.getBlock({ blockNumber: middle })
    if (block.timestamp <= seconds) low = middle
    else high = middle - 1n
  }
  return low
}
