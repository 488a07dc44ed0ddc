import type { EventEmitter } from 'node:events'
import type { Address, Chain, Hex, PrivateKeyAccount, PublicClient, TestClient } from 'viem'
import type { MinedReceipts, Relay, TxSender } from './relay/index.js'
import type { AnvilProcess, StartAnvilOptions } from './anvil/index.js'
import type { TwinSpec } from '../core/twins.js'

/** The chain's USDC (chain/install-contracts.ts installs it or reads a forked one). */
export type UsdcInfo = {
  address: Address
  /** EIP-712 domain name, read from the chain. */
  name: string
  /** EIP-712 domain version, read from the chain. */
  version: string
  decimals: number
  /** True when the kit installed the token and its minter funds addresses; false for a forked token. */
  managed: boolean
}

/** Funds addresses with the chain's USDC (chain/install-contracts.ts's `createUsdcFunder`). */
export type UsdcFunder = {
  /** Adds `amount` base units to the address's USDC balance and resolves when it is on-chain. */
  fund(address: Address, amount: bigint): Promise<{ transaction?: Hex }>
}

export type StartChainOptions = Omit<StartAnvilOptions, 'chainId' | 'mnemonic'> & {
  /**
   * Keep the chain in this file across runs (chain/anvil/state-file.ts): loaded at start, written on exit and every 30 s
   * (durably: a temporary file renamed over it, the previous copy kept).
   * Offline chains only; a fork starts from its fork URL each time. @defaultValue no file: every run starts empty
   */
  statePath?: string | undefined
  /** Start empty even when `statePath` holds a saved chain (it is overwritten). @defaultValue false */
  freshChain?: boolean | undefined
  /** How often the chain is checked for a restart or a reset. @defaultValue 1_000 */
  healthIntervalMs?: number | undefined
  /**
   * An Anvil already starting (from `startAnvil` with the same options and the state arguments of
   * `prepareChainState`, its exit dump trusted once it listens), so a caller can boot it while it loads the rest of
   * its modules; restarts use the options.
   */
  anvil?: Promise<AnvilProcess> | undefined
  /** The settlement path (chain/relay/mode.ts); it also picks how Anvil mines unless `mining` says. @defaultValue 'tuned' */
  relay?: Relay | undefined
  /** Start a twin of a testnet (core/twins.ts: its chain id, its USDC's address and name) instead of the Sandbox chain. */
  twin?: TwinSpec | undefined
}

/** What the `restart` event tells: the generation, why, and the new chain's epoch. */
export type ChainRestartInfo = { generation: number; reason: string; epoch: string }

export type ChainEvents = {
  /** The chain came back empty (Anvil died and was started again, or its state was reset); contracts are reinstalled. */
  restart: [info: ChainRestartInfo]
  /** A restart attempt failed; the kit tries again at the next health check. */
  error: [error: Error]
  /**
   * Anvil was restarted on purpose ({@link SandboxChain.restartKeepingState}) and holds the same state: balances,
   * contracts and nonces are as they were. Caches of pending nonces start again.
   */
  reload: [info: { pid: number | undefined; ms: number }]
}

/** The Sandbox chain: its clients and accounts, its state, and its events (`on`, `once`, `off`). */
export type SandboxChain = Pick<EventEmitter<ChainEvents>, 'on' | 'once' | 'off'> & {
  readonly rpcUrl: string
  readonly chainId: number
  readonly network: `eip155:${number}`
  /** The twin this chain is (core/twins.ts); undefined for the Sandbox chain. */
  readonly twin: TwinSpec | undefined
  readonly chain: Chain
  /** 'offline' (an empty chain with the kit's USDC) or 'fork' (a fork of --fork-url). */
  readonly mode: 'offline' | 'fork'
  /** The settlement path the facilitator takes (chain/relay/mode.ts). */
  readonly relay: Relay
  /** The token of the current chain generation. */
  readonly usdc: UsdcInfo
  /**
   * True from the moment Anvil exits (or its state is found reset) until the chain is back with its contracts: a
   * payment cannot be judged meanwhile, and the facilitator answers 503 with Retry-After.
   */
  readonly restarting: boolean
  /** Increments every time the chain comes back empty. */
  readonly generation: number
  /**
   * Changes whenever the chain goes away (Anvil exits, its state is found reset, a restart that keeps the state
   * begins) and again when it is back: a call that saw it change may have done its work on a chain that is gone. svc's
   * senders never send a nonce of one era in another (chain/relay/tx-sender.ts).
   */
  readonly era: number
  /**
   * The chain's identity (chain/epoch.ts): the same across restarts that reload the chain's saved state, new for
   * any chain that starts empty. Settlements carry it.
   */
  readonly epoch: string
  readonly client: PublicClient
  /** Mines what waits in Anvil's pool now, without waiting for the miner's notification (chain/relay/miner.ts). */
  mine(sent?: Promise<unknown>): Promise<MinedReceipts>
  readonly testClient: TestClient
  /** `relayers`: the facilitator's pool, `relayer` first (chain/constants.ts). */
  readonly accounts: { minter: PrivateKeyAccount; relayer: PrivateKeyAccount; relayers: PrivateKeyAccount[] }
  readonly minter: TxSender
  readonly usdcFunder: UsdcFunder
  /** Milliseconds from the call to a chain with contracts installed. */
  readonly readyMs: number
  /** The data dir's saved chain (chain/anvil/state-file.ts); undefined without a state file (ephemeral, fork). */
  readonly savedState: SavedState | undefined
  /** The Anvil process id of the current generation (tests kill it to check restarts). */
  readonly pid: number | undefined
  /**
   * Stops Anvil and starts a new Anvil process on the same URL with the state it had (dumped before the stop, loaded
   * into the new process): what `svc chain restart` does. Payments meanwhile are answered 503 with Retry-After, as
   * in any restart. Resolves with how long the chain was away; concurrent calls share one restart.
   */
  restartKeepingState(): Promise<{ ms: number }>
  /** Resolves once the chain is not restarting (at once when it is not); false if it is still away after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<boolean>
  stop(): Promise<void>
}

export type SavedState = {
  /** `chain/state.json` of the data dir. */
  readonly path: string
  /** Writes the chain now, durably: to `path` (the previous copy kept), or to `file`. */
  save(file?: string): Promise<void>
  /**
   * Until the returned release: no periodic save, and no exit dump of Anvil's counts as the chain at the next start
   * (the chain and the ledger are changing together; the caller keeps its own record of the way back).
   */
  hold(): () => void
}
