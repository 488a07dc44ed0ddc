/**
 * `startSandbox()` for your test suites (a vitest/jest globalSetup, or a beforeAll): an ephemeral svc sandbox on free
 * ports — chain, facilitator, control planes and gateway — with a verified seller, a Sandbox API key and a funded
 * buyer. Several can run at once (parallel CI jobs); `stop()` leaves nothing behind.
 */
import '../core/polyfill.js'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Hex } from 'viem'
import type { BuyerEscrowPayment } from '../core/auth-capture/buyer.js'
import { scopes } from '../core/scopes.js'
import type { startSvc as StartSvc } from '../server/start/index.js'
import type { SvcClient } from './client.js'
import { signingBySvcClock } from './svc-clock-signing.js'
import type { SandboxTime } from './types.js'
import { createEventQueue } from './event-queue.js'
import type { ChainRestart, Fault, FaultInput, PaymentEvent } from './types.js'

export {
  type ConnectSandboxOptions,
  connectSandbox,
  type SandboxCredentials,
  type SharedSandbox,
} from './connect-sandbox.js'

export type TestSandboxOptions = {
  /** USDC the buyer starts with, in whole units. @defaultValue '1000' */
  buyerUsdc?: string
  /** Most the buyer's paying fetch pays for one request, in USDC atomic units. @defaultValue '10000000' (10 USDC) */
  maxAmountPerPayment?: string
  /** Fork this chain instead of starting offline. */
  forkUrl?: string
  /**
   * Twins of testnets to run beside the Sandbox chain (`['base-sepolia']`): code written for that testnet pays on
   * them with `facilitatorUrl` as its facilitator. The buyer is funded on each one too. @defaultValue none
   */
  twins?: string[]
  /** Fork the (one) twin from this RPC URL of the real testnet; its chain id must be the twin's. @defaultValue offline */
  twinForkUrl?: string
}

/** A twin running beside the Sandbox chain (`startSandbox({ twins: ['base-sepolia'] })`). */
export type TestTwin = {
  name: string
  /** CAIP-2 (x402 v2), e.g. `eip155:84532`. */
  network: string
  /** The x402 v1 name, e.g. `base-sepolia`. */
  v1Network: string
  chainId: number
  rpcUrl: string
  usdc: { address: string; name: string; version: string; decimals: number }
}

export type TestSandbox = {
  /** {base_url}: `http://api.localhost:PORT` */
  controlUrl: string
  /** {sandbox_base_url}: `http://sandbox.localhost:PORT` */
  sandboxControlUrl: string
  /** `http://{slug}.dev.localhost:PORT`, the gateway URL of a Sandbox API. */
  gatewayUrl(slug: string): string
  port: number
  rpcUrl: string
  facilitatorUrl: string
  chainManagerUrl: string
  chainId: number
  network: string
  usdc: { address: string; name: string; version: string; decimals: number }
  /** The twins asked for, in order (fund more addresses there with the chain manager's `POST /faucet` and `network`). */
  twins: TestTwin[]
  seller: {
    email: string
    password: string
    /** A session JWT (use with `X-Svc-Environment: development` for the Sandbox). */
    jwt: string
    /** A `svc_sandbox_` key with every scope. */
    apiKey: string
    /** Control-plane client authenticated with `apiKey`. */
    client: SvcClient
  }
  buyer: {
    address: Hex
    privateKey: Hex
    /**
     * `fetch` that pays 402s with the buyer's USDC (the official x402 client with `@x402/evm`'s exact, upto,
     * batch-settlement and auth-capture schemes): exact by EIP-3009 or Permit2, upto by Permit2, batch-settlement by a
     * deposit into a channel and then vouchers (its channels kept by the package's file storage in a temporary
     * directory), auth-capture (escrow) by EIP-3009 or Permit2 into the escrow. Its Permit2 allowance starts at 0: a
     * Permit2 payment signs an EIP-2612 permit where the seller sponsors it (svc's gateway does for exact and upto);
     * elsewhere, approve Permit2 first (the faucet's `approve_permit2`). It signs by svc's clock, so
     * {@link TestSandbox.advanceTime} does not stop it.
     */
    fetch: typeof globalThis.fetch
    /** The auth-capture (escrow) payments `fetch` signed, oldest first (one kept per payment, settled or not). */
    escrowPayments(): BuyerEscrowPayment[]
    /**
     * Takes back what the escrow still holds of an auth-capture payment the buyer made, once its capture deadline
     * passed ({@link TestSandbox.advanceTime}): the payer's `reclaim` on the escrow, sent by the buyer. Without a
     * hash, every kept payment the escrow still holds something for. Answers the reclaims sent; a reclaim the escrow
     * refuses (before the deadline, nothing held) throws.
     */
    reclaim(paymentInfoHash?: Hex): Promise<{ paymentInfoHash: Hex; transaction: Hex }[]>
  }
  /** `fetch` that resolves `*.localhost` (Node's resolver does not). */
  fetch: typeof globalThis.fetch
  /**
   * Snapshots the whole sandbox (chain, control-plane state, svc's clock) and answers its id, for {@link revert}.
   * Snapshots last until `stop()` (or a chain restart).
   */
  snapshot(): Promise<string>
  /**
   * Puts the whole sandbox back as it was at snapshot `id` (milliseconds on a small sandbox). The same id can be
   * reverted to again and again; snapshots taken after it are discarded.
   */
  revert(id: string): Promise<void>
  /**
   * Moves the chain's time and svc's clock forward by `seconds` together: ttl endpoints expire, authorizations whose
   * validBefore passed are refused, session JWTs past their lifetime are refused. Answers both clocks.
   */
  advanceTime(seconds: number): Promise<SandboxTime>
  /** The chain's time and svc's clock. */
  time(): Promise<SandboxTime>
  /** Fault injection, as `svc fault …` (for every seller of this sandbox). */
  faults: {
    /** e.g. `{ kind: 'verify', reason: 'invalid_exact_evm_signature', times: 1 }`, `{ kind: 'upstream', status: 503 }`. */
    add(input: FaultInput): Promise<Fault>
    list(): Promise<Fault[]>
    /** Clears one fault, or all of them; resolves with how many went. */
    clear(faultId?: string): Promise<number>
  }
  /** Restarts the chain and its twins on the same URLs, keeping their state (`svc chain restart`). */
  restartChain(): Promise<ChainRestart>
  /**
   * The seller's payment events from now on (as `GET /events` streams them), in process: `for await (const event of
   * sandbox.events())`. Subscribed when called, so events of requests made after the call are never missed; `break`
   * or the signal ends it. A reader more than 10,000 events behind loses the oldest.
   */
  events(options?: { apiId?: string; signal?: AbortSignal }): AsyncIterableIterator<PaymentEvent>
  stop(): Promise<void>
}

/**
 * svc's start-up (server/start): from the command's bundle when this module runs from dist/ (dist/cli/start.js,
 * bin/build.js), a few files where the per-file build loads some 1,500 modules; from the sources otherwise (tsx).
 * Loaded when a sandbox starts, not when the module is imported (connectSandbox() needs none of it).
 */
async function loadStartSvc(): Promise<typeof StartSvc> {
  const bundled = new URL('../cli/start.js', import.meta.url)
  if (existsSync(fileURLToPath(bundled)))
    return ((await import(bundled.href)) as { startSvc: typeof StartSvc }).startSvc
  return (await import('../server/start/index.js')).startSvc
}

/**
 * What the buyer and the seller's clients are made of (the official x402 client with its schemes on your viem, svc's
 * client): loaded while svc starts (from when Anvil is spawned), not when this module is imported.
 */
const loadClientModules = () =>
  Promise.all([
    import('@x402/core/client'),
    import('@x402/evm'),
    import('@x402/evm/auth-capture/client'),
    import('@x402/evm/batch-settlement/client'),
    import('@x402/evm/batch-settlement/client/file-storage'),
    import('@x402/evm/exact/client'),
    import('@x402/evm/upto/client'),
    import('@x402/fetch'),
    import('viem'),
    import('viem/accounts'),
    import('../core/auth-capture/buyer.js'),
    import('./client.js'),
    import('./local-fetch.js'),
  ])

export async function startSandbox(options: TestSandboxOptions = {}): Promise<TestSandbox> {
  const { buyerUsdc = '1000', maxAmountPerPayment = '10000000', forkUrl, twins, twinForkUrl } = options
  const startSvc = await loadStartSvc()
  let loading: ReturnType<typeof loadClientModules> | undefined
  const clientModules = () => {
    loading ??= loadClientModules()
    return loading
  }
  // The buyer's key, made once its modules are there.
  const buyerAccount = () =>
    clientModules().then(([, , , , , , , , , { generatePrivateKey, privateKeyToAccount }]) => {
      const privateKey = generatePrivateKey()
      return { privateKey, account: privateKeyToAccount(privateKey) }
    })
  let buyerMade: ReturnType<typeof buyerAccount> | undefined
  // The buyer is funded as soon as the chain is up (its ETH and USDC on every chain at once), beside the server's
  // start and the seller's signup.
  let funded: Promise<unknown> | undefined
  // svc up in-process (mode 'up': an ephemeral data dir, port 0, accounts verified at once): the same start-up.
  const sandbox = await startSvc({
    mode: 'up',
    port: 0,
    autoVerify: true,
    forkUrl,
    twins,
    twinForkUrl,
    log: () => {},
    // Said as Anvil is about to be spawned: the client modules load from then on, while Anvil boots and svc starts.
    onProgress() {
      buyerMade ??= buyerAccount()
      buyerMade.catch(() => {})
    },
    onChain(chain) {
      buyerMade ??= buyerAccount()
      funded = buyerMade.then(({ account }) =>
        Promise.all(
          [chain.manager, ...chain.twins.map((twin) => twin.manager)].flatMap((manager) => [
            manager.fund(account.address, 'eth', '10'),
            manager.fund(account.address, 'usdc', buyerUsdc),
          ]),
        ),
      )
      funded.catch(() => {})
    },
  })
  try {
    const [
      { x402Client },
      { toClientEvmSigner },
      { AuthCaptureEvmScheme },
      { BatchSettlementEvmScheme },
      { FileClientChannelStorage },
      { ExactEvmScheme },
      { UptoEvmScheme },
      { wrapFetchWithPayment },
      { createWalletClient, http },
      ,
      { buyerEscrowAbi, buyerEscrowPaymentOf, paymentInfoArgument },
      { createSvcClient },
      { localFetch },
    ] = await clientModules()
    buyerMade ??= buyerAccount()
    const { privateKey, account: buyer } = await buyerMade
    const { server, chain } = sandbox
    const email = `seller-${randomBytes(6).toString('hex')}@svc.test`
    const password = randomBytes(12).toString('base64url')
    const anonymous = createSvcClient({ baseUrl: server.sandboxControlUrl })
    const { token: jwt, user } = await anonymous.auth.signup(email, password)
    const session = createSvcClient({ baseUrl: server.sandboxControlUrl, jwt, environment: 'development' })
    const { key: apiKey } = await session.keys.create({ name: 'startSandbox', scopes: [...scopes] })
    await funded
    // The RPC lets the schemes read the Permit2 allowance and sign an EIP-2612 permit for a sponsored Permit2 payment.
    const rpc = { rpcUrl: chain.rpcUrl }
    // The buyer signs by svc's clock, so it still pays after advanceTime().
    const ahead = () => chain.clock.offsetMs / 1000
    const channels = mkdtempSync(join(tmpdir(), 'svc-buyer-channels-'))
    const channelBuyer = new BatchSettlementEvmScheme(toClientEvmSigner(buyer, chain.sandboxChain.client as never), {
      storage: new FileClientChannelStorage({ directory: channels }),
    })
    const payer = new x402Client()
      .register(chain.sandboxChain.network, signingBySvcClock(new ExactEvmScheme(buyer, rpc), ahead))
      .register(chain.sandboxChain.network, signingBySvcClock(new UptoEvmScheme(buyer, rpc), ahead))
      .register(chain.sandboxChain.network, signingBySvcClock(channelBuyer, ahead))
      .register(chain.sandboxChain.network, signingBySvcClock(new AuthCaptureEvmScheme(buyer), ahead))
    // The buyer keeps the escrow payments it signs, to reclaim them (the official client keeps nothing).
    const escrowPayments = new Map<Hex, BuyerEscrowPayment>()
    payer.onAfterPaymentCreation(async ({ paymentPayload }) => {
      const made = buyerEscrowPaymentOf(paymentPayload)
      if (made) escrowPayments.set(made.paymentInfoHash, made)
    })
    const chains = [chain.sandboxChain, ...chain.twins.map((twin) => twin.chain)]
    const reclaim = async (paymentInfoHash?: Hex) => {
      const chosen =
        paymentInfoHash === undefined ? [...escrowPayments.values()] : [escrowPayments.get(paymentInfoHash)]
      const sent: { paymentInfoHash: Hex; transaction: Hex }[] = []
      for (const payment of chosen) {
        if (!payment) throw new Error(`the buyer made no escrow payment ${paymentInfoHash}`)
        const on = chains.find((candidate) => candidate.network === payment.network)
        if (!on) throw new Error(`no chain of this sandbox is ${payment.network}`)
        if (paymentInfoHash === undefined) {
          const [, capturable] = await on.client.readContract({
            address: payment.escrow,
            abi: buyerEscrowAbi,
            functionName: 'paymentState',
            args: [payment.paymentInfoHash],
          })
          if (capturable === 0n) continue
        }
        const wallet = createWalletClient({ account: buyer, chain: on.chain, transport: http(on.rpcUrl) })
        const transaction = await wallet.writeContract({
          address: payment.escrow,
          abi: buyerEscrowAbi,
          functionName: 'reclaim',
          args: [paymentInfoArgument(payment.paymentInfo)],
        })
        const receipt = await on.client.waitForTransactionReceipt({ hash: transaction, pollingInterval: 50 })
        if (receipt.status !== 'success') throw new Error(`the reclaim of ${payment.paymentInfoHash} reverted`)
        sent.push({ paymentInfoHash: payment.paymentInfoHash, transaction })
      }
      return sent
    }
    payer.setSpendControls({
      allowedAssets: [
        { network: chain.sandboxChain.network, asset: chain.sandboxChain.usdc.address, maxAmountPerPayment },
      ],
    })
    const local = createSvcClient({ baseUrl: server.sandboxControlUrl })

    return {
      controlUrl: server.controlUrl,
      sandboxControlUrl: server.sandboxControlUrl,
      gatewayUrl: (slug) => `http://${slug}.${server.hosts.sandboxPlatformDomain}:${server.port}`,
      port: server.port,
      rpcUrl: chain.rpcUrl,
      facilitatorUrl: chain.facilitatorUrl,
      chainManagerUrl: chain.chainManagerUrl,
      chainId: chain.sandboxChain.chainId,
      network: chain.sandboxChain.network,
      usdc: { ...chain.sandboxChain.usdc },
      twins: chain.twins.map(({ spec, chain: twin }) => ({
        name: spec.name,
        network: spec.network,
        v1Network: spec.v1Network,
        chainId: spec.chainId,
        rpcUrl: twin.rpcUrl,
        usdc: {
          address: twin.usdc.address,
          name: twin.usdc.name,
          version: twin.usdc.version,
          decimals: twin.usdc.decimals,
        },
      })),
      seller: { email, password, jwt, apiKey, client: createSvcClient({ baseUrl: server.sandboxControlUrl, apiKey }) },
      buyer: {
        address: buyer.address,
        privateKey,
        fetch: wrapFetchWithPayment(localFetch, payer),
        escrowPayments: () => [...escrowPayments.values()],
        reclaim,
      },
      fetch: localFetch,
      snapshot: async () => (await anonymous.snapshots.take()).id,
      revert: async (id) => void (await anonymous.snapshots.revert(id)),
      advanceTime: (seconds) => anonymous.time.advance(seconds),
      time: () => anonymous.time.get(),
      faults: {
        add: (input) => local.faults.add(input),
        list: async () => (await local.faults.list()).faults,
        clear: (faultId) => local.faults.clear(faultId),
      },
      restartChain: () => local.chain.restart(),
      events({ apiId, signal } = {}) {
        let unsubscribe = () => {}
        const queue = createEventQueue<PaymentEvent>({ signal, onEnd: () => unsubscribe() })
        unsubscribe = server.events.subscribe(user.id, (event) => {
          if (event.environment === 'development' && (apiId === undefined || event.api_id === apiId)) queue.push(event)
        })
        if (signal?.aborted) unsubscribe()
        return queue.iterator
      },
      async stop() {
        await sandbox.stop()
        rmSync(channels, { recursive: true, force: true })
      },
    }
  } catch (error) {
    await sandbox.stop()
    throw error
  }
}
