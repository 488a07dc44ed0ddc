import type { DiscoveryResource } from '../sdk/bazaar-catalog.js'
import type {
  Api,
  Balances,
  Endpoint,
  FaucetResult,
  OutboxMessage,
  PaymentEvent,
  SandboxWallet,
  Settlement,
} from '../sdk/types.js'

/** What a poll has: the latest data, or the one-line error of the latest attempt. */
export type Loadable<T> = { data?: T | undefined; error?: string | undefined }

export type ChainInfo = {
  blockNumber: bigint
  /** How far svc's clock is ahead of the machine's (`svc time advance`), in seconds; undefined when unknown. */
  clockOffsetSeconds?: number | undefined
}

/** The Sandbox wallet as the dashboard keeps it: the private key never enters the UI state, only its redacted form. */
export type WalletView = Pick<SandboxWallet, 'address' | 'private_key_redacted'>
export type WalletData = { wallet: WalletView; balances: Pick<Balances, 'eth_wei' | 'usdc_base'> }

export type ApiWithEndpoints = {
  api: Pick<Api, 'id' | 'name' | 'slug' | 'gateway_url' | 'upstream_base_url' | 'pay_to_address'>
  endpoints: Endpoint[]
}

/** The USDC balance of each address the seller's APIs pay to (their `pay_to_address`, each once, in the APIs' order). */
export type PayToBalances = { address: string; usdc_base: string }[]

/**
 * The revenue of the dashboard's session: the settlements of the running chain made since the dashboard opened
 * (`since`), how many, and what they took per asset (atomic units, decimal strings; keyed by the asset's address in
 * lower case). Those charged without the answer count: the buyer's money was received.
 */
export type SessionRevenue = { since: string; count: number; amounts: Record<string, string> }

/**
 * The settlements panel's data: the newest settlements (a page, any chain), and how many there are in all, on the
 * running chain (`current`) and on earlier ones (`old`), so "… n more" counts what the page left out too.
 */
export type SettlementFeed = {
  newest: Settlement[]
  current: number
  old: number
  /** The revenue since the dashboard opened; absent from a feed made without `since`. */
  session?: SessionRevenue | undefined
}

/** The facilitator's bazaar catalog as the dashboard shows it: the newest few listings and how many there are. */
export type BazaarCatalogView = { newest: DiscoveryResource[]; total: number }

/**
 * Refused payments seen on the event stream since the dashboard started (or the session changed): the newest few
 * (`payment.failed` events, newest first) and how many in all; `error` when the stream was refused.
 */
export type RefusalsView = { newest: PaymentEvent[]; total: number; error?: string | undefined }

/** An API key made by `svc up --seed`, with its secret: the only time it is shown (svc keeps its hash). */
export type NewApiKey = { name: string; environment: string; key: string }

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
    /**
     * Where the facilitator's bazaar catalog is read (`/config/local-dev`'s `bazaar_url`: a remote svc serve's public
     * `/dev/bazaar`, its facilitator being on its loopback). @defaultValue facilitator_url
     */
    bazaar_url?: string | undefined
    chain_id: number
    network: string
    usdc: string
    /** Twins of testnets beside the Sandbox chain (`svc up --twin`). @defaultValue none */
    twins?: { name: string; network: string; chain_id: number; rpc_url: string; usdc: string }[] | undefined
  }
  /** A session to show the seller's wallet, APIs and settlements (the CLI's saved login, Sandbox environment); undefined → those panels say how to sign up/log in (`svc signup --sandbox`). */
  session?: { jwt: string } | undefined
  /** Asked at every refresh for the current session (e.g. the CLI's saved login): a login made after start shows up. */
  getSession?: (() => { jwt: string } | undefined) | undefined
  /** API keys `svc up --seed` made: their secrets are shown once, here (and in the --no-tui / --json output). @defaultValue none */
  newKeys?: NewApiKey[] | undefined
  /** How long the new keys' banner shows before it hides itself (`k` shows it again). @defaultValue 10 minutes */
  newKeysShownMs?: number | undefined
  /**
   * Refresh period for live data: the chain's block; balances and settlements within a period of a new block; APIs,
   * endpoints and mails within one while they change, within three when they have not for a while. @defaultValue 1000
   */
  refreshMs?: number
  /**
   * Watching a remote svc (`svc dashboard --url`, a team's `svc serve`) as the logged-in seller: the chain's block and
   * svc's clock come through its control plane, faults are the seller's own APIs', and the outbox (the admin's) is
   * not read. @defaultValue false (svc up's own dashboard)
   */
  remote?: boolean | undefined
}

export type { OutboxMessage, Settlement }
