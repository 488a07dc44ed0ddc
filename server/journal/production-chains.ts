import { createPublicClient, http, type PublicClient } from 'viem'
import { blockAtOrBefore, type LogRange } from '../../chain/logs/index.js'
import { SvcError, UsageError } from '../../core/errors.js'

/** The most blocks one `eth_getLogs` call of recovery spans on a real network (public RPCs refuse wider ones). */
export const defaultMaxLogBlocks = 2_000

/** Blocks taken off the newest block number seen when it is journaled: a short reorg may lower the head. */
const reorgMargin = 16n

/** How long a block number read from a network is reused for new journal rows (it stays a lower bound). */
const headMaxAgeMs = 2_000

/** How long a journal write waits for a network's first block number before it writes none (recovery then searches by time). */
const firstHeadWaitMs = 2_000

/**
 * The real networks svc reads to recover production payments (`svc serve --rpc <network>=<url>`): journal rows of a
 * production API name a block their settlement cannot be older than, and recovery asks the network's chain, in bounded
 * log ranges from that block, whether the authorization was used, as it asks the Sandbox chain.
 */
export type ProductionChains = {
  /** The networks svc has an RPC for. */
  readonly networks: readonly string[]
  /**
   * The RPC client of `network`, its chain id checked once against the network's (undefined: no `--rpc` for it);
   * throws when the RPC serves another chain or does not answer.
   */
  clientOf(network: string): Promise<PublicClient | undefined>
  /** A block a settlement sent from now on on `network` cannot be older than (decimal), or null (no RPC, no answer). */
  startBlock(network: string): Promise<string | null>
  /** Where to read a row's logs: from its journaled block, else from the block at its time (minus `marginSeconds`). */
  logRange(client: PublicClient, fromBlock: string | null, createdAt: string, marginSeconds?: number): Promise<LogRange>
}

/**
 * Parses `--rpc` entries (`eip155:8453=https://…`, also comma-separated in one entry, as SVC_RPC): one URL per network.
 * A malformed one is a {@link UsageError} naming the flag.
 */
export function parseRpcUrls(entries: readonly string[] | undefined, flag = '--rpc'): Map<string, string> {
  const urls = new Map<string, string>()
  for (const entry of (entries ?? []).flatMap((text) => text.split(','))) {
    const text = entry.trim()
    if (text === '') continue
    const match = /^(eip155:[1-9][0-9]*)=(.+)$/.exec(text)
    if (!match)
      throw new UsageError(`${flag}: "${text}" is not <network>=<url> (e.g. eip155:8453=https://mainnet.base.org)`)
    const [, network, url] = match as unknown as [string, string, string]
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new UsageError(`${flag}: "${url}" is not a URL`)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new UsageError(`${flag}: the RPC of ${network} must be an http(s) URL, not ${parsed.protocol}`)
    if (urls.has(network)) throw new UsageError(`${flag}: ${network} is given twice`)
    urls.set(network, url)
  }
  return urls
}

export function createProductionChains(
  urls: ReadonlyMap<string, string>,
  options: { maxLogBlocks?: number | undefined } = {},
): ProductionChains {
  const maxLogBlocks = options.maxLogBlocks ?? defaultMaxLogBlocks
  const clients = new Map<string, Promise<PublicClient>>()
  const heads = new Map<
    string,
    { block: bigint | undefined; at: number; waited?: boolean; reading?: Promise<void> | undefined }
  >()

  function checkedClient(network: string, url: string): Promise<PublicClient> {
    const client = createPublicClient({ transport: http(url, { retryCount: 1, timeout: 10_000 }) }) as PublicClient
    const expected = Number(network.slice('eip155:'.length))
    const checked = client.getChainId().then((chainId) => {
      if (chainId !== expected)
        throw new SvcError(`the RPC given for ${network} (--rpc) serves chain ${chainId}, not ${expected}`)
      return client
    })
    // Asked again next time: the RPC may answer later, or the operator fixes the flag and restarts.
    checked.catch(() => clients.delete(network))
    return checked
  }

  async function clientOf(network: string): Promise<PublicClient | undefined> {
    const url = urls.get(network)
    if (url === undefined) return undefined
    let client = clients.get(network)
    if (!client) clients.set(network, (client = checkedClient(network, url)))
    return client
  }

  function readHead(network: string): Promise<void> {
    const head = heads.get(network) ?? { block: undefined, at: 0 }
    heads.set(network, head)
    head.reading ??= clientOf(network)
      .then((client) => client?.getBlockNumber())
      .then(
        (block) => {
          if (block !== undefined && (head.block === undefined || block > head.block)) head.block = block
          head.at = Date.now()
        },
        () => {},
      )
      .finally(() => (head.reading = undefined))
    return head.reading
  }

  return {
    networks: [...urls.keys()],
    clientOf,
    async startBlock(network) {
      if (!urls.has(network)) return null
      const head = heads.get(network)
      if (head?.waited !== true) {
        // The first payment on the network waits (briefly) for its head; the next ones reuse it, and never wait on an
        // RPC that does not answer (their rows are then searched from the block at their time).
        let timer: NodeJS.Timeout | undefined
        const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, firstHeadWaitMs)))
        await Promise.race([readHead(network), waited])
        clearTimeout(timer)
        heads.get(network)!.waited = true
      } else if (Date.now() - head.at > headMaxAgeMs) void readHead(network)
      const block = heads.get(network)?.block
      if (block === undefined) return null
      return (block > reorgMargin ? block - reorgMargin : 0n).toString()
    },
    async logRange(client, fromBlock, createdAt, marginSeconds = 600) {
      if (fromBlock !== null && /^[0-9]+$/.test(fromBlock))
        return { fromBlock: BigInt(fromBlock), maxBlocks: maxLogBlocks }
      // A row journaled without a block (no RPC then): from the block at its time, less a margin for clock skew.
      const seconds = BigInt(Math.floor(Date.parse(createdAt) / 1000) - marginSeconds)
      return { fromBlock: await blockAtOrBefore(client, seconds > 0n ? seconds : 0n), maxBlocks: maxLogBlocks }
    },
  }
}
