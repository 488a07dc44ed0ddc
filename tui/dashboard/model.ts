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

export type { OutboxMessage, Settlement }
