import type { Api, Balances, Endpoint, FaucetResult, OutboxMessage, SandboxWallet, Settlement } from '../../sdk/types.js'

/** What a poll has: the latest data, or the one-line error of the latest attempt. */
export type Loadable<T> = { data?: T | undefined; error?: string | undefined }

export type ChainInfo = { blockNumber: bigint }

/** The Sandbox wallet as the dashboard keeps it: the private key never enters the UI state, only its redacted form. */
export type WalletView = Pick<SandboxWallet, 'address' | 'private_key_redacted'>
export type WalletData = { wallet: WalletView; balances: Pick<Balances, 'eth_wei' | 'usdc_base'> }

export type ApiWithEndpoints = { api: Pick<Api, 'id' | 'name' | 'slug'>; endpoints: Endpoint[] }

export type FaucetState =
  | { status: 'idle' }
  | { status: 'funding'; address: string }
  | { status: 'funded'; result: Pick<FaucetResult, 'funded' | 'transactions'> }
  | { status: 'failed'; error: string }

/** What `svc up` gives the dashboard: the sandbox's URLs and how to find the seller's session. */
export type DashboardOptions = {
  urls: {
    control_url: string
    sandbox_control_url: string
    gateway_port: number
    rpc_url: string
    chain_manager_url: string
    facilitator_url: string
    chain_id: number
    network: string
    usdc: string
  }
  /** A session to show the seller's wallet, APIs and settlements (the CLI's saved login, Sandbox environment); undefined → those panels say how to sign up/log in (`svc signup --sandbox`). */
  session?: { jwt: string } | undefined
  /** Asked at every refresh for the current session (e.g. the CLI's saved login): a login made after start shows up. */
  getSession?: (() => { jwt: string } | undefined) | undefined
  /** Refresh period for live data. @defaultValue 1000 */
  refreshMs?: number
}

export type { OutboxMessage, Settlement }
