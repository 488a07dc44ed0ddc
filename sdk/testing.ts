/**
 * `startSandbox()` for your test suites (a vitest/jest globalSetup, or a beforeAll): an ephemeral svc sandbox on free
 * ports — chain, facilitator, control planes and gateway — with a verified seller, a Sandbox API key and a funded
 * buyer. Several can run at once (parallel CI jobs); `stop()` leaves nothing behind.
 */
import '../core/polyfill.js'
import { randomBytes } from 'node:crypto'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { scopes } from '../core/scopes.js'
import { startSandbox as startServices } from '../server/sandbox.js'
import { createSvcClient, type SvcClient } from './client.js'
import { localFetch } from './local-fetch.js'

export type StartSandboxOptions = {
  /** USDC the buyer starts with, in whole units. @defaultValue '1000' */
  buyerUsdc?: string
  /** Most the buyer's paying fetch pays for one request, in USDC atomic units. @defaultValue '10000000' (10 USDC) */
  maxAmountPerPayment?: string
  /** Fork this chain instead of starting offline. */
  forkUrl?: string
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
     * `fetch` that pays 402s with the buyer's USDC (the official x402 client with `@x402/evm`'s exact and upto
     * schemes): exact by EIP-3009 or Permit2, upto by Permit2. Its Permit2 allowance starts at 0: a Permit2 payment
     * signs an EIP-2612 permit where the seller sponsors it (svc's gateway does); elsewhere, approve Permit2 first
     * (the faucet's `approve_permit2`).
     */
    fetch: typeof globalThis.fetch
  }
  /** `fetch` that resolves `*.localhost` (Node's resolver does not). */
  fetch: typeof globalThis.fetch
  stop(): Promise<void>
}

export async function startSandbox(options: StartSandboxOptions = {}): Promise<TestSandbox> {
  const { buyerUsdc = '1000', maxAmountPerPayment = '10000000', forkUrl } = options
  const sandbox = await startServices({ port: 0, autoVerify: true, forkUrl, log: () => {} })
  try {
    const { server, chain } = sandbox
    const email = `seller-${randomBytes(6).toString('hex')}@svc.test`
    const password = randomBytes(12).toString('base64url')
    const anonymous = createSvcClient({ baseUrl: server.sandboxControlUrl })
    const { token: jwt } = await anonymous.auth.signup(email, password)
    const session = createSvcClient({ baseUrl: server.sandboxControlUrl, jwt, environment: 'development' })
    const { key: apiKey } = await session.keys.create({ name: 'startSandbox', scopes: [...scopes] })

    const privateKey = generatePrivateKey()
    const buyer = privateKeyToAccount(privateKey)
    await chain.manager.fund(buyer.address, 'eth', '10')
    await chain.manager.fund(buyer.address, 'usdc', buyerUsdc)
    // The RPC lets the schemes read the Permit2 allowance and sign an EIP-2612 permit for a sponsored Permit2 payment.
    const rpc = { rpcUrl: chain.rpcUrl }
    const payer = new x402Client()
      .register(chain.chain.network, new ExactEvmScheme(buyer, rpc))
      .register(chain.chain.network, new UptoEvmScheme(buyer, rpc))
    payer.setSpendControls({ allowedAssets: [{ network: chain.chain.network, asset: chain.chain.usdc.address, maxAmountPerPayment }] })

    return {
      controlUrl: server.controlUrl,
      sandboxControlUrl: server.sandboxControlUrl,
      gatewayUrl: (slug) => `http://${slug}.${server.hosts.sandboxPlatformDomain}:${server.port}`,
      port: server.port,
      rpcUrl: chain.rpcUrl,
      facilitatorUrl: chain.facilitatorUrl,
      chainManagerUrl: chain.chainManagerUrl,
      chainId: chain.chain.chainId,
      network: chain.chain.network,
      usdc: { ...chain.chain.usdc },
      seller: { email, password, jwt, apiKey, client: createSvcClient({ baseUrl: server.sandboxControlUrl, apiKey }) },
      buyer: { address: buyer.address, privateKey, fetch: wrapFetchWithPayment(localFetch, payer) },
      fetch: localFetch,
      stop: () => sandbox.stop(),
    }
  } catch (error) {
    await sandbox.stop()
    throw error
  }
}
