import { useCallback, useEffect, useMemo, useState } from 'react'
import { createPublicClient, http } from 'viem'
import { createSvcClient, type SvcClient } from '../../../sdk/client.js'
import { describeError } from '../errors.js'
import type { ApiWithEndpoints, ChainInfo, DashboardOptions, FaucetState, Loadable, OutboxMessage, Settlement, WalletData } from '../model.js'
import { useFaucet } from './use-faucet.js'
import { usePoll } from './use-poll.js'

export type DashboardData = {
  /** A session was given: the wallet, APIs and settlements panels have data to show. */
  loggedIn: boolean
  chain: Loadable<ChainInfo>
  wallet: Loadable<WalletData>
  apis: Loadable<ApiWithEndpoints[]>
  settlements: Loadable<Settlement[]>
  outbox: Loadable<OutboxMessage[]>
  faucet: FaucetState
  /** Funds the Sandbox wallet from the faucet. */
  fund(): void
  /** Polls everything now. */
  refresh(): void
}

/** Settlements the panel asks for: the newest ones. */
const settlementLimit = 10

async function loadWallet(client: SvcClient): Promise<WalletData> {
  // Only the address and the redacted key are kept: the private key is dropped here, before any state holds it.
  const { address, private_key_redacted } = await client.sandbox.wallet()
  const { eth_wei, usdc_base } = await client.sandbox.balances(address)
  return { wallet: { address, private_key_redacted }, balances: { eth_wei, usdc_base } }
}

async function loadApis(client: SvcClient): Promise<ApiWithEndpoints[]> {
  const apis = await client.apis.list()
  return Promise.all(
    apis.map(async ({ id, name, slug }) => ({ api: { id, name, slug }, endpoints: await client.endpoints.list(id) })),
  )
}

/** Every panel's live data, each polled every `refreshMs` against the running sandbox; errors become one line each. */
export function useDashboardData({ urls, session, getSession, refreshMs = 1000 }: DashboardOptions): DashboardData {
  const [jwt, setJwt] = useState(session?.jwt ?? getSession?.()?.jwt)
  useEffect(() => {
    if (!getSession) return
    const timer = setInterval(() => {
      const next = getSession()?.jwt ?? session?.jwt
      setJwt((current) => (current === next ? current : next))
    }, refreshMs)
    return () => clearInterval(timer)
  }, [getSession, session, refreshMs])
  const { sandbox_control_url: baseUrl, rpc_url: rpcUrl } = urls
  const seller = useMemo(() => (jwt ? createSvcClient({ baseUrl, jwt, environment: 'development' }) : undefined), [baseUrl, jwt])
  const anyone = useMemo(() => createSvcClient({ baseUrl }), [baseUrl])
  const rpc = useMemo(() => createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: 5_000 }) }), [rpcUrl])

  const describe = useCallback((error: unknown) => describeError(error, { rpcUrl }), [rpcUrl])
  const loadChain = useCallback(async (): Promise<ChainInfo> => ({ blockNumber: await rpc.getBlockNumber({ cacheTime: 0 }) }), [rpc])

  const chain = usePoll(loadChain, refreshMs, describe)
  const wallet = usePoll(seller && (() => loadWallet(seller)), refreshMs, describe)
  const apis = usePoll(seller && (() => loadApis(seller)), refreshMs, describe)
  const settlements = usePoll(seller && (async () => (await seller.settlements.list({ limit: settlementLimit })).settlements), refreshMs, describe)
  const outbox = usePoll(async () => (await anyone.auth.outbox()).messages, refreshMs, describe)

  const { faucet, fund } = useFaucet(seller, wallet.data?.wallet.address, wallet.refresh)
  const refreshers = [chain.refresh, wallet.refresh, apis.refresh, settlements.refresh, outbox.refresh]
  // Each poll's refresh is stable, so this is too.
  const refresh = useCallback(() => refreshers.forEach((refreshOne) => refreshOne()), refreshers)

  return { loggedIn: seller !== undefined, chain, wallet, apis, settlements, outbox, faucet, fund, refresh }
}
