import { parseAbi, type Address, type Hex, type PublicClient } from 'viem'
import { searchLogRanges, type LogRange } from './ranges.js'

/** The parts of EIP-3009 (FiatToken v2) that say whether an authorization was used, and by which transaction. */
const eip3009Abi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
])

/** Whether an EIP-3009 authorization was used on the chain, and the transaction that used it when it was. */
export type AuthorizationUse =
  | { used: false }
  | { used: true; transaction: Hex | undefined; blockNumber: bigint | undefined }

/**
 * Asks the token whether `authorizer`'s authorization `nonce` was used (`authorizationState`) and, if so, finds the
 * transaction from its `AuthorizationUsed` log. Works for the sandbox USDC and for a forked FiatToken alike. A used
 * authorization whose log cannot be found (a node that pruned it, or used before `range.fromBlock`) has no transaction.
 * `range` bounds the log search on a real network (server/journal/production-chains.ts).
 */
export async function findAuthorizationUse(
  client: PublicClient,
  authorization: { asset: Address; authorizer: Address; nonce: Hex },
  range: LogRange = {},
): Promise<AuthorizationUse> {
  const { asset, authorizer, nonce } = authorization
  const used = await client.readContract({
    address: asset,
    abi: eip3009Abi,
    functionName: 'authorizationState',
    args: [authorizer, nonce],
  })
  if (!used) return { used: false }
  const fromBlock = range.fromBlock ?? (await firstLocalBlock(client))
  const log = await searchLogRanges(client, { ...range, fromBlock }, async (from, to) => {
    const logs = await client.getLogs({
      address: asset,
      event: eip3009Abi[1],
      args: { authorizer, nonce },
      fromBlock: from,
      toBlock: to,
    })
    return logs[0]
  })
  return { used: true, transaction: log?.transactionHash ?? undefined, blockNumber: log?.blockNumber ?? undefined }
}

/**
 * The first block this node mined itself: 0 on an offline chain, the block after the fork point on a fork (the logs of
 * a sandbox payment are never older, and the forked network's whole history is not searched).
 */
export async function firstLocalBlock(client: PublicClient): Promise<bigint> {
  const info = await client
    .request<{
      Method: 'anvil_nodeInfo'
      Parameters: []
      ReturnType: { forkConfig?: { forkBlockNumber?: number | string | null } }
    }>({
      method: 'anvil_nodeInfo',
      params: [],
    })
    .catch(() => undefined)
  const forkBlock = info?.forkConfig?.forkBlockNumber
  return forkBlock === null || forkBlock === undefined ? 0n : BigInt(forkBlock) + 1n
}
