import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { createPublicClient, http } from 'viem'
import { listBazaarCatalog } from '../../sdk/bazaar-catalog.js'
import { createSvcClient, type SvcClient } from '../../sdk/client.js'
import { describeError } from '../errors.js'
import type { Channel, EscrowPayment, Fault } from '../../sdk/types.js'
import type {
  ApiWithEndpoints,
  BazaarCatalogView,
  ChainInfo,
  DashboardOptions,
  FaucetState,
  Loadable,
  OutboxMessage,
  PayToBalances,
  RefusalsView,
  SettlementFeed,
  WalletData,
} from '../model.js'
import { createSettlementFeed } from '../settlement-feed.js'
import { useFaucet } from './use-faucet.js'
import { usePoll } from './use-poll.js'
import { useRefusals } from './use-refusals.js'

export type DashboardData = {
  /** A session was given: the wallet, APIs and settlements panels have data to show. */
  loggedIn: boolean
  chain: Loadable<ChainInfo>
  wallet: Loadable<WalletData>
  /** The USDC balances of the addresses the seller's APIs pay to; loaded once the APIs are. */
  payTo: Loadable<PayToBalances>
  apis: Loadable<ApiWithEndpoints[]>
  settlements: Loadable<SettlementFeed>
  outbox: Loadable<OutboxMessage[]>
  /** The faults injected into the Sandbox (`svc fault add`); a failed load shows nothing (a sandbox without a chain). */
  faults: Loadable<Fault[]>
  /** The facilitator's bazaar catalog (`svc discovery catalog`); a failed load shows nothing. */
  bazaar: Loadable<BazaarCatalogView>
  /** The seller's payment channels (batch-settlement); a failed load shows nothing. */
  channels: Loadable<Channel[]>
  /** The seller's escrow payments (x402 auth-capture), the newest {@link escrowShown}; a failed load shows nothing. */
  payments: Loadable<EscrowPayment[]>
  /** Payments refused while the dashboard runs, from the live event stream (not polled). */
  refusals: RefusalsView
  faucet: FaucetState
  /** Funds the Sandbox wallet from the faucet. */
  fund(): void
  /** Polls everything now; resolves when every poll has loaded again. */
  refresh(): Promise<void>
}

/** How many of the catalog's newest listings the dashboard's line names. */
const bazaarShown = 5

/** How many of the seller's newest escrow payments the dashboard sums (GET /payments allows up to 1000). */
export const escrowShown = 200

async function loadWallet(client: SvcClient): Promise<WalletData> {
  // Only the address and the redacted key are kept: the private key is dropped here, before any state holds it.
  const { address, private_key_redacted } = await client.sandbox.wallet()
  const { eth_wei, usdc_base } = await client.sandbox.balances(address)
  return { wallet: { address, private_key_redacted }, balances: { eth_wei, usdc_base } }
}

async function loadApis(client: SvcClient): Promise<ApiWithEndpoints[]> {
  const apis = await client.apis.list()
  return Promise.all(
    apis.map(async ({ id, name, slug, gateway_url, upstream_base_url, pay_to_address }) => ({
      api: { id, name, slug, gateway_url, upstream_base_url, pay_to_address },
      endpoints: await client.endpoints.list(id),
    })),
  )
}

/** The addresses the APIs pay to, each once (case aside), in the APIs' order. */
export function payToAddresses(apis: ApiWithEndpoints[]): string[] {
  const seen = new Map<string, string>()
  for (const { api } of apis)
    if (api.pay_to_address && !seen.has(api.pay_to_address.toLowerCase()))
      seen.set(api.pay_to_address.toLowerCase(), api.pay_to_address)
  return [...seen.values()]
}

async function loadPayTo(client: SvcClient, addresses: string[]): Promise<PayToBalances> {
  return Promise.all(
    addresses.map(async (address) => ({ address, usdc_base: (await client.sandbox.balances(address)).usdc_base })),
  )
}

/** The session's JWT: `session`, else what `getSession` answers, asked again every `periodMs` (a later `svc login` shows up). */
function useJwt(
  { session, getSession }: Pick<DashboardOptions, 'session' | 'getSession'>,
  periodMs: number,
): string | undefined {
  const [jwt, setJwt] = useState(session?.jwt ?? getSession?.()?.jwt)
  const current = useRef(jwt)
  useEffect(() => {
    if (!getSession) return
    const timer = setInterval(() => {
      const next = getSession()?.jwt ?? session?.jwt
      // Only a change renders: the same session asked again every second must not redraw the dashboard.
      if (next !== current.current) setJwt((current.current = next))
    }, periodMs)
    return () => clearInterval(timer)
  }, [getSession, session, periodMs])
  return jwt
}

/**
 * Every panel's live data, polled against the running sandbox (the chain every `refreshMs`, the rest as said below);
 * errors become one line each.
 * The seller's data belongs to the session: a login change clears it (and the faucet's line) and loads it again.
 */
export function useDashboardData({
  urls,
  session,
  getSession,
  refreshMs = 1000,
  remote = false,
}: DashboardOptions): DashboardData {
  const jwt = useJwt({ session, getSession }, refreshMs)
  const { sandbox_control_url: baseUrl, rpc_url: rpcUrl } = urls
  const catalogUrl = urls.bazaar_url || urls.facilitator_url
  const seller = useMemo(
    () => (jwt ? createSvcClient({ baseUrl, jwt, environment: 'development' }) : undefined),
    [baseUrl, jwt],
  )
  const anyone = useMemo(() => createSvcClient({ baseUrl }), [baseUrl])
  // A remote svc (`svc dashboard --url`) is watched as the seller: its clocks and its own APIs' faults through the
  // seller's session; the whole Sandbox's (every fault, the outbox) is the admin's there, and not read.
  const sandboxReader = remote ? seller : anyone
  const rpc = useMemo(
    () => createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: 5_000 }) }),
    [rpcUrl],
  )
  // The session's revenue counts from when the dashboard opened (not from svc's start: `svc dashboard` may open later).
  const [openedAt] = useState(() => new Date().toISOString())
  const settlementFeed = useMemo(() => seller && createSettlementFeed(seller, { since: openedAt }), [seller, openedAt])

  const describe = useCallback((error: unknown) => describeError(error, { rpcUrl }), [rpcUrl])
  const loadChain = useCallback(async (): Promise<ChainInfo> => {
    // A remote svc's chain RPC is its own (often loopback there): the block comes with svc's clocks instead.
    if (remote) {
      const time = await (seller ?? anyone).time.get()
      return { blockNumber: BigInt(time.chain_block), clockOffsetSeconds: time.offset_seconds }
    }
    // svc's clock offset (time travel) comes with the block: an svc without the route leaves it unknown.
    const [blockNumber, clockOffsetSeconds] = await Promise.all([
      rpc.getBlockNumber({ cacheTime: 0 }),
      anyone.time.get().then(
        (time) => time.offset_seconds,
        () => undefined,
      ),
    ])
    return { blockNumber, clockOffsetSeconds }
  }, [rpc, anyone, remote, seller])

  const live = { periodMs: refreshMs, describe }
  // The chain's block number is the one thing asked every period: balances and settlements only change with a
  // transaction, which makes a block (Anvil mines each one), so they load when it moves and stay live a few periods
  // (a settlement is recorded just after its block); else they are asked again only now and then.
  const chain = usePoll(loadChain, live)
  const onChain = { ...live, owner: seller, wake: chain.data?.blockNumber, idlePeriodMs: 15 * refreshMs }
  const wallet = usePoll(seller && (() => loadWallet(seller)), onChain)
  const settlements = usePoll(settlementFeed, onChain)
  // The catalog grows with payments, which make blocks: asked when the chain moves, like the settlements.
  const loadBazaar = useCallback(async (): Promise<BazaarCatalogView> => {
    const { items, pagination } = await listBazaarCatalog(catalogUrl, { limit: bazaarShown })
    return { newest: items, total: pagination.total }
  }, [catalogUrl])
  const bazaar = usePoll(loadBazaar, { ...onChain, owner: undefined })
  // Channels move with vouchers (no block) as well as with deposits, claims and settles: asked every period.
  const channels = usePoll(seller && (() => seller.channels.list({ limit: 1000 })), { ...live, owner: seller })
  // Escrow payments move by transactions (authorize, capture, void, refund, the buyer's reclaim), each a block: asked
  // when the chain moves, like the settlements (a reclaim is recorded by svc's sweep within a second of its block).
  const payments = usePoll(seller && (() => seller.payments.list({ limit: escrowShown })), onChain)
  // APIs, endpoints and mails change through the control plane: every period while they change, else every third.
  const controlPlane = { ...live, idlePeriodMs: 3 * refreshMs }
  const apis = usePoll(seller && (() => loadApis(seller)), { ...controlPlane, owner: seller })
  // The pay-to balances move with settlements (blocks), and are asked at once for an API that pays elsewhere.
  const payToList = apis.data && payToAddresses(apis.data)
  const payTo = usePoll(seller && payToList && (() => loadPayTo(seller, payToList)), {
    ...onChain,
    wake: `${chain.data?.blockNumber}:${payToList?.join()}`,
  })
  const outbox = usePoll(remote ? undefined : async () => (await anyone.auth.outbox()).messages, controlPlane)
  const faults = usePoll(sandboxReader && (async () => (await sandboxReader.faults.list()).faults), {
    ...controlPlane,
    owner: sandboxReader,
  })

  const refusals = useRefusals(seller)
  const { faucet, fund } = useFaucet(seller, wallet.data?.wallet.address, wallet.refresh)
  // Each poll's refresh is stable, so this is too.
  const refresh = useCallback(async () => {
    await Promise.all(
      [
        chain.refresh,
        wallet.refresh,
        payTo.refresh,
        apis.refresh,
        settlements.refresh,
        outbox.refresh,
        faults.refresh,
        bazaar.refresh,
        channels.refresh,
        payments.refresh,
      ].map((one) => one()),
    )
  }, [
    chain.refresh,
    wallet.refresh,
    payTo.refresh,
    apis.refresh,
    settlements.refresh,
    outbox.refresh,
    faults.refresh,
    bazaar.refresh,
    channels.refresh,
    payments.refresh,
  ])

  return {
    loggedIn: seller !== undefined,
    chain,
    wallet,
    payTo,
    apis,
    settlements,
    outbox,
    faults,
    bazaar,
    channels,
    payments,
    refusals,
    faucet,
    fund,
    refresh,
  }
}
