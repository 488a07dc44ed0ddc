import type { Express } from 'express'
import { formatEther, getAddress, isAddress, numberToHex, parseEther, parseUnits, type Address } from 'viem'
import { z } from 'zod'
import { BadRequestError, ChainError, ServiceUnavailableError, toSvcError } from '../core/errors.js'
import { createErrorHandler, createJsonApp, notFoundHandler, parseBody } from '../core/http.js'
import { formatUsdc, parseUsdc } from '../core/sandbox-usdc.js'
import type { SandboxChain } from './sandbox-chain.js'
import { multicall3Address } from './constants.js'
import { sandboxUsdcAbi } from './contracts/index.js'
import { approveFor, approvePermit2For } from './permit2/index.js'

export type ChainManagerOptions = {
  /** ETH a faucet call sends by default, in wei. @defaultValue 10 ETH */
  defaultEthWei?: bigint | undefined
  /** USDC a faucet call sends by default, in base units. @defaultValue 1,000 USDC */
  defaultUsdcBase?: bigint | undefined
  log?: ((message: string) => void) | undefined
  /**
   * The faucet of another chain svc runs (a twin, chain/twin.ts) for a call that names its `network`; throws a
   * BadRequestError for a network no chain of svc's is. @defaultValue none: only this chain's network is taken
   */
  managerOf?: ((network: string) => ChainManager) | undefined
}

export type Balances = { eth_wei: `0x${string}`; usdc_base: `0x${string}` }
export type FaucetAsset = 'all' | 'eth' | 'usdc'
export type FaucetResult = {
  address: Address
  asset: FaucetAsset
  funded: { eth_wei?: `0x${string}`; usdc_base?: `0x${string}` }
  /** The USDC mint or transfer; the Permit2 approval, when asked for. */
  transactions: {
    usdc?: `0x${string}`
    permit2_approval?: `0x${string}`
    escrow_operator_approval?: `0x${string}`
  }
  balances: Balances
}

/** How long a faucet call waits for a restarting chain before it answers 503. */
const chainAwayMs = 15_000

/** Most a single faucet call may send: beyond this the amount is a mistake, not a test. */
const maxEthWei = parseEther('1000000')
const maxUsdcBase = parseUsdc('1000000000')

const addressSchema = z
  .string({ error: 'expected an address string' })
  .refine((value) => isAddress(value, { strict: false }), { error: 'not an address' })
  .transform((value) => getAddress(value))

/** Body of `POST /faucet` (also the control plane's `POST /dev/faucet`); amount bounds are checked by `fund`. */
export const faucetSchema = z.strictObject({
  address: addressSchema,
  asset: z.enum(['all', 'eth', 'usdc'], { error: 'asset must be one of all, eth, usdc' }).default('all'),
  amount: z
    .string({ error: 'amount must be a decimal string in whole units, e.g. "2.5"' })
    .regex(/^\d{1,30}(\.\d{1,18})?$/, { error: 'amount must be a decimal string in whole units, e.g. "2.5"' })
    .optional(),
  /** Also approve Permit2 for the address's USDC (buyers paying through Permit2 without a sponsored EIP-2612 permit). */
  approve_permit2: z.boolean({ error: 'approve_permit2 must be true or false' }).optional(),
  /**
   * Also approve the auth-capture operator (relayer account 1) for the address's USDC: a seller's consent to fund the
   * refunds svc's facilitator relays for it (escrow payments).
   */
  approve_escrow_operator: z.boolean({ error: 'approve_escrow_operator must be true or false' }).optional(),
  /** The chain to fund: a twin's network ("eip155:84532", or its v1 name). @defaultValue the Sandbox chain */
  network: z.string({ error: 'network must be a string such as "eip155:84532"' }).max(100).optional(),
})

export const balancesSchema = z.strictObject({ address: addressSchema })

export type ChainManager = {
  app: Express
  info(): Record<string, unknown>
  balances(address: Address): Promise<Balances>
  fund(address: Address, asset?: FaucetAsset, amount?: string, options?: FundOptions): Promise<FaucetResult>
  /** The manager of the chain a faucet call's `network` names (this one when it names none or this chain's). */
  faucetOf(network: string | undefined): ChainManager
}

export type FundOptions = {
  /** Also approve Permit2 to spend the address's USDC (chain/permit2/approval.ts). @defaultValue false */
  approvePermit2?: boolean | undefined
  /**
   * Also approve the auth-capture operator (relayer account 1) to spend the address's USDC, which funds the refunds
   * the facilitator relays for a receiver (chain/auth-capture/lifecycle.ts). @defaultValue false
   */
  approveEscrowOperator?: boolean | undefined
}

/** One faucet call's funding, as `fund` worked it out: the amounts in wei and base units (0: that asset is not sent). */
type FundingOrder = {
  address: Address
  asset: FaucetAsset
  ethWei: bigint
  usdcBase: bigint
  approvePermit2: boolean
  approveEscrowOperator: boolean
}

/**
 * The chain manager: chain info, balances and a faucet for the sandbox chain, over HTTP.
 * ETH comes from `anvil_addBalance`; USDC is minted by the kit's minter (or dealt on a forked token).
 */
export function createChainManager(chain: SandboxChain, options: ChainManagerOptions = {}): ChainManager {
  const { defaultEthWei = parseEther('10'), defaultUsdcBase = parseUsdc('1000') } = options

  function info() {
    const usdc = chain.usdc
    return {
      chain_id: chain.chainId,
      network: chain.network,
      rpc_url: chain.rpcUrl,
      mode: chain.mode,
      generation: chain.generation,
      native_currency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      usdc: { address: usdc.address, name: usdc.name, version: usdc.version, decimals: usdc.decimals },
      multicall3: multicall3Address,
      faucet: {
        enabled: true,
        default_eth_wei: numberToHex(defaultEthWei),
        default_usdc_base: numberToHex(defaultUsdcBase),
        default_eth: formatEther(defaultEthWei),
        default_usdc: formatUsdc(defaultUsdcBase),
      },
    }
  }

  async function balances(address: Address): Promise<Balances> {
    try {
      const [eth, usdc] = await Promise.all([
        chain.client.getBalance({ address }),
        chain.client.readContract({
          address: chain.usdc.address,
          abi: sandboxUsdcAbi,
          functionName: 'balanceOf',
          args: [address],
        }),
      ])
      return { eth_wei: numberToHex(eth), usdc_base: numberToHex(usdc) }
    } catch (error) {
      throw new ChainError('the chain did not answer the balance query', { cause: error })
    }
  }

  async function fund(
    address: Address,
    asset: FaucetAsset = 'all',
    amount?: string,
    options: FundOptions = {},
  ): Promise<FaucetResult> {
    if (amount !== undefined && asset === 'all') throw new BadRequestError('amount needs asset "eth" or "usdc"')
    const ethWei = asset === 'usdc' ? 0n : amount ? parseEther(amount) : defaultEthWei
    const usdcBase = asset === 'eth' ? 0n : amount ? parseUnits(amount, chain.usdc.decimals) : defaultUsdcBase
    if (ethWei > maxEthWei)
      throw new BadRequestError(`amount too large: at most ${formatEther(maxEthWei)} ETH per call`)
    if (usdcBase > maxUsdcBase)
      throw new BadRequestError(`amount too large: at most ${formatUsdc(maxUsdcBase)} USDC per call`)
    if (amount !== undefined && ethWei === 0n && usdcBase === 0n)
      throw new BadRequestError('amount must be greater than 0')

    // A restarting chain is waited for: what reaches it now would be lost, or land later with stale nonces.
    if (!(await chain.whenReady(chainAwayMs))) throw restarting()
    const order: FundingOrder = {
      address,
      asset,
      ethWei,
      usdcBase,
      approvePermit2: options.approvePermit2 === true,
      approveEscrowOperator: options.approveEscrowOperator === true,
    }
    for (let attempt = 0; ; attempt++) {
      const era = chain.era
      let result: FaucetResult | undefined
      let failure: unknown
      try {
        result = await fundOnce(order)
      } catch (error) {
        failure = error
      }
      // A call that failed as Anvil died may fail before svc notices the exit: a chain that does not answer is going.
      const gone = failure !== undefined && chain.era === era && !chain.restarting && !(await answers())
      if (!gone && chain.era === era && !chain.restarting) {
        if (failure !== undefined) throw failure
        return result!
      }
      // The chain went away under the call (Anvil died, its state was reset, or it was restarted keeping it): what the
      // call did may be gone with it. 200 only for money on the chain that is back; else once more there, then 503.
      if (!(await chain.whenReady(chainAwayMs))) throw restarting(failure)
      if (result && (await keptOnChain(result, ethWei))) {
        result.balances = await balances(address)
        return result
      }
      if (attempt >= 1) throw restarting(failure)
    }
  }

  const answers = () =>
    chain.client.getBlockNumber({ cacheTime: 0 }).then(
      () => true,
      () => false,
    )

  /** The chain restarted (or is restarting) under a faucet call: 503, retry. */
  const restarting = (cause?: unknown) =>
    new ServiceUnavailableError('the Sandbox chain is restarting: retry in a moment', { cause, retryAfterSeconds: 1 })

  /**
   * Whether a faucet call's funding is on the chain there now: its transactions (the mint, the Permit2 approval) have
   * receipts, and the address holds at least the ETH it was sent (`anvil_addBalance` leaves no transaction).
   */
  async function keptOnChain(result: FaucetResult, ethWei: bigint): Promise<boolean> {
    try {
      const { usdc, permit2_approval, escrow_operator_approval } = result.transactions
      const hashes = [usdc, permit2_approval, escrow_operator_approval].filter((hash) => hash !== undefined)
      // A forked token is dealt (anvil_dealERC20), with no transaction to find: sent again.
      if (result.funded.usdc_base !== undefined && result.transactions.usdc === undefined) return false
      for (const hash of hashes) {
        const receipt = await chain.client.getTransactionReceipt({ hash }).catch(() => undefined)
        if (receipt?.status !== 'success') return false
      }
      return ethWei === 0n || (await chain.client.getBalance({ address: result.address })) >= ethWei
    } catch {
      return false
    }
  }

  async function fundOnce(order: FundingOrder): Promise<FaucetResult> {
    const { address, asset, ethWei, usdcBase, approvePermit2, approveEscrowOperator } = order
    const result: FaucetResult = {
      address,
      asset,
      funded: {},
      transactions: {},
      balances: { eth_wei: '0x0', usdc_base: '0x0' },
    }
    try {
      await Promise.all([
        ethWei > 0n &&
          chain.testClient
            .request({ method: 'anvil_addBalance' as never, params: [address, numberToHex(ethWei)] as never })
            .then(() => (result.funded.eth_wei = numberToHex(ethWei))),
        usdcBase > 0n &&
          chain.usdcFunder.fund(address, usdcBase).then(({ transaction }) => {
            result.funded.usdc_base = numberToHex(usdcBase)
            if (transaction) result.transactions.usdc = transaction
          }),
      ])
      // After the ETH, which pays for it.
      if (approvePermit2) result.transactions.permit2_approval = await approvePermit2For(chain, address)
      if (approveEscrowOperator)
        result.transactions.escrow_operator_approval = await approveFor(chain, address, chain.accounts.relayer.address)
    } catch (error) {
      throw new ChainError(`funding ${address} failed: ${toSvcError(error).message}`, { cause: error })
    }
    result.balances = await balances(address)
    return result
  }

  const self: ChainManager = { app: undefined as never, info, balances, fund, faucetOf: (network) => faucetOf(network) }
  /** This chain's manager, or the twin's that `network` names. */
  function faucetOf(network: string | undefined): ChainManager {
    if (network === undefined || network === chain.network) return self
    if (!options.managerOf)
      throw new BadRequestError(`network "${network}": this faucet funds ${chain.network} only (no twin runs)`)
    return options.managerOf(network)
  }

  const app = createJsonApp()
  app.get('/health', (_req, res) => void res.json({ ok: true, generation: chain.generation }))
  app.get(['/', '/chain'], (_req, res) => void res.json(info()))
  app.get('/balances/:address', async (req, res) => {
    const { address } = parseBody(balancesSchema, { address: req.params.address })
    res.json({ address, ...(await balances(address)) })
  })
  app.post('/balances', async (req, res) => {
    const { address } = parseBody(balancesSchema, req.body)
    res.json({ address, ...(await balances(address)) })
  })
  app.post('/faucet', async (req, res) => {
    const { address, asset, amount, approve_permit2, approve_escrow_operator, network } = parseBody(
      faucetSchema,
      req.body,
    )
    const manager = faucetOf(network)
    res.json(
      await manager.fund(address, asset, amount, {
        approvePermit2: approve_permit2,
        approveEscrowOperator: approve_escrow_operator,
      }),
    )
  })
  app.use(notFoundHandler)
  app.use(createErrorHandler(options))

  return Object.assign(self, { app })
}
